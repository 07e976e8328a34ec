"""Command line for the local knowledge base: `veracity ingest` and `veracity kb stats|warm|list|remove|verify`."""

from __future__ import annotations

import json
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING

import click
from rich.console import Console
from rich.markup import escape
from rich.table import Column, Table
from rich.text import Text

from veracity.cores import usable_cores
from veracity.kb import (
    FileResult,
    IngestProgress,
    IngestReport,
    IntegrityReport,
    KnowledgeBase,
    KnowledgeBaseError,
)
from veracity.kb.paths import KB_ENV, unusable
from veracity.kb.sentence_store import STORE_NAME
from veracity.kb.sources import demo_sources

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID

EXIT_OK = 0
EXIT_SKIPPED = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130

INGEST_EXIT_CODES = """\b
Exit codes:
  0  every file is indexed (or was already, unchanged)
  1  done, but some files were skipped; the reasons are listed
  2  bad usage, or the knowledge base is unusable, busy or cannot be written
     (nothing indexed before is lost)"""

KB_EXIT_CODES = """\b
Exit codes:
  0  done
  1  (remove) some PATH matched no indexed document
  2  bad usage, or no usable knowledge base at the location (missing or damaged)"""

VERIFY_EXIT_CODES = """\b
Exit codes:
  0  every file matches its checksum, and every stored sentence vector its digest
  1  no checksums recorded (written by an older veracity): the index opens,
     but its contents could not be compared; re-ingest to add them
  2  bad usage, no usable knowledge base, damaged files or damaged sentence
     vectors (listed)"""

kb_option = click.option(
    "--kb", "kb_path", type=click.Path(path_type=Path), default=None, metavar="PATH",
    help=f"Knowledge base folder (default: ${KB_ENV} if set, else the user data folder, "
         "e.g. ~/.local/share/veracity/kb).",
)


def _fail(err: Console, exc: Exception) -> None:
    err.print(f"[bold red]error:[/] {escape(str(exc))}", highlight=False, soft_wrap=True)
    sys.exit(EXIT_USAGE)


def _chunks(count: int) -> str:
    return f"{count} chunk" if count == 1 else f"{count} chunks"


def _size(count: int) -> str:
    size = float(count)
    for unit in ("bytes", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{count} {unit}" if unit == "bytes" else f"{size:.1f} {unit}"
        size /= 1024
    return ""


class CliProgress(IngestProgress):
    """Ingest progress on stderr: a rich progress bar on a terminal, one plain line per file otherwise.

    The bar fills with the bytes of the files done, so its time left holds for files of any
    size; beside it are the files done, the chunks written and their rate.
    """

    def __init__(self, err: Console, kb: Path) -> None:
        self.err = err
        self.kb = kb
        self.total = 0
        self.done = 0
        self.chunks = 0
        self.began = time.perf_counter()
        self.sizes: dict[str, int] = {}
        self.bar: Progress | None = None
        self.task: TaskID | None = None

    def waiting_for_lock(self, lock_path: Path) -> None:
        """Say that another ingest runs, and that this one waits for it."""
        self.err.print(f"[dim]veracity: another ingest into {escape(str(self.kb))} is running; waiting for it to "
                       f"finish (lock: {escape(str(lock_path))})…[/]", highlight=False)

    def started(self, files: int, size: int = 0) -> None:
        """Start the bar (terminal only). A second ingest reported here (the files after the demo notes) adds on."""
        self.stop()
        self.total = self.done + files
        if not self.done:
            self.began = time.perf_counter()
        if self.err.is_terminal:
            from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

            self.bar = Progress(
                TextColumn("[bold]ingest[/]"), BarColumn(), TextColumn("{task.fields[files]}/{task.fields[of]} files"),
                TextColumn("{task.fields[chunks]:,} chunks"), TextColumn("{task.fields[rate]}"), TimeElapsedColumn(),
                TextColumn("left"), TimeRemainingColumn(), TextColumn("{task.description}", markup=False),
                console=self.err, transient=True,
            )
            self.bar.start()
            self.task = self.bar.add_task("", total=size or None, files=self.done, of=self.total, chunks=self.chunks,
                                          rate="")

    def file_started(self, key: str, size: int = 0) -> None:
        """Show the file being read."""
        self.sizes[key] = size
        if self.bar is not None and self.task is not None:
            self.bar.update(self.task, description=Path(key).name)

    def chunks_indexed(self, key: str, count: int) -> None:
        """Count chunks as they are written, and their rate since the start."""
        self.chunks += count
        if self.bar is not None and self.task is not None:
            seconds = time.perf_counter() - self.began
            rate = f"{self.chunks / seconds:,.1f} chunks/s" if seconds > 0 else ""
            self.bar.update(self.task, chunks=self.chunks, rate=rate)

    def file_finished(self, result: FileResult) -> None:
        """Advance the bar by the file's bytes, or print a line."""
        self.done += 1
        if self.bar is not None and self.task is not None:
            self.bar.update(self.task, advance=self.sizes.pop(result.key, 0), files=self.done)
            return
        detail = f" ({result.reason})" if result.reason else f" ({_chunks(result.chunks)})" if result.chunks else ""
        self.err.print(f"veracity: [{self.done}/{self.total}] {result.status} {result.key}{detail}",
                       highlight=False, markup=False, soft_wrap=True)

    def stop(self) -> None:
        """Remove the bar."""
        if self.bar is not None:
            self.bar.stop()
            self.bar = None


def _print_report(out: Console, kb: Path, report: IngestReport, verb: str) -> None:
    out.print(f"{verb} {kb}: {report.summary()} in {report.seconds:.1f} s.", highlight=False, markup=False,
              soft_wrap=True)
    if skipped := report.with_status("skipped"):
        out.print("Skipped:", highlight=False)
        for result in skipped:
            out.print(f"  {result.key}: {result.reason}", highlight=False, markup=False, soft_wrap=True)
    noted = [result for result in report.results if result.notes]
    if noted:
        out.print("Notes:", highlight=False)
        for result in noted:
            out.print(f"  {result.key}: {'; '.join(result.notes)}", highlight=False, markup=False, soft_wrap=True)


@click.command("ingest", epilog=INGEST_EXIT_CODES, short_help="Add documents to the local knowledge base.")
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@kb_option
@click.option("--replace", is_flag=True,
              help="Rebuild the knowledge base from PATHs only: everything indexed before, demo notes included, "
                   "is dropped. Also the way to repair a damaged or incompatible knowledge base.")
@click.option("--demo", is_flag=True, help="Also index the bundled demo notes (listed as demo:<name>.md).")
@click.option("--chunk-tokens", type=click.IntRange(20, 8192), default=None,
              help="Tokens per chunk, approximately (words x 1.3). Default: 600, or what the knowledge base uses.")
@click.option("--overlap-tokens", type=click.IntRange(0), default=None,
              help="Tokens each chunk repeats from the previous one, at most half a chunk "
                   "(default: 12% of --chunk-tokens, i.e. 72).")
@click.option("--workers", type=click.IntRange(1, 256), default=None, metavar="N",
              help="Processes reading and extracting documents in parallel (default: one per usable core; "
                   "1 reads them in this process). The index is the same with any number.")
def ingest_command(
    paths: tuple[Path, ...], kb_path: Path | None, replace: bool, demo: bool, chunk_tokens: int | None,
    overlap_tokens: int | None, workers: int | None,
) -> None:
    """Add documents to the local knowledge base searched by the `kb` evidence backend.

    PATHs are files or folders (searched recursively) of .txt, .md, .html/.htm and .pdf. Other
    files are skipped with a note, FIFOs, devices and sockets without being opened; hidden files
    and folders are ignored. A file unchanged since
    it was last ingested is left as is; a changed file replaces its old version. Text that is
    not UTF-8 is read with replacement characters, and files over 20 MB are read as a stream.

    The default knowledge base starts with a few demo notes (whether the first command is a
    check or an ingest); plain ingest adds to them, and --replace starts over. A new folder
    given with --kb holds only what you give it (add --demo for the notes). A first ingest
    that fails or is interrupted leaves the knowledge base as a new one starts: the demo notes
    at the default location, empty elsewhere.

    \b
    Examples:
      veracity ingest notes/ handbook.pdf
      veracity ingest --replace --kb ./kb docs/
      veracity ingest --demo
    """
    err = Console(stderr=True)
    if not paths and not demo:
        raise click.UsageError("give the files or folders to ingest (or --demo for the demo notes)")
    kb = KnowledgeBase(kb_path)
    progress = CliProgress(err, kb.path)
    began = time.perf_counter()
    seeded: list[FileResult] = []
    try:
        if kb_path is None and not replace and not kb.exists():
            # The default knowledge base starts with the demo notes, as a first check would. They are
            # indexed on their own first, so an ingest of the files that fails leaves them.
            seeded = kb.ingest_sources(demo_sources(), chunk_tokens=chunk_tokens, overlap_tokens=overlap_tokens,
                                       progress=progress).results
            demo = False
        report = kb.ingest(paths, replace=replace, demo=demo, chunk_tokens=chunk_tokens,
                           overlap_tokens=overlap_tokens, progress=progress, workers=workers or usable_cores())
    except (KnowledgeBaseError, ValueError) as exc:
        progress.stop()
        _fail(err, exc)
    except KeyboardInterrupt:
        progress.stop()
        err.print("[bold red]interrupted:[/] the files given were not indexed; the knowledge base is as it was "
                  "before them", highlight=False)
        sys.exit(EXIT_INTERRUPTED)
    progress.stop()
    if seeded:
        report = IngestReport([*seeded, *report.results], time.perf_counter() - began)
    _print_report(Console(), kb.path, report, "Indexed into" if report.changed else "Nothing changed in")
    sys.exit(EXIT_SKIPPED if report.with_status("skipped") else EXIT_OK)


@click.group("kb", short_help="Inspect and manage the local knowledge base.")
def kb_group() -> None:
    """Inspect and manage the local knowledge base (add documents with `veracity ingest`)."""


@kb_group.command("stats", epilog=KB_EXIT_CODES, short_help="Show counts, size on disk, location and model.")
@kb_option
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
def stats_command(kb_path: Path | None, as_json: bool) -> None:
    """Show documents, chunks, sentences, size on disk, location and embedding model.

    \b
    Example:
      veracity kb stats --kb ./kb
    """
    try:
        stats = KnowledgeBase(kb_path).stats()
    except KnowledgeBaseError as exc:
        _fail(Console(stderr=True), exc)
    if as_json:
        click.echo(json.dumps({**asdict(stats), "location": str(stats.location)}, indent=2))
        return
    table = Table.grid(padding=(0, 2))
    for label, value in (
        ("Location", str(stats.location)),
        ("Documents", f"{stats.documents:,}"),
        ("Chunks", f"{stats.chunks:,}"),
        ("Sentences", f"{stats.sentences:,}"),
        ("Sentence vectors", f"{stats.sentence_vectors:,} stored (filled as chunks are first retrieved, "
                             "or all at once by `veracity kb warm`)"),
        ("Size on disk", _size(stats.size_bytes)),
        ("Model", f"{stats.model_id} ({stats.dimensions} dimensions)"),
        ("Chunking", f"{stats.chunk_tokens} tokens, {stats.overlap_tokens} overlap; tokens {stats.token_count}"),
        ("Updated", stats.updated_at),
    ):
        table.add_row(Text(label, style="bold"), Text(value))
    Console().print(table, highlight=False)


@kb_group.command("warm", epilog=KB_EXIT_CODES, short_help="Compute every chunk's sentence vectors ahead of time.")
@kb_option
def warm_command(kb_path: Path | None) -> None:
    """Compute and store the sentence vectors the offline judge reads, for every chunk that has none yet.

    Optional. Ingest embeds only what ranking needs; a chunk's sentence vectors are otherwise
    computed the first time a check retrieves it (a slower first check), and stored from then
    on. Run this after a large ingest to make every first check fast. Interrupting it keeps
    what was done; running it again goes on from there.

    \b
    Example:
      veracity kb warm --kb ./kb
    """
    from veracity.cli.warm_progress import WarmBar

    err = Console(stderr=True)
    progress = WarmBar(err)
    try:
        report = KnowledgeBase(kb_path).warm(progress)
    except KnowledgeBaseError as exc:
        progress.stop()
        _fail(err, exc)
    except KeyboardInterrupt:
        progress.stop()
        err.print("veracity: interrupted; the vectors computed so far are kept. Run the same command to go on.",
                  highlight=False)
        sys.exit(EXIT_INTERRUPTED)
    progress.stop()
    rate = f", {report.computed / report.seconds:,.1f} vectors/s" if report.computed and report.seconds > 0 else ""
    Console().print(f"Stored {report.computed:,} sentence vectors; all {report.sentences:,} distinct sentences "
                    f"have one ({report.seconds:.1f} s{rate}).", highlight=False, soft_wrap=True)


@kb_group.command("list", epilog=KB_EXIT_CODES, short_help="List the indexed documents.")
@kb_option
@click.option("--json", "as_json", is_flag=True, help="Print the documents as JSON.")
def list_command(kb_path: Path | None, as_json: bool) -> None:
    """List the indexed documents: path (or demo:<name>), title, chunks and when each was ingested.

    \b
    Example:
      veracity kb list --json
    """
    try:
        documents = KnowledgeBase(kb_path).documents()
    except KnowledgeBaseError as exc:
        _fail(Console(stderr=True), exc)
    if as_json:
        click.echo(json.dumps([asdict(document) for document in documents], indent=2))
        return
    table = Table(Column("Path", overflow="fold"), "Title", "Chunks", "Ingested at (UTC)")
    for document in documents:
        table.add_row(Text(document.path), Text(document.title), str(document.chunks),
                      document.ingested_at[:16].replace("T", " "))
    out = Console()
    out.print(table, highlight=False)
    out.print(f"{len(documents)} document(s)", highlight=False)


@kb_group.command("remove", epilog=KB_EXIT_CODES, short_help="Remove documents (a file, a folder, demo notes).")
@click.argument("paths", nargs=-1, required=True)
@kb_option
def remove_command(paths: tuple[str, ...], kb_path: Path | None) -> None:
    """Remove documents: a file, every document under a folder, demo:<name>.md, or demo: for all demo notes.

    The files themselves are not touched; they need not exist any more.

    \b
    Examples:
      veracity kb remove notes/old.md
      veracity kb remove notes/
      veracity kb remove demo:
    """
    err = Console(stderr=True)
    kb = KnowledgeBase(kb_path)
    try:
        report = kb.remove(paths, progress=CliProgress(err, kb.path))
    except KnowledgeBaseError as exc:
        _fail(err, exc)
    out = Console()
    removed = report.with_status("removed")
    out.print(f"Removed {len(removed)} document(s) from {kb.path}.", highlight=False, markup=False, soft_wrap=True)
    for result in removed:
        out.print(f"  {result.key}", highlight=False, markup=False, soft_wrap=True)
    for result in report.with_status("skipped"):
        out.print(f"Not found: {result.key} ({result.reason})", highlight=False, markup=False, soft_wrap=True)
    sys.exit(EXIT_SKIPPED if report.with_status("skipped") else EXIT_OK)


@kb_group.command("verify", epilog=VERIFY_EXIT_CODES, short_help="Re-hash every index file and list damaged ones.")
@click.argument("kb_argument", metavar="[KB]", required=False, type=click.Path(path_type=Path))
@kb_option
def verify_command(kb_argument: Path | None, kb_path: Path | None) -> None:
    """Check the knowledge base's files against the checksums recorded when they were written.

    Every file of the index is read and hashed again (SHA-256: a second or two per GB).
    Opening the knowledge base for a check only compares sizes and modification times, and
    hashes just the files written to since; damage that changes neither, such as bit rot, is
    found here, and by the next ingest, which refuses to build on damaged files. Every row of
    the sentence-vector store is checked against its digest too (a damaged row is never used:
    searches recompute it). KB is the folder (the same as --kb).

    \b
    Examples:
      veracity kb verify
      veracity kb verify ./kb
    """
    if kb_argument is not None and kb_path is not None and kb_argument != kb_path:
        raise click.UsageError("give the knowledge base folder once: as KB or as --kb")
    err = Console(stderr=True)
    try:
        report = KnowledgeBase(kb_argument or kb_path).check_integrity()
    except KnowledgeBaseError as exc:
        _fail(err, exc)
    out = Console()
    store_damage = _print_store_check(out, report)
    if not report.recorded:
        out.print(f"{report.location} ({report.generation}): no checksums recorded; re-ingest to add them "
                  "(the next ingest or removal that changes it records them). The index opens.",
                  highlight=False, markup=False, soft_wrap=True)
        if store_damage:
            _fail(err, KnowledgeBaseError(store_damage))
        sys.exit(EXIT_SKIPPED)
    checked = f"{report.files} files, {_size(report.size_bytes)}"
    if not report.damage:
        out.print(f"{report.location} ({report.generation}): OK, {checked} match their checksums.",
                  highlight=False, markup=False, soft_wrap=True)
        if store_damage:
            _fail(err, KnowledgeBaseError(store_damage))
        sys.exit(EXIT_OK)
    for damage in report.damage:
        out.print(f"damaged: {damage}", highlight=False, markup=False, soft_wrap=True)
    _fail(err, unusable(report.location, f"{len(report.damage)} of {report.files} files are damaged"))


def _print_store_check(out: Console, report: IntegrityReport) -> str | None:
    """Print what the check of the sentence-vector store found; the error to exit with if it is damaged."""
    check, path = report.store, report.location / STORE_NAME
    if check is None:
        return None
    clear = (f"it is a cache: delete {path} to clear it (searches and `veracity kb warm --kb {report.location}` "
             "fill it again)")
    if check.problem is not None:
        out.print(f"damaged: {STORE_NAME}: {check.problem}", highlight=False, markup=False, soft_wrap=True)
        return f"the sentence-vector store {path} cannot be used ({check.problem}); {clear}"
    if check.undigested:
        out.print(f"{STORE_NAME}: {check.undigested:,} of {check.rows:,} sentence vectors have no digest (written by "
                  "an older veracity): they are not trusted, but recomputed when first read "
                  f"(`veracity kb warm --kb {report.location}` does it now).",
                  highlight=False, markup=False, soft_wrap=True)
    if check.bad:
        out.print(f"damaged: {STORE_NAME}: {check.bad:,} of {check.rows:,} sentence vectors fail their check "
                  "(wrong length, values not finite or not of unit length, or another digest)",
                  highlight=False, markup=False, soft_wrap=True)
        return (f"{check.bad:,} sentence vectors in {path} are damaged or were edited; they are never used "
                f"(searches recompute them); {clear}")
    verified = check.rows - check.undigested
    out.print(f"{STORE_NAME}: OK, {verified:,} sentence vectors match their digests.",
              highlight=False, markup=False, soft_wrap=True)
    return None
