"""The routers: a gate writes its decision into its step's attempts, and its router reads it to pick the next node."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime
from langgraph.types import Send

from veracity.context import Context
from veracity.contracts import Claim, Computation, Evidence, GateFailure, Verdict
from veracity.nodes.extraction_gate import extraction_gate
from veracity.nodes.verdict_gate import verdict_gate
from veracity.resources import Resources
from veracity.routes import route_after_calculation, route_after_extraction, route_after_verdict
from veracity.state import ClaimState, FactCheckState, reducers

TEXT = "Canberra is the capital of Australia."
NOTE = "Canberra is the capital city of Australia."
CLAIM = Claim(id="c1", text=TEXT, source=TEXT, span=(0, len(TEXT)))
WEB = Evidence(id="c1-e1", claim_id="c1", backend="web", title="Note", url="https://notes.example/n", text=NOTE)


RESOURCES = Resources()
"""The shipped wiring (the steps and routers get it from the graph)."""


def runtime(**settings: Any) -> Runtime[Context]:
    return Runtime(context=Context(**settings))


def merged(state: Any, update: Any) -> Any:
    """`state` after `update`, merged as the graph merges it (by each key's reducer)."""
    rules = reducers(FactCheckState) | reducers(ClaimState)
    return {**state, **{key: rules[key](state.get(key), value) if key in rules else value
                        for key, value in update.items()}}


def supported(**changes: Any) -> Verdict:
    return Verdict(claim_id="c1", label="supported", reason="scripted", evidence_id="c1-e1", quote=NOTE,
                   citation_verified=True, **changes)


def test_a_rejected_extraction_is_retried_until_the_attempts_run_out() -> None:
    answer = {"payload": {"claims": "not a list"}, "call_error": None}
    state: FactCheckState = {"text": TEXT, "extraction_attempts": {"attempt": 1, **answer}}
    update = extraction_gate(state, runtime(max_extraction_attempts=2), resources=RESOURCES)
    assert update["extraction_attempts"]["decision"] == "retry" and "extraction_failure" not in update
    assert route_after_extraction(merged(state, update)) == "extract_claims"

    state = merged(merged(state, update), {"extraction_attempts": {"attempt": 2, **answer}})
    update = extraction_gate(state, runtime(max_extraction_attempts=2), resources=RESOURCES)
    assert update["extraction_attempts"]["decision"] == "give_up" and update["claims"] == []
    assert isinstance(update["extraction_failure"], GateFailure) and len(update["extraction_attempts"]["errors"]) == 2
    assert route_after_extraction(merged(state, update)) == "evaluate_report"


def test_a_rejected_input_goes_straight_to_evaluation() -> None:
    failure = GateFailure(step="input", attempts=1, errors=["empty"], message="input rejected: empty")
    state: FactCheckState = {"text": "", "input_failure": failure}
    update = extraction_gate(state, runtime(), resources=RESOURCES)
    assert update == {"claims": [], "extraction_attempts": {"decision": "give_up"}}
    assert route_after_extraction(merged(state, update)) == "evaluate_report"


def test_accepted_claims_fan_out_one_branch_each_and_none_go_to_evaluation() -> None:
    other = CLAIM.model_copy(update={"id": "c2"})
    state: FactCheckState = {"claims": [CLAIM, other], "extraction_attempts": {"decision": "accept"},
                             "source_mode": True}
    sends = route_after_extraction(state)
    assert sends == [Send("check_claim", {"claim": CLAIM, "revision": 0, "source_mode": True}),
                     Send("check_claim", {"claim": other, "revision": 0, "source_mode": True})]
    assert route_after_extraction({"claims": [], "extraction_attempts": {"decision": "accept"}}) == "evaluate_report"


def test_a_computed_claim_goes_to_the_gate_and_any_other_to_the_judge() -> None:
    state: ClaimState = {"claim": CLAIM, "revision": 0}
    assert route_after_calculation({**state, "computation": None}) == "judge_claim"
    assert route_after_calculation({**state, "computation": Computation(text="2 + 2 = 4: holds")}) == "verdict_gate"


def test_the_verdict_gate_sends_a_bad_citation_back_then_gives_up() -> None:
    payload = {"label": "supported", "reason": "r", "evidence_id": "c1-e9", "quote": NOTE}
    state: ClaimState = {"claim": CLAIM, "revision": 0, "claim_evidence": [WEB],
                         "judge_attempts": {"attempt": 1, "payload": payload, "call_error": None}}
    update = verdict_gate(state, runtime(max_judge_attempts=2), {}, resources=RESOURCES)
    assert update["judge_attempts"]["decision"] == "retry" and "verdicts" not in update
    after = route_after_verdict(merged(state, update), runtime(max_judge_attempts=2), resources=RESOURCES)
    assert after == "judge_claim"


def test_an_accepted_web_verdict_has_its_page_checked_and_a_downgraded_one_ends() -> None:
    state: ClaimState = {"claim": CLAIM, "revision": 0, "claim_evidence": [WEB]}
    accepted: ClaimState = {**state, "verdicts": {"c1": supported()}, "judge_attempts": {"decision": "accept"}}
    assert route_after_verdict(accepted, runtime(), resources=RESOURCES) == "verify_page"
    assert route_after_verdict(accepted, runtime(verify_pages=False), resources=RESOURCES) == "__end__"
    kb: ClaimState = {**accepted, "claim_evidence": [WEB.model_copy(update={"backend": "kb"})]}
    assert route_after_verdict(kb, runtime(), resources=RESOURCES) == "__end__"
    downgraded = Verdict(claim_id="c1", label="unverifiable", reason="gave up", downgraded=True)
    assert route_after_verdict({**state, "verdicts": {"c1": downgraded}, "judge_attempts": {"decision": "give_up"}},
                               runtime(), resources=RESOURCES) == "__end__"
    # the decision, not the verdict's look, says whether the page is checked
    gave_up: ClaimState = {**accepted, "judge_attempts": {"decision": "give_up"}}
    assert route_after_verdict(gave_up, runtime(), resources=RESOURCES) == "__end__"
