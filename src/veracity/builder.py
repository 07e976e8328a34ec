"""Wiring only: build the top-level fact-check graph and the per-claim subgraph."""

from __future__ import annotations

from functools import partial

from langchain_core.language_models import BaseChatModel
from langchain_core.retrievers import BaseRetriever
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Checkpointer

from veracity.context import Context
from veracity.evidence.base import EvidenceBackend
from veracity.nodes.evaluate import (
    evaluate_report,
    revise,
    route_after_evaluation,
    send_revisions,
)
from veracity.nodes.evidence import (
    gather_evidence,
    route_after_evidence,
    route_claim_start,
)
from veracity.nodes.extract import extract_claims
from veracity.nodes.gates import extraction_gate, verdict_gate
from veracity.nodes.judge import judge_claim
from veracity.report import finalize_report
from veracity.resources import Resources
from veracity.state import (
    ClaimInput,
    ClaimResults,
    ClaimState,
    FactCheckState,
    InputState,
    OutputState,
)

GATE = {"veracity_role": "gate"}
LLM = {"veracity_role": "llm"}
TOOL = {"veracity_role": "tool"}
RULES = {"veracity_role": "rules"}


def build_claim_graph(resources: Resources) -> CompiledStateGraph:
    """One claim's branch: gather evidence, judge, and gate the verdict (retrying the judge)."""
    builder = StateGraph(ClaimState, context_schema=Context, input_schema=ClaimInput, output_schema=ClaimResults)
    builder.add_node("gather_evidence", partial(gather_evidence, resources=resources), metadata=TOOL)
    builder.add_node("judge_claim", partial(judge_claim, resources=resources), metadata=LLM)
    builder.add_node("verdict_gate", verdict_gate, metadata=GATE)
    builder.add_conditional_edges(START, route_claim_start)
    builder.add_conditional_edges("gather_evidence", route_after_evidence)
    builder.add_edge("judge_claim", "verdict_gate")
    return builder.compile(name="check_claim")


def build_graph(
    *,
    model: BaseChatModel | str | None = None,
    backend: EvidenceBackend | BaseRetriever | None = None,
    checkpointer: Checkpointer = None,
    name: str = "factcheck",
) -> CompiledStateGraph:
    """Build and compile the fact-check graph.

    `model` and `backend` bind objects (a chat model, an evidence backend or any LangChain
    retriever); left out, they are created per run from the `Context` settings.
    """
    return compile_graph(Resources(model=model, backend=backend), checkpointer=checkpointer, name=name)


def compile_graph(
    resources: Resources, *, checkpointer: Checkpointer = None, name: str = "factcheck"
) -> CompiledStateGraph:
    """Compile the fact-check graph around an existing `Resources` (its models are reused)."""
    builder = StateGraph(
        FactCheckState, context_schema=Context, input_schema=InputState, output_schema=OutputState
    )
    builder.add_node("extract_claims", partial(extract_claims, resources=resources), metadata=LLM)
    builder.add_node("extraction_gate", extraction_gate, metadata=GATE)
    builder.add_node("check_claim", build_claim_graph(resources))
    builder.add_node("evaluate_report", evaluate_report, metadata=RULES)
    builder.add_node("revise", revise, metadata=RULES)
    builder.add_node("finalize_report", finalize_report)
    builder.add_edge(START, "extract_claims")
    builder.add_edge("extract_claims", "extraction_gate")
    builder.add_edge("check_claim", "evaluate_report")
    builder.add_conditional_edges("evaluate_report", route_after_evaluation)
    builder.add_conditional_edges("revise", send_revisions, ["check_claim"])
    builder.add_edge("finalize_report", END)
    return builder.compile(checkpointer=checkpointer, name=name)
