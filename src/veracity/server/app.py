"""The HTTP app: LangServe-style routes for the fact-check graph, ``/analyze``, ``/healthz``.

Routes (all JSON; errors are ``{"error": ..., "status": ...}``):

* ``POST /factcheck/invoke``  ``{"input": {"text": ..., "source_text"?: ..., "search"?: ...}}``
  -> ``{"output": <report>, "metadata": {"run_id": ...}}``
* ``POST /factcheck/audit``   as invoke, plus ``report_md`` and ``audit_md`` (see `veracity.audit`)
* ``POST /factcheck/batch``   ``{"inputs": [<input>, ...]}`` -> ``{"output": [<report>, ...], "metadata": ...}``
* ``POST /factcheck/stream``  server-sent events: ``metadata``, a ``progress`` event per
  `veracity.ProgressEvent` (claims found, each claim's verdict as it is reached, revise rounds),
  a ``data`` event with the report, ``end``
* ``GET /factcheck/input_schema``, ``GET /factcheck/output_schema``: JSON schemas
* ``POST /analyze`` ``{"query": ..., "answer"?: ..., "source_text"?: ...}``: answers the query with
  the configured chat model (or takes the given answer) and audits it
* ``GET /healthz``; OpenAPI docs at ``/docs``; ``GET /`` the web page (``static/index.html``)
* ``/mcp``: the same checks as Model Context Protocol tools over streamable HTTP (`veracity.server.mcp_endpoint`),
  with its own bearer token (``VERACITY_MCP_TOKEN``, else the API key) and this app's limits

A request with ``source_text`` is checked against that source, whatever the server's default
``search``; one that also names ``search`` 'web' or 'kb' is refused with 422.

With an API key configured (``VERACITY_API_KEY`` or ``create_app(api_key=...)``) every route
that runs a check or a model needs ``X-API-Key`` or ``Authorization: Bearer``; the page,
``/healthz``, the docs, ``/openapi.json`` and the two schemas stay public: they hold no data,
and the page asks for the key itself (`PUBLIC_ROUTES`). Bodies over the size limit get 413; a
client over its rate gets 429 with ``Retry-After``, each check of a batch counting once.
"""

# No `from __future__ import annotations` here: FastAPI reads the route signatures' types at
# run time, also when `langgraph dev` loads this file under another module name.
import asyncio
import json
import logging
import os
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from importlib.metadata import version
from importlib.resources import files as package_files
from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import Depends, FastAPI, Request, Security
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, StreamingResponse
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer
from langchain_core.language_models import BaseChatModel
from pydantic import BaseModel, Field, ValidationInfo, field_validator, model_validator
from pydantic_core import PydanticCustomError
from starlette.exceptions import HTTPException

from veracity.context import setting_description, setting_problem
from veracity.contracts import Report
from veracity.errors import ConfigurationError, InputError, KnowledgeBaseError, SettingError, SourceConflictError
from veracity.evidence.capabilities import SearchKind
from veracity.progress import ProgressEvent
from veracity.run.checker import Checker
from veracity.server.limits import BodyLimit, error_response, key_matches, parse_rate, presented_key
from veracity.server.mcp_endpoint import mcp_endpoint
from veracity.server.mcp_security import ALLOWED_HOSTS_ENV, ALLOWED_ORIGINS_ENV, TOKEN_ENV, listed
from veracity.source_mode import source_search

logger = logging.getLogger(__name__)

DEFAULT_MAX_BODY_BYTES = 1_000_000
DEFAULT_RATE = "60/minute"
ANSWER_TOKENS = 1024
"""An answer the model writes to a user's query for auditing (`POST /analyze`): a few paragraphs."""

PUBLIC_ROUTES = frozenset({"/", "/healthz", "/docs", "/docs/oauth2-redirect", "/redoc", "/openapi.json",
                           "/factcheck/input_schema", "/factcheck/output_schema"})
"""Routes that answer without the API key: the page, liveness, documentation and schemas."""
_KEY_HEADER = APIKeyHeader(name="X-API-Key", auto_error=False,
                           description="Needed when the server sets VERACITY_API_KEY.")
_BEARER = HTTPBearer(auto_error=False, description="The same key, as a bearer token.")
DEFAULT_BATCH_CONCURRENCY = 4
"""Checks of one batch request that run at the same time, at most (``VERACITY_BATCH_CONCURRENCY``)."""


def request_setting(name: str, note: str) -> Any:
    """A request field for the Context setting `name`, unset by default, described by Context's metadata and `note`."""
    return Field(default=None, description=f"{setting_description(name)} {note}")


class FactcheckInput(BaseModel):
    """What to check: the text, and optionally a source text to check it against only."""

    text: str = Field(min_length=1, description="The text to fact-check.")
    source_text: str | None = request_setting("source_text", "Sent: this request is checked against it only.")
    search: SearchKind | None = request_setting(
        "search", "Not sent: the server's setting, or 'source' when source_text is given.")
    model: Literal["offline"] | None = Field(
        default=None, description="'offline': use the local claim splitter and judge for this request; "
                                  "default: the server's model.")
    thread_id: str | None = Field(
        default=None, min_length=1, max_length=200,
        description="On a server started with a checkpoint file: the check to resume or read back.")

    @field_validator("source_text", "search", mode="before")
    @classmethod
    def _checked_as_context_checks_it(cls, value: Any, info: ValidationInfo) -> Any:
        """Refuse a setting's value Context would refuse, in Context's words (422)."""
        problem = setting_problem(str(info.field_name), value)
        if problem is not None:
            raise PydanticCustomError("setting", "{problem}", {"problem": problem})
        return value

    @model_validator(mode="after")
    def _source_is_the_evidence(self) -> "FactcheckInput":
        """Refuse a source text sent with another search: the source would otherwise be dropped."""
        try:
            source_search(self.search, self.source_text)
        except SourceConflictError as conflict:
            raise PydanticCustomError("source_conflict", str(conflict)) from None
        return self


class InvokeRequest(BaseModel):
    """LangServe's invoke body."""

    input: FactcheckInput
    config: dict[str, Any] = Field(default_factory=dict)
    kwargs: dict[str, Any] = Field(default_factory=dict)


class BatchRequest(BaseModel):
    """LangServe's batch body."""

    inputs: list[FactcheckInput] = Field(min_length=1, max_length=32)
    config: dict[str, Any] | list[dict[str, Any]] = Field(default_factory=dict)
    kwargs: dict[str, Any] = Field(default_factory=dict)


class AnalyzeRequest(BaseModel):
    """Answer `query` (or take `answer`) and audit the answer."""

    query: str = Field(min_length=1, description="The question to answer.")
    answer: str | None = Field(default=None, description="Audit this answer instead of generating one.")
    source_text: str | None = Field(default=None, description="Audit against this text only.")


def create_app(
    *, model: BaseChatModel | str | None = None, api_key: str | None = None, rate_limit: str | None = None,
    max_body_bytes: int | None = None, checkpoint: str | Path | None = None, batch_concurrency: int | None = None,
    rate_limit_file: Path | None = None, mcp_token: str | None = None, mcp_allowed_hosts: str | None = None,
    mcp_allowed_origins: str | None = None, **settings: Any,
) -> FastAPI:
    """The app. `model` and `settings` are `veracity.check`'s; the limits default to the environment.

    With `checkpoint` (a SQLite file) every check is saved under its ``thread_id`` (the input's,
    else a new one, returned in the metadata), so a check cut off by a restart resumes when the
    same text is sent again with that thread id.

    ``VERACITY_API_KEY`` (unset or ``api_key=""``: open), ``VERACITY_RATE_LIMIT`` (default
    60/minute per client), ``VERACITY_MAX_BODY_BYTES`` (default 1,000,000) and
    ``VERACITY_BATCH_CONCURRENCY`` (checks of one batch run at once, default 4). The rate limit's
    buckets are kept in memory, or with `rate_limit_file` in that SQLite file, shared by every
    process that names it (`veracity serve --workers` gives its workers one).

    The graph is compiled once, here: every request runs on the same `Checker` (or, for requests
    that ask for the offline judge, on a second one). The calibration its judge uses is logged here
    (`log_calibration`), and a calibration file that cannot be used stops the app from starting.

    ``/mcp`` serves the same checkers as MCP tools, under the same body cap and rate limit. It needs
    `mcp_token` (else ``VERACITY_MCP_TOKEN``, else the API key; none: open) as a bearer token, and answers
    loopback Host and Origin headers only, plus the comma-separated `mcp_allowed_hosts` and
    `mcp_allowed_origins` (else ``VERACITY_MCP_ALLOWED_HOSTS``, ``VERACITY_MCP_ALLOWED_ORIGINS``).
    """
    api_key = (api_key if api_key is not None else os.environ.get("VERACITY_API_KEY")) or None  # "": open
    limiter = parse_rate(rate_limit or os.environ.get("VERACITY_RATE_LIMIT") or DEFAULT_RATE, shared=rate_limit_file)
    max_body = max_body_bytes or int(os.environ.get("VERACITY_MAX_BODY_BYTES") or DEFAULT_MAX_BODY_BYTES)
    concurrency = batch_concurrency or int(os.environ.get("VERACITY_BATCH_CONCURRENCY") or DEFAULT_BATCH_CONCURRENCY)
    checker = Checker(model=model, **settings)
    offline_checker = checker if model == "offline" else Checker(**{**settings, "model": "offline"})
    for each in dict.fromkeys((checker, offline_checker)):
        log_calibration(each)
    mcp = mcp_endpoint(
        checker, offline_checker=offline_checker, limiter=limiter, max_body_bytes=max_body,
        token=(mcp_token if mcp_token is not None else os.environ.get(TOKEN_ENV)) or api_key,
        allowed_hosts=listed(mcp_allowed_hosts if mcp_allowed_hosts is not None else os.environ.get(ALLOWED_HOSTS_ENV)),
        allowed_origins=listed(mcp_allowed_origins if mcp_allowed_origins is not None
                               else os.environ.get(ALLOWED_ORIGINS_ENV)),
    )

    app = FastAPI(title="veracity", version=version("veracity"), lifespan=mcp.lifespan,
                  description="Fact-check text: claims, evidence, verdicts with verified quotes.")
    app.router.routes.append(mcp.route)
    app.add_middleware(BodyLimit, max_bytes=max_body)
    _add_error_handlers(app)

    async def authorised(
        request: Request,
        _key: Annotated[str | None, Security(_KEY_HEADER)] = None,
        _bearer: Annotated[HTTPAuthorizationCredentials | None, Security(_BEARER)] = None,
    ) -> str:
        """The client's rate-limit identity: the API key when one is configured, else the peer address.

        The peer is the socket's address (a proxy's ``X-Forwarded-For`` counts only where the
        ASGI server was told to trust that proxy). A failed authentication is charged to the
        peer, so guessing keys is rate-limited too.
        """
        peer = "peer:" + (request.client.host if request.client else "unknown")
        if api_key is None:
            return peer
        if not key_matches(presented_key(request.headers), api_key):
            charge(peer, 1)
            raise HTTPException(401, "missing or wrong API key (send X-API-Key or Authorization: Bearer)",
                                headers={"WWW-Authenticate": "Bearer"})
        return "key"

    def charge(client: str, checks: int) -> None:
        if limiter.too_costly(checks):
            raise HTTPException(429, f"a request of {checks} checks exceeds the rate limit of {limiter.requests} "
                                     f"per {limiter.per_seconds:g} s; send at most {limiter.requests} at a time")
        wait = limiter.retry_after(client, checks)
        if wait is not None:
            raise HTTPException(429, f"rate limit exceeded; retry in {wait} s", headers={"Retry-After": str(wait)})

    async def one_check(client: str = Depends(authorised)) -> None:
        charge(client, 1)

    async def run_check(
        item: FactcheckInput, on_progress: Callable[[ProgressEvent], None] | None = None,
        thread_id: str | None = None,
    ) -> Report:
        extra: dict[str, Any] = {k: v for k, v in (("source_text", item.source_text), ("search", item.search))
                                 if v is not None}
        if checkpoint is not None:
            extra.update(checkpoint=checkpoint, thread_id=thread_id or item.thread_id or uuid.uuid4().hex)
        elif item.thread_id is not None:
            raise HTTPException(422, "thread_id needs a server started with a checkpoint file (--checkpoint)")
        chosen = offline_checker if item.model == "offline" else checker
        return await chosen.acheck(item.text, on_progress=on_progress, **extra)

    @app.get("/", include_in_schema=False)
    async def page() -> HTMLResponse:
        """The web page: paste text (and a source), watch verdicts arrive, download the report."""
        page_file = package_files("veracity.server").joinpath("static/index.html")
        return HTMLResponse(page_file.read_text(encoding="utf-8"))

    @app.get("/healthz", tags=["service"])
    async def healthz() -> dict[str, Any]:
        """Liveness: always 200 while the process serves."""
        return {"status": "ok", "version": version("veracity")}

    @app.post("/factcheck/invoke", dependencies=[Depends(one_check)], tags=["factcheck"])
    async def invoke(body: InvokeRequest) -> dict[str, Any]:
        """Check one text; the output is the whole report."""
        thread_id = body.input.thread_id or uuid.uuid4().hex
        report = await run_check(body.input, thread_id=thread_id)
        metadata = {"run_id": str(uuid.uuid4()), **({"thread_id": thread_id} if checkpoint is not None else {})}
        return {"output": report.model_dump(mode="json"), "metadata": metadata}

    @app.post("/factcheck/audit", dependencies=[Depends(one_check)], tags=["factcheck"])
    async def audit(body: InvokeRequest) -> dict[str, Any]:
        """Check one text; the output is the report, with its reader summary and audit trail as Markdown."""
        from veracity.audit import audit_markdown, report_markdown

        report = await run_check(body.input)
        return {"output": report.model_dump(mode="json"), "report_md": report_markdown(report),
                "audit_md": audit_markdown(report), "metadata": {"run_id": str(uuid.uuid4())}}

    @app.post("/factcheck/batch", tags=["factcheck"])
    async def batch(body: BatchRequest, client: str = Depends(authorised)) -> dict[str, Any]:
        """Check several texts, a few at a time (``VERACITY_BATCH_CONCURRENCY``); outputs in input order.

        Each text counts as one check against the rate limit.
        """
        charge(client, len(body.inputs))
        slots = asyncio.Semaphore(concurrency)

        async def bounded(item: FactcheckInput) -> Report:
            async with slots:
                return await run_check(item)

        reports = await asyncio.gather(*(bounded(item) for item in body.inputs))
        return {"output": [r.model_dump(mode="json") for r in reports],
                "metadata": {"run_ids": [str(uuid.uuid4()) for _ in reports]}}

    @app.post("/factcheck/stream", dependencies=[Depends(one_check)], tags=["factcheck"])
    async def stream(body: InvokeRequest) -> StreamingResponse:
        """Server-sent events: each graph step's update as it finishes, then the report, then end."""
        return StreamingResponse(_events(run_check, body.input), media_type="text/event-stream")

    @app.get("/factcheck/input_schema", tags=["factcheck"])
    async def input_schema() -> dict[str, Any]:
        """JSON schema of the input."""
        return FactcheckInput.model_json_schema()

    @app.get("/factcheck/output_schema", tags=["factcheck"])
    async def output_schema() -> dict[str, Any]:
        """JSON schema of the output (the report)."""
        return Report.model_json_schema()

    @app.post("/analyze", dependencies=[Depends(one_check)], tags=["analyze"])
    async def analyze(body: AnalyzeRequest) -> dict[str, Any]:
        """Answer the query with the configured chat model (unless an answer is given) and audit it."""
        if body.answer is not None and not body.answer.strip():
            raise HTTPException(422, "the answer is empty: send a non-empty answer, or leave it out to generate one")
        answer = body.answer if body.answer is not None else await _generate(checker, body.query)
        extra: dict[str, Any] = {"source_text": body.source_text} if body.source_text is not None else {}
        report = await checker.acheck(answer, **extra)
        return _analysis(answer, report)

    return app


def log_calibration(checker: Checker) -> None:
    """Log which calibration the checks of `checker` use: its origin, path and digest (a user's file as a warning).

    `ConfigurationError` when the file named, or found in the calibration folder, cannot be used. When
    the mode depends on each request (say, a source text the server was not given), that is what is logged.
    """
    context = checker.context()
    try:
        checker.resources.mode(context)
    except ConfigurationError:
        logger.info("calibration: decided per request (the mode depends on what each request brings)")
        return
    origin = checker.resources.calibration_origin(context)
    if origin is None:
        logger.info("calibration: none; the chat judge's verdicts are uncalibrated")
        return
    level = logging.WARNING if origin.origin == "user" else logging.INFO
    logger.log(level, "calibration: %s file %s (sha256 %s...), measured for %s", origin.origin, origin.path,
               origin.sha256[:12], origin.judge)


async def _generate(checker: Checker, query: str) -> str:
    context = checker.context()
    if checker.resources.mode(context).offline:
        raise HTTPException(409, "POST /analyze needs a chat model to answer the query; this server runs offline. "
                                 "Send an 'answer' to audit, or start the server with --model.")
    try:
        reply = await checker.resources.chat_model(context, max_tokens=ANSWER_TOKENS).ainvoke(query)
    except Exception as error:  # a provider failure is the upstream's, not the client's
        raise HTTPException(502, f"the chat model failed: {type(error).__name__}: {error}") from error
    answer = str(reply.text).strip()
    if not answer:
        raise HTTPException(502, "the chat model returned an empty answer")
    return answer


def _analysis(answer: str, report: Report) -> dict[str, Any]:
    claims = []
    for claim in report.claims:
        verdict = report.verdict_for(claim.id)
        evidence = report.cited_evidence(verdict)
        claims.append({
            "claim": claim.text, "label": verdict.label if verdict else "unverifiable",
            "leaning": verdict.leaning if verdict else None, "confidence": verdict.confidence if verdict else None,
            "shown_label": verdict.shown_label if verdict else "unverifiable",
            "uncalibrated": verdict.uncalibrated if verdict else False,
            "quote": verdict.quote if verdict else None, "reason": verdict.reason if verdict else None,
            "source": (evidence.url or evidence.title) if evidence else None,
        })
    return {
        "answer": answer, "reliability_score": report.reliability_score,
        "hallucination_risk": report.hallucination_risk, "evidence_coverage": report.evidence_coverage,
        "unsupported_claims": report.unsupported_claims, "claims_analysis": claims, "passed": report.passed,
        "calibration": report.calibration.model_dump(mode="json") if report.calibration is not None else None,
    }


RunCheck = Callable[[FactcheckInput, Callable[[ProgressEvent], None] | None], Awaitable[Report]]
"""How the stream route runs one check, hearing its progress."""


async def _events(run_check: RunCheck, item: FactcheckInput) -> AsyncIterator[str]:
    queue: asyncio.Queue[tuple[str, Any] | None] = asyncio.Queue()

    def on_progress(event: ProgressEvent) -> None:
        queue.put_nowait(("progress", event.model_dump(mode="json")))

    async def run() -> None:
        try:
            report = await run_check(item, on_progress)
            queue.put_nowait(("data", {"report": report.model_dump(mode="json")}))
        except Exception as error:  # reported to the client as an event; the stream still ends
            status, message = _client_error(error)
            queue.put_nowait(("error", {"error": message, "status": status}))
        queue.put_nowait(None)

    task = asyncio.create_task(run())
    yield _sse("metadata", {"run_id": str(uuid.uuid4())})
    while (event := await queue.get()) is not None:
        yield _sse(*event)
    await task
    yield _sse("end", None)


def _sse(event: str, data: Any) -> str:
    return f"event: {event}\ndata: {json.dumps(data)}\n\n"


def _client_error(error: Exception) -> tuple[int, str]:
    """The status and message a client sees for `error`; server paths and internals stay in the log."""
    if isinstance(error, HTTPException):
        return error.status_code, str(error.detail)
    if isinstance(error, InputError | SettingError | SourceConflictError):
        return 422, str(error)
    if isinstance(error, KnowledgeBaseError):
        logger.error("the knowledge base cannot be used: %s", error)
        return 503, "the server's knowledge base cannot be used; the operator will find why in the server log"
    if isinstance(error, ConfigurationError):
        return 400, str(error)
    logger.error("request failed", exc_info=error)
    return 500, f"internal error ({type(error).__name__}); see the server log"


def _add_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(HTTPException)
    async def http_error(_request: Request, error: HTTPException) -> JSONResponse:
        return error_response(error.status_code, str(error.detail), **(error.headers or {}))

    @app.exception_handler(RequestValidationError)
    async def invalid(_request: Request, error: RequestValidationError) -> JSONResponse:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in error.errors())
        return error_response(422, f"invalid request: {problems}")

    async def known(_request: Request, error: Exception) -> JSONResponse:
        return error_response(*_client_error(error))

    # Known kinds get their own handlers: errors that reach the `Exception` one are also logged
    # with a traceback by the server, as unexpected.
    for kind in (InputError, SettingError, ConfigurationError, Exception):
        app.add_exception_handler(kind, known)


app = create_app()
"""The app with settings from the environment (for ``langgraph.json``'s ``http`` entry and ASGI servers)."""
