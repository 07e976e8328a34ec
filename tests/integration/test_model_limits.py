"""Output-token caps, bounded request schemas and the structured-output fallback, through the real OpenAI client.

The fake server plays what real small models and servers do: an answer that stops at its token
limit, and a server that refuses `response_format`.
"""

from __future__ import annotations

import pytest

from tests.integration.conftest import FakeOpenAI
from tests.integration.test_real_clients import (  # noqa: F401 (scripted is a fixture)
    DESIGNED,
    EXTRACTION,
    TEXT,
    assert_supported_with_served_quotes,
    run_check,
    scripted,
)
from veracity.contracts import TraceRecord
from veracity.nodes.extract import extraction_cap

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("scripted")]


def records(report_trace: list[TraceRecord], step: str) -> list[TraceRecord]:
    return [record for record in report_trace if record.step == step]


def test_every_request_carries_its_steps_token_cap(fake_openai: FakeOpenAI) -> None:
    report = run_check(judge_max_tokens=300)

    assert report.ok, report.evaluation.issues
    caps = [(("Text to split into claims" in str(request.body["messages"])), request.body["max_completion_tokens"])
            for request in fake_openai.requests]
    assert (True, extraction_cap(TEXT)) in caps
    assert {cap for extraction, cap in caps if not extraction} == {300}


def test_an_answer_cut_off_at_its_cap_is_rejected_with_the_reason_and_asked_again(fake_openai: FakeOpenAI) -> None:
    fake_openai.cut_off = 1  # the first answer (the extraction) stops half-way, as at a token limit

    report = run_check(extraction_max_tokens=64)

    assert report.ok, report.evaluation.issues
    assert_supported_with_served_quotes(report)
    first, second = records(report.trace, "extract_claims")
    assert first.outcome == "failed" and "64-token limit of the extract step (extraction_max_tokens)" in first.reason
    assert first.tokens_out > 0  # the cut-off answer's tokens are still counted
    assert second.outcome == "ok"
    gate = records(report.trace, "extraction_gate")[0]
    assert gate.outcome == "retry" and gate.reason == first.reason
    # The retry told the model why its first answer was rejected.
    retry_prompt = fake_openai.prompts(extraction=True)[1]
    assert "64-token limit" in retry_prompt and "keeping every text field short" in retry_prompt


def test_a_judge_cut_off_in_every_attempt_ends_as_a_typed_failure(fake_openai: FakeOpenAI) -> None:
    fake_openai.cut_off_judge = True

    report = run_check()

    assert {verdict.label for verdict in report.verdicts} == {"unverifiable"}
    assert all(verdict.downgraded for verdict in report.verdicts)
    judge_failures = [failure for failure in report.failures if failure.kind == "gate" and failure.step == "judge"]
    assert judge_failures and all("token limit of the" in failure.errors[-1] for failure in judge_failures)
    assert not report.ok


def test_the_request_schema_is_bounded_by_the_text_and_the_retrieved_evidence(fake_openai: FakeOpenAI) -> None:
    report = run_check()

    assert report.ok
    extraction = next(r.body for r in fake_openai.requests if "Text to split" in str(r.body["messages"]))
    schema = extraction["response_format"]["json_schema"]["schema"]
    assert schema["$defs"]["ExtractedClaim"]["properties"]["source"]["maxLength"] == len(TEXT)
    assert schema["properties"]["claims"]["maxItems"] >= len(EXTRACTION["claims"])
    judged = next(r.body for r in fake_openai.requests if f"Claim: {DESIGNED}" in str(r.body["messages"]))
    ids = judged["response_format"]["json_schema"]["schema"]["properties"]["evidence_id"]["anyOf"][0]["enum"]
    claim_id = report.claims[0].id
    assert sorted(ids) == sorted(item.id for item in report.evidence if item.claim_id == claim_id)


def test_a_server_that_refuses_structured_output_is_asked_through_the_prompt(fake_openai: FakeOpenAI) -> None:
    fake_openai.refuse_schema = True

    report = run_check()

    assert report.ok, report.evaluation.issues
    assert_supported_with_served_quotes(report)
    calls = [r for r in report.trace if r.step in ("extract_claims", "judge_claim")]
    assert calls and all(r.structured == "prompt" and "refused structured output" in r.reason for r in calls)
    assert any("response_format" in r.body for r in fake_openai.requests)
    assert any("response_format" not in r.body for r in fake_openai.requests)


def test_structured_output_prompt_sends_no_schema(fake_openai: FakeOpenAI) -> None:
    report = run_check(structured_output="prompt")

    assert report.ok, report.evaluation.issues
    assert all("response_format" not in r.body and "tools" not in r.body for r in fake_openai.requests)
    assert {r.structured for r in report.trace if r.step == "judge_claim"} == {"prompt"}


def test_structured_output_tools_asks_for_a_tool_call(fake_openai: FakeOpenAI) -> None:
    report = run_check(structured_output="tools")

    assert report.ok, report.evaluation.issues
    assert_supported_with_served_quotes(report)
    assert all("tools" in r.body and "response_format" not in r.body for r in fake_openai.requests)
    assert {r.structured for r in report.trace if r.step in ("extract_claims", "judge_claim")} == {"tools"}
