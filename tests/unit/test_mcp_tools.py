"""The MCP server's tools, resources and prompt, through the SDK's own client on an in-memory transport.

Checks run offline (the local claim splitter and judge) against a source text or a copy of the demo
knowledge base; the cancellation test scripts a model and a search that never answers.
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import shutil
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from mcp import ClientSession
from mcp.shared.exceptions import McpError
from mcp.shared.memory import create_connected_server_and_client_session
from mcp.types import CancelledNotification, CancelledNotificationParams, ClientNotification

import veracity
from tests.fakes import FakeWorld, claims_reply, hit, verdict_reply
from tests.mcp_client import ANSWER, FAITHFUL, POLICY, error_text
from veracity.context import setting_problem
from veracity.contracts import Claim, Report, SearchHit, Verdict
from veracity.kb import KnowledgeBase
from veracity.mcp_server.checks import CheckRunner
from veracity.mcp_server.progress import ProgressTracker
from veracity.mcp_server.reports import RecentReports, SessionReports
from veracity.mcp_server.server import create_mcp_server
from veracity.mcp_server.tools import as_sent
from veracity.progress import ProgressEvent
from veracity.run.checker import Checker
from veracity.server.mcp_security import bind_host, transport_security
from veracity.testing import ScriptedBackend

DEMO_NOTES = Path(veracity.__file__).parent / "kb" / "demo"


@pytest.fixture(scope="module")
def demo_copy(demo_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("mcp-kb") / "kb"
    shutil.copytree(demo_template, target)
    return target


@pytest.fixture(scope="module")
def checker(demo_copy: Path) -> Checker:
    """The offline checker every test's server shares (compiled once), searching a copy of the demo notes."""
    return Checker(model="offline", kb_path=str(demo_copy))


@asynccontextmanager
async def connected(checker: Checker, **options: Any) -> AsyncIterator[ClientSession]:
    server = create_mcp_server(checker, **{"local_client": True, **options})
    async with create_connected_server_and_client_session(server) as session:
        yield session


async def test_every_tool_has_an_input_and_an_output_schema(checker: Checker) -> None:
    async with connected(checker) as session:
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
    assert set(tools) == {"check_text", "check_claim", "search_knowledge_base", "verify_report"}
    for tool in tools.values():
        assert tool.inputSchema["type"] == "object" and tool.outputSchema is not None, tool.name
        assert tool.description and tool.annotations is not None and tool.annotations.readOnlyHint
    assert tools["check_text"].inputSchema["required"] == ["text"]
    assert tools["check_claim"].inputSchema["required"] == ["statement"]
    assert {"passed", "ok", "outcome", "claims"} <= set(tools["check_text"].outputSchema["properties"])
    claim = tools["check_text"].outputSchema["$defs"]["ClaimResult"]["properties"]
    assert {"label", "shown_label", "confidence", "quote", "reason", "differences"} <= set(claim)


async def test_check_text_gives_the_verdicts_of_a_direct_check(checker: Checker) -> None:
    direct = await checker.acheck(ANSWER, source_text=POLICY)
    async with connected(checker) as session:
        result = await session.call_tool("check_text", {"text": ANSWER, "source_text": POLICY})
    assert not result.isError
    got = result.structuredContent
    assert (got["passed"], got["ok"], got["outcome"]) == (direct.passed, direct.ok, direct.outcome) == (
        False, False, "fail")
    rows = [(c["text"], c["label"], c["shown_label"], c["confidence"], c["quote"]) for c in got["claims"]]
    assert rows == [(claim.text, v.label, v.shown_label, v.confidence, v.quote)
                    for claim in direct.claims if (v := direct.verdict_for(claim.id)) is not None]
    days = got["claims"][0]
    assert days["leaning"] == "refuted" and "14 days" in days["quote"]
    assert {"claim_words": "30 days", "passage_words": "14 days"}.items() <= days["differences"][0].items()
    assert days["differences"][0]["changes_meaning"] is True
    assert days["corrected_claim"] == "You can return the package within 14 days of the delivery date."
    assert json.loads(result.content[0].text) == got  # text for text-only clients


async def test_check_text_sends_a_progress_notification_per_claim(checker: Checker) -> None:
    updates: list[tuple[float, float | None, str | None]] = []

    async def heard(progress: float, total: float | None, message: str | None) -> None:
        updates.append((progress, total, message))

    async with connected(checker) as session:
        result = await session.call_tool("check_text", {"text": ANSWER, "source_text": POLICY},
                                         progress_callback=heard)
    claims = result.structuredContent["claims"]
    verdicts = [update for update in updates if update[1] is not None and update[0] > 0]
    assert [progress for progress, _, _ in verdicts] == [1, 2] and {total for _, total, _ in verdicts} == {2}
    progress = [value for value, _, _ in updates]
    assert progress == sorted(progress)  # MCP: the value grows with every notification
    assert {message.split(": ", 1)[1] for _, _, message in verdicts} == {claim["text"] for claim in claims}
    assert updates[0][2].startswith("extracting claims")


async def test_check_claim_checks_one_statement(checker: Checker) -> None:
    async with connected(checker) as session:
        result = await session.call_tool("check_claim", {"statement": FAITHFUL, "source_text": POLICY})
    [claim] = result.structuredContent["claims"]
    assert (claim["label"], result.structuredContent["passed"]) == ("supported", True)
    assert claim["citation_verified"] and claim["quote"] in POLICY


async def test_a_setting_is_refused_in_contexts_own_words(checker: Checker) -> None:
    async with connected(checker) as session:
        revisions = await session.call_tool("check_text", {"text": FAITHFUL, "max_revisions": 50})
        conflict = await session.call_tool("check_text", {"text": FAITHFUL, "source_text": POLICY, "search": "kb"})
        too_long = await session.call_tool("check_text", {"text": "word " * 5000})
        wrong_type = await session.call_tool("check_text", {"text": 5})
        still = await session.call_tool("check_claim", {"statement": FAITHFUL, "source_text": POLICY})
    assert error_text(revisions).endswith(str(setting_problem("max_revisions", 50)))
    assert "search 'kb' cannot be combined with source_text" in error_text(conflict)
    assert "the text is 25,000 characters; the limit is 20,000" in error_text(too_long)
    assert "text" in error_text(wrong_type) and "valid string" in error_text(wrong_type)
    assert still.structuredContent["passed"] is True


async def test_a_source_text_that_looks_like_json_stays_text(checker: Checker) -> None:
    source = json.dumps({"policy": POLICY})
    assert as_sent(json.loads(source)) == source and as_sent("plain") == "plain"
    async with connected(checker) as session:
        result = await session.call_tool("check_claim", {"statement": FAITHFUL, "source_text": source})
    assert not result.isError and result.structuredContent["claims"][0]["quote"] in source


async def test_search_knowledge_base_gives_passages_with_their_documents(checker: Checker, demo_copy: Path) -> None:
    async with connected(checker) as session:
        result = await session.call_tool("search_knowledge_base", {"query": "When did the Sydney Opera House open?",
                                                                    "limit": 3})
        too_many = await session.call_tool("search_knowledge_base", {"query": "Sydney", "limit": 50})
    passages = result.structuredContent["passages"]
    assert len(passages) == 3 and passages[0]["title"] == "Sydney Opera House"
    assert passages[0]["document"] == "demo:sydney-opera-house.md" and "1973" in passages[0]["text"]
    assert passages[0]["document_uri"] == "veracity://kb/documents/demo%3Asydney-opera-house.md"
    assert "less than or equal to 20" in error_text(too_many)


async def test_the_knowledge_base_documents_are_listed_and_read(checker: Checker) -> None:
    async with connected(checker) as session:
        listing = await session.read_resource("veracity://kb/documents")
        documents = json.loads(listing.contents[0].text)
        assert {document["path"] for document in documents} == {f"demo:{note.name}"
                                                                 for note in DEMO_NOTES.glob("*.md")}
        eiffel = next(document for document in documents if document["path"] == "demo:eiffel-tower.md")
        text = (await session.read_resource(eiffel["uri"])).contents[0].text
        with pytest.raises(McpError, match="no document 'demo:nope.md'"):
            await session.read_resource("veracity://kb/documents/demo%3Anope.md")
    assert text.strip() == (DEMO_NOTES / "eiffel-tower.md").read_text(encoding="utf-8").strip()


def test_a_documents_text_is_put_back_together_from_overlapping_chunks(tmp_path: Path) -> None:
    text = " ".join(f"Sentence number {n} says something about item {n} of the list." for n in range(60))
    text += "\n\nA last paragraph follows a blank line."
    source = tmp_path / "long.txt"
    source.write_text(text, encoding="utf-8")
    knowledge_base = KnowledgeBase(tmp_path / "kb")
    knowledge_base.ingest([source], chunk_tokens=40, overlap_tokens=10)
    [document] = knowledge_base.documents()
    assert document.chunks > 10  # overlapping chunks, and gaps between sentences no chunk holds
    assert knowledge_base.document_text(document.path) == text
    assert knowledge_base.document_text("/no/such/document.txt") is None


async def test_the_sessions_reports_are_resources(checker: Checker) -> None:
    async with connected(checker) as session:
        first = (await session.call_tool("check_claim", {"statement": FAITHFUL, "source_text": POLICY}))
        second = (await session.call_tool("check_text", {"text": ANSWER, "source_text": POLICY}))
        listing = json.loads((await session.read_resource("veracity://reports")).contents[0].text)
        whole = await session.read_resource(second.structuredContent["report_uri"])
        with pytest.raises(McpError, match="no report 'nope'"):
            await session.read_resource("veracity://reports/nope")
    assert [row["id"] for row in listing] == [second.structuredContent["report_id"],
                                              first.structuredContent["report_id"]]
    report = Report.model_validate_json(whole.contents[0].text)
    assert report.text == ANSWER and report.outcome == second.structuredContent["outcome"]


async def test_another_session_cannot_read_this_sessions_reports(checker: Checker) -> None:
    server = create_mcp_server(checker, local_client=True)
    async with create_connected_server_and_client_session(server) as first:
        made = await first.call_tool("check_claim", {"statement": FAITHFUL, "source_text": POLICY})
        async with create_connected_server_and_client_session(server) as second:
            assert json.loads((await second.read_resource("veracity://reports")).contents[0].text) == []
            with pytest.raises(McpError, match="no report"):
                await second.read_resource(made.structuredContent["report_uri"])
        assert (await first.read_resource(made.structuredContent["report_uri"])).contents


class Session:
    """Stands for a client session (the store keys on it weakly)."""


def test_a_session_keeps_its_last_reports_only() -> None:
    reports = RecentReports(size=2)
    made = [reports.add(Report.model_validate({"text": str(n), "evaluation": {}, "ok": True, "summary": {}}))
            for n in range(3)]
    assert reports.get(made[0]) is None and [report_id for report_id, _ in reports.items()] == made[:0:-1]
    sessions = SessionReports(size=2)
    one, other = Session(), Session()
    assert sessions.of(one) is sessions.of(one) and sessions.of(one) is not sessions.of(other)
    del one
    gc.collect()
    assert len(sessions) == 1  # a session's reports go with it


async def test_verify_report_holds_for_a_kept_report_and_fails_for_an_edited_one(checker: Checker) -> None:
    async with connected(checker) as session:
        made = await session.call_tool("check_text", {"text": ANSWER, "source_text": POLICY})
        whole = json.loads((await session.read_resource(made.structuredContent["report_uri"])).contents[0].text)
        intact = await session.call_tool("verify_report", {"report": whole})
        edited = await session.call_tool("verify_report", {"report": {**whole, "passed": True}})
        as_text = await session.call_tool("verify_report", {"report": json.dumps(whole)})
        nothing = await session.call_tool("verify_report", {})
        not_a_report = await session.call_tool("verify_report", {"report": {"claims": "many"}})
    assert intact.structuredContent["holds"] is True and intact.structuredContent["failed"] == 0
    assert intact.structuredContent["findings"][0]["warning"]  # inline: no signature could be checked
    assert edited.structuredContent["holds"] is False and edited.structuredContent["failed"] >= 1
    assert as_text.structuredContent["holds"] is True  # a client that sends the object as JSON text
    assert "one of the two" in error_text(nothing)
    assert "not a veracity report" in error_text(not_a_report)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs need a POSIX system")
async def test_verify_report_reads_a_path_as_veracity_verify_does(checker: Checker, tmp_path: Path) -> None:
    report = await checker.acheck(FAITHFUL, source_text=POLICY)
    saved = tmp_path / "report.json"
    saved.write_text(report.model_dump_json(indent=2), encoding="utf-8")
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    async with connected(checker) as session:
        by_path = await session.call_tool("verify_report", {"path": str(saved)})
        from_fifo = await asyncio.wait_for(session.call_tool("verify_report", {"path": str(fifo)}), 30)
        both = await session.call_tool("verify_report", {"path": str(saved), "report": report.model_dump()})
    assert by_path.structuredContent["holds"] is True
    assert "not signed" in by_path.structuredContent["findings"][0]["what"]
    assert "not a regular file" in error_text(from_fifo)
    assert "one of the two" in error_text(both)


async def test_a_client_over_http_may_not_name_files_or_models(checker: Checker, demo_copy: Path) -> None:
    async with connected(checker, local_client=False) as session:
        kb = await session.call_tool("search_knowledge_base", {"query": "Sydney", "kb_path": str(demo_copy)})
        model = await session.call_tool("check_text", {"text": FAITHFUL, "model": "openai:gpt-4.1"})
        path = await session.call_tool("verify_report", {"path": "/etc/passwd"})
        offline = await session.call_tool("check_text", {"text": FAITHFUL, "model": "offline", "source_text": POLICY})
    assert "kb_path is not accepted over HTTP" in error_text(kb)
    assert "model 'openai:gpt-4.1' is not accepted over HTTP" in error_text(model)
    assert "path is not accepted over HTTP" in error_text(path)
    assert offline.structuredContent["passed"] is True


def test_the_runner_refuses_a_rate_used_up() -> None:
    charged: list[object] = []

    def admission(request: object | None) -> str | None:
        charged.append(request)
        return "rate limit exceeded; retry in 7 s" if len(charged) > 1 else None

    runner = CheckRunner(Checker(model="offline"), local_client=False, admission=admission)
    runner.admit("first")
    with pytest.raises(Exception, match="retry in 7 s"):
        runner.admit("second")


class NeverAnswers(ScriptedBackend):
    """Answers the first claim's search at once; the second claim's search waits until it is cancelled."""

    def __init__(self, world: FakeWorld, slow_query: str) -> None:
        super().__init__(world.search)
        self.slow_query = slow_query
        self.waiting = asyncio.Event()
        self.cancelled = asyncio.Event()

    async def search(self, query: str, *, limit: int) -> list[SearchHit]:
        if query != self.slow_query:
            return await super().search(query, limit=limit)
        self.waiting.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            self.cancelled.set()
            raise
        return []


async def test_cancelling_a_call_stops_its_check_and_the_server_answers_the_next(world: FakeWorld) -> None:
    fast, slow = "Canberra is the capital of Australia.", "Sydney is the largest city in Australia."
    world.extract(claims_reply((fast, fast), (slow, slow))).evidence(fast, [hit(fast)])
    world.judge(fast, verdict_reply("supported", "c1-e1", fast))
    backend = NeverAnswers(world, slow)
    checker = Checker(model=world.model(), backend=backend, max_revisions=0)
    tokens: list[object] = []
    first_verdict = asyncio.Event()

    async def notified(message: object) -> None:
        root = getattr(message, "root", None)
        if getattr(root, "method", None) == "notifications/progress" and root.params.progress >= 1:
            tokens.append(root.params.progressToken)  # the SDK's progress token is the request's id
            first_verdict.set()

    async def nothing(*_: object) -> None:
        return None

    server = create_mcp_server(checker, local_client=True)
    async with create_connected_server_and_client_session(server, message_handler=notified) as session:
        call = asyncio.create_task(session.call_tool("check_text", {"text": f"{fast} {slow}"},
                                                     progress_callback=nothing))
        await asyncio.wait_for(backend.waiting.wait(), 30)
        await asyncio.wait_for(first_verdict.wait(), 30)
        await session.send_notification(ClientNotification(CancelledNotification(
            params=CancelledNotificationParams(requestId=tokens[0], reason="the agent moved on"))))
        await asyncio.wait_for(backend.cancelled.wait(), 10)  # the check itself was stopped
        with pytest.raises(McpError, match="cancelled"):
            await asyncio.wait_for(call, 10)
        after = await session.call_tool("search_knowledge_base", {"query": "x", "kb_path": "/no/such/kb"})
    assert after.isError and "no knowledge base" in error_text(after)  # answered: the server is alive


async def test_nothing_reaches_standard_output_during_a_check(checker: Checker,
                                                              capfd: pytest.CaptureFixture[str]) -> None:
    capfd.readouterr()
    async with connected(checker) as session:
        await session.call_tool("check_text", {"text": ANSWER, "source_text": POLICY})
        await session.call_tool("check_text", {"text": "The Sydney Opera House opened in 1973.", "search": "kb"})
        await session.call_tool("search_knowledge_base", {"query": "Eiffel Tower"})
    assert capfd.readouterr().out == ""


async def test_the_prompt_asks_for_check_text_with_the_source(checker: Checker) -> None:
    async with connected(checker) as session:
        [prompt] = (await session.list_prompts()).prompts
        got = await session.get_prompt(prompt.name, {"answer": ANSWER, "source": POLICY})
    assert prompt.name == "check_answer_against_source" and {a.name for a in prompt.arguments or []} == {
        "answer", "source"}
    text = got.messages[0].content.text
    assert "check_text" in text and f"<answer>\n{ANSWER}\n</answer>" in text and POLICY in text


def test_progress_counts_verdicts_and_grows_the_total_for_each_revise_round() -> None:
    claims = [Claim(id=f"c{n}", text=f"claim {n}", source=f"claim {n}", span=(0, 7)) for n in (1, 2)]
    verdict = Verdict(claim_id="c1", label="supported", reason="r", confidence=0.95)
    tracker = ProgressTracker()
    updates = [tracker.update(event) for event in (
        ProgressEvent(kind="extracting"), ProgressEvent(kind="claims", claims=claims),
        ProgressEvent(kind="verdict", claim=claims[0], verdict=verdict),
        ProgressEvent(kind="verdict", claim=claims[1], verdict=verdict),
        ProgressEvent(kind="revising", claims=claims[1:], revision=1),
        ProgressEvent(kind="verdict", claim=claims[1], verdict=verdict, revision=1),
    )]
    assert [(u.progress, u.total) for u in updates] == [(0, None), (0, 2), (1, 2), (2, 2), (2, 3), (3, 3)]
    assert updates[2].message == "supported, 0.95: claim 1" and "revise round 1" in updates[4].message


def test_the_agent_code_in_the_docs_is_the_example_the_tests_run() -> None:
    root = Path(__file__).resolve().parents[2]
    page = (root / "docs" / "mcp.md").read_text(encoding="utf-8")
    example = (root / "examples" / "mcp_agent.py").read_text(encoding="utf-8")
    shown = page.split("## A LangGraph agent", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    assert "MultiServerMCPClient" in shown and shown in example


def test_the_http_endpoint_answers_loopback_and_the_hosts_and_origins_named() -> None:
    settings = transport_security(["api.example.com", "10.0.0.5:8443"], ["https://app.example.com"])
    assert settings.enable_dns_rebinding_protection
    assert {"127.0.0.1:*", "localhost:*", "[::1]:*", "api.example.com", "api.example.com:*", "10.0.0.5:8443"} <= set(
        settings.allowed_hosts) and "10.0.0.5:8443:*" not in settings.allowed_hosts
    assert {"http://127.0.0.1:*", "http://localhost:*", "https://app.example.com"} <= set(settings.allowed_origins)
    assert [bind_host(host) for host in ("127.0.0.1", "::1", "0.0.0.0", "::", "10.1.2.3", "fe80::1")] == [
        [], [], [], [], ["10.1.2.3"], ["[fe80::1]"]]


def test_serve_passes_the_mcp_options_with_the_address_it_binds(monkeypatch: pytest.MonkeyPatch) -> None:
    import veracity.server.app
    from veracity.cli import main

    seen: list[dict[str, Any]] = []

    def app(**options: Any) -> None:
        seen.append(options)
        raise SystemExit(0)

    monkeypatch.setattr(veracity.server.app, "create_app", app)
    monkeypatch.setenv("VERACITY_MCP_TOKEN", "from-the-environment")
    runner = CliRunner()
    named = runner.invoke(main, ["serve", "--workers", "1", "--host", "10.1.2.3", "--mcp-allowed-hosts",
                                 "veracity.example", "--mcp-allowed-origins", "https://app.example"])
    monkeypatch.delenv("VERACITY_MCP_TOKEN")
    plain = runner.invoke(main, ["serve", "--workers", "1", "-m", "offline"])
    assert named.exit_code == plain.exit_code == 0, (named.output, plain.output)
    assert {name: seen[0][name] for name in ("mcp_token", "mcp_allowed_hosts", "mcp_allowed_origins")} == {
        "mcp_token": "from-the-environment", "mcp_allowed_hosts": "10.1.2.3,veracity.example",
        "mcp_allowed_origins": "https://app.example"}
    assert not any(name.startswith("mcp_") for name in seen[1])  # on loopback with nothing set: the app's defaults
