"""`veracity check`: fact-check a text from the command line."""

from __future__ import annotations

import asyncio
import datetime
import stat
import sys
import time
import uuid
from contextlib import nullcontext
from pathlib import Path
from typing import Any, get_args

import click
from rich.console import Console
from rich.markup import escape
from rich.status import Status

from veracity.cli.cache import cache_file_option, no_cache_option
from veracity.cli.precision import min_precision_option
from veracity.context import DEFAULT_MODEL, Context
from veracity.contracts import Report
from veracity.errors import ConfigurationError, InputError
from veracity.evidence.capabilities import SEARCH_KINDS
from veracity.llm.calls import StructuredOutput
from veracity.llm.caps import CAP_SETTINGS
from veracity.progress import ProgressEvent
from veracity.resources import resolve_mode
from veracity.validation import (
    MAX_SOURCE_BYTES,
    overrides_source,
    source_conflict_message,
    source_text_problem,
)

EXIT_SUPPORTED = 0
EXIT_NOT_SUPPORTED = 1
EXIT_USAGE = 2
EXIT_INCOMPLETE = 3

EXIT_CODES_HELP = """\b
Exit codes:
  0  check complete; every claim is supported (or there is no claim)
  1  check complete; at least one claim is refuted or unverifiable
     (with --source: the answer does not stay within the source)
  2  bad input or configuration (empty text, too long, missing API key,
     unreadable source file, broken knowledge base)
  3  check incomplete: a search or gate failure left a claim unchecked
     (the report is still printed; see its failures)"""


def exit_code(report: Report) -> int:
    """The exit code a report maps to (see `veracity check --help`)."""
    return {"pass": EXIT_SUPPORTED, "fail": EXIT_NOT_SUPPORTED, "incomplete": EXIT_INCOMPLETE}[report.outcome]


def read_source(path: Path) -> str:
    """Read a --source file's text, or exit 2 with the reason.

    Only a regular file is read (a pipe or device such as /dev/zero could block or never end), at
    most `MAX_SOURCE_BYTES`. PDF and HTML go through the knowledge base's loaders; anything else is
    read as UTF-8, and a file that holds NUL bytes is refused as binary. The text must then pass
    `source_text_problem` (not empty, at most `MAX_SOURCE_CHARS` characters).
    """
    from veracity.kb.loaders import SkipDocument, load
    from veracity.kb.sources import SUPPORTED_SUFFIXES, Source

    def bad(reason: str) -> click.BadParameter:
        return click.BadParameter(f"{path}: {reason}", param_hint="--source")

    try:
        status = path.stat()
        if not stat.S_ISREG(status.st_mode):
            raise bad("not a regular file (a pipe, device or socket); save the source to a file first")
        if status.st_size > MAX_SOURCE_BYTES:
            raise bad(f"{status.st_size:,} bytes; the limit is {MAX_SOURCE_BYTES:,}")
        if SUPPORTED_SUFFIXES.get(path.suffix.lower()) in ("html", "pdf"):
            content = "\n\n".join(load(Source.from_path(path)).pieces)
        else:
            raw = path.read_bytes()
            if b"\x00" in raw:
                raise bad("looks binary (it holds NUL bytes); give a text, Markdown, HTML or PDF file")
            content = raw.decode("utf-8-sig", errors="replace")
    except SkipDocument as exc:
        raise bad(str(exc)) from None
    except OSError as exc:
        raise bad(f"cannot read it: {exc.strerror or exc}") from None
    problem = source_text_problem(content)
    if problem is not None:
        raise bad(problem)
    return content


def read_text(text: str | None) -> str:
    """Return the text argument, reading standard input for '-' (or when no argument is given and input is piped)."""
    if text == "-" or (text is None and not sys.stdin.isatty()):
        return _decoded(sys.stdin.buffer.read(), "standard input")
    if text is None:
        raise click.UsageError("give the text to check, or '-' to read it from standard input")
    if any("\udc80" <= char <= "\udcff" for char in text):  # bytes the shell passed that were not UTF-8
        raise click.UsageError("TEXT is not valid UTF-8; convert it (e.g. with iconv) and try again")
    return text


def _decoded(data: bytes, where: str) -> str:
    """`data` as UTF-8 (a byte-order mark is dropped); bad bytes are a usage error that says where they are."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise click.UsageError(
            f"{where} is not valid UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start}); convert it "
            "(e.g. with iconv) and try again"
        ) from None


class Progress:
    """Turns progress events into a short status line on stderr."""

    def __init__(self, status: Status | None) -> None:
        self.status = status
        self.claims = 0
        self.judged: set[str] = set()

    def __call__(self, event: ProgressEvent) -> None:
        """Take one event and update the status line."""
        if event.kind == "extracting":
            label = "extracting claims"
        elif event.kind == "claims":
            self.claims = len(event.claims)
            label = f"checking claims: 0/{self.claims} judged"
        elif event.kind == "revising":
            self.judged -= {claim.id for claim in event.claims}
            label = "revising failing claims"
        else:
            if event.claim is not None:
                self.judged.add(event.claim.id)
            label = f"checking claims: {len(self.judged)}/{self.claims} judged"
        if self.status is not None:
            self.status.update(f"[bold]veracity[/]: {label}…")


async def streamed(body: str, console: Console, settings: dict[str, Any]) -> Report:
    """Run the check with verdicts shown as they arrive: a live table on a terminal, else lines."""
    from rich.live import Live

    from veracity.api import acheck
    from veracity.cli.live import LiveVerdicts, verdict_line

    if not console.is_terminal:
        view = LiveVerdicts(on_verdict=lambda claim, verdict: console.print(verdict_line(claim, verdict),
                                                                            markup=False, highlight=False))
        return await acheck(body, on_progress=view, **settings)
    view = LiveVerdicts()
    with Live(view.table(), console=console, transient=True, refresh_per_second=8) as live:

        def redraw(event: ProgressEvent) -> None:
            if view(event):
                live.update(view.table())

        return await acheck(body, on_progress=redraw, **settings)


def _archive_template(value: str | None) -> str | None:
    if value is not None and "{url}" not in value:
        raise click.BadParameter(f"the template must hold {{url}} where the cited URL goes, got {value!r}")
    return value


def _token_caps(values: tuple[str, ...]) -> dict[str, int]:
    """Parse repeated --max-tokens STEP=N into Context settings."""
    caps: dict[str, int] = {}
    for value in values:
        step, _, number = value.partition("=")
        if step not in CAP_SETTINGS or not number.isdigit() or int(number) < 1:
            raise click.BadParameter(f"expected STEP=N with STEP one of {', '.join(CAP_SETTINGS)} and N a positive "
                                     f"number of tokens, got {value!r}")
        caps[CAP_SETTINGS[step]] = int(number)
    return caps


@click.command(epilog=EXIT_CODES_HELP)
@click.argument("text", required=False)
@click.option("--model", "-m", default=None, metavar="PROVIDER:MODEL",
              help=f"Chat model, e.g. {DEFAULT_MODEL}, or 'offline' for the local claim splitter and judge. "
                   f"Default: {DEFAULT_MODEL} when OPENAI_API_KEY is set, else offline. "
                   "Set OPENAI_BASE_URL for an OpenAI-compatible server.")
@click.option("--extract-model", default=None, metavar="PROVIDER:MODEL",
              help="Model for claim extraction only, or 'offline' for the local splitter (default: --model).")
@click.option("--judge-model", default=None, metavar="PROVIDER:MODEL",
              help="Model for the judge only, or 'offline' for the local judge (default: --model).")
@click.option("--max-tokens", "token_caps", multiple=True, metavar="STEP=N",
              callback=lambda _context, _param, value: _token_caps(value),
              help="Most tokens one model answer of STEP (extract, judge, revise) may take; a longer answer is "
                   "cut off, rejected by the gate with the reason and asked again. Repeatable. Default: "
                   "extract 256 + 0.75 per character of text, judge and revise 512.")
@click.option("--structured-output", type=click.Choice(get_args(StructuredOutput)), default=None,
              help="How the model is asked for JSON: json_schema (the server enforces a schema: OpenAI, "
                   "llama.cpp, vLLM), tools (tool calling), prompt (instructions only). Default auto: json_schema "
                   "for openai:* models, the provider's own for others; a server that refuses it is asked through "
                   "the prompt.")
@click.option("--search", "-s", type=click.Choice(SEARCH_KINDS), default="auto", show_default=True,
              help="Evidence: web (Tavily), kb (local knowledge base), source (--source only). "
                   "auto: source with --source, else web when TAVILY_API_KEY is set, else kb. "
                   "web and kb cannot be combined with --source.")
@click.option("--source", "source_file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              metavar="FILE", help="Check TEXT against this file only (e.g. a policy): text, Markdown, HTML "
                   "or PDF, at most 50 MB; no search runs. With --search, only auto or source (a usage "
                   "error otherwise, exit 2).")
@click.option("--kb", "kb_path", type=click.Path(file_okay=False, path_type=Path), default=None, metavar="DIR",
              help="Knowledge base folder (default: $VERACITY_KB, else the per-user data folder).")
@click.option("--max-revisions", type=click.IntRange(0, 10), default=None,
              help="Revise rounds that re-judge failing claims (default: 2).")
@click.option("--max-results", type=click.IntRange(1, 20), default=None,
              help="Evidence items fetched per claim (default: 5).")
@click.option("--tavily-url", default=None, metavar="URL",
              help="Tavily endpoint, e.g. a proxy (default: $TAVILY_API_BASE_URL or Tavily's own).")
@click.option("--max-chars", type=click.IntRange(1), default=None,
              help="Longest text accepted, in characters (default: 20000).")
@click.option("--today", type=click.DateTime(formats=["%Y-%m-%d"]), default=None, metavar="YYYY-MM-DD",
              help="The date ages and 'N years ago' are computed to (default: the system clock; it is "
                   "recorded on each computed verdict).")
@click.option("--page-check/--no-page-check", "verify_pages", default=None,
              help="Fetch the cited page of each supported/refuted web verdict and look for the quote there "
                   "(default: on). Loopback, private and link-local addresses are never fetched.")
@click.option("--snapshots", "snapshots", type=click.Path(file_okay=False, path_type=Path), default=None,
              metavar="DIR", help="Keep every fetched page here as read, named by its SHA-256 (recorded on the "
                                  "verdict), so the report can be verified offline later.")
@click.option("--archive-url", default=None, metavar="TEMPLATE",
              callback=lambda _context, _param, value: _archive_template(value),
              help="When a cited page cannot be fetched, read this archive's copy instead; {url} is replaced "
                   "by the cited URL, e.g. 'https://web.archive.org/web/2024/{url}'.")
@click.option("--allow-snippet-citations", is_flag=True, default=None,
              help="Let a web verdict whose quote was not found on its page pass; it is still marked "
                   "'citation not verified on the page'.")
@click.option("--deadline", type=click.FloatRange(min=0, min_open=True), default=None, metavar="SECONDS",
              help="Stop the whole check after this long (default: 600); claims not judged by then are "
                   "unverifiable and the report says so (exit 3).")
@min_precision_option
@no_cache_option
@cache_file_option
@click.option("--search-cache-ttl", type=click.IntRange(0), default=None, metavar="SECONDS",
              help="How long a cached web search is reused (default: 604800, 7 days; 0: always search afresh).")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=None, metavar="DIR",
              help="Also write report.json, report.md (for readers) and audit.md (searches, evidence, the "
                   "deciding passage, page checks, retries) into DIR; `veracity verify DIR/report.json` "
                   "re-checks it later.")
@click.option("--json", "as_json", is_flag=True, help="Print the full report as JSON on stdout.")
@click.option("--trace", "show_trace", is_flag=True,
              help="Also print the trace: step, attempt, outcome, tokens, seconds.")
@click.option("--checkpoint", type=click.Path(dir_okay=False, path_type=Path), default=None, metavar="FILE",
              help="Save every step in this SQLite file, so an interrupted check resumes (see --thread).")
@click.option("--thread", "thread_id", default=None, metavar="ID",
              help="With --checkpoint: the check to resume or read back (default: a new id, printed on stderr).")
@click.option("--stream", "stream", is_flag=True,
              help="Show verdicts as each claim is judged: a live table in a terminal, else a line per verdict "
                   "(on stderr with --json).")
def check_command(
    text: str | None, model: str | None, extract_model: str | None, judge_model: str | None,
    token_caps: dict[str, int], structured_output: str | None, search: str,
    source_file: Path | None, kb_path: Path | None,
    max_revisions: int | None, max_results: int | None, tavily_url: str | None, max_chars: int | None,
    today: datetime.datetime | None, verify_pages: bool | None, snapshots: Path | None, archive_url: str | None,
    allow_snippet_citations: bool | None, min_precision: float | None, no_cache: bool, cache_path: Path | None,
    search_cache_ttl: int | None,
    deadline: float | None, out_dir: Path | None, as_json: bool, show_trace: bool,
    checkpoint: Path | None, thread_id: str | None, stream: bool,
) -> None:
    """Fact-check TEXT (use '-' to read standard input).

    \b
    Examples:
      veracity check "The Sydney Opera House opened in 1973."
      echo "Canberra is the capital of Australia." | veracity check - --json
      veracity check "You can return it within 30 days." --source policy.txt
      veracity check "Sydney is the capital of Australia." --search kb

    With no API keys everything runs locally: the offline claim splitter and judge, with
    evidence from the knowledge base (see `veracity ingest`). OPENAI_API_KEY (or --model)
    switches to a chat model; TAVILY_API_KEY (or --search web) to web search. The first
    line on stderr says which mode runs.

    Model answers and web searches are kept in a cache file, so checking the same text
    again costs no model call and no search (web results are reused for 7 days); see
    `veracity cache`, and --no-cache to bypass it.
    """
    from veracity.api import acheck

    err = Console(stderr=True)
    body = read_text(text)
    given: dict[str, Any] = {
        "model": model, "extract_model": extract_model, "judge_model": judge_model, "search": search,
        "max_revisions": max_revisions, "max_results": max_results,
        "tavily_base_url": tavily_url, "max_text_chars": max_chars, "kb_path": str(kb_path) if kb_path else None,
        "today": today.date().isoformat() if today else None, "check_deadline": deadline,
        "verify_pages": verify_pages, "allow_snippet_citations": allow_snippet_citations,
        "page_snapshots": str(snapshots) if snapshots else None, "page_archive_url": archive_url,
        "cache": False if no_cache else None, "cache_path": str(cache_path) if cache_path else None,
        "search_cache_ttl": search_cache_ttl, "structured_output": structured_output, "min_precision": min_precision,
        **token_caps,
    }
    if source_file is not None:
        if overrides_source(search):
            raise click.UsageError(source_conflict_message(f"--search {search}", "--source"))
        given.update(source_text=read_source(source_file), source_title=source_file.name)
    settings: dict[str, Any] = {name: value for name, value in given.items() if value is not None}
    context = Context.from_settings(**settings)
    try:
        mode = resolve_mode(context)
    except ConfigurationError as exc:
        err.print(f"[bold red]not configured:[/] {escape(str(exc))}", highlight=False)
        sys.exit(EXIT_USAGE)
    err.print(f"[dim]veracity: {mode.describe(context)}[/]", highlight=False)
    if checkpoint is not None:
        thread_id = thread_id or uuid.uuid4().hex[:12]
        err.print(f"[dim]checkpoint: {checkpoint}, thread {thread_id} (resume with --thread {thread_id})[/]",
                  highlight=False)
        settings.update(checkpoint=checkpoint, thread_id=thread_id)
    elif thread_id is not None:
        err.print("[bold red]error:[/] --thread needs --checkpoint FILE", highlight=False)
        sys.exit(EXIT_USAGE)
    started = time.perf_counter()
    try:
        if stream:
            report = asyncio.run(streamed(body, Console(stderr=as_json), settings))
        else:
            with err.status("[bold]veracity[/]: starting…") if err.is_terminal else nullcontext() as status:
                report = asyncio.run(acheck(body, on_progress=Progress(status), **settings))
    except InputError as exc:
        err.print(f"[bold red]error:[/] {escape(str(exc))}", highlight=False)
        sys.exit(EXIT_USAGE)
    except ConfigurationError as exc:
        err.print(f"[bold red]not configured:[/] {escape(str(exc))}", highlight=False)
        sys.exit(EXIT_USAGE)
    seconds = time.perf_counter() - started
    if as_json:
        click.echo(report.model_dump_json(indent=2))
        if show_trace:
            from veracity.cli.tables import trace_table

            err.print(trace_table(report))
    else:
        from veracity.cli.tables import print_report

        print_report(Console(), report, show_trace=show_trace, seconds=seconds)
    if out_dir is not None:
        from veracity.audit import write_artefacts

        try:
            written = write_artefacts(report, out_dir)
        except OSError as exc:
            err.print(f"[bold red]error:[/] cannot write the audit files into {escape(str(out_dir))}: "
                      f"{escape(exc.strerror or str(exc))}", highlight=False)
            sys.exit(EXIT_USAGE)
        err.print(f"wrote {', '.join(escape(str(path)) for path in written)}", highlight=False)
        from veracity.audit.signing import local_public_key_path

        err.print(f"[dim]signed; to verify elsewhere: veracity verify --key {escape(str(local_public_key_path()))} "
                  "REPORT[/]", highlight=False)
    sys.exit(exit_code(report))
