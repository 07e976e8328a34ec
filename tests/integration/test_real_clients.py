"""The real `langchain-openai` and `tavily-python` clients, wired end to end against loopback fakes.

No model or backend object is passed to `veracity.check`, so each run goes through
`init_chat_model` (ChatOpenAI) and `TavilyBackend` (the real `AsyncTavilyClient`) as it does
in production; only the endpoints, set through environment variables, are local.
"""

from __future__ import annotations

from typing import Any

import pytest

import veracity
from tests.integration.conftest import (
    OPENAI_KEY,
    TAVILY_KEY,
    FakeOpenAI,
    FakeTavily,
    Judge,
    PageServer,
)
from veracity.contracts import ToolFailure
from veracity.evidence.counter import counter_query

pytestmark = pytest.mark.integration

MODEL = "gpt-4.1-mini"
TEXT = "The Sydney Opera House was designed by a Danish architect and opened in 1973."
DESIGNED = "The Sydney Opera House was designed by a Danish architect."
OPENED = "The Sydney Opera House opened in 1973."
EXTRACTION = {
    "claims": [
        {"claim": DESIGNED, "source": "The Sydney Opera House was designed by a Danish architect"},
        {"claim": OPENED, "source": "opened in 1973"},
    ]
}

# Two results per claim, the supporting one second, so the citation has to pick the right item.
SEARCH_RESULTS = {
    DESIGNED: [
        {"title": "Sydney Harbour Bridge", "url": "https://example.org/bridge",
         "content": "The Sydney Harbour Bridge opened in 1932.", "score": 0.71},
        {"title": "Sydney Opera House: design", "url": "https://example.org/opera-design",
         "content": "The Sydney Opera House is a performing arts centre. It was designed by Danish "
                    "architect Jørn Utzon after an international competition in 1957.", "score": 0.93},
    ],
    OPENED: [
        {"title": "Sydney facts", "url": "https://example.org/sydney",
         "content": "Sydney is the capital of New South Wales.", "score": 0.52},
        {"title": "Sydney Opera House: opening", "url": "https://example.org/opera-opening",
         "content": "The building was formally opened by Queen Elizabeth II on 20 October 1973.", "score": 0.9},
    ],
}
COUNTER_RESULTS = {
    counter_query(OPENED): [
        {"title": "Opera House myths", "url": "https://example.org/opera-myths", "score": 0.8,
         "content": "A common myth dates the opening to 1970; the Opera House opened in 1973."},
        {"title": "Sydney Opera House: opening", "url": "https://example.org/opera-opening",
         "content": "The building was formally opened by Queen Elizabeth II on 20 October 1973.", "score": 0.9},
    ],
}
"""What the counter-evidence search finds: one new page, and one the claim's own search found already."""
QUOTES = {
    DESIGNED: "It was designed by Danish architect Jørn Utzon",
    OPENED: "formally opened by Queen Elizabeth II on 20 October 1973",
}


def citing(quotes: dict[str, str], *, first_tries: dict[str, str] | None = None) -> Judge:
    """A judge that supports each claim with its quote, cited from the prompt's evidence item holding it.

    Like an honest model it can only cite what it was shown: when no evidence item in the
    prompt contains the quote, it answers unverifiable. `first_tries` gives, per claim, a
    quote to offer on the first attempt instead (e.g. a paraphrase the gate must reject).
    """

    def judge(claim: str, evidence: dict[str, str], attempt: int) -> dict[str, Any]:
        quote = (first_tries or {}).get(claim, quotes[claim]) if attempt == 1 else quotes[claim]
        cited = next((item_id for item_id, text in evidence.items() if quotes[claim] in text), None)
        if cited is None:
            return {"label": "unverifiable", "reason": "Nothing shown says.", "evidence_id": None, "quote": None}
        return {"label": "supported", "reason": "The cited item states it.", "evidence_id": cited, "quote": quote}

    return judge


def page_path(url: str) -> str:
    """The path of a result's URL: the fake web server serves it under its own host."""
    return "/" + url.split("://", 1)[-1].split("/", 1)[-1]


@pytest.fixture
def scripted(real_clients: None, fake_openai: FakeOpenAI, fake_tavily: FakeTavily, fake_pages: PageServer) -> None:
    """The happy script: the two Sydney claims, their search results (pages on loopback), a judge that cites them."""
    fake_openai.extractions = [EXTRACTION]
    fake_openai.judge = citing(QUOTES)
    fake_tavily.results = fake_pages.serve_results({**SEARCH_RESULTS, **COUNTER_RESULTS})


def run_check(**settings: Any) -> veracity.Report:
    """Check TEXT with the model named as a string and no bound objects, as a caller would.

    Cited pages are served on loopback, which the page fetch refuses unless it is allowed.
    """
    return veracity.check(TEXT, model=f"openai:{MODEL}", search_backoff=0.01, page_allowed_networks="127.0.0.1",
                          **settings)


def assert_supported_with_served_quotes(report: veracity.Report) -> None:
    """Both claims are supported, each citing the served search result that holds its quote."""
    assert [claim.text for claim in report.claims] == [DESIGNED, OPENED]
    for claim in report.claims:
        verdict = report.verdict_for(claim.id)
        assert verdict is not None
        assert verdict.label == "supported"
        assert verdict.citation_verified
        assert verdict.quote == QUOTES[claim.text]
        cited = report.evidence_by_id(verdict.evidence_id)
        assert cited is not None and cited.claim_id == claim.id and cited.backend == "web"
        served = next(r for r in SEARCH_RESULTS[claim.text] if cited.url.endswith(page_path(r["url"])))
        assert cited.text == served["content"]
        assert verdict.quote in served["content"]
        # The cited page was fetched from the loopback web server and carries the quote.
        assert verdict.page is not None and verdict.page.outcome == "verified_live", verdict.page
        assert verdict.page.final_url == cited.url and verdict.page.sha256


@pytest.mark.usefixtures("scripted")
def test_check_runs_through_the_real_openai_and_tavily_clients(
    fake_openai: FakeOpenAI, fake_tavily: FakeTavily
) -> None:
    report = run_check()

    assert report.ok, report.evaluation.issues
    assert report.failures == []
    assert_supported_with_served_quotes(report)
    assert [claim.source for claim in report.claims] == [c["source"] for c in EXTRACTION["claims"]]
    assert len(report.evidence) == 5  # four for the claims, one new page from the counter search
    # Every page is served from one host here, so each supported verdict rests on a single site.
    assert {verdict.single_source for verdict in report.verdicts} == {"127.0.0.1"}
    [myths] = [item for item in report.evidence if item.found_by == "counter"]
    assert myths.title == "Opera House myths" and myths.claim_id == "c2"

    # Token accounting is exactly the usage the server reported, across all three calls.
    assert len(fake_openai.usages) == 3
    assert report.tokens_in == sum(usage["prompt_tokens"] for usage in fake_openai.usages) > 0
    assert report.tokens_out == sum(usage["completion_tokens"] for usage in fake_openai.usages) > 0

    # The model name and key reached the OpenAI server; the prompts carry the text and the evidence.
    for request in fake_openai.requests:
        assert request.body["model"] == MODEL
        assert request.headers["authorization"] == f"Bearer {OPENAI_KEY}"
    [extraction_prompt] = fake_openai.prompts(extraction=True)
    assert TEXT in extraction_prompt
    judge_prompts = fake_openai.prompts(extraction=False)
    assert len(judge_prompts) == 2
    for claim, results in SEARCH_RESULTS.items():
        [prompt] = [p for p in judge_prompts if f"Claim: {claim}" in p]
        for result in results + COUNTER_RESULTS.get(counter_query(claim), []):
            assert result["content"] in prompt and page_path(result["url"]) in prompt

    # Tavily got two searches per claim, at once: the claim text, and the query for evidence against it.
    assert fake_tavily.queries() == {DESIGNED: 1, OPENED: 1, counter_query(DESIGNED): 1, counter_query(OPENED): 1}
    for request in fake_tavily.requests:
        assert request.headers["authorization"] == f"Bearer {TAVILY_KEY}"
        assert request.body["max_results"] == 5


@pytest.mark.usefixtures("scripted")
def test_tavily_rate_limit_becomes_a_tool_failure_per_claim(
    fake_openai: FakeOpenAI, fake_tavily: FakeTavily
) -> None:
    fake_tavily.status = 429

    report = run_check(search_attempts=2)

    assert not report.ok
    failures = sorted(
        (f for f in report.failures if isinstance(f, ToolFailure)), key=lambda failure: failure.claim_id
    )
    assert [(f.claim_id, f.error, f.attempts, f.backend) for f in failures] == [
        ("c1", "rate_limit", 2, "web"),
        ("c2", "rate_limit", 2, "web"),
    ]
    # The counter-evidence searches ran alongside and were rate-limited too; only the claim's own count.
    assert fake_tavily.queries() == {DESIGNED: 2, OPENED: 2, counter_query(DESIGNED): 2, counter_query(OPENED): 2}
    assert all(verdict.label == "unverifiable" for verdict in report.verdicts)
    assert report.evidence == []
    assert fake_openai.prompts(extraction=False) == []  # nothing to judge without evidence


@pytest.mark.usefixtures("scripted")
async def test_extraction_gate_error_reaches_the_next_openai_request(fake_openai: FakeOpenAI) -> None:
    fake_openai.extractions = [{"claims": [{"claim": "x"}]}, EXTRACTION]

    report = await veracity.acheck(TEXT, model=f"openai:{MODEL}", search_backoff=0.01,
                                   page_allowed_networks="127.0.0.1")

    assert report.ok, report.evaluation.issues
    assert_supported_with_served_quotes(report)
    first, second = fake_openai.prompts(extraction=True)
    assert "Field required" not in first
    assert "rejected (attempt 1 of 3)" in second
    assert "source" in second and "Field required" in second
    retries = [r for r in report.trace if r.step == "extraction_gate" and r.outcome == "retry"]
    assert len(retries) == 1 and "Field required" in retries[0].reason


@pytest.mark.usefixtures("scripted")
def test_a_paraphrased_quote_is_sent_back_to_the_real_model(fake_openai: FakeOpenAI) -> None:
    paraphrase = "It was designed by the Danish architect Jørn Utzon"
    fake_openai.judge = citing(QUOTES, first_tries={DESIGNED: paraphrase})

    report = run_check()

    assert report.ok, report.evaluation.issues
    assert_supported_with_served_quotes(report)
    assert report.verdict_for("c1").attempts == 2
    assert report.verdict_for("c2").attempts == 1
    designed_prompts = [p for p in fake_openai.prompts(extraction=False) if f"Claim: {DESIGNED}" in p]
    assert len(designed_prompts) == 2
    assert "does not appear verbatim" in designed_prompts[1] and paraphrase in designed_prompts[1]
    assert report.tokens_in == sum(usage["prompt_tokens"] for usage in fake_openai.usages)


@pytest.mark.usefixtures("scripted")
def test_tokens_of_a_rejected_reply_are_counted(fake_openai: FakeOpenAI) -> None:
    fake_openai.extractions = [{"claims": [{"claim": "x"}]}, EXTRACTION]

    report = run_check()

    assert report.ok, report.evaluation.issues
    assert len(fake_openai.usages) == 4
    assert report.tokens_in == sum(usage["prompt_tokens"] for usage in fake_openai.usages)
    assert report.tokens_out == sum(usage["completion_tokens"] for usage in fake_openai.usages)
    # The invalid reply reached the gate (a retry), rather than failing inside the client.
    gate = [r.outcome for r in report.trace if r.step == "extraction_gate"]
    calls = [r.outcome for r in report.trace if r.step == "extract_claims"]
    assert gate == ["retry", "ok"] and calls == ["ok", "ok"]


@pytest.mark.usefixtures("scripted")
def test_the_model_writes_the_counter_query_when_it_can(fake_openai: FakeOpenAI, fake_tavily: FakeTavily) -> None:
    from veracity.audit import audit_markdown

    opened = {**EXTRACTION["claims"][1], "counter_query": "Sydney Opera House opening date"}
    written = {**EXTRACTION, "claims": [EXTRACTION["claims"][0], opened]}
    fake_openai.extractions = [written]
    report = run_check()
    assert "counter_query" in fake_openai.prompts(extraction=True)[0]  # the prompt asks for it
    assert fake_tavily.queries() == {DESIGNED: 1, OPENED: 1, counter_query(DESIGNED): 1,
                                     "Sydney Opera House opening date": 1}
    assert [claim.counter_query for claim in report.claims] == [None, "Sydney Opera House opening date"]
    assert "- against it (written by the model): “Sydney Opera House opening date”" in audit_markdown(report)
