"""Progress of a check as it happens: one typed event, emitted by the graph's nodes.

Nodes emit a `ProgressEvent` on LangGraph's ``custom`` stream (`get_stream_writer`) whenever
something a person would want to see happens: extraction starts, claims are found, a claim gets a
verdict (from the verdict gate, or from the evidence step when there was nothing to judge), or a
revise round starts. The command line, the HTTP stream, the web page and `Guard` all read these
events instead of recognising graph nodes by name.

Verdicts are reached inside the per-claim subgraph; `relay_progress` carries its events up to the
caller's top-level ``custom`` stream, so a Studio or SDK client hears each verdict once, whether or
not it streams subgraphs.
"""

from __future__ import annotations

from collections.abc import Awaitable, Sequence
from typing import TYPE_CHECKING, Any, Literal, Protocol

from langchain_core.runnables import RunnableConfig
from langgraph.config import get_stream_writer
from langgraph.pregel import Pregel
from pydantic import BaseModel, Field

from veracity.contracts import Claim, Evidence, Verdict

if TYPE_CHECKING:
    from veracity.state import ClaimState

ProgressKind = Literal["extracting", "claims", "verdict", "revising"]
"""What happened: extraction started, claims were found, a claim got a verdict, a revise round started."""


class ProgressEvent(BaseModel):
    """One step of a check, as it happens."""

    kind: ProgressKind
    attempt: int = Field(default=1, description="'extracting': the extraction attempt, from 1.")
    claims: list[Claim] = Field(
        default_factory=list,
        description="'claims': every claim found; 'revising': the claims sent back to the judge.",
    )
    claim: Claim | None = Field(default=None, description="'verdict': the claim judged.")
    verdict: Verdict | None = Field(default=None, description="'verdict': its verdict (a revise round may replace it).")
    evidence: Evidence | None = Field(default=None, description="'verdict': the evidence item the verdict cites.")
    revision: int = Field(default=0, description="The revise round: 0 for the first pass.")


def emit(event: ProgressEvent) -> None:
    """Send `event` on the custom stream of the graph run this node belongs to (a no-op when nobody listens)."""
    get_stream_writer()(event)


def emit_verdict(state: ClaimState, verdict: Verdict, evidence: Sequence[Evidence] = ()) -> None:
    """Tell listeners that this claim branch reached `verdict` (with the evidence item it cites, if any)."""
    cited = next((item for item in evidence if item.id == verdict.evidence_id), None)
    emit(ProgressEvent(kind="verdict", claim=state["claim"], verdict=verdict, evidence=cited,
                       revision=state.get("revision", 0)))


class SubgraphNode(Protocol):
    """A node function that runs a subgraph on the state it is sent, with the run's config."""

    def __call__(self, state: Any, config: RunnableConfig) -> Awaitable[Any]:
        """Run the subgraph on `state`."""
        ...


def relay_progress(subgraph: Pregel[Any, Any, Any, Any]) -> SubgraphNode:
    """A node that runs `subgraph` and passes its progress events on to the parent run's ``custom`` stream.

    LangGraph gives a subgraph's nodes a working stream writer only when the caller streams with
    ``subgraphs=True``; otherwise their events are dropped, so a client streaming
    ``["updates", "custom"]`` (the SDK's default) would hear no verdict. This node asks the subgraph
    for its ``custom`` stream itself and re-emits each event from the parent's node: it arrives
    once, on the top-level ``custom`` stream, with or without ``subgraphs=True``. The subgraph's own
    steps still stream under its namespace when the caller asks for subgraphs, and LangGraph still
    sees the subgraph (state, checkpoints, drawing), since the node holds it.
    """

    async def run_subgraph(state: Any, config: RunnableConfig) -> Any:
        relay = get_stream_writer()
        output: Any = None
        async for mode, chunk in subgraph.astream(state, config, stream_mode=["custom", "values"],
                                                  output_keys=subgraph.output_channels):
            if mode == "custom":
                relay(chunk)
            else:
                output = chunk
        return output  # the last "values" chunk: the subgraph's output

    run_subgraph.__name__ = subgraph.get_name()
    return run_subgraph
