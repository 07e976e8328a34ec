"""Runs are named, tagged and carry per-node metadata for LangSmith; tracing itself is off in tests."""

from __future__ import annotations

import os

from langchain_core.tracers.context import collect_runs

import veracity
from tests.fakes import FakeWorld, claims_reply, hit, verdict_reply

CLAIM = "Canberra is the capital of Australia."
NOTE = "Canberra is the capital city of Australia."


def test_tracing_is_forced_off_in_tests() -> None:
    assert os.environ["LANGSMITH_TRACING"] == "false"


def test_runs_are_named_tagged_and_carry_node_metadata(world: FakeWorld) -> None:
    world.extract(claims_reply((CLAIM, CLAIM))).evidence(CLAIM, [hit(NOTE)])
    world.judge(CLAIM, verdict_reply("supported", "c1-e1", NOTE))
    with collect_runs() as collector:
        veracity.check(CLAIM, model=world.model(), backend=world.backend(), tags=["ci"])
    runs = {run.name: run for run in collector.traced_runs}

    root = runs["veracity.check"]
    assert {"veracity", "ci"} <= set(root.tags)
    assert root.extra["metadata"]["veracity_model"] == "ScriptedChatModel"
    for name, node in [("extract_claims.model", "extract_claims"), ("judge_claim.model", "judge_claim")]:
        metadata = runs[name].extra["metadata"]
        assert metadata["langgraph_node"] == node and metadata["veracity_role"] == "llm"


def test_run_metadata_names_the_resolved_model(monkeypatch) -> None:
    """With no model setting, the metadata names what actually ran, not the empty setting."""
    backend = FakeWorld().evidence(CLAIM, [hit(NOTE)]).backend()
    with collect_runs() as collector:
        veracity.check(CLAIM, backend=backend)
    root = next(run for run in collector.traced_runs if run.name == "veracity.check")
    assert root.extra["metadata"]["veracity_model"] == "offline"
    assert root.extra["metadata"]["veracity_mode"] == "offline+fake"
