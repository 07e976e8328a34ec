"""`veracity mcp` as desktop clients run it: a subprocess spoken to over stdio by the SDK's own client.

The server runs offline (`--model offline`), against a source text or a copy of the demo knowledge
base; a long check (two hundred claims) is cancelled half-way. A raw test reads the server's
standard output line by line: every line must be protocol.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
import textwrap
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TextIO

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import McpError
from mcp.types import CancelledNotification, CancelledNotificationParams, ClientNotification

from tests.mcp_client import ANSWER, FAITHFUL, LONG_TEXT, POLICY, ProgressHeard, error_text, load_example
from veracity.audit import write_artefacts
from veracity.contracts import Report

VERACITY = Path(sys.executable).parent / "veracity"
"""The installed `veracity` command (the entry point a client's configuration names)."""


@pytest.fixture
def server_env(demo_template: Path, tmp_path: Path) -> dict[str, str]:
    """The server's environment: this test's (tracing off, keys hidden) with a copy of the demo knowledge base."""
    shutil.copytree(demo_template, tmp_path / "kb")
    return {**os.environ, "VERACITY_KB": str(tmp_path / "kb"), "LANGSMITH_TRACING": "false"}


@pytest.fixture
def server_log(tmp_path: Path) -> TextIO:
    with open(tmp_path / "server-stderr.log", "w", encoding="utf-8") as log:
        yield log


@asynccontextmanager
async def session_with(env: dict[str, str], log: TextIO, **client: Any) -> AsyncIterator[ClientSession]:
    """A client session with `veracity mcp --model offline`, started as a subprocess."""
    parameters = StdioServerParameters(command=str(VERACITY), args=["mcp", "--model", "offline"], env=env)
    async with stdio_client(parameters, errlog=log) as (read, write), ClientSession(read, write, **client) as session:
        await session.initialize()
        yield session


async def alive(session: ClientSession) -> None:
    """The server still answers: a quick search."""
    result = await asyncio.wait_for(session.call_tool("search_knowledge_base", {"query": "Eiffel Tower"}), 60)
    assert result.structuredContent["passages"][0]["title"] == "Eiffel Tower"


async def test_tools_resources_and_progress_over_stdio(server_env: dict[str, str], server_log: TextIO,
                                                       tmp_path: Path) -> None:
    updates: list[tuple[float, float | None, str | None]] = []

    async def heard(progress: float, total: float | None, message: str | None) -> None:
        updates.append((progress, total, message))

    async with session_with(server_env, server_log) as session:
        assert {tool.name for tool in (await session.list_tools()).tools} == {
            "check_text", "check_claim", "search_knowledge_base", "verify_report"}
        checked = await session.call_tool("check_text", {"text": ANSWER, "source_text": POLICY},
                                          progress_callback=heard)
        claim = await session.call_tool("check_claim", {"statement": "The Eiffel Tower is in Paris.", "search": "kb"})
        await alive(session)
        reports = json.loads((await session.read_resource("veracity://reports")).contents[0].text)
        whole = (await session.read_resource(checked.structuredContent["report_uri"])).contents[0].text
        documents = json.loads((await session.read_resource("veracity://kb/documents")).contents[0].text)
        prompt = await session.get_prompt("check_answer_against_source", {"answer": ANSWER, "source": POLICY})
        write_artefacts(Report.model_validate_json(whole), tmp_path / "out")  # signed with this machine's key
        signed = await session.call_tool("verify_report", {"path": str(tmp_path / "out" / "report.json")})
    result = checked.structuredContent
    assert (result["passed"], result["outcome"], [c["label"] for c in result["claims"]]) == (
        False, "fail", ["unverifiable", "supported"])
    assert result["claims"][0]["leaning"] == "refuted" and result["claims"][0]["differences"]
    assert [(progress, total) for progress, total, _ in updates if progress] == [(1, 2), (2, 2)]
    assert claim.structuredContent["claims"][0]["label"] == "supported"
    assert claim.structuredContent["claims"][0]["evidence_url"] == "demo:eiffel-tower.md"
    assert [row["id"] for row in reports] == [claim.structuredContent["report_id"], result["report_id"]]
    assert len(documents) == len(list((Path(sys.modules["veracity"].__file__).parent / "kb" / "demo").glob("*.md")))
    assert "check_text" in prompt.messages[0].content.text
    assert signed.structuredContent["holds"] is True
    assert signed.structuredContent["findings"][0]["what"].startswith("signature holds")


async def test_bad_input_leaves_the_server_answering(server_env: dict[str, str], server_log: TextIO) -> None:
    async with session_with(server_env, server_log) as session:
        unknown = await session.call_tool("check_everything", {"text": FAITHFUL})
        await alive(session)
        wrong = await session.call_tool("search_knowledge_base", {"query": ["not", "a", "string"], "limit": "many"})
        await alive(session)
        huge = await session.call_tool("check_text", {"text": "x" * 10_000_000})
        await alive(session)
        missing = await session.call_tool("verify_report", {"path": str(Path(server_env["VERACITY_KB"]) / "nope")})
        await alive(session)
    assert "Unknown tool: check_everything" in error_text(unknown)
    assert "query" in error_text(wrong) and "limit" in error_text(wrong)
    assert "the text is 10,000,000 characters; the limit is 20,000" in error_text(huge)
    assert "cannot read" in error_text(missing)


async def test_a_cancelled_check_stops_and_the_server_answers_the_next_call(server_env: dict[str, str],
                                                                            server_log: TextIO) -> None:
    progress = ProgressHeard()
    verdicts = progress.verdicts
    async with session_with(server_env, server_log, message_handler=progress.notified) as session:
        long_check = asyncio.create_task(session.call_tool(
            "check_text", {"text": LONG_TEXT, "source_text": POLICY}, progress_callback=progress.heard))
        await asyncio.wait_for(progress.first_verdict.wait(), 120)
        request_id = verdicts[0][0]
        await session.send_notification(ClientNotification(CancelledNotification(
            params=CancelledNotificationParams(requestId=request_id, reason="the agent moved on"))))
        with pytest.raises(McpError, match="cancelled"):
            await asyncio.wait_for(long_check, 60)
        heard_then = len(verdicts)
        await alive(session)
        answered = await asyncio.wait_for(session.call_tool("check_claim", {"statement": FAITHFUL,
                                                                            "source_text": POLICY}), 60)
        await asyncio.sleep(1)
        assert len(verdicts) <= heard_then + 1  # the cancelled check sends nothing more (one may be under way)
    assert answered.structuredContent["passed"] is True
    assert verdicts[-1][1] < 200  # it never got through its two hundred claims


def test_standard_output_carries_the_protocol_only(server_env: dict[str, str]) -> None:
    requests = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        "{this is not json",
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "check_text", "arguments": {"text": ANSWER, "source_text": POLICY},
            "_meta": {"progressToken": "p"}}},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
            "name": "check_text", "arguments": {"text": "The Sydney Opera House opened in 1973.", "search": "kb"}}},
    ]
    server = subprocess.Popen([str(VERACITY), "mcp", "--model", "offline"], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=server_env)
    watchdog = threading.Timer(300, server.kill)
    watchdog.start()
    try:
        assert server.stdin is not None and server.stdout is not None
        for item in requests:
            server.stdin.write(((item if isinstance(item, str) else json.dumps(item)) + "\n").encode())
        server.stdin.flush()
        messages: list[dict[str, Any]] = []
        while not {2, 3} <= {message.get("id") for message in messages}:
            line = server.stdout.readline()
            assert line, "the server closed its standard output before answering"
            messages.append(json.loads(line))  # every line is JSON-RPC, or this fails
        server.stdin.close()  # the client goes: the server ends
        assert server.wait(timeout=60) == 0
        assert server.stdout.read() == b""
    finally:
        watchdog.cancel()
        if server.poll() is None:
            server.kill()
        server.wait()
        for stream in (server.stdin, server.stdout, server.stderr):
            if stream is not None:
                stream.close()
    assert all(message["jsonrpc"] == "2.0" for message in messages)
    answers = {message["id"]: message for message in messages if "id" in message}
    assert answers[2]["result"]["structuredContent"]["outcome"] == "fail"
    assert answers[3]["result"]["structuredContent"]["passed"] is True
    assert any(message.get("method") == "notifications/progress" for message in messages)


def test_stray_writes_to_standard_output_go_to_standard_error() -> None:
    script = textwrap.dedent("""
        import asyncio, os
        from veracity.mcp_server.stdio import stdout_for_protocol_only

        async def main():
            with stdout_for_protocol_only() as protocol:
                print("a stray print")
                os.write(1, b"a stray write to file descriptor 1\\n")
                await protocol.write('{"jsonrpc": "2.0"}\\n')
                await protocol.flush()
            print("after: standard output again")

        asyncio.run(main())
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout == '{"jsonrpc": "2.0"}\nafter: standard output again\n'
    assert "a stray print" in done.stderr and "a stray write to file descriptor 1" in done.stderr


def test_a_langgraph_agent_checks_its_draft_with_the_tools_over_stdio(server_env: dict[str, str]) -> None:
    example = load_example("mcp_agent")
    connection = {**example.STDIO, "command": str(VERACITY), "env": server_env}
    conversation = asyncio.run(example.fact_checked_answer(example.QUESTION, example.scripted_model(), connection))
    result = example.checked(conversation)
    [claim] = result["claims"]
    assert (result["passed"], claim["label"], claim["leaning"]) == (False, "unverifiable", "refuted")
    assert conversation[-1].text == "You can return the package within 14 days of the delivery date."
