"""Wiring only: the top-level fact-check graph and the per-claim subgraph, every edge of them.

Each fork names all its destinations here; the rule that picks one is its router in
`veracity.routes`. The steps and routers get the run's wiring as `resources` (the protocols of
`veracity.protocols`); `compile_graph` takes any such wiring, and `build_graph` the shipped one
(`veracity.resources.Resources`, around bound objects). `graph` is the graph compiled with default
settings (`langgraph.json` points here).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial, update_wrapper
from typing import TYPE_CHECKING, Any

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Checkpointer

from veracity.context import Context
from veracity.default_context import DefaultContextGraph
from veracity.nodes.calculate import calculate_claim
from veracity.nodes.evaluate import evaluate_report
from veracity.nodes.evidence import gather_evidence
from veracity.nodes.extract import extract_claims
from veracity.nodes.extraction_gate import extraction_gate
from veracity.nodes.finalize import finalize_report
from veracity.nodes.judge import judge_claim
from veracity.nodes.page import verify_page
from veracity.nodes.revise import revise
from veracity.nodes.verdict_gate import verdict_gate
from veracity.progress import relay_progress
from veracity.protocols import StepResources
from veracity.resources import Resources
from veracity.routes import (
    route_after_calculation,
    route_after_evaluation,
    route_after_evidence,
    route_after_extraction,
    route_after_verdict,
    route_claim_start,
    send_revisions,
)
from veracity.state import (
    ClaimInput,
    ClaimResults,
    ClaimState,
    FactCheckState,
    InputState,
    OutputState,
)
from veracity.step_support.both_ways import both_ways
from veracity.step_support.deadline import (
    deadline_evaluation,
    deadline_final,
    give_up_extraction,
    unless_cut_off,
    within_deadline,
)
from veracity.step_support.names import (
    CALCULATE_CLAIM,
    CHECK_CLAIM,
    EVALUATE_REPORT,
    EXTRACT_CLAIMS,
    EXTRACTION_GATE,
    FINALIZE_REPORT,
    GATHER_EVIDENCE,
    JUDGE_CLAIM,
    REVISE,
    VERDICT_GATE,
    VERIFY_PAGE,
)

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel
    from langchain_core.retrievers import BaseRetriever

    from veracity.evidence.base import EvidenceBackend

FactCheckGraph = CompiledStateGraph[FactCheckState, Context, InputState, OutputState]
"""The compiled top-level graph: text in, report out."""
ClaimGraph = CompiledStateGraph[ClaimState, Context, ClaimInput, ClaimResults]
"""One claim's compiled branch: evidence, calculator, judge, verdict gate."""

GATE = {"veracity_role": "gate"}
LLM = {"veracity_role": "llm"}
TOOL = {"veracity_role": "tool"}
RULES = {"veracity_role": "rules"}


def add_node(builder: StateGraph[Any, Any, Any, Any], name: str, node: Callable[..., Any], **options: Any) -> None:
    """Add `node` as `name`, with a body for `invoke` and one for `ainvoke` (`veracity.step_support.both_ways`)."""
    builder.add_node(name, both_ways(node, name=name), **options)


def router(route: Callable[..., Any], resources: StepResources) -> Callable[..., Any]:
    """`route` bound to the run's wiring, under its own name (as the drawing and Studio show it)."""
    return update_wrapper(partial(route, resources=resources), route)


def build_claim_graph(resources: StepResources) -> ClaimGraph:
    """One claim's branch: gather evidence, compute or judge, and gate the verdict (retrying the judge)."""
    builder = StateGraph(ClaimState, context_schema=Context, input_schema=ClaimInput, output_schema=ClaimResults)
    add_node(builder, GATHER_EVIDENCE, partial(gather_evidence, resources=resources), metadata=TOOL)
    add_node(builder, CALCULATE_CLAIM, partial(calculate_claim, resources=resources), metadata=RULES)
    add_node(builder, JUDGE_CLAIM, partial(judge_claim, resources=resources), metadata=LLM)
    add_node(builder, VERDICT_GATE, partial(verdict_gate, resources=resources), metadata=GATE)
    add_node(builder, VERIFY_PAGE, partial(verify_page, resources=resources), metadata=TOOL)
    builder.add_conditional_edges(START, router(route_claim_start, resources), [GATHER_EVIDENCE, CALCULATE_CLAIM])
    builder.add_conditional_edges(GATHER_EVIDENCE, route_after_evidence, [CALCULATE_CLAIM, END])
    builder.add_conditional_edges(CALCULATE_CLAIM, route_after_calculation, [JUDGE_CLAIM, VERDICT_GATE])
    builder.add_edge(JUDGE_CLAIM, VERDICT_GATE)
    builder.add_conditional_edges(VERDICT_GATE, router(route_after_verdict, resources),
                                  [JUDGE_CLAIM, VERIFY_PAGE, END])
    builder.add_edge(VERIFY_PAGE, END)
    return DefaultContextGraph.adopt(builder.compile(name=CHECK_CLAIM))


def build_graph(
    *,
    model: BaseChatModel | str | None = None,
    backend: EvidenceBackend | BaseRetriever | None = None,
    checkpointer: Checkpointer = None,
    name: str = "factcheck",
) -> FactCheckGraph:
    """Build and compile the fact-check graph.

    `model` and `backend` bind objects (a chat model, an evidence backend or any LangChain
    retriever); left out, they are created per run from the `Context` settings.
    """
    return compile_graph(Resources(model=model, backend=backend), checkpointer=checkpointer, name=name)


def compile_graph(
    resources: StepResources, *, checkpointer: Checkpointer = None, name: str = "factcheck"
) -> FactCheckGraph:
    """Compile the fact-check graph around existing `resources` (its models are reused)."""
    builder = StateGraph(
        FactCheckState, context_schema=Context, input_schema=InputState, output_schema=OutputState
    )
    # The check's deadline: the slow steps run within the time left; once one is cut off the run
    # goes straight on to its deadline report (`veracity.step_support.deadline`).
    add_node(builder, EXTRACT_CLAIMS, within_deadline(EXTRACT_CLAIMS, partial(extract_claims, resources=resources),
                                                      starts_run=True), metadata=LLM)
    add_node(builder, EXTRACTION_GATE, unless_cut_off(partial(extraction_gate, resources=resources),
                                                      give_up_extraction), metadata=GATE)
    add_node(builder, CHECK_CLAIM, within_deadline(CHECK_CLAIM, relay_progress(build_claim_graph(resources))))
    add_node(builder, EVALUATE_REPORT, unless_cut_off(partial(evaluate_report, resources=resources),
                                                      deadline_evaluation), metadata=RULES)
    add_node(builder, REVISE, revise, metadata=RULES)
    add_node(builder, FINALIZE_REPORT, unless_cut_off(partial(finalize_report, resources=resources),
                                                      partial(deadline_final, resources=resources)))
    builder.add_edge(START, EXTRACT_CLAIMS)
    builder.add_edge(EXTRACT_CLAIMS, EXTRACTION_GATE)
    builder.add_conditional_edges(
        EXTRACTION_GATE, route_after_extraction, [EXTRACT_CLAIMS, CHECK_CLAIM, EVALUATE_REPORT]
    )
    builder.add_edge(CHECK_CLAIM, EVALUATE_REPORT)
    builder.add_conditional_edges(EVALUATE_REPORT, route_after_evaluation, [REVISE, FINALIZE_REPORT])
    builder.add_conditional_edges(REVISE, send_revisions, [CHECK_CLAIM])
    builder.add_edge(FINALIZE_REPORT, END)
    return DefaultContextGraph.adopt(builder.compile(checkpointer=checkpointer, name=name))


graph = build_graph()
"""The fact-check graph with every setting taken from the run's context (what `langgraph.json` serves); a run
given no context runs with `Context()`'s defaults (`veracity.default_context`).

Compiling is in-memory wiring (about 10 ms); models and indexes are created on first use, not here.
"""


def __getattr__(name: str) -> Any:
    """This module read as its compiled `graph` (PEP 562): `veracity.graph.invoke(...)` runs the graph.

    `import veracity; veracity.graph` is the compiled graph, but once this module has been imported by
    name, Python binds the module to `veracity.graph` instead; its other attributes are the graph's.
    """
    return getattr(graph, name)
