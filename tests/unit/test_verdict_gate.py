"""The gate after judging: schema, cited id retrieved for the claim, whole quote present; retry, revise, downgrade."""

from __future__ import annotations

import pytest
from langgraph.runtime import Runtime

import veracity
import veracity.nodes.verdict_gate
from tests.fakes import FakeWorld, claims_reply, hit, verdict_reply
from veracity.context import Context
from veracity.contracts import Claim, Evidence, GateFailure
from veracity.nodes.verdict_gate import verdict_gate
from veracity.protocols import Judge, Ruled
from veracity.resources import Resources
from veracity.run_scope import RunScope
from veracity.state import ClaimState, ClaimUpdate

TEXT = "Canberra is the capital of Australia. The Sydney Opera House opened in 1973."
C1, C2 = "Canberra is the capital of Australia.", "The Sydney Opera House opened in 1973."
NOTE1 = "Canberra is the capital city of Australia."
NOTE2 = "Queen Elizabeth II opened the Sydney Opera House on 20 October 1973."


def world_with(world: FakeWorld) -> FakeWorld:
    world.extract(claims_reply((C1, C1), (C2, C2)))
    world.evidence(C1, [hit(NOTE1)])
    world.evidence(C2, [hit(NOTE2)])
    world.judge(C1, verdict_reply("supported", "c1-e1", NOTE1))
    return world


def run(world: FakeWorld, **settings):
    return veracity.check(TEXT, model=world.model(), backend=world.backend(), **settings)


def test_absent_quote_is_sent_back_and_fixed_by_the_retry(world: FakeWorld) -> None:
    world_with(world).judge(C2, verdict_reply("supported", "c2-e1", "The Opera House opened in 1973"),
                            verdict_reply("supported", "c2-e1", "opened the Sydney Opera House on 20 October 1973"))
    report = run(world)
    assert report.ok
    assert world.judge_calls[C2] == 2
    assert "does not appear verbatim in the cited evidence" in world.judge_prompts[C2][1]
    verdict = report.verdict_for("c2")
    assert verdict.citation_verified and verdict.attempts == 2 and verdict.revision == 0


def test_only_the_opening_words_of_a_quote_is_not_enough(world: FakeWorld) -> None:
    misquote = "Queen Elizabeth II opened the Sydney Opera House in 1974"
    world_with(world).judge(C2, verdict_reply("supported", "c2-e1", misquote))
    report = run(world, max_judge_attempts=1, max_revisions=0)
    verdict = report.verdict_for("c2")
    assert verdict.label == "unverifiable" and verdict.downgraded and not verdict.citation_verified
    assert not report.ok


def test_quote_absent_in_every_gate_attempt_is_fixed_by_a_revise_round(world: FakeWorld) -> None:
    bad = verdict_reply("supported", "c2-e1", "invented sentence")
    good = verdict_reply("supported", "c2-e1", "opened the Sydney Opera House on 20 October 1973")
    world_with(world).judge(C2, bad, bad, good)
    report = run(world, max_judge_attempts=2, max_revisions=2)

    assert report.ok and report.revisions == 1
    verdict = report.verdict_for("c2")
    assert verdict.citation_verified and verdict.revision == 1
    assert report.failures == []
    revise_prompt = world.judge_prompts[C2][2]
    assert "rejected by the report evaluation" in revise_prompt and "c2" in revise_prompt
    assert world.search_calls[C2] == 1  # a revise round re-judges, it does not search again


def test_quote_still_absent_at_the_cap_is_downgraded(world: FakeWorld) -> None:
    world_with(world).judge(C2, verdict_reply("refuted", "c2-e1", "It opened in 1950"))
    report = run(world, max_judge_attempts=3, max_revisions=2)

    assert not report.ok
    assert world.judge_calls[C2] == 3 * (1 + 2)
    verdict = report.verdict_for("c2")
    assert verdict.label == "unverifiable" and verdict.downgraded
    assert verdict.reason.startswith("citation not found in evidence")
    [failure] = report.failures
    assert isinstance(failure, GateFailure) and failure.step == "judge" and failure.claim_id == "c2"
    assert {i.code for i in report.evaluation.issues} == {"judge_gate_failure"}
    assert report.verdict_for("c1").label == "supported"


def test_citing_an_evidence_id_never_retrieved_for_the_claim_is_caught(world: FakeWorld) -> None:
    # c1-e1 exists in the report, but it was retrieved for another claim.
    world_with(world).judge(C2, verdict_reply("supported", "c1-e1", NOTE1),
                            verdict_reply("supported", "c2-e1", NOTE2))
    report = run(world)
    assert report.ok
    assert "was not retrieved for this claim" in world.judge_prompts[C2][1]
    assert report.verdict_for("c2").evidence_id == "c2-e1"


def test_schema_garbage_from_the_judge_is_downgraded_without_a_traceback(world: FakeWorld) -> None:
    world_with(world).judge(C2, {"label": "maybe"}, "not json at all")
    report = run(world, max_judge_attempts=2, max_revisions=0)
    verdict = report.verdict_for("c2")
    assert verdict.label == "unverifiable" and verdict.reason.startswith("judge output failed validation")
    assert not report.ok


def test_unverifiable_needs_no_citation(world: FakeWorld) -> None:
    world_with(world).judge(C2, verdict_reply("unverifiable", reason="the note does not say"))
    report = run(world)
    assert report.ok
    verdict = report.verdict_for("c2")
    assert verdict.label == "unverifiable" and verdict.quote is None and not verdict.downgraded


BERLIN = "Berlin is the capital of Germany."
NILE = "The Nile's two main branches meet at Khartoum in Sudan."
GERMANY = "Berlin has been the capital of Germany since reunification in 1990."


def berlin_world(world: FakeWorld, *replies: object) -> FakeWorld:
    world.extract(claims_reply((BERLIN, BERLIN)))
    world.evidence(BERLIN, [hit(NILE), hit(GERMANY)])
    return world.judge(BERLIN, *replies)


def test_a_chat_model_verdict_gets_only_the_checks_every_judge_gets(world: FakeWorld) -> None:
    # before: the offline judge's relevance rule (an English word matcher) sent this verdict back
    berlin_world(world, verdict_reply("refuted", "c1-e1", NILE))
    report = veracity.check(BERLIN, model=world.model(), backend=world.backend(), max_revisions=0)
    assert world.judge_calls[BERLIN] == 1
    verdict = report.verdict_for("c1")
    assert verdict.label == "refuted" and verdict.evidence_id == "c1-e1" and verdict.citation_verified


class StrictJudge:
    """A judge without a chat model whose own standard refuses any citation of the Nile note."""

    def rule(self, claim: str, evidence: list[Evidence], *, min_precision: float, source_mode: bool) -> Ruled:
        raise AssertionError("the gate does not judge")

    def citation_problem(self, claim: str, cited: Evidence) -> str | None:
        return f"the cited evidence {cited.id!r} is not about Berlin" if cited.text == NILE else None

    def version(self) -> str:
        return "strict"


class WithStrictJudge(Resources):
    def offline_judge(self, context: Context | None = None, run: RunScope | None = None) -> Judge:
        return StrictJudge()


def gate(state: ClaimState, context: Context) -> ClaimUpdate:
    return verdict_gate(state, Runtime(context=context), {}, resources=WithStrictJudge())


def test_a_judges_own_citation_standard_sends_its_verdict_back_then_makes_it_unverifiable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(veracity.nodes.verdict_gate, "emit_verdict", lambda *args: None)  # no run to tell
    claim = Claim(id="c1", text=BERLIN, source=BERLIN, span=(0, len(BERLIN)))
    evidence = [Evidence(id="c1-e1", claim_id="c1", backend="kb", text=NILE)]
    answer = {"label": "refuted", "reason": "r", "evidence_id": "c1-e1", "quote": NILE}
    state: ClaimState = {"claim": claim, "revision": 0, "claim_evidence": evidence,
                         "judge_attempts": {"attempt": 1, "payload": answer, "call_error": None}}
    offline = Context(model="offline", max_judge_attempts=2)
    first = gate(state, offline)
    assert first["judge_attempts"]["decision"] == "retry" and "not about Berlin" in first["judge_attempts"]["errors"][0]
    last = gate({**state, "judge_attempts": {**first["judge_attempts"], "attempt": 2, "payload": answer}}, offline)
    verdict = last["verdicts"]["c1"]
    assert verdict.label == "unverifiable" and not verdict.downgraded and "not about Berlin" in verdict.reason
    # the same answer from a chat model: its judge has no standard of its own, so the verdict stands
    chat = gate(state, Context(model="openai:gpt-4.1-mini", max_judge_attempts=2))
    assert chat["verdicts"]["c1"].label == "refuted"
