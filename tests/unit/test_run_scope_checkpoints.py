"""A run's `RunScope` rides in its config but never into a checkpoint, whichever checkpointer saves the run."""

from __future__ import annotations

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

from veracity.graph import build_graph
from veracity.run_scope import RUN_SCOPE, RunScope

POLICY = "Returns within 14 days. Return shipping costs 5 dollars."
ANSWER = "You can return it within 30 days. Return shipping costs 5 dollars."


def api_server_saver() -> InMemorySaver:
    """The in-memory checkpointer of `langgraph dev`: it copies configurable values into metadata."""
    inmem = pytest.importorskip("langgraph_runtime_inmem.checkpoint")
    return inmem.InMemorySaver(serde=JsonPlusSerializer(pickle_fallback=True))  # as the server's, which pickles


@pytest.mark.parametrize("make_saver", [InMemorySaver, api_server_saver], ids=["langgraph", "langgraph-api"])
def test_a_checkpointed_run_saves_no_run_scope(make_saver) -> None:
    saver = make_saver()
    graph = build_graph(checkpointer=saver)
    config = {"configurable": {"thread_id": "scope"}}
    state = graph.invoke({"text": ANSWER}, config, context={"model": "offline", "source_text": POLICY})
    assert [verdict.claim_id for verdict in state["report"].verdicts] == ["c1", "c2"]
    saved = list(saver.list(config))
    assert saved, "the run was checkpointed"
    for checkpoint in saved:
        assert RUN_SCOPE not in checkpoint.metadata
        assert not any(isinstance(value, RunScope) for value in checkpoint.metadata.values())
