"""The resources: the knowledge base's documents, and the reports this session's checks made.

* ``veracity://kb/documents``: every indexed document (JSON: path, title, chunks, its URI);
* ``veracity://kb/documents/{document}``: one document's indexed text;
* ``veracity://reports``: this session's last reports (JSON: id, URI, outcome, counts, the text's start);
* ``veracity://reports/{report_id}``: one report, whole, as `veracity check --json` writes it.
"""

from __future__ import annotations

import json
from typing import Any

from mcp.server.fastmcp import FastMCP
from mcp.server.fastmcp.exceptions import ResourceError

from veracity.mcp_server.errors import told_to_client
from veracity.mcp_server.knowledge import DOCUMENT_URI, DOCUMENTS_URI, KnowledgeBaseReader, document_path, document_uri
from veracity.mcp_server.reports import REPORT_URI, RecentReports, SessionReports, report_uri

REPORTS_URI = "veracity://reports"
"""The resource that lists this session's reports."""

PREVIEW_CHARS = 120
"""How much of a checked text the report list shows."""

JSON = "application/json"


def add_resources(server: FastMCP[Any], reports: SessionReports, knowledge: KnowledgeBaseReader, *,
                  local_client: bool) -> None:
    """Register the resources on `server`."""

    def session_reports() -> RecentReports:
        return reports.of(server.get_context().session)

    @server.resource(DOCUMENTS_URI, name="knowledge-base-documents", title="Knowledge base documents",
                     mime_type=JSON, description="Every document in the knowledge base: path, title, chunks, URI.")
    async def documents() -> str:
        with told_to_client(local_client=local_client, kind=ResourceError):
            indexed = await knowledge.documents()
        return json.dumps([{"path": info.path, "title": info.title, "chunks": info.chunks,
                            "ingested_at": info.ingested_at, "uri": document_uri(info.path)} for info in indexed])

    @server.resource(DOCUMENT_URI, name="knowledge-base-document", title="A knowledge base document",
                     mime_type="text/plain", description="One document's text as the knowledge base indexed it.")
    async def read_document(document: str) -> str:
        path = document_path(document)
        with told_to_client(local_client=local_client, kind=ResourceError):
            text = await knowledge.document_text(path)
        if text is None:
            raise ResourceError(f"the knowledge base holds no document {path!r}; {DOCUMENTS_URI} lists them")
        return text

    @server.resource(REPORTS_URI, name="recent-reports", title="This session's reports", mime_type=JSON,
                     description="The reports of this session's last checks, newest first.")
    def recent() -> str:
        return json.dumps([
            {"id": report_id, "uri": report_uri(report_id), "outcome": report.outcome, "passed": report.passed,
             "claims": report.summary.claims, "text": report.text[:PREVIEW_CHARS]}
            for report_id, report in session_reports().items()])

    @server.resource(REPORT_URI, name="report", title="A report", mime_type=JSON,
                     description="One report of this session, whole: claims, verdicts, evidence, failures, trace.")
    def read_report(report_id: str) -> str:
        found = session_reports().get(report_id)
        if found is None:
            raise ResourceError(f"this session has no report {report_id!r} (only its last {reports.size} are kept); "
                                f"{REPORTS_URI} lists them")
        return found.model_dump_json()
