"""The MCP endpoint of `veracity serve` (``/mcp``) under a real uvicorn server on loopback, offline judge.

The SDK's streamable HTTP client lists and calls the tools; raw HTTP requests bring what a client
library would not send (bad JSON, a foreign Origin or Host, no token, a 10 MB body), and after each
a good call must still work. A LangGraph agent uses the tools through langchain-mcp-adapters, and
the verdicts must be those `veracity check --json` gives for the same text and settings.
"""

from __future__ import annotations

import asyncio
import json
import shutil
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from click.testing import CliRunner
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import McpError
from mcp.types import CancelledNotification, CancelledNotificationParams, ClientNotification

from tests.integration.app_server import serving
from tests.mcp_client import ANSWER, FAITHFUL, LONG_TEXT, POLICY, ProgressHeard, error_text, load_example
from veracity.cli import main
from veracity.server.app import create_app

TOKEN = "mcp-s3cret"
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}
STREAMABLE = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


@pytest.fixture(scope="module")
def demo_copy(demo_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("mcp-http-kb") / "kb"
    shutil.copytree(demo_template, target)
    return target


@pytest.fixture(scope="module")
def url(demo_copy: Path) -> Iterator[str]:
    app = create_app(model="offline", api_key="", rate_limit="1000/minute", mcp_token=TOKEN, kb_path=str(demo_copy))
    with serving(app) as base:
        yield base


@asynccontextmanager
async def session_at(base: str, token: str = TOKEN, **client: Any) -> AsyncIterator[ClientSession]:
    """An SDK client session with the server's /mcp, sending `token`."""
    async with (httpx.AsyncClient(headers={"Authorization": f"Bearer {token}"},
                                  timeout=httpx.Timeout(30, read=300)) as http,
                streamable_http_client(base + "/mcp", http_client=http) as (read, write, _),
                ClientSession(read, write, **client) as session):
        await session.initialize()
        yield session


async def still_answers(base: str) -> None:
    """A good call after whatever came before: the server is alive and serves MCP."""
    async with session_at(base) as session:
        result = await session.call_tool("check_claim", {"statement": FAITHFUL, "source_text": POLICY})
    assert result.structuredContent["passed"] is True


def raw(base: str, body: bytes | dict[str, Any], **headers: str) -> httpx.Response:
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    return httpx.post(base + "/mcp", content=content, timeout=60,
                      headers={**STREAMABLE, "authorization": f"Bearer {TOKEN}", **headers})


async def test_every_tool_resource_and_the_prompt_over_http(url: str) -> None:
    updates: list[tuple[float, float | None, str | None]] = []

    async def heard(progress: float, total: float | None, message: str | None) -> None:
        updates.append((progress, total, message))

    async with session_at(url) as session:
        assert {tool.name for tool in (await session.list_tools()).tools} == {
            "check_text", "check_claim", "search_knowledge_base", "verify_report"}
        checked = await session.call_tool("check_text", {"text": ANSWER, "source_text": POLICY},
                                          progress_callback=heard)
        claim = await session.call_tool("check_claim", {"statement": "Canberra is the capital of Australia.",
                                                        "search": "kb"})
        found = await session.call_tool("search_knowledge_base", {"query": "capital of Australia", "limit": 2})
        report = json.loads((await session.read_resource(checked.structuredContent["report_uri"])).contents[0].text)
        verified = await session.call_tool("verify_report", {"report": report})
        documents = json.loads((await session.read_resource("veracity://kb/documents")).contents[0].text)
        prompt = await session.get_prompt("check_answer_against_source", {"answer": ANSWER, "source": POLICY})
    assert checked.structuredContent["outcome"] == "fail"
    assert [c["label"] for c in checked.structuredContent["claims"]] == ["unverifiable", "supported"]
    assert [(progress, total) for progress, total, _ in updates if progress] == [(1, 2), (2, 2)]
    assert claim.structuredContent["claims"][0]["evidence_url"] == "demo:australia.md"
    assert found.structuredContent["passages"][0]["document"] == "demo:australia.md"
    assert verified.structuredContent["holds"] is True
    assert "demo:australia.md" in {document["path"] for document in documents}
    assert POLICY in prompt.messages[0].content.text


async def test_a_cancelled_check_over_http_stops_and_the_server_answers_the_next_call(url: str) -> None:
    progress = ProgressHeard()
    verdicts = progress.verdicts
    async with session_at(url, message_handler=progress.notified) as session:
        long_check = asyncio.create_task(session.call_tool(
            "check_text", {"text": LONG_TEXT, "source_text": POLICY}, progress_callback=progress.heard))
        await asyncio.wait_for(progress.first_verdict.wait(), 120)
        await session.send_notification(ClientNotification(CancelledNotification(
            params=CancelledNotificationParams(requestId=verdicts[0][0], reason="the agent moved on"))))
        with pytest.raises((McpError, asyncio.TimeoutError)):
            await asyncio.wait_for(long_check, 30)
        heard_then = len(verdicts)
        await asyncio.sleep(2)
        assert len(verdicts) <= heard_then + 1  # the cancelled check sends nothing more (one may be under way)
    assert verdicts[-1][1] < 200  # it never got through its two hundred claims
    await still_answers(url)


def test_malformed_json_rpc_is_a_parse_error(url: str) -> None:
    response = raw(url, b"{this is not json")
    assert response.status_code == 400 and response.json()["error"]["code"] == -32700
    asyncio.run(still_answers(url))


async def test_an_unknown_tool_is_an_error_result(url: str) -> None:
    async with session_at(url) as session:
        result = await session.call_tool("check_everything", {"text": FAITHFUL})
    assert "Unknown tool: check_everything" in error_text(result)
    await still_answers(url)


async def test_arguments_of_the_wrong_type_are_refused_naming_them(url: str) -> None:
    async with session_at(url) as session:
        result = await session.call_tool("check_text", {"text": {"not": "text"}, "max_revisions": "two"})
    assert "text" in error_text(result) and "max_revisions" in error_text(result)
    await still_answers(url)


def test_a_ten_megabyte_text_is_refused_by_the_body_limit(url: str) -> None:
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "check_text", "arguments": {"text": "x" * 10_000_000}}}
    response = raw(url, call)
    assert response.status_code == 413 and response.json() == {
        "error": "request body is larger than 1000000 bytes", "status": 413}
    asyncio.run(still_answers(url))


async def test_a_text_over_the_size_limit_is_refused_in_its_words(url: str) -> None:
    async with session_at(url) as session:
        result = await session.call_tool("check_text", {"text": "word " * 5000})
    assert "the text is 25,000 characters; the limit is 20,000" in error_text(result)
    await still_answers(url)


def test_a_foreign_origin_or_host_is_refused(url: str) -> None:
    origin = raw(url, INITIALIZE, origin="http://evil.example")
    host = raw(url, INITIALIZE, host="evil.example")
    assert (origin.status_code, origin.text) == (403, "Invalid Origin header")
    assert (host.status_code, host.text) == (421, "Invalid Host header")
    assert raw(url, INITIALIZE, origin=url).status_code == 200  # the server's own loopback origin
    asyncio.run(still_answers(url))


def test_a_missing_or_wrong_token_is_refused(url: str) -> None:
    missing = httpx.post(url + "/mcp", json=INITIALIZE, headers=STREAMABLE)
    wrong = raw(url, INITIALIZE, authorization="Bearer guess")
    for response in (missing, wrong):
        assert response.status_code == 401 and response.headers["www-authenticate"] == "Bearer"
        assert "missing or wrong MCP token" in response.json()["error"]

    async def connect_with_a_wrong_token() -> None:
        async with session_at(url, token="guess"):
            pass

    with pytest.raises(ExceptionGroup) as refused:  # the SDK's client raises from its task group
        asyncio.run(connect_with_a_wrong_token())
    assert refused.group_contains(httpx.HTTPStatusError, match="401 Unauthorized")
    asyncio.run(still_answers(url))


async def test_a_client_over_http_may_not_name_files_on_the_server(url: str, demo_copy: Path) -> None:
    async with session_at(url) as session:
        folder = await session.call_tool("search_knowledge_base", {"query": "Paris", "kb_path": str(demo_copy)})
        path = await session.call_tool("verify_report", {"path": "/etc/passwd"})
        model = await session.call_tool("check_text", {"text": FAITHFUL, "model": "openai:gpt-4.1-mini"})
    assert "kb_path is not accepted over HTTP" in error_text(folder)
    assert "path is not accepted over HTTP" in error_text(path)
    assert "is not accepted over HTTP" in error_text(model)


async def test_each_check_counts_against_the_rate_limit(demo_copy: Path) -> None:
    app = create_app(model="offline", api_key="", rate_limit="2/minute", mcp_token="", kb_path=str(demo_copy))
    with serving(app) as base:
        async with session_at(base) as session:
            results = [await session.call_tool("check_claim", {"statement": FAITHFUL, "source_text": POLICY})
                       for _ in range(3)]
            search = await session.call_tool("search_knowledge_base", {"query": "Paris"})  # not a check: free
    assert [result.isError for result in results] == [False, False, True]
    assert "rate limit exceeded; retry in" in error_text(results[2])
    assert not search.isError


def test_the_verdicts_are_those_of_veracity_check_json(url: str, tmp_path: Path) -> None:
    policy = tmp_path / "policy.txt"
    policy.write_text(POLICY, encoding="utf-8")
    done = CliRunner().invoke(main, ["check", ANSWER, "--source", str(policy), "--model", "offline", "--json"])
    assert done.exit_code == 1, done.output
    cli = json.loads(done.stdout)

    async def over_mcp() -> dict[str, Any]:
        async with session_at(url) as session:
            result = await session.call_tool("check_text", {"text": ANSWER, "source_text": POLICY,
                                                            "source_title": "policy.txt", "model": "offline"})
        return dict(result.structuredContent)

    mcp = asyncio.run(over_mcp())
    fields = ("label", "shown_label", "confidence", "leaning", "quote")
    verdicts = {verdict["claim_id"]: verdict for verdict in cli["verdicts"]}
    from_cli = [(claim["text"], *(verdicts[claim["id"]][name] for name in fields)) for claim in cli["claims"]]
    assert [(claim["text"], *(claim[name] for name in fields)) for claim in mcp["claims"]] == from_cli
    assert len(from_cli) == 2
    assert (mcp["passed"], mcp["ok"], mcp["summary"]) == (cli["passed"], cli["ok"], cli["summary"])


def test_a_langgraph_agent_checks_its_draft_with_the_tools_over_http(url: str) -> None:
    example = load_example("mcp_agent")
    connection = example.over_http(url + "/mcp", TOKEN)
    conversation = asyncio.run(example.fact_checked_answer(example.QUESTION, example.scripted_model(), connection))
    result = example.checked(conversation)
    assert [claim["label"] for claim in result["claims"]] == ["unverifiable"] and result["passed"] is False
    assert conversation[-1].text == "You can return the package within 14 days of the delivery date."
