"""What a check stopped at its deadline keeps: node updates merged by the state's own reducers."""

from __future__ import annotations

from langgraph.channels import BinaryOperatorAggregate
from langgraph.graph import StateGraph

from veracity.contracts import TraceRecord, Verdict
from veracity.run.deadline import PartialRun
from veracity.state import ClaimState, FactCheckState, reducers


def verdict(claim_id: str, label: str = "supported") -> Verdict:
    return Verdict(claim_id=claim_id, label=label, reason="scripted")  # type: ignore[arg-type]


def record(step: str) -> TraceRecord:
    return TraceRecord(step=step, outcome="ok")


def test_the_reducers_read_are_those_langgraph_applies() -> None:
    for schema in (FactCheckState, ClaimState):
        applied = {key: channel.operator for key, channel in StateGraph(schema).channels.items()
                   if isinstance(channel, BinaryOperatorAggregate)}
        assert reducers(schema) == applied and applied


def test_updates_merge_per_claim_results_append_the_trace_and_replace_the_rest() -> None:
    run = PartialRun({"text": "t"})
    run.values({"text": "t", "revision": 0, "verdicts": {"c1": verdict("c1"), "c2": verdict("c2")},
                "trace": [record("extract_claims")]})
    run.updates({
        "check_claim": {"verdicts": {"c1": None, "c3": verdict("c3", "refuted")}, "trace": [record("judge_claim")]},
        "evaluate_report": {"revision": 1, "trace": [record("evaluate_report")]},
        "silent": None,
    })
    assert run.state["verdicts"] == {"c2": verdict("c2"), "c3": verdict("c3", "refuted")}
    assert [r.step for r in run.state["trace"]] == ["extract_claims", "judge_claim", "evaluate_report"]
    assert run.state["revision"] == 1 and run.state["text"] == "t"


def test_a_key_seen_first_in_an_update_starts_empty() -> None:
    run = PartialRun({"text": "t"})
    run.updates({"check_claim": {"verdicts": {"c1": None, "c2": verdict("c2")}, "trace": [record("judge_claim")]}})
    assert run.state["verdicts"] == {"c2": verdict("c2")}
    assert [r.step for r in run.state["trace"]] == ["judge_claim"]
