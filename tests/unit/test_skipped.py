"""Courtesy, questions, opinions and predictions are not judged as facts: they are listed on the report as
skipped, with why, whether the offline splitter or a chat model extracted them."""

from __future__ import annotations

import pytest

import veracity
from tests.fakes import FakeWorld, claims_reply, hit, verdict_reply
from veracity.contracts import SKIP_REASONS
from veracity.nodes.extract import extraction_schema
from veracity.offline.extract import extract_claims_offline

FACT = "Sydney is the capital of Australia."


@pytest.mark.parametrize(("statement", "reason"), [
    ("The Eiffel Tower is overrated.", "opinion"),
    ("Shakespeare is the greatest writer ever.", "opinion"),
    ("We predict that the Nile will dry up.", "prediction"),
    ("Experts expect the prices to fall.", "prediction"),
    ("Prices will fall next year.", "prediction"),
    ("The Sun will become a red giant in about 5 billion years.", "prediction"),
])
def test_the_offline_splitter_skips_with_a_reason(statement: str, reason: str) -> None:
    payload = extract_claims_offline(f"{FACT} {statement}")
    assert [claim["claim"] for claim in payload["claims"]] == [FACT]
    assert payload["skipped"] == [{"source": statement.rstrip("."), "reason": reason}]


def test_a_promise_in_source_mode_is_a_claim_not_a_prediction() -> None:
    payload = extract_claims_offline("You will get a refund next week.", source_mode=True)
    assert payload["claims"] and not payload["skipped"]


def test_skipped_statements_are_on_the_report_with_their_span_and_do_not_change_pass() -> None:
    text = "Canberra is the capital of Australia. The Sydney Opera House is overrated."
    report = veracity.check(text, model="offline", search="kb")
    assert [claim.text for claim in report.claims] == ["Canberra is the capital of Australia."]
    [skipped] = report.skipped
    assert skipped.reason == "opinion" and "opinion" in skipped.message
    assert text[skipped.span[0]:skipped.span[1]] == skipped.source == "The Sydney Opera House is overrated"
    assert report.passed


def test_only_opinions_gives_no_claims_and_lists_them() -> None:
    report = veracity.check("The Eiffel Tower is overrated.", model="offline", search="kb")
    assert report.claims == [] and [s.reason for s in report.skipped] == ["opinion"]


def test_the_chat_model_lists_what_it_skipped(world: FakeWorld) -> None:
    text = "The Sydney Opera House opened in 1973. It will host the 2040 Olympics."
    claim = "The Sydney Opera House opened in 1973."
    note = "Queen Elizabeth II opened the Sydney Opera House in 1973."
    payload = claims_reply((claim, "The Sydney Opera House opened in 1973."))
    payload["skipped"] = [{"source": "It will host the 2040 Olympics.", "reason": "prediction"},
                          {"source": "a sentence the text does not have", "reason": "opinion"}]
    world.extract(payload)
    world.evidence(claim, [hit(note)])
    world.judge(claim, verdict_reply("supported", "c1-e1", note))
    report = veracity.check(text, model=world.model(), backend=world.backend())
    assert [(s.source, s.reason) for s in report.skipped] == [("It will host the 2040 Olympics.", "prediction")]
    assert "skipped" in world.extraction_prompts[0]
    assert report.passed


def test_an_unknown_skip_reason_is_a_gate_error_that_is_retried(world: FakeWorld) -> None:
    claim = "The Sydney Opera House opened in 1973."
    bad = claims_reply((claim, claim))
    bad["skipped"] = [{"source": claim, "reason": "boring"}]
    world.extract(bad, claims_reply((claim, claim)))
    world.evidence(claim, [hit(claim)])
    world.judge(claim, verdict_reply("supported", "c1-e1", claim))
    report = veracity.check(claim, model=world.model(), backend=world.backend())
    assert report.ok and "skipped.0.reason" in world.extraction_prompts[1]


SUPPORT = ("Thanks for reaching out! The Sydney Opera House opened in 1973. Is the museum open on Sundays? "
           "Is there anything else I can help you with?")


def test_the_offline_splitter_lists_courtesy_and_questions_with_their_spans() -> None:
    payload = extract_claims_offline(SUPPORT)
    assert [claim["claim"] for claim in payload["claims"]] == ["The Sydney Opera House opened in 1973."]
    assert payload["skipped"] == [
        {"source": "Thanks for reaching out", "reason": "courtesy"},
        {"source": "Is the museum open on Sundays", "reason": "question"},
        {"source": "Is there anything else I can help you with", "reason": "courtesy"},
    ]
    report = veracity.check(SUPPORT, model="offline", search="kb")
    assert [(s.reason, SUPPORT[s.span[0]:s.span[1]]) for s in report.skipped] == [
        ("courtesy", "Thanks for reaching out"), ("question", "Is the museum open on Sundays"),
        ("courtesy", "Is there anything else I can help you with"),
    ]
    assert all(s.message for s in report.skipped)


def test_courtesy_inside_a_sentence_is_listed_and_the_fact_kept() -> None:
    text = "I understand, and I'm sorry for the trouble, but the store opens at 9 am."
    payload = extract_claims_offline(text)
    assert [claim["claim"] for claim in payload["claims"]] == ["The store opens at 9 am."]
    assert payload["skipped"] == [{"source": "I understand, and I'm sorry for the trouble", "reason": "courtesy"}]


def test_only_courtesy_questions_and_opinions_passes_and_says_what_was_skipped() -> None:
    text = "Happy to help! Is the museum open on Sundays? Vienna is the most beautiful city in Europe."
    report = veracity.check(text, model="offline", search="kb")
    assert report.claims == [] and report.passed
    assert [s.reason for s in report.skipped] == ["courtesy", "question", "opinion"]
    assert report.message is not None
    for quoted in ("Happy to help", "Is the museum open on Sundays", "Vienna is the most beautiful city in Europe"):
        assert quoted in report.message


def test_the_chat_models_courtesy_opinions_and_predictions_are_skipped_not_judged(world: FakeWorld) -> None:
    text = ("Thanks for reaching out! Sydney is the capital of Australia. Vienna is the most beautiful city in "
            "Europe. I think the opera is overrated. The Lakers will win the championship. Canberra became the "
            "capital in 1913.")
    fact, other = "Sydney is the capital of Australia.", "Canberra became the capital in 1913."
    world.extract(claims_reply(
        ("Thanks for reaching out.", "Thanks for reaching out!"),
        (fact, fact),
        ("Vienna is the most beautiful city in Europe.", "Vienna is the most beautiful city in Europe."),
        ("The opera is overrated.", "I think the opera is overrated."),
        ("The Lakers will win the championship.", "The Lakers will win the championship."),
        (other, other),
    ))
    note = "Canberra is the capital city of Australia; it was named the capital in 1913."
    for claim in (fact, other):
        world.evidence(claim, [hit(note)])
    world.judge(fact, verdict_reply("refuted", "c1-e1", note))
    world.judge(other, verdict_reply("supported", "c2-e1", note))
    report = veracity.check(text, model=world.model(), backend=world.backend())
    assert [(c.id, c.text) for c in report.claims] == [("c1", fact), ("c2", other)]
    assert set(world.judge_calls) == {fact, other}  # nothing else was judged
    assert [(s.source, s.reason) for s in report.skipped] == [
        ("Thanks for reaching out!", "courtesy"),
        ("Vienna is the most beautiful city in Europe.", "opinion"),
        ("I think the opera is overrated.", "opinion"),
        ("The Lakers will win the championship.", "prediction"),
    ]
    assert all(text[s.span[0]:s.span[1]] == s.source for s in report.skipped)
    assert len(world.extraction_prompts) == 1  # moving a claim to skipped is no gate error: no retry
    assert report.outcome == "fail" and report.summary.claims == 2  # decided by the real claims only


def test_a_chat_model_that_returns_only_courtesy_as_claims_gives_a_passing_text(world: FakeWorld) -> None:
    text = "Happy to help. Is there anything else?"
    world.extract(claims_reply(("Happy to help.", "Happy to help."),
                               ("Is there anything else?", "Is there anything else?")))
    report = veracity.check(text, model=world.model(), backend=world.backend())
    assert report.claims == [] and report.passed and not world.judge_calls
    assert [s.reason for s in report.skipped] == ["courtesy", "courtesy"]
    assert report.message is not None and "Happy to help" in report.message


def test_a_question_the_chat_model_turned_into_a_claim_is_skipped_as_a_question(world: FakeWorld) -> None:
    text = "Is the museum open on Sundays?"
    world.extract(claims_reply(("The museum is open on Sundays.", text)))
    report = veracity.check(text, model=world.model(), backend=world.backend())
    assert report.claims == [] and [(s.source, s.reason) for s in report.skipped] == [(text, "question")]


def test_the_chat_model_may_list_courtesy_and_questions_in_skipped(world: FakeWorld) -> None:
    text = "Hello! Is the museum open on Sundays? The Sydney Opera House opened in 1973."
    claim = "The Sydney Opera House opened in 1973."
    payload = claims_reply((claim, claim))
    payload["skipped"] = [{"source": "Hello!", "reason": "courtesy"},
                          {"source": "Is the museum open on Sundays?", "reason": "question"}]
    world.extract(payload)
    world.evidence(claim, [hit(claim)])
    world.judge(claim, verdict_reply("supported", "c1-e1", claim))
    report = veracity.check(text, model=world.model(), backend=world.backend())
    assert [(s.reason, s.message) for s in report.skipped] == [
        ("courtesy", SKIP_REASONS["courtesy"]), ("question", SKIP_REASONS["question"])]
    assert len(world.extraction_prompts) == 1 and report.passed
    assert '"courtesy", "question"' in world.extraction_prompts[0]


def test_in_source_mode_a_promise_from_the_chat_model_is_still_judged(world: FakeWorld) -> None:
    text = "We'll refund you within 30 days."
    claim = "The company will refund the customer within 30 days."
    world.extract(claims_reply((claim, text)))
    world.judge(claim, verdict_reply("unverifiable"))
    report = veracity.check(text, model=world.model(), source_text="Refunds are not offered.")
    assert [c.text for c in report.claims] == [claim] and report.skipped == []


def test_the_extraction_schema_sent_to_the_model_accepts_every_reason() -> None:
    schema = extraction_schema("Thanks! Is it open?")
    assert schema["$defs"]["SkippedStatement"]["properties"]["reason"]["enum"] == list(SKIP_REASONS)
    assert set(SKIP_REASONS) == {"courtesy", "question", "opinion", "prediction"}
