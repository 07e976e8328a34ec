"""The HTTP app under a real uvicorn server on loopback, offline judge, scripted chat model for /analyze."""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest

from tests.fakes import FakeWorld, claims_reply, verdict_reply
from tests.integration.app_server import serving
from veracity.server.app import create_app
from veracity.testing import ScriptedChatModel, prompt_text

POLICY = ("The customer may return a package within 14 days of the delivery date. "
          "After that period, returns are not accepted.")
FAITHFUL = "You can return the package within 14 days of the delivery date."
WRONG = "You can return the package within 30 days of the delivery date."
WARM_PROMISE = "I'm so sorry! Don't worry, we'll find some solution for you."
KEY = "s3cret-key"


@pytest.fixture(scope="module")
def offline_url() -> Iterator[str]:
    with serving(create_app(model="offline", api_key="", rate_limit="1000/minute")) as url:
        yield url


def post(url: str, path: str, body, **headers) -> httpx.Response:
    return httpx.post(url + path, json=body, headers=headers, timeout=60)


def test_healthz(offline_url: str) -> None:
    response = httpx.get(offline_url + "/healthz")
    assert response.status_code == 200 and response.json()["status"] == "ok"


def test_invoke_checks_against_the_source(offline_url: str) -> None:
    response = post(offline_url, "/factcheck/invoke", {"input": {"text": WRONG, "source_text": POLICY}})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["metadata"]["run_id"]
    [verdict] = body["output"]["verdicts"]  # the 30 days leans refuted: no offline refutation is certified at 0.90
    assert (verdict["label"], verdict["leaning"]) == ("unverifiable", "refuted")
    assert "within 14 days" in verdict["quote"]
    assert body["output"]["mode"] == "offline+source" and body["output"]["ok"] is False


def test_audit_returns_the_report_with_its_markdown(offline_url: str) -> None:
    body = post(offline_url, "/factcheck/audit", {"input": {"text": WRONG, "source_text": POLICY}}).json()
    assert body["output"]["verdicts"][0]["leaning"] == "refuted"
    assert body["report_md"].startswith("# Fact-check report") and WRONG in body["report_md"]
    assert "unverifiable, leans refuted" in body["report_md"] and "unverifiable, leans refuted" in body["audit_md"]
    assert body["audit_md"].startswith("# Audit trail") and "## c1: " in body["audit_md"]


def test_batch_keeps_the_input_order(offline_url: str) -> None:
    inputs = [{"text": FAITHFUL, "source_text": POLICY}, {"text": WRONG, "source_text": POLICY}]
    body = post(offline_url, "/factcheck/batch", {"inputs": inputs}).json()
    assert [(r["verdicts"][0]["label"], r["verdicts"][0]["leaning"]) for r in body["output"]] == [
        ("supported", None), ("unverifiable", "refuted")]
    assert len(body["metadata"]["run_ids"]) == 2


def test_stream_sends_progress_then_the_report_then_end(offline_url: str) -> None:
    text = f"{FAITHFUL} After that, returns are not accepted."
    events = []
    with httpx.stream("POST", offline_url + "/factcheck/stream", json={"input": {"text": text, "source_text": POLICY}},
                      timeout=60) as response:
        assert response.status_code == 200 and response.headers["content-type"].startswith("text/event-stream")
        for block in response.read().decode().split("\n\n"):
            if block.strip():
                event, data = block.split("\n", 1)
                events.append((event.removeprefix("event: "), json.loads(data.removeprefix("data: "))))
    kinds = [kind for kind, _ in events]
    assert kinds[0] == "metadata" and kinds[-1] == "end" and "error" not in kinds
    progress = [data for kind, data in events if kind == "progress"]
    steps = [event["kind"] for event in progress]
    assert steps[:2] == ["extracting", "claims"] and steps.count("verdict") == 2  # one per claim, as it finishes
    assert len(progress[1]["claims"]) == 2
    verdicts = {event["claim"]["id"]: event["verdict"]["label"] for event in progress if event["kind"] == "verdict"}
    assert kinds[-2] == "data" and kinds.index("data") == len(kinds) - 2  # the report comes after every step
    report = events[-2][1]["report"]
    assert [v["label"] for v in report["verdicts"]] == ["supported", "supported"]
    assert verdicts == {v["claim_id"]: v["label"] for v in report["verdicts"]}


def test_schemas(offline_url: str) -> None:
    assert "text" in httpx.get(offline_url + "/factcheck/input_schema").json()["properties"]
    assert "verdicts" in httpx.get(offline_url + "/factcheck/output_schema").json()["properties"]
    assert httpx.get(offline_url + "/openapi.json").json()["info"]["title"] == "veracity"
    docs = httpx.get(offline_url + "/docs")
    assert docs.status_code == 200 and "swagger" in docs.text.lower()


def test_malformed_json_is_a_422_in_json(offline_url: str) -> None:
    response = httpx.post(offline_url + "/factcheck/invoke", content=b"{not json",
                          headers={"content-type": "application/json"})
    assert response.status_code == 422 and response.json()["error"].startswith("invalid request")


def test_missing_text_is_a_422_naming_the_field(offline_url: str) -> None:
    response = post(offline_url, "/factcheck/invoke", {"input": {}})
    assert response.status_code == 422 and "input.text" in response.json()["error"]


def test_unknown_route_is_json(offline_url: str) -> None:
    response = httpx.get(offline_url + "/nope")
    assert response.status_code == 404 and response.json() == {"error": "Not Found", "status": 404}


def test_analyze_offline_needs_a_model_or_an_answer(offline_url: str) -> None:
    response = post(offline_url, "/analyze", {"query": "Can I return it after 20 days?"})
    assert response.status_code == 409 and "needs a chat model" in response.json()["error"]
    audited = post(offline_url, "/analyze", {"query": "Can I return it?", "answer": WRONG, "source_text": POLICY})
    assert audited.status_code == 200 and audited.json()["unsupported_claims"] == [WRONG]


def test_analyze_rejects_an_empty_answer(offline_url: str) -> None:
    response = post(offline_url, "/analyze", {"query": "Can I return it?", "answer": "  "})
    assert response.status_code == 422 and "answer is empty" in response.json()["error"]


def test_analyze_answers_with_the_model_and_audits() -> None:
    promise = "We'll find some solution for you."
    world = FakeWorld().extract(claims_reply((promise, "we'll find some solution for you"))).judge(
        promise, verdict_reply("unverifiable", reason="The policy makes no such promise."))

    def respond(messages):  # the query gets the bot's answer; extraction and judging are scripted
        text = prompt_text(messages)
        return WARM_PROMISE if text.startswith("My package") else world.respond(messages)

    model = ScriptedChatModel(responder=respond)
    with serving(create_app(model=model, source_text=POLICY, api_key="")) as url:
        body = post(url, "/analyze", {"query": "My package is 20 days late, can I return it?"}).json()
    assert body["answer"] == WARM_PROMISE and body["passed"] is False
    assert body["unsupported_claims"] == [promise]
    [claim] = body["claims_analysis"]
    assert claim["label"] == "unverifiable" and claim["reason"].endswith("The policy makes no such promise.")
    assert body["hallucination_risk"] in {"LOW", "MEDIUM", "HIGH"}


def test_a_failing_chat_model_is_a_502_without_a_traceback() -> None:
    model = ScriptedChatModel(responder=lambda messages: RuntimeError("provider down"))
    with serving(create_app(model=model, source_text=POLICY, api_key="")) as url:
        response = post(url, "/analyze", {"query": "Can I return it?"})
    assert response.status_code == 502 and "provider down" in response.json()["error"]
    assert "Traceback" not in response.text


def test_api_key_is_required_except_for_health() -> None:
    with serving(create_app(model="offline", api_key=KEY)) as url:
        body = {"input": {"text": FAITHFUL, "source_text": POLICY}}
        assert httpx.get(url + "/healthz").status_code == 200
        missing = post(url, "/factcheck/invoke", body)
        assert missing.status_code == 401 and missing.headers["www-authenticate"] == "Bearer"
        assert "API key" in missing.json()["error"]
        assert post(url, "/factcheck/invoke", body, **{"x-api-key": "wrong"}).status_code == 401
        assert post(url, "/factcheck/invoke", body, **{"x-api-key": KEY}).status_code == 200
        assert post(url, "/factcheck/invoke", body, authorization=f"Bearer {KEY}").status_code == 200


def test_oversized_bodies_get_413() -> None:
    with serving(create_app(model="offline", api_key="", max_body_bytes=2_000)) as url:
        big = {"input": {"text": "The Nile is long. " * 200}}
        declared = post(url, "/factcheck/invoke", big)
        assert declared.status_code == 413 and "larger than 2000 bytes" in declared.json()["error"]

        def chunks():  # no Content-Length: the body is counted as it arrives
            yield json.dumps(big).encode()

        streamed = httpx.post(url + "/factcheck/invoke", content=chunks(), headers={"content-type": "application/json"})
        assert streamed.status_code == 413


def test_clients_over_the_rate_get_429_with_retry_after() -> None:
    with serving(create_app(model="offline", api_key="", rate_limit="2/minute")) as url:
        body = {"input": {"text": FAITHFUL, "source_text": POLICY}}
        assert [post(url, "/factcheck/invoke", body).status_code for _ in range(2)] == [200, 200]
        limited = post(url, "/factcheck/invoke", body)
        assert limited.status_code == 429 and int(limited.headers["retry-after"]) >= 1
        assert limited.json()["error"].startswith("rate limit exceeded")
        assert httpx.get(url + "/healthz").status_code == 200  # health is never limited


def test_a_checkpointed_server_reads_a_thread_back(tmp_path) -> None:
    store = tmp_path / "checks.sqlite"
    body = {"input": {"text": WRONG, "source_text": POLICY}}
    with serving(create_app(model="offline", api_key="", checkpoint=store)) as url:
        first = post(url, "/factcheck/invoke", body).json()
        thread = first["metadata"]["thread_id"]
    with serving(create_app(model="offline", api_key="", checkpoint=store)) as url:  # after a restart
        again = post(url, "/factcheck/invoke", {"input": {**body["input"], "thread_id": thread}}).json()
        other = post(url, "/factcheck/invoke", {"input": {"text": FAITHFUL, "thread_id": thread}})
    assert again["output"] == first["output"] and again["metadata"]["thread_id"] == thread
    assert other.status_code == 422 and "another text" in other.json()["error"]


def test_thread_id_without_a_checkpoint_is_refused(offline_url: str) -> None:
    response = post(offline_url, "/factcheck/invoke", {"input": {"text": FAITHFUL, "thread_id": "t1"}})
    assert response.status_code == 422 and "--checkpoint" in response.json()["error"]


def test_a_request_can_ask_for_the_offline_judge() -> None:
    model = ScriptedChatModel(responder=lambda messages: RuntimeError("the chat model must not be called"))
    with serving(create_app(model=model, api_key="")) as url:
        body = post(url, "/factcheck/invoke", {"input": {"text": WRONG, "source_text": POLICY, "model": "offline"}})
    assert body.status_code == 200 and body.json()["output"]["mode"] == "offline+source"
    assert model.calls == []


def test_a_stream_that_cannot_run_ends_with_an_error_event(offline_url: str) -> None:
    with httpx.stream("POST", offline_url + "/factcheck/stream", timeout=60,
                      json={"input": {"text": FAITHFUL, "thread_id": "t1"}}) as response:
        text = response.read().decode()
    assert 'event: error\ndata: {"error": "thread_id needs a server started with a checkpoint file' in text
    assert '"status": 422' in text and text.rstrip().endswith("event: end\ndata: null")


class CountingBackend:
    """An evidence backend that notes how many searches run at the same time."""

    name = "counting"

    def __init__(self) -> None:
        self.running = 0
        self.most = 0

    async def search(self, query: str, *, limit: int) -> list:
        import asyncio

        from veracity.contracts import SearchHit

        self.running += 1
        self.most = max(self.most, self.running)
        await asyncio.sleep(0.05)
        self.running -= 1
        return [SearchHit(title="Note", text=query)]


def test_batch_runs_at_most_its_concurrency_of_checks_at_once() -> None:
    texts = [f"Town number {n} has a station." for n in range(6)]
    model = ScriptedChatModel(responder=lambda messages: (
        claims_reply((prompt_text(messages).rsplit("\n", 1)[-1],) * 2) if "Text to split" in prompt_text(messages)
        else verdict_reply("unverifiable")))
    backend = CountingBackend()
    app = create_app(model=model, backend=backend, api_key="", rate_limit="1000/minute", batch_concurrency=2)
    with serving(app) as url:
        body = post(url, "/factcheck/batch", {"inputs": [{"text": text} for text in texts]}).json()
    assert [report["claims"][0]["text"] for report in body["output"]] == texts
    assert backend.most == 2


def test_analyze_does_not_pass_a_refuted_answer_outside_source_mode(offline_url: str) -> None:
    answer = "Sydney is the capital of Australia."  # the demo knowledge base says Canberra
    body = post(offline_url, "/analyze", {"query": "What is the capital of Australia?", "answer": answer}).json()
    assert [(c["label"], c["leaning"]) for c in body["claims_analysis"]] == [("unverifiable", "refuted")]
    assert body["passed"] is False


# --------------------------------------------------------------------------- a source text is always the evidence

BROCHURE = "Exhibition brochure: the Eiffel Tower was completed in 1887."
COMPLETED = "The Eiffel Tower was completed in 1889."  # the demo knowledge base supports it; the brochure does not


@pytest.fixture(scope="module")
def kb_url() -> Iterator[str]:
    """A server started as `veracity serve --search kb --model offline`."""
    with serving(create_app(model="offline", search="kb", api_key="", rate_limit="1000/minute")) as url:
        yield url


def test_a_kb_server_checks_a_request_with_a_source_text_against_that_source(kb_url: str) -> None:
    plain = post(kb_url, "/factcheck/invoke", {"input": {"text": COMPLETED}}).json()["output"]
    assert plain["mode"] == "offline+kb" and plain["passed"] is True  # the server's default, for texts without one
    for search in ({}, {"search": "auto"}, {"search": "source"}):
        response = post(kb_url, "/factcheck/invoke", {"input": {"text": COMPLETED, "source_text": BROCHURE, **search}})
        assert response.status_code == 200, response.text
        report = response.json()["output"]  # before: checked on the knowledge base, supported, passed
        assert report["mode"] == "offline+source" and report["passed"] is False
        assert [item["backend"] for item in report["evidence"]] == ["source"]
        assert [(v["label"], v["leaning"], v["quote"]) for v in report["verdicts"]] == [
            ("unverifiable", "refuted", BROCHURE)]  # it leans refuted: no offline refutation is certified at 0.90
    analysed = post(kb_url, "/analyze", {"query": "When was it completed?", "answer": COMPLETED,
                                         "source_text": BROCHURE}).json()
    assert analysed["passed"] is False and analysed["unsupported_claims"] == [COMPLETED]


def test_a_request_naming_another_search_with_its_source_text_is_refused(kb_url: str) -> None:
    expected = ("a source text was given, so the evidence is that source; search 'kb' cannot be combined with "
                "source_text (drop one)")
    item = {"text": COMPLETED, "source_text": BROCHURE, "search": "kb"}
    for path, body in (("/factcheck/invoke", {"input": item}), ("/factcheck/audit", {"input": item}),
                       ("/factcheck/batch", {"inputs": [{"text": COMPLETED}, item]}),
                       ("/factcheck/stream", {"input": item})):
        response = post(kb_url, path, body)
        assert response.status_code == 422, (path, response.text)
        assert expected in response.json()["error"], path
    web = post(kb_url, "/factcheck/invoke", {"input": {**item, "search": "web"}})
    assert web.status_code == 422 and "search 'web' cannot be combined" in web.json()["error"]


def test_a_source_text_on_a_server_with_a_bound_backend_or_its_own_source_is_refused_with_another() -> None:
    with serving(create_app(model="offline", backend=CountingBackend(), api_key="")) as url:
        response = post(url, "/factcheck/invoke", {"input": {"text": COMPLETED, "source_text": BROCHURE}})
    assert response.status_code == 422
    assert "the bound backend 'counting' cannot be combined with source_text" in response.json()["error"]
    with serving(create_app(model="offline", source_text=BROCHURE, api_key="")) as url:
        response = post(url, "/factcheck/invoke", {"input": {"text": COMPLETED, "search": "kb"}})
        assert response.status_code == 422 and "search 'kb' cannot be combined" in response.json()["error"]
        own = post(url, "/factcheck/invoke", {"input": {"text": COMPLETED}}).json()["output"]
    assert own["mode"] == "offline+source" and own["passed"] is False
