"""`veracity check`: fact-check a text from the command line."""

from __future__ import annotations

import asyncio
import stat
import sys
import time
import uuid
from contextlib import nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from rich.console import Console
from rich.markup import escape
from rich.status import Status

from veracity.cli import collector
from veracity.cli.settings import settings_options
from veracity.context import Context
from veracity.contracts import Report
from veracity.errors import ConfigurationError, InputError, SourceConflictError
from veracity.resources import Mode, describe_mode, resolve_mode
from veracity.validation import MAX_SOURCE_BYTES, source_text_problem

if TYPE_CHECKING:
    from veracity.progress import ProgressEvent
    from veracity.run.checker import OnStart

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


def signing_key_ready(err: Console) -> None:
    """Make or read the key that signs `--out`'s report before the check runs; exit 2 saying why when it cannot."""
    from veracity.audit.signing import SigningKeyError, local_signing_key

    try:
        local_signing_key()
    except SigningKeyError as exc:  # soft-wrapped: the command that fixes it stays whole for copying
        err.print(f"[bold red]error:[/] {escape(str(exc))}", highlight=False, soft_wrap=True)
        sys.exit(EXIT_USAGE)


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


async def streamed(body: str, console: Console, settings: dict[str, Any], on_start: OnStart | None = None) -> Report:
    """Run the check with verdicts shown as they arrive: a live table on a terminal, else lines."""
    from rich.live import Live

    from veracity.api import acheck
    from veracity.cli.live import LiveVerdicts, verdict_line

    if not console.is_terminal:
        view = LiveVerdicts(on_verdict=lambda claim, verdict: console.print(verdict_line(claim, verdict),
                                                                            markup=False, highlight=False))
        return await acheck(body, on_progress=view, on_start=on_start, **settings)
    view = LiveVerdicts()
    with Live(view.table(), console=console, transient=True, refresh_per_second=8) as live:

        def redraw(event: ProgressEvent) -> None:
            if view(event):
                live.update(view.table())

        return await acheck(body, on_progress=redraw, on_start=on_start, **settings)


@click.command(epilog=EXIT_CODES_HELP)
@click.argument("text", required=False)
@click.option("--source", "source_file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              metavar="FILE", help="Check TEXT against this file only (e.g. a policy): text, Markdown, HTML "
                   "or PDF, at most 50 MB; no search runs. With --search, only auto or source (a usage "
                   "error otherwise, exit 2).")
@settings_options("check", notes={"search": "web and kb cannot be combined with --source."})
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
    text: str | None, settings: dict[str, Any], source_file: Path | None, out_dir: Path | None, as_json: bool,
    show_trace: bool, checkpoint: Path | None, thread_id: str | None, stream: bool,
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
    line on stderr names each step's model and the evidence, once the set-up (API keys, knowledge
    base) has passed its checks.

    Model answers and web searches are kept in a cache file, so checking the same text
    again costs no model call and no search (web results are reused for 7 days); see
    `veracity cache`, and --no-cache to bypass it.
    """
    collector.skip_collection_at_exit()
    err = Console(stderr=True)
    body = read_text(text)
    if source_file is not None:
        settings.update(source_text=read_source(source_file), source_title=source_file.name)
    context = Context.from_settings(**settings)
    try:
        mode = resolve_mode(context)
    except SourceConflictError as conflict:
        raise click.UsageError(conflict.worded("--search", "--source")) from None
    except ConfigurationError as exc:
        err.print(f"[bold red]not configured:[/] {escape(str(exc))}", highlight=False)
        sys.exit(EXIT_USAGE)
    if checkpoint is not None:
        thread_id = thread_id or uuid.uuid4().hex[:12]
        settings.update(checkpoint=checkpoint, thread_id=thread_id)
    elif thread_id is not None:
        err.print("[bold red]error:[/] --thread needs --checkpoint FILE", highlight=False)
        sys.exit(EXIT_USAGE)
    if out_dir is not None:
        signing_key_ready(err)
    from veracity.run.warmup import warm_up

    warm_up(context, mode)  # the models load on another thread while the graph's modules are imported
    with collector.paused():
        from veracity.api import acheck

    def announce(run_context: Context, run_mode: Mode) -> None:
        """Say what runs, once the check's set-up passed (a missing key is the first line instead)."""
        err.print(f"[dim]veracity: {escape(describe_mode(run_mode, run_context))}[/]", highlight=False)
        if checkpoint is not None:
            err.print(f"[dim]checkpoint: {escape(str(checkpoint))}, thread {thread_id} (resume with --thread "
                      f"{thread_id})[/]", highlight=False)

    started = time.perf_counter()
    try:
        if stream:
            report = asyncio.run(streamed(body, Console(stderr=as_json), settings, announce))
        else:
            with err.status("[bold]veracity[/]: starting…") if err.is_terminal else nullcontext() as status:
                report = asyncio.run(acheck(body, on_progress=Progress(status), on_start=announce, **settings))
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
