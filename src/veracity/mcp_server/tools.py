"""The tools: `check_text`, `check_claim`, `search_knowledge_base` and `verify_report`.

Each tool's arguments and result are typed, so clients get an input schema and an output schema,
and each result arrives as structured content (and as JSON text for clients that read only text).
The settings a call may give are `veracity.Context`'s, checked by Context as everywhere else.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

from mcp.server.fastmcp import Context, FastMCP
from mcp.server.session import ServerSession
from mcp.types import CallToolResult, ToolAnnotations
from pydantic import BeforeValidator, Field

from veracity.context import setting_description
from veracity.evidence.capabilities import SearchKind
from veracity.mcp_server.checks import CheckRunner, SendProgress
from veracity.mcp_server.errors import told_to_client
from veracity.mcp_server.knowledge import KnowledgeBaseReader, document_uri
from veracity.mcp_server.outputs import CheckResult, Passage, Passages, VerifyResult, check_result, tool_result
from veracity.mcp_server.progress import ProgressUpdate
from veracity.mcp_server.reports import SessionReports, report_uri
from veracity.mcp_server.reverify import reverify


def as_sent(value: object) -> object:
    """A JSON object or array back to the text it was sent as.

    FastMCP parses a string argument that holds JSON for every parameter not typed exactly `str`
    (some clients send objects as JSON text); an optional text must stay the text the client sent.
    """
    return json.dumps(value, ensure_ascii=False) if isinstance(value, dict | list) else value


Text = Annotated[str | None, BeforeValidator(as_sent)]
"""An optional text argument, taken as the client sent it."""

ToolContext = Context[ServerSession, Any, Any]
"""The request context FastMCP hands a tool (progress, the session, the HTTP request)."""

SourceText = Annotated[Text, Field(description=(
    "Check against this text only (e.g. a policy, or the document the answer should stay within): it is the only "
    "evidence and no search runs."))]
SourceTitle = Annotated[Text, Field(description=setting_description("source_title"))]
Search = Annotated[SearchKind | None, Field(description=(
    "Evidence: 'kb' (the local knowledge base), 'web' (Tavily, needs TAVILY_API_KEY), 'source' (source_text only) "
    "or 'auto'. Not given: the server's setting, or 'source' when source_text is given. 'web' or 'kb' together "
    "with source_text is refused."))]
Model = Annotated[Text, Field(description=(
    "'offline' for the local claim splitter and judge; not given: the server's model. On stdio also any "
    "'provider:model' chat model, e.g. 'openai:gpt-4.1-mini'."))]
KnowledgeBasePath = Annotated[Text, Field(description=(
    "Knowledge base folder to search (stdio only). Not given: the server's, else $VERACITY_KB, else the per-user "
    "data folder."))]
MaxRevisions = Annotated[int | None, Field(description=setting_description("max_revisions"))]
MinPrecision = Annotated[float | None, Field(description=setting_description("min_precision"))]

CHECK_TEXT = (
    "Fact-check a text: split it into claims, find evidence for each, and judge every claim supported, refuted or "
    "unverifiable, with a verbatim quote from the evidence. `passed` is true only when every claim is supported. "
    "A progress notification is sent as each claim is judged. The whole report (evidence, trace, failures) is kept "
    "as the resource named in `report_uri`."
)
CHECK_CLAIM = (
    "Fact-check one statement, e.g. to check an answer sentence by sentence as it is written. veracity has no way to "
    "take a claim as given (every check starts by extracting claims), so the statement is checked as a text: one "
    "that joins two facts ('X was built in 1900 and is 300 m tall') comes back as two claims, each with its own "
    "verdict. Otherwise as check_text."
)
SEARCH_KNOWLEDGE_BASE = (
    "The passages the local knowledge base holds for a query, best first, with the title and path of the document "
    "each comes from: the search a 'kb' check runs for its evidence."
)
VERIFY_REPORT = (
    "Check a saved veracity report again, with no model and no search: that it is whole and consistent, that every "
    "quote is in the evidence it cites, that computations and offline verdicts come out the same, and that its "
    "signature holds. Give path or report."
)

CHECKS = ToolAnnotations(readOnlyHint=True, idempotentHint=True, openWorldHint=True)
"""A check reads evidence (perhaps the web) and changes nothing."""
READS = ToolAnnotations(readOnlyHint=True, idempotentHint=True, openWorldHint=False)


def add_tools(server: FastMCP[Any], runner: CheckRunner, reports: SessionReports,
              knowledge: KnowledgeBaseReader) -> None:
    """Register the four tools on `server`."""

    async def checked(ctx: ToolContext, text: str, model: str | None, **settings: Any) -> CallToolResult:
        with told_to_client(local_client=runner.local_client):
            runner.admit(ctx.request_context.request)
            report = await runner.run(text, model, runner.settings(**settings), progress_of(ctx))
        report_id = reports.of(ctx.session).add(report)
        return tool_result(check_result(report, report_id, report_uri(report_id)))

    async def check_text(
        text: Annotated[str, Field(description="The text to check, e.g. an answer; at most max_text_chars "
                                               "(20,000 by default) characters.")],
        ctx: ToolContext, source_text: SourceText = None, source_title: SourceTitle = None, search: Search = None,
        model: Model = None, kb_path: KnowledgeBasePath = None, max_revisions: MaxRevisions = None,
        min_precision: MinPrecision = None,
    ) -> Annotated[CallToolResult, CheckResult]:
        """Fact-check a text (`CHECK_TEXT`)."""
        return await checked(ctx, text, model, source_text=source_text, source_title=source_title, search=search,
                             kb_path=kb_path, max_revisions=max_revisions, min_precision=min_precision)

    async def check_claim(
        statement: Annotated[str, Field(description="One factual statement, e.g. a sentence of your own answer.")],
        ctx: ToolContext, source_text: SourceText = None, source_title: SourceTitle = None, search: Search = None,
        model: Model = None, kb_path: KnowledgeBasePath = None, max_revisions: MaxRevisions = None,
        min_precision: MinPrecision = None,
    ) -> Annotated[CallToolResult, CheckResult]:
        """Fact-check one statement (`CHECK_CLAIM`): checked as a text, as no entry point takes a claim as given."""
        return await checked(ctx, statement, model, source_text=source_text, source_title=source_title,
                             search=search, kb_path=kb_path, max_revisions=max_revisions, min_precision=min_precision)

    async def search_knowledge_base(
        query: Annotated[str, Field(min_length=1, description="What to look for, e.g. a claim.")],
        limit: Annotated[int, Field(ge=1, le=20, description="Passages to return, at most.")] = 5,
        kb_path: KnowledgeBasePath = None,
    ) -> Annotated[CallToolResult, Passages]:
        """The knowledge base's passages for `query` (`SEARCH_KNOWLEDGE_BASE`)."""
        with told_to_client(local_client=runner.local_client):
            hits = await knowledge.search(query, limit=limit, path=runner.knowledge_base(kb_path))
        return tool_result(Passages(query=query, passages=[
            Passage(title=hit.title, document=hit.url, document_uri=document_uri(hit.url) if hit.url else None,
                    text=hit.text, score=hit.score) for hit in hits]))

    async def verify_report(
        path: Annotated[Text, Field(description="A report.json written by `veracity check --out` or --json "
                                                "(stdio only); its signature beside it is checked too.")] = None,
        report: Annotated[dict[str, Any] | None, Field(description="The report itself, as a JSON object (e.g. a "
                                                                   "report resource of this server).")] = None,
    ) -> Annotated[CallToolResult, VerifyResult]:
        """A saved report checked again (`VERIFY_REPORT`)."""
        with told_to_client(local_client=runner.local_client):
            return tool_result(await reverify(path=path, report=report, local_client=runner.local_client))

    server.add_tool(check_text, title="Fact-check a text", description=CHECK_TEXT, annotations=CHECKS,
                    structured_output=True)
    server.add_tool(check_claim, title="Fact-check one statement", description=CHECK_CLAIM, annotations=CHECKS,
                    structured_output=True)
    server.add_tool(search_knowledge_base, title="Search the knowledge base", description=SEARCH_KNOWLEDGE_BASE,
                    annotations=READS, structured_output=True)
    server.add_tool(verify_report, title="Verify a saved report", description=VERIFY_REPORT, annotations=READS,
                    structured_output=True)


def progress_of(ctx: ToolContext) -> SendProgress:
    """Sends a check's progress to the client of `ctx` (nothing when its call asked for none)."""

    async def send(update: ProgressUpdate) -> None:
        await ctx.report_progress(update.progress, update.total, update.message)

    return send
