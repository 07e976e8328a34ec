"""The gate after extraction: retry with the exact error as feedback, or end in a GateFailure."""

from __future__ import annotations

import veracity
from tests.fakes import FakeWorld, claims_reply, hit, verdict_reply
from veracity.contracts import GateFailure
from veracity.nodes.extraction_gate import NO_CLAIMS_MESSAGE, locate

TEXT = "The Sydney Opera House opened in 1973."
CLAIM = "The Sydney Opera House opened in 1973."
NOTE = "Queen Elizabeth II opened the Sydney Opera House in 1973."


def _good(world: FakeWorld) -> None:
    world.evidence(CLAIM, [hit(NOTE)])
    world.judge(CLAIM, verdict_reply("supported", "c1-e1", NOTE))


def test_malformed_extraction_is_retried_with_the_error_as_feedback(world: FakeWorld) -> None:
    _good(world)
    world.extract({"claims": [{"claim": CLAIM}]}, claims_reply((CLAIM, TEXT)))
    report = veracity.check(TEXT, model=world.model(), backend=world.backend())

    assert report.ok
    assert len(world.extraction_prompts) == 2
    assert "rejected" not in world.extraction_prompts[0]
    feedback = world.extraction_prompts[1]
    assert "claims.0.source" in feedback and "Field required" in feedback  # the exact pydantic error
    gate = [r for r in report.trace if r.step == "extraction_gate"]
    assert [r.outcome for r in gate] == ["retry", "ok"]


def test_invalid_json_text_is_retried(world: FakeWorld) -> None:
    _good(world)
    fenced = f'```json\n{{"claims": [{{"claim": "{CLAIM}", "source": "{TEXT}"}}]}}\n```'
    world.extract("Sure! Here are the claims: ...", fenced)
    report = veracity.check(TEXT, model=world.model(), backend=world.backend())
    assert report.ok
    assert "not valid JSON" in world.extraction_prompts[1]


def test_source_not_in_text_is_rejected(world: FakeWorld) -> None:
    _good(world)
    world.extract(claims_reply((CLAIM, "The opera house opened long ago.")), claims_reply((CLAIM, TEXT)))
    report = veracity.check(TEXT, model=world.model(), backend=world.backend())
    assert report.ok
    assert "is not a verbatim passage of the text" in world.extraction_prompts[1]


def test_persistent_garbage_ends_in_a_gate_failure_not_a_traceback(world: FakeWorld) -> None:
    world.extract("garbage", {"nonsense": True}, [1, 2, 3])
    report = veracity.check(TEXT, model=world.model(), backend=world.backend(), max_extraction_attempts=3)

    assert not report.ok
    assert len(world.extraction_prompts) == 3
    assert report.claims == [] and report.verdicts == []
    [failure] = report.failures
    assert isinstance(failure, GateFailure) and failure.step == "extract" and failure.attempts == 3
    assert len(failure.errors) == 3
    assert [i.code for i in report.evaluation.issues] == ["extraction_failed"]
    assert world.search_calls == {}


def test_model_errors_count_as_failed_attempts(world: FakeWorld) -> None:
    _good(world)
    world.extract(ConnectionError("server went away"), claims_reply((CLAIM, TEXT)))
    report = veracity.check(TEXT, model=world.model(), backend=world.backend())
    assert report.ok
    assert "the model call failed: server went away" in world.extraction_prompts[1]


def test_text_without_claims_gives_an_empty_report_with_a_message(world: FakeWorld) -> None:
    world.extract(claims_reply())
    report = veracity.check("Isn't the weather lovely today?", model=world.model(), backend=world.backend())
    assert report.ok
    assert report.claims == [] and report.summary.claims == 0
    assert report.message == NO_CLAIMS_MESSAGE


def test_locate_finds_spans_despite_whitespace_and_case() -> None:
    text = "First sentence.  The   Opera House\nopened in 1973."
    assert locate("the opera house opened", text) == (17, 41)
    assert text[17:41].lower().split() == ["the", "opera", "house", "opened"]
    assert locate("not there", text) is None
