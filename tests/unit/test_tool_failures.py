"""Search failures: retries, then a surfaced ToolFailure and report.ok false; the real Tavily
client driven through a fake HTTP transport."""

from __future__ import annotations

import json

import httpx
import pytest

import veracity
from tests.fakes import FakeWorld, claims_reply, hit, verdict_reply
from veracity.contracts import ToolFailure
from veracity.errors import ConfigurationError, ToolError
from veracity.evidence.counter import counter_query
from veracity.evidence.web import TavilyBackend

TEXT = "Canberra is the capital of Australia."
NOTE = "Canberra is the capital city of Australia."


class FakeTavily:
    """A fake Tavily transport: each search for the claim gets the next scripted response.

    The counter-evidence search (`veracity.evidence.counter`) is answered with no results and
    kept apart in `counter_requests`, so the script and `requests` are about the claim's search.
    """

    def __init__(self, *responses: httpx.Response | Exception) -> None:
        self.responses = list(responses)
        self.requests: list[httpx.Request] = []
        self.counter_requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        query = json.loads(request.content)["query"]
        if query == counter_query(TEXT):
            self.counter_requests.append(request)
            return httpx.Response(200, json={"query": query, "results": [], "response_time": 0.1})
        self.requests.append(request)
        response = self.responses[min(len(self.requests) - 1, len(self.responses) - 1)]
        if isinstance(response, Exception):
            raise response
        return response

    def backend(self) -> TavilyBackend:
        client = httpx.AsyncClient(transport=httpx.MockTransport(self), base_url="https://tavily.test")
        return TavilyBackend(api_key="tvly-test", client=client)


def ok_payload() -> httpx.Response:
    return httpx.Response(200, json={"query": TEXT, "results": [
        {"title": "Capital", "url": "https://notes.example/capital", "content": NOTE, "score": 0.9}]})


def scripted(world: FakeWorld) -> FakeWorld:
    world.extract(claims_reply((TEXT, TEXT)))
    world.judge(TEXT, verdict_reply("supported", "c1-e1", NOTE))
    return world


TIMEOUT = httpx.ReadTimeout("read timed out")
RATE_LIMIT = httpx.Response(429, json={"detail": {"error": "rate limited"}})
NOT_JSON = httpx.Response(200, content=b"<html>bad gateway</html>")
WRONG_SHAPE = httpx.Response(200, json={"query": TEXT, "results": [{"title": "no url or content", "score": "high"}]})
NO_RESULTS_KEY = httpx.Response(200, json={"answer": None, "images": []})
QUERY_BUT_NO_RESULTS = httpx.Response(200, json={"query": TEXT, "response_time": 0.1})
ERROR_BODY = httpx.Response(200, json={"detail": {"error": "internal failure"}})
BLANK_CONTENT = httpx.Response(200, json={"query": TEXT, "results": [
    {"title": "Empty", "url": "https://notes.example/empty", "content": "   ", "score": 0.5}]})


@pytest.mark.parametrize(("response", "kind"), [
    (TIMEOUT, "timeout"), (RATE_LIMIT, "rate_limit"), (NOT_JSON, "malformed"), (WRONG_SHAPE, "malformed"),
    (NO_RESULTS_KEY, "malformed"), (QUERY_BUT_NO_RESULTS, "malformed"), (ERROR_BODY, "malformed"),
    (BLANK_CONTENT, "malformed"),
], ids=["timeout", "rate-limit", "not-json", "wrong-shape", "no-results-key", "query-but-no-results", "error-body",
        "blank-content"])
def test_persistent_search_failure_is_retried_then_surfaced(world: FakeWorld, response, kind: str) -> None:
    tavily = FakeTavily(response)
    report = veracity.check(TEXT, model=scripted(world).model(), backend=tavily.backend(),
                            search_attempts=3, search_backoff=0.001)
    assert len(tavily.requests) == 3
    assert not report.ok
    [failure] = report.failures
    assert isinstance(failure, ToolFailure) and failure.error == kind and failure.attempts == 3
    assert report.verdict_for("c1").label == "unverifiable"
    assert [i.code for i in report.evaluation.issues] == ["evidence_search_failed"]
    assert world.judge_calls[TEXT] == 0
    searches = [r for r in report.trace if r.step == "gather_evidence"]
    assert [r.outcome for r in searches if not r.reason.startswith("counter query")] == ["retry", "retry", "failed"]
    assert [r.outcome for r in searches if r.reason.startswith("counter query")] == ["ok"]  # it ran alongside


def test_transient_failure_then_success_passes(world: FakeWorld) -> None:
    tavily = FakeTavily(RATE_LIMIT, TIMEOUT, ok_payload())
    # Unit tests open no sockets: the cited page is not fetched here (see the integration tests).
    report = veracity.check(TEXT, model=scripted(world).model(), backend=tavily.backend(), search_backoff=0.001,
                            verify_pages=False)
    assert report.ok and report.failures == []
    assert report.verdict_for("c1").citation_verified
    sent = json.loads(tavily.requests[-1].content)
    assert sent["query"] == TEXT and sent["max_results"] == 5
    assert tavily.requests[-1].headers["Authorization"] == "Bearer tvly-test"
    assert "X-Tavily-Access-Mode" not in tavily.requests[-1].headers


def test_rejected_key_is_not_retried(world: FakeWorld) -> None:
    tavily = FakeTavily(httpx.Response(401, json={"detail": {"error": "bad key"}}))
    report = veracity.check(TEXT, model=scripted(world).model(), backend=tavily.backend(), search_backoff=0.001)
    assert len(tavily.requests) == 1
    assert report.failures[0].error == "auth" and not report.ok


def test_search_timeout_enforced_by_the_engine(world: FakeWorld) -> None:
    slow = world.backend(delay=1.0)
    world.evidence(TEXT, [hit(NOTE)])
    report = veracity.check(TEXT, model=scripted(world).model(), backend=slow, search_timeout=0.05,
                            search_attempts=2, search_backoff=0.001)
    assert report.failures[0].error == "timeout" and report.failures[0].attempts == 2


def test_one_failing_claim_does_not_sink_the_batch(world: FakeWorld) -> None:
    other = "The Sydney Opera House opened in 1973."
    world.extract(claims_reply((TEXT, TEXT), (other, other)))
    world.evidence(TEXT, [hit(NOTE)])
    world.evidence(other, ToolError("rate_limit", "slow down"))
    world.judge(TEXT, verdict_reply("supported", "c1-e1", NOTE))
    report = veracity.check(f"{TEXT} {other}", model=world.model(), backend=world.backend(),
                            search_attempts=2, search_backoff=0.001)
    assert report.verdict_for("c1").label == "supported"
    assert report.verdict_for("c2").label == "unverifiable"
    assert not report.ok and world.search_calls[other] == 2
    assert [f.claim_id for f in report.failures] == ["c2"]


def test_no_evidence_found_is_unverifiable_without_calling_the_judge(world: FakeWorld) -> None:
    world.extract(claims_reply((TEXT, TEXT)))
    world.evidence(TEXT, [])
    report = veracity.check(TEXT, model=world.model(), backend=world.backend())
    assert report.ok
    assert report.verdict_for("c1").label == "unverifiable"
    assert world.judge_calls[TEXT] == 0


def test_missing_tavily_key_is_a_clear_error_not_keyless_mode() -> None:
    with pytest.raises(ConfigurationError, match="TAVILY_API_KEY"):
        TavilyBackend()


def test_tavily_endpoint_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TAVILY_API_BASE_URL", "http://127.0.0.1:9/tavily")
    backend = TavilyBackend(api_key="tvly-test")
    assert backend.base_url == "http://127.0.0.1:9/tavily"
    assert str(backend._client._client.base_url).startswith("http://127.0.0.1:9/tavily")


def test_a_chat_model_that_never_answers_ends_in_a_typed_failure_not_a_hang(world: FakeWorld) -> None:
    import time

    from veracity.contracts import GateFailure

    world.extract(claims_reply(("The Nile is long.", "The Nile is long.")))
    stalled = world.model(first_token_delay=3600.0)  # before: no limit, so the check waited an hour
    started = time.perf_counter()
    report = veracity.check("The Nile is long.", model=stalled, backend=world.backend(), model_timeout=0.05,
                            max_extraction_attempts=2)
    assert time.perf_counter() - started < 60  # a hang guard, not a speed target
    [failure] = [f for f in report.failures if isinstance(f, GateFailure)]
    assert failure.step == "extract" and failure.attempts == 2
    assert all("did not answer within 0.05 s" in error for error in failure.errors)
    assert not report.ok and report.outcome == "incomplete"


def test_an_answer_with_no_results_is_no_evidence_not_a_failure(world: FakeWorld) -> None:
    tavily = FakeTavily(httpx.Response(200, json={"query": TEXT, "results": [], "response_time": 0.1}))
    report = veracity.check(TEXT, model=scripted(world).model(), backend=tavily.backend(), search_backoff=0.001)
    assert report.failures == [] and report.verdict_for("c1").label == "unverifiable"
