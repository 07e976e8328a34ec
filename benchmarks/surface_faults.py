"""Surface fault benchmark: the cache, batch, page fetching, verify, ingest and model answers, misused.

What runs
---------
Each case runs the way a user meets it: the ``veracity`` command line (or, where only the
Python API can allow a loopback page server, ``veracity.check``) in a fresh subprocess with a
time limit, with ``VERACITY_KB``, ``VERACITY_CACHE``, ``VERACITY_KEYS`` and ``XDG_DATA_HOME``
in a temporary folder. Chat-model and search runs reach stdlib loopback servers that play the
OpenAI Chat Completions API and Tavily's ``/search`` (``OPENAI_BASE_URL``,
``TAVILY_API_BASE_URL``); other runs are offline. Every subprocess starts behind a socket
guard that refuses, and records, any connection or name lookup that is not loopback, so
nothing leaves 127.0.0.1 even if a guard under test gives way.

1. **Poisoned cache entry**: a check fills a real cache file; each entry is then rewritten as
   a value naming ``os.system`` (msgpack extensions 0, 1 and 2, a pickle, a JSON constructor
   envelope) that would create a marker file; the same check runs again. Counted: marker
   files (code executions, target 0), checks that still completed, and checks that asked the
   model again (the poisoned entry was a miss).
2. **Repeated batch ids**: ``veracity batch`` on rows ``a`` (true), ``a`` (false), an exact
   duplicate of the first, and ``b``; then the same command again (resume). Counted: input
   rows with neither an output line nor a reported duplicate (target 0), and a summary whose
   counts do not add up to the input rows.
3. **URL forms**: a web check whose search result cites an upper-case scheme, ``file:``,
   ``ftp:``, ``javascript:``, a relative path, a leading space, an empty URL and the
   IPv4-embedded IPv6 forms of loopback. The addresses name the loopback page server (the
   metadata address 169.254.169.254 is not used), so a form that slips through is seen as a
   hit and still goes nowhere. Counted: silent passes (exit 0 or ``passed``, target 0) and
   page-server hits (target 0).
4. **Slow-drip, huge and gzip-bomb pages** through ``veracity.check`` with
   ``page_allowed_networks="127.0.0.1"``: a page that drips one byte every 2 s, a 60 MB page
   with its length declared and one without, a 1 GB gzip bomb, and a small page as the
   baseline. Measured: each fetch's wall time at the server (target: within the page budget,
   ``page_timeout`` 10 s, plus 2 s) and the peak RSS of each check minus the small page's
   (target ≤ 50 MB).
5. **Tampered reports**: a genuine offline report written by ``check --out`` is edited nine
   ways, each edit made consistent with the project's own code (counts, scores, evaluation,
   ``ok``): a flipped label, a rewritten claim, fabricated evidence with its quote, a dropped
   and a duplicated verdict, edited ``ok``, ``passed`` and risk, and a supported verdict with
   ``quote: null``; ``veracity verify`` runs on a signed and an unsigned (signature removed)
   copy of each. Counted: tampered reports that pass (target 0; the genuine report must
   hold). Then ``verify --snapshots`` on snapshot names that leave the folder or are not
   regular files (``../../../../etc/hostname``, ``/etc/hostname``, ``/dev/zero``, a FIFO, a
   link to ``/dev/zero``) and ``verify`` on a report path that is a FIFO or ``/dev/zero``:
   counted hangs (30 s) and refusals.
6. **FIFOs**: ``veracity ingest`` on a folder holding a note, a FIFO and a socket, on a
   folder holding only a FIFO, and on a FIFO named directly, each into a new knowledge base
   (60 s limit); then ``veracity kb stats``. Counted: hangs (target 0) and knowledge bases
   left unusable (target 0).
7. **Oversized model answers**: the model answers every extraction with 2,000 claims, with 400
   claims (small enough to pass the response byte cap, so the claim limit must stop it), and
   with a 50 MB body. Counted: searches and judge requests after the oversized extraction
   (target 0) and the exit status (3, a typed failure); reported: the peak RSS each check adds
   over a check whose extraction is refused for its shape.

Across all runs: tracebacks on stdout or stderr (target 0), model requests without an output
cap (target 0) and connections or lookups the socket guard stopped (target 0).

Run it (from the repository root; about four minutes on two cores)::

    .venv/bin/python benchmarks/surface_faults.py
    .venv/bin/python benchmarks/surface_faults.py --case verify --case pages --keep
    .venv/bin/python benchmarks/faults.py --only surfaces      # the same, through the fault benchmark

``--case`` picks cases (cache, batch, urls, pages, verify, ingest, model); ``--keep`` keeps the
temporary folder with each run's command and output under ``logs/``. Peak RSS is the
subprocess's ``ru_maxrss``, read with ``os.wait4``.

The exit status is 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import re
import select
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import zlib
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

from fake_api import (
    EXTRACTION_MARKER,
    LoopbackServer,
    QuietHTTPServer,
    completion,
    good_model_reply,
    prompt_of,
    send,
)

TRACEBACK = "Traceback (most recent call last)"
MEGABYTE = 1 << 20
PAGE_BUDGET = 10.0
"""The page budget: `page_timeout`'s default, seconds one page fetch may take."""
WEB_TEXT = "Alderbrook opened its railway station in 1931. Bramcote holds a market every Tuesday."
OFFLINE_TEXT = "The Sydney Opera House opened in 1973. It has over 2,000 rooms."

GUARD = r"""
import ipaddress as _ip, os as _os, socket as _socket

def _loopback(host):
    host = host.decode() if isinstance(host, bytes) else str(host)
    if host.lower() in ("localhost", "localhost.", ""):
        return True
    try:
        address = _ip.ip_address(host.split("%")[0])
    except ValueError:
        return False
    mapped = getattr(address, "ipv4_mapped", None)
    return address.is_loopback or bool(mapped and mapped.is_loopback)

def _stop(what):
    with open(_os.environ["SURFACE_FAULTS_ESCAPES"], "a", encoding="utf-8") as record:
        record.write(what + "\n")

def _guarded(original):
    def connect(self, address):
        if self.family in (_socket.AF_INET, _socket.AF_INET6) and not _loopback(address[0]):
            _stop(f"connect {address[0]}")
            raise OSError(101, "the benchmark's guard refuses connections outside loopback")
        return original(self, address)
    return connect

_socket.socket.connect = _guarded(_socket.socket.connect)
_socket.socket.connect_ex = _guarded(_socket.socket.connect_ex)
_getaddrinfo = _socket.getaddrinfo

def _lookup(host, *args, **kwargs):
    if host is not None and not _loopback(host):
        try:
            _ip.ip_address((host.decode() if isinstance(host, bytes) else host).split("%")[0])
        except ValueError:
            _stop(f"resolve {host}")
            raise _socket.gaierror(_socket.EAI_NONAME, "the benchmark's guard refuses name lookups") from None
    return _getaddrinfo(host, *args, **kwargs)

_socket.getaddrinfo = _lookup
"""
CLI = GUARD + "\nimport sys\nfrom veracity.cli import main\nsys.argv[0] = 'veracity'\nmain()\n"
API_CHECK = GUARD + r"""
import json, sys, time
import veracity
started = time.monotonic()
report = veracity.check(sys.argv[1], model="openai:gpt-4.1-mini", search="web", cache=False, search_backoff=0.01,
                        page_allowed_networks="127.0.0.1")
pages = [verdict.page.model_dump(include={"outcome", "reason", "truncated"}) for verdict in report.verdicts
         if verdict.page is not None]
print(json.dumps({"seconds": time.monotonic() - started, "passed": report.passed, "pages": pages}))
"""


@dataclass
class Run:
    """One finished subprocess: exit status, output, wall time, peak RSS, and whether it was killed."""

    rc: int
    stdout: str
    stderr: str
    seconds: float
    peak_rss_mb: float
    hung: bool

    @property
    def tracebacks(self) -> int:
        """Tracebacks printed on either stream."""
        return self.stdout.count(TRACEBACK) + self.stderr.count(TRACEBACK)

    def report(self) -> dict[str, Any] | None:
        """The JSON report on stdout (`--json`), if there is one."""
        with contextlib.suppress(ValueError):
            data = json.loads(self.stdout)
            return data if isinstance(data, dict) else None
        return None


@dataclass
class Row:
    """One line of the table: a measured value against its target; `ok` None when only reported."""

    case: str
    measure: str
    value: str
    target: str
    ok: bool | None


@dataclass
class Bench:
    """What every case shares: the temp root, the loopback servers, and every run made."""

    root: Path
    model: ModelFake
    search: SearchFake
    escapes: Path
    keep: bool = False
    runs: list[Run] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def env(self, home: Path, *, online: bool) -> dict[str, str]:
        """The environment of a run whose data lives under `home`; `online` points it at the loopback fakes."""
        env = {name: value for name, value in os.environ.items()
               if not name.upper().endswith("_PROXY") and not name.startswith(("OPENAI_", "TAVILY_", "VERACITY_"))}
        env.update(VERACITY_KB=str(home / "kb"), VERACITY_CACHE=str(home / "cache.sqlite"),
                   VERACITY_KEYS=str(home / "keys"), XDG_DATA_HOME=str(home / "data"), LANGSMITH_TRACING="false",
                   NO_PROXY="127.0.0.1,localhost", HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1",
                   SURFACE_FAULTS_ESCAPES=str(self.escapes), PYTHONUNBUFFERED="1")
        if online:
            env.update(OPENAI_API_KEY="surface-key", OPENAI_BASE_URL=self.model.url + "/v1",
                       TAVILY_API_KEY="tvly-surface", TAVILY_API_BASE_URL=self.search.url)
        return env

    def veracity(self, home: Path, *args: str, online: bool = False, timeout: float = 120,
                 cwd: Path | None = None) -> Run:
        """Run the `veracity` command line with `args`."""
        return self.spawn([sys.executable, "-c", CLI, *args], self.env(home, online=online), timeout, cwd or home)

    def api_check(self, home: Path, text: str, timeout: float = 120) -> Run:
        """Run `veracity.check(text)` in LLM and web mode with loopback pages allowed."""
        return self.spawn([sys.executable, "-c", API_CHECK, text], self.env(home, online=True), timeout, home)

    def spawn(self, argv: list[str], env: dict[str, str], timeout: float, cwd: Path) -> Run:
        """Run `argv` in its own session; kill its group after `timeout` s; record its peak RSS."""
        cwd.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
            started = time.monotonic()
            process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=err, env=env, cwd=cwd,
                                       start_new_session=True)
            hung = False
            while True:
                pid, status, usage = os.wait4(process.pid, os.WNOHANG)
                if pid:
                    break
                if time.monotonic() - started > timeout:
                    hung = True
                    os.killpg(process.pid, signal.SIGKILL)
                    _, status, usage = os.wait4(process.pid, 0)
                    break
                time.sleep(0.05)
            process.returncode = os.waitstatus_to_exitcode(status)
            seconds = time.monotonic() - started
            out.seek(0)
            err.seek(0)
            run = Run(process.returncode, out.read().decode(errors="replace"), err.read().decode(errors="replace"),
                      seconds, usage.ru_maxrss / 1024, hung)
        with self.lock:
            self.runs.append(run)
            if self.keep:  # each run's command and output, for inspection
                log = self.root / "logs" / f"{len(self.runs):03d}.txt"
                log.parent.mkdir(exist_ok=True)
                log.write_text(f"{argv[3:] if argv[1] == '-c' else argv}\ncwd {cwd}\nexit {run.rc}, "
                               f"{seconds:.1f} s, {run.peak_rss_mb:.0f} MB\n--- stdout\n{run.stdout}\n"
                               f"--- stderr\n{run.stderr}")
        return run


class ModelFake:
    """The OpenAI fake: good answers by default; `extraction` replaces extraction answers (or floods them)."""

    def __init__(self) -> None:
        self.extraction: Callable[[str], dict[str, Any]] | None = None
        self.flood_megabytes = 0
        self.requests = 0
        self.uncapped = 0
        self.judge_requests = 0
        self.lock = threading.Lock()
        self.server = LoopbackServer(self.answer)
        self.url = self.server.url

    def answer(self, path: str, body: Any, handler: BaseHTTPRequestHandler) -> None:
        """Answer one chat-completions request."""
        prompt = prompt_of(body)
        extracting = EXTRACTION_MARKER in prompt
        cap = body.get("max_completion_tokens", body.get("max_tokens"))
        with self.lock:
            self.requests += 1
            self.uncapped += not (isinstance(cap, int) and cap > 0)
            self.judge_requests += not extracting
        if extracting and self.flood_megabytes:
            self.flood(handler)
        elif extracting and self.extraction is not None:
            send(handler, 200, completion(body, json.dumps(self.extraction(prompt))))
        else:
            send(handler, 200, completion(body, json.dumps(good_model_reply(prompt))))

    def flood(self, handler: BaseHTTPRequestHandler) -> None:
        """An answer of `flood_megabytes` MB with no declared length: it ends when the connection closes."""
        head = b'{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,' \
               b'"finish_reason":"stop","message":{"role":"assistant","content":"'
        tail = b'"}}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}'
        block = b"x" * MEGABYTE
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        handler.end_headers()
        handler.close_connection = True
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            for chunk in (head, *([block] * self.flood_megabytes), tail):
                handler.wfile.write(chunk)

    @contextlib.contextmanager
    def scripted(self, extraction: Callable[[str], dict[str, Any]] | None = None, flood_megabytes: int = 0
                 ) -> Iterator[None]:
        """Answer extractions with `extraction` (or a flood) for the duration."""
        self.extraction, self.flood_megabytes = extraction, flood_megabytes
        try:
            yield
        finally:
            self.extraction, self.flood_megabytes = None, 0


class SearchFake:
    """The Tavily fake: one result per query, citing the URL `cite` names for the claim it contains."""

    def __init__(self) -> None:
        self.cite: dict[str, str] = {}
        self.requests = 0
        self.lock = threading.Lock()
        self.server = LoopbackServer(self.answer)
        self.url = self.server.url

    def answer(self, path: str, body: Any, handler: BaseHTTPRequestHandler) -> None:
        """Answer one search."""
        query = str(body.get("query", ""))
        with self.lock:
            self.requests += 1
        url = next((url for claim, url in self.cite.items() if claim in query),
                   "https://gazetteer.example/" + hashlib.md5(query.encode()).hexdigest())
        result = {"title": "Gazetteer", "url": url, "score": 0.9,
                  "content": f"From the gazetteer: {query} The entry was last reviewed this year."}
        send(handler, 200, json.dumps({"query": query, "results": [result], "response_time": 0.01}).encode())


class PageServer:
    """A loopback web server whose routes write straight to the socket; it times each request it serves."""

    def __init__(self, routes: dict[str, Callable[[BaseHTTPRequestHandler], None]]) -> None:
        self.routes = routes
        self.served: list[tuple[str, float]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server naming)
                started = time.monotonic()
                route = outer.routes.get(self.path.split("?")[0])
                try:
                    if route is None:
                        self.send_error(404)
                    else:
                        route(self)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client stopped reading
                finally:
                    outer.served.append((self.path, time.monotonic() - started))

            def log_message(self, format: str, *args: Any) -> None:
                """Quiet."""

        self.httpd = QuietHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        self.port = self.httpd.server_address[1]

    def url(self, path: str) -> str:
        """The URL of `path` on this server."""
        return f"http://127.0.0.1:{self.port}{path}"

    def close(self) -> None:
        """Stop serving."""
        self.httpd.shutdown()
        self.httpd.server_close()


def page_headers(handler: BaseHTTPRequestHandler, length: int, **extra: str) -> None:
    """A 200 response's headers for an HTML page of `length` bytes."""
    handler.send_response(200)
    handler.send_header("Content-Type", "text/html; charset=utf-8")
    handler.send_header("Content-Length", str(length))
    for name, value in extra.items():
        handler.send_header(name.replace("_", "-"), value)
    handler.end_headers()


def client_gone(handler: BaseHTTPRequestHandler, wait: float) -> bool:
    """Wait up to `wait` s; True as soon as the client has closed its end of the connection."""
    readable, _, _ = select.select([handler.connection], [], [], wait)
    return bool(readable) and handler.connection.recv(1, socket.MSG_PEEK) == b""


def check_all(cases: list[Callable[[], Run]], workers: int = 2) -> list[Run]:
    """Run independent subprocess cases two at a time, in order."""
    with ThreadPoolExecutor(workers) as pool:
        return list(pool.map(lambda case: case(), cases))


def yes(flag: bool) -> str:
    return "yes" if flag else "NO"


@dataclass
class Outcome:
    """One case of a fault script: what happened, and whether it met its target."""

    case: str
    happened: str
    ok: bool


def clean(*runs: Run) -> bool:
    """No run printed a traceback or hung."""
    return all(run.tracebacks == 0 and not run.hung for run in runs)


def said(run: Run) -> str:
    """Both streams of `run`, whitespace folded."""
    return " ".join((run.stdout + " " + run.stderr).split())


def run_cases(cases: dict[str, Callable[[Bench], Outcome]], description: str, prefix: str) -> None:
    """A fault script's command line: run the chosen `cases`, print one line each and a summary, exit 1 on a miss.

    Every case runs against one `Bench` in a temporary folder (``--keep`` keeps it, with each run's
    output); a case that breaks is a miss reported with its reason. Folders a case made read-only
    or writable by all are given back to their owner before the folder is removed.
    """
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--case", action="append", choices=list(cases), dest="cases",
                        help="run only this case (repeatable; default: all)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder, with each run's output")
    args = parser.parse_args()
    started = time.monotonic()
    root = Path(tempfile.mkdtemp(prefix=prefix))
    bench = Bench(root=root, model=ModelFake(), search=SearchFake(), escapes=root / "escapes.txt", keep=args.keep)
    outcomes: list[Outcome] = []
    try:
        for name, case in cases.items():
            if args.cases and name not in args.cases:
                continue
            try:
                outcome = case(bench)
            except Exception as error:  # a case that breaks is a miss, reported with its reason
                outcome = Outcome(name, f"the case itself failed: {type(error).__name__}: {error}", False)
            outcomes.append(outcome)
            print(f"{outcome.case}: {outcome.happened} -> {'ok' if outcome.ok else 'MISSED'}", flush=True)
    finally:
        bench.model.server.close()
        bench.search.server.close()
        if args.keep:
            print(f"kept {root}", file=sys.stderr)
        else:
            for path in root.rglob("*"):
                if path.is_dir() and not path.is_symlink():
                    path.chmod(0o700)
            shutil.rmtree(root, ignore_errors=True)
    escapes = bench.escapes.read_text().split("\n")[:-1] if bench.escapes.exists() else []
    tracebacks = sum(run.tracebacks for run in bench.runs)
    print(f"all: {len(bench.runs)} runs, {tracebacks} traceback(s), {sum(run.hung for run in bench.runs)} hang(s), "
          f"{len(escapes)} connection(s) outside loopback; {sum(o.ok for o in outcomes)} of {len(outcomes)} cases "
          f"ok in {time.monotonic() - started:.0f} s")
    sys.exit(0 if all(o.ok for o in outcomes) and not tracebacks and not escapes else 1)


# 1. Poisoned cache entries -----------------------------------------------------------------------------------

def poisoned_values(marker: Path) -> dict[str, tuple[str, bytes]]:
    """Cache values that would run `touch marker` if the reader called what they name."""
    import ormsgpack

    command = f"touch {marker}"

    def extension(code: int, argument: object) -> bytes:
        return ormsgpack.packb([ormsgpack.Ext(code, ormsgpack.packb(["os", "system", argument]))])

    envelope = [{"lc": 2, "type": "constructor", "id": ["os", "system"], "args": [command]}]
    return {
        "msgpack ext 0": ("msgpack", extension(0, command)),
        "msgpack ext 1": ("msgpack", extension(1, [command])),
        "msgpack ext 2": ("msgpack", extension(2, {"command": command})),
        "pickle": ("pickle", b"cos\nsystem\n(S'" + command.encode() + b"'\ntR."),
        "json constructor": ("json", json.dumps(envelope).encode()),
    }


def poisoned_cache(bench: Bench) -> list[Row]:
    home = bench.root / "cache"
    args = ("check", WEB_TEXT, "--search", "web", "--no-page-check", "--json")
    first = bench.veracity(home, *args, online=True)
    filled = home / "cache.sqlite"
    with contextlib.closing(sqlite3.connect(filled)) as db:
        entries = db.execute("SELECT COUNT(*) FROM cache").fetchone()[0]
    executed = completed = asked_again = 0
    forms = list(poisoned_values(home / "marker"))
    for form in forms:
        run_home = home / form.replace(" ", "-")
        marker = run_home / "marker"
        run_home.mkdir(parents=True)
        # SQLite's backup API, not a file copy: entries still in the write-ahead log must come along
        with contextlib.closing(sqlite3.connect(filled)) as source, \
                contextlib.closing(sqlite3.connect(run_home / "cache.sqlite")) as copy:
            source.backup(copy)
        shutil.copy(filled.with_name(filled.name + ".secret"), run_home / "cache.sqlite.secret")
        encoding, value = poisoned_values(marker)[form]
        with contextlib.closing(sqlite3.connect(run_home / "cache.sqlite")) as db, db:
            db.execute("UPDATE cache SET encoding = ?, val = ?", (encoding, value))
        before = bench.model.requests
        again = bench.veracity(run_home, *args, online=True)
        executed += marker.exists()
        report = again.report()
        completed += again.rc in (0, 1) and report is not None and len(report.get("verdicts", [])) == 2
        asked_again += bench.model.requests > before
    n = len(forms)
    return [
        Row("1 poisoned cache", f"code executions ({n} forms, {entries} entries each)", str(executed), "0",
            executed == 0),
        Row("1 poisoned cache", "checks completed after poisoning", f"{completed}/{n}", f"{n}/{n}",
            completed == n and first.rc in (0, 1)),
        Row("1 poisoned cache", "poisoned entries treated as misses (model asked again)", f"{asked_again}/{n}",
            f"{n}/{n}", asked_again == n),
    ]


# 2. Repeated batch ids ---------------------------------------------------------------------------------------

BATCH_ROWS = [
    {"id": "a", "text": "Canberra is the capital of Australia."},
    {"id": "a", "text": "Sydney is the capital of Australia."},
    {"id": "a", "text": "Canberra is the capital of Australia."},
    {"id": "b", "text": "The Sydney Opera House opened in 1973."},
]
SUMMARY = re.compile(r"(\d+) row\(s\): (\d+) checked(?: \(\d+ failed\))?, (\d+) already in [^,]+, (\d+) duplicate")
DUPLICATE_LINE = re.compile(r"line (\d+) \([^)]*\): the same id, text and source as line \d+")


def accounted_rows(run: Run, out: Path) -> tuple[set[int], tuple[int, ...] | None]:
    """Input lines with an output line or a reported duplicate, and the summary's (rows, checked, already, dup)."""
    lines = {json.loads(line)["line"] for line in out.read_text().splitlines() if line.strip()} if out.exists() \
        else set()
    said = " ".join(run.stderr.split()) + " " + " ".join(run.stdout.split())
    lines |= {int(n) for n in DUPLICATE_LINE.findall(said)}
    summary = SUMMARY.search(said)
    return lines, tuple(int(n) for n in summary.groups()) if summary else None


def repeated_batch_ids(bench: Bench) -> list[Row]:
    home = bench.root / "batch"
    home.mkdir(parents=True)
    source = home / "in.jsonl"
    source.write_text("".join(json.dumps(row) + "\n" for row in BATCH_ROWS))
    out, rows = home / "out.jsonl", len(BATCH_ROWS)
    found = []
    for _ in ("fresh", "resumed"):
        run = bench.veracity(home, "batch", str(source), "--out", str(out), "--summary", str(home / "s.csv"))
        lines, summary = accounted_rows(run, out)
        adds_up = summary is not None and summary[0] == rows == sum(summary[1:])
        found.append((rows - len(lines & set(range(1, rows + 1))), adds_up, run.rc))
    lost = [n for n, _, _ in found]
    false_row = [json.loads(line) for line in out.read_text().splitlines() if json.loads(line)["line"] == 2]
    return [
        Row("2 batch repeated ids", "rows lost (fresh run, resumed run)", f"{lost[0]}, {lost[1]}", "0, 0",
            lost == [0, 0]),
        Row("2 batch repeated ids", "summary counts every input row (fresh, resumed)",
            f"{yes(found[0][1])}, {yes(found[1][1])}", "yes, yes", found[0][1] and found[1][1]),
        Row("2 batch repeated ids", "the false claim's row has an output line (exit status)",
            f"{yes(bool(false_row))} (exit {found[0][2]})", "yes", bool(false_row)),
    ]


# 3. URL forms ------------------------------------------------------------------------------------------------

def url_forms(port: int) -> dict[str, str]:
    """The cited URL forms; the address forms name the loopback page server on `port`."""
    return {
        "upper-case scheme": f"HTTP://127.0.0.1:{port}/latest/meta-data/",
        "file:": "file:///etc/passwd",
        "ftp:": f"ftp://127.0.0.1:{port}/notes.txt",
        "javascript:": "javascript:alert(1)",
        "relative path": "/wiki/Alderbrook",
        "leading space": f" http://127.0.0.1:{port}/latest/meta-data/",
        "empty": "",
        "[::127.0.0.1]": f"http://[::127.0.0.1]:{port}/",
        "[2002:7f00:1::]": f"http://[2002:7f00:1::]:{port}/",
        "[64:ff9b::7f00:1]": f"http://[64:ff9b::7f00:1]:{port}/",
        "[::ffff:127.0.0.1]": f"http://[::ffff:127.0.0.1]:{port}/",
    }


def url_form_checks(bench: Bench) -> list[Row]:
    home = bench.root / "urls"
    page = "<html><body><p>{claim}</p></body></html>"
    pages = PageServer({})
    forms = url_forms(pages.port)
    claims = {form: f"Hartwell {i} opened its railway station in {1900 + i}." for i, form in enumerate(forms)}

    def route(claim: str) -> Callable[[BaseHTTPRequestHandler], None]:
        def serve(handler: BaseHTTPRequestHandler) -> None:
            body = page.format(claim=claim).encode()
            page_headers(handler, len(body))
            handler.wfile.write(body)
        return serve

    pages.routes.update({"/": route(""), "/latest/meta-data/": route("")})
    bench.search.cite.update({claims[form]: url for form, url in forms.items()})
    try:
        runs = check_all([lambda form=form: bench.veracity(home / f"form{list(forms).index(form)}", "check",
                                                           claims[form], "--search", "web", "--no-cache", "--json",
                                                           online=True) for form in forms])
    finally:
        pages.close()
    silent = []
    for form, run in zip(forms, runs, strict=True):
        report = run.report() or {}
        pages_checked = [v.get("page") for v in report.get("verdicts", [])]
        unchecked = not pages_checked or any(p is None or p.get("outcome") != "fetch_failed" for p in pages_checked)
        if run.rc == 0 or report.get("passed") or unchecked:
            silent.append(form)
    return [
        Row("3 URL forms", f"silent passes ({len(forms)} forms)", str(len(silent)) + (f" {silent}" if silent else ""),
            "0", not silent),
        Row("3 URL forms", "page-server hits from refused forms", str(len(pages.served)), "0", not pages.served),
    ]


# 4. Slow-drip, huge and gzip-bomb pages -----------------------------------------------------------------------

def page_routes(claims: dict[str, str]) -> dict[str, Callable[[BaseHTTPRequestHandler], None]]:
    """A small page, a drip, a 60 MB page (with and without its length) and a 1 GB gzip bomb, each ending
    with its claim from `claims`."""

    def article(path: str) -> bytes:
        return f"<html><body><article><p>{claims[path]} It is in the gazetteer.</p></article></body></html>".encode()

    filler = b"<p>Railway news of no interest to this claim, repeated to fill a very long page.</p>\n" * 800
    squeezer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    bomb = b"".join([*(squeezer.compress(b" " * MEGABYTE) for _ in range(1000)), squeezer.flush()])

    def small(handler: BaseHTTPRequestHandler) -> None:
        page_headers(handler, len(article("/small")))
        handler.wfile.write(article("/small"))

    def drip(handler: BaseHTTPRequestHandler) -> None:
        page_headers(handler, 100_000)
        for _ in range(300):
            handler.wfile.write(b"<")
            handler.wfile.flush()
            if client_gone(handler, 2.0):
                return

    def huge(handler: BaseHTTPRequestHandler) -> None:
        declared = handler.path == "/huge"  # /huge-unsized ends when the connection closes, its size unknown
        size, written, tail = 60_000_000, 0, article(handler.path)
        if declared:
            page_headers(handler, size + len(tail))
        else:
            handler.send_response(200)
            handler.send_header("Content-Type", "text/html; charset=utf-8")
            handler.end_headers()
        while written < size:
            handler.wfile.write(filler)
            written += len(filler)
        handler.wfile.write(tail)

    def gzip_bomb(handler: BaseHTTPRequestHandler) -> None:
        page_headers(handler, len(bomb), content_encoding="gzip")
        handler.wfile.write(bomb)

    return {"/small": small, "/drip": drip, "/huge": huge, "/huge-unsized": huge, "/bomb": gzip_bomb}


def page_limits(bench: Bench) -> list[Row]:
    home = bench.root / "pages"
    claims = {path: f"Glenrock {i} opened its railway station in {1920 + i}." for i, path in
              enumerate(("/small", "/drip", "/huge", "/huge-unsized", "/bomb"))}
    pages = PageServer(page_routes(claims))
    bench.search.cite.update({claim: pages.url(path) for path, claim in claims.items()})
    try:
        runs = {path: bench.api_check(home / path.strip("/"), claim) for path, claim in claims.items()}
    finally:
        pages.close()
    fetches = {path: [seconds for served, seconds in pages.served if served == path] for path in claims}
    baseline = runs["/small"].peak_rss_mb
    outcome = {path: (run.report() or {}).get("pages", []) for path, run in runs.items()}
    rows = [Row("4 pages", "small page: check passes, page verified (baseline RSS)",
                f"{yes(bool((runs['/small'].report() or {}).get('passed')))} ({baseline:.0f} MB)", "yes",
                bool((runs["/small"].report() or {}).get("passed")))]
    for path, name in (("/drip", "slow drip (1 byte / 2 s)"), ("/huge", "60 MB page, length declared"),
                       ("/huge-unsized", "60 MB page, no length"), ("/bomb", "1 GB gzip bomb")):
        longest = max(fetches[path], default=float("nan"))
        added = runs[path].peak_rss_mb - baseline
        failed = outcome[path] and all(not p.get("outcome", "").startswith("verified") for p in outcome[path])
        rows += [
            Row("4 pages", f"{name}: longest of {len(fetches[path])} fetch(es), s", f"{longest:.2f}",
                f"≤ {PAGE_BUDGET + 2:.0f}", bool(fetches[path]) and longest <= PAGE_BUDGET + 2),
            Row("4 pages", f"{name}: peak RSS over the small page's, MB", f"{added:+.0f}", "≤ 50",
                added <= 50 and not runs[path].hung),
            Row("4 pages", f"{name}: check does not pass, page not verified ({runs[path].seconds:.0f} s)",
                yes(bool(failed) and not (runs[path].report() or {}).get("passed", True)), "yes",
                bool(failed) and not (runs[path].report() or {}).get("passed", True)),
        ]
    return rows


# 5. Tampered reports -----------------------------------------------------------------------------------------

Edit = Callable[[dict[str, Any]], dict[str, Any]]


def made_consistent(data: dict[str, Any]) -> dict[str, Any]:
    """`data` with everything that follows from its verdicts derived again by the project's own code."""
    from veracity.audit.structure import expected_evaluations
    from veracity.contracts import Report, Summary
    from veracity.scores import reliability

    report = Report.model_validate(data)
    labels = Counter(verdict.label for verdict in report.verdicts)
    scored = reliability(report.claims, report.verdicts, {v.claim_id: v.support_score for v in report.verdicts})
    report = report.model_copy(update={
        "summary": Summary(claims=len(report.claims), supported=labels["supported"], refuted=labels["refuted"],
                           unverifiable=labels["unverifiable"], failures=len(report.failures)),
        **{name: getattr(scored, name) for name in ("evidence_coverage", "average_similarity", "reliability_score",
                                                     "hallucination_risk", "unsupported_claims")}})
    evaluation = expected_evaluations(report)[0]
    edited: dict[str, Any] = json.loads(report.model_copy(
        update={"evaluation": evaluation, "ok": evaluation.sound}).model_dump_json())
    return edited


def decisive(data: dict[str, Any]) -> dict[str, Any]:
    """The first supported or refuted verdict the judge gave (not a computed one)."""
    return next(v for v in data["verdicts"] if v["label"] in ("supported", "refuted") and v["computation"] is None)


def tamper_edits() -> dict[str, Edit]:
    """The nine edits, each returning the edited report."""

    def flip_label(data: dict[str, Any]) -> dict[str, Any]:
        verdict = decisive(data)
        verdict["label"] = "refuted" if verdict["label"] == "supported" else "supported"
        return made_consistent(data)

    def rewrite_claim(data: dict[str, Any]) -> dict[str, Any]:
        data["text"] = data["text"].replace("1973", "1975")
        for name in ("text", "source"):
            data["claims"][0][name] = data["claims"][0][name].replace("1973", "1975")
        return made_consistent(data)

    def fabricate_evidence(data: dict[str, Any]) -> dict[str, Any]:
        verdict = decisive(data)
        invented = "The Sydney Opera House first opened its doors to the public in 1999."
        next(item for item in data["evidence"] if item["id"] == verdict["evidence_id"])["text"] = invented
        verdict["quote"] = invented
        return made_consistent(data)

    def drop_verdict(data: dict[str, Any]) -> dict[str, Any]:
        data["verdicts"].remove(decisive(data))
        return made_consistent(data)

    def duplicate_verdict(data: dict[str, Any]) -> dict[str, Any]:
        data["verdicts"].append(dict(decisive(data)))
        return made_consistent(data)

    def edit_ok(data: dict[str, Any]) -> dict[str, Any]:
        data["ok"] = not data["ok"]
        return data

    def edit_passed(data: dict[str, Any]) -> dict[str, Any]:
        data["passed"] = not data["passed"]
        return data

    def edit_risk(data: dict[str, Any]) -> dict[str, Any]:
        data["hallucination_risk"] = "LOW" if data["hallucination_risk"] != "LOW" else "HIGH"
        data["reliability_score"] = 0.99
        return data

    def quote_null(data: dict[str, Any]) -> dict[str, Any]:
        decisive(data)["quote"] = None
        return made_consistent(data)

    return {edit.__name__.replace("_", " "): edit for edit in (
        flip_label, rewrite_claim, fabricate_evidence, drop_verdict, duplicate_verdict, edit_ok, edit_passed,
        edit_risk, quote_null)}


def with_snapshot(data: dict[str, Any], name: str, page: bytes) -> dict[str, Any]:
    """`data` with its first decisive verdict's page kept under the snapshot `name`."""
    decisive(data)["page"] = {
        "outcome": "verified_live", "url": "https://example.org/opera", "snapshot": name,
        "sha256": hashlib.sha256(page).hexdigest(), "checked_at": "2026-01-01T00:00:00+00:00",
        "reason": "the quote is on the page"}
    return data


def tampered_reports(bench: Bench) -> list[Row]:
    home = bench.root / "verify"
    written = bench.veracity(home, "check", OFFLINE_TEXT, "--model", "offline", "--search", "kb", "--today",
                             "2026-11-24", "--out", str(home / "out"))
    genuine = json.loads((home / "out" / "report.json").read_text())
    labels = sorted(v["label"] for v in genuine["verdicts"])

    def copy(name: str, edit: Edit | None, *, signed: bool) -> Path:
        folder = home / name
        shutil.copytree(home / "out", folder)
        if edit is not None:
            edited = edit(json.loads((folder / "report.json").read_text()))
            (folder / "report.json").write_text(json.dumps(edited, indent=2) + "\n")
        if not signed:
            (folder / "report.json.sig").unlink()
        return folder / "report.json"

    edits = tamper_edits()
    jobs: list[tuple[str, Path, tuple[str, ...]]] = [
        ("genuine signed", copy("genuine-signed", None, signed=True), ()),
        ("genuine unsigned", copy("genuine-unsigned", None, signed=False), ())]
    for signed in (True, False):
        kind = "signed" if signed else "unsigned"
        jobs += [(f"{name} {kind}", copy(f"{name}-{kind}".replace(" ", "-"), edit, signed=signed), ())
                 for name, edit in edits.items()]

    snapshots = home / "snapshots"
    snapshots.mkdir()
    quote = decisive(genuine)["quote"]
    page = f"<html><body><p>{quote}</p></body></html>".encode()
    (snapshots / "kept.html").write_bytes(page)
    os.mkfifo(snapshots / "pipe.html")
    (snapshots / "zero.html").symlink_to("/dev/zero")
    escapes = {"kept page (control)": "kept.html", "../../../../etc/hostname": "../../../../etc/hostname",
               "/etc/hostname": "/etc/hostname", "/dev/zero": "/dev/zero", "FIFO in the folder": "pipe.html",
               "link to /dev/zero": "zero.html"}
    for name, snapshot in escapes.items():
        report = copy(f"snapshot-{len(jobs)}", lambda data, s=snapshot: with_snapshot(data, s, page), signed=False)
        jobs.append((f"snapshot {name}", report, ("--snapshots", str(snapshots))))
    os.mkfifo(home / "fifo-report.json")
    jobs += [("report path is a FIFO", home / "fifo-report.json", ()), ("report path is /dev/zero", Path("/dev/zero"),
                                                                        ())]

    runs = dict(zip([name for name, _, _ in jobs], check_all([
        lambda report=report, extra=extra: bench.veracity(home, "verify", str(report), *extra, timeout=30)
        for _, report, extra in jobs]), strict=True))
    passing = {kind: [name for name in edits if runs[f"{name} {kind}"].rc == 0] for kind in ("signed", "unsigned")}
    genuine_holds = runs["genuine signed"].rc == 0 and runs["genuine unsigned"].rc == 0
    refused = [name for name in escapes if name != "kept page (control)"
               and runs[f"snapshot {name}"].rc == 1 and "refused" in runs[f"snapshot {name}"].stdout]
    special = [runs["report path is a FIFO"], runs["report path is /dev/zero"]]
    snapshot_runs = [runs[f"snapshot {name}"] for name in escapes] + special
    return [
        Row("5 verify", f"genuine report holds, signed and unsigned (labels {labels})", yes(genuine_holds), "yes",
            genuine_holds and written.rc in (0, 1)),
        Row("5 verify", "tampered signed reports that pass (of 9)",
            str(len(passing["signed"])) + (f" {passing['signed']}" if passing["signed"] else ""), "0",
            not passing["signed"]),
        Row("5 verify", "tampered unsigned reports that pass (of 9)",
            str(len(passing["unsigned"])) + (f" {passing['unsigned']}" if passing["unsigned"] else ""), "0",
            not passing["unsigned"]),
        Row("5 verify", "snapshot inside the folder holds (control)", yes(runs["snapshot kept page (control)"].rc == 0),
            "yes", runs["snapshot kept page (control)"].rc == 0),
        Row("5 verify", f"snapshot escapes refused (of {len(escapes) - 1})", str(len(refused)),
            str(len(escapes) - 1), len(refused) == len(escapes) - 1),
        Row("5 verify", "report path FIFO / /dev/zero: exit 2", ", ".join(str(run.rc) for run in special), "2, 2",
            all(run.rc == 2 for run in special)),
        Row("5 verify", "hangs (30 s) in snapshot and special-file runs",
            f"{sum(run.hung for run in snapshot_runs)} (longest {max(r.seconds for r in snapshot_runs):.1f} s)", "0",
            not any(run.hung for run in snapshot_runs)),
    ]


# 6. FIFOs in ingest ------------------------------------------------------------------------------------------

def fifo_ingest(bench: Bench) -> list[Row]:
    home = bench.root / "ingest"
    mixed, only = home / "mixed", home / "only-fifo"
    mixed.mkdir(parents=True)
    only.mkdir()
    (mixed / "note.md").write_text("# Hartwell\n\nHartwell opened its railway station in 1911.\n")
    os.mkfifo(mixed / "pipe.md")
    os.mkfifo(only / "pipe.txt")
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(mixed / "socket.md"))
    runs = []
    try:
        for name, path in (("folder with a note, a FIFO and a socket", mixed), ("folder with only a FIFO", only),
                           ("a FIFO named directly", mixed / "pipe.md")):
            kb = home / f"kb-{len(runs)}"
            ingest = bench.veracity(home, "ingest", str(path), "--kb", str(kb), timeout=60)
            stats = bench.veracity(home, "kb", "stats", "--kb", str(kb), timeout=60)
            runs.append((name, ingest, stats))
    finally:
        listener.close()
    hangs = [name for name, ingest, _ in runs if ingest.hung]
    unusable = [name for name, _, stats in runs if stats.rc != 0]
    return [
        Row("6 ingest FIFOs", f"hangs (60 s; of {len(runs)} ingests; exits {[i.rc for _, i, _ in runs]})",
            str(len(hangs)) + (f" {hangs}" if hangs else ""), "0", not hangs),
        Row("6 ingest FIFOs", "knowledge bases unusable afterwards (kb stats exit ≠ 0)",
            str(len(unusable)) + (f" {unusable}" if unusable else ""), "0", not unusable),
    ]


# 7. Oversized model answers ----------------------------------------------------------------------------------

def oversized_answers(bench: Bench) -> list[Row]:
    home = bench.root / "model"
    args = ("check", WEB_TEXT, "--search", "web", "--no-page-check", "--no-cache")

    def claims(count: int) -> Callable[[str], dict[str, Any]]:
        sentences = re.findall(r"[A-Z][^.]*\.", WEB_TEXT)
        answer = {"claims": [{"claim": sentences[i % len(sentences)], "source": sentences[i % len(sentences)]}
                             for i in range(count)]}
        return lambda prompt: answer

    normal = bench.veracity(home / "normal", *args, online=True)
    with bench.model.scripted(extraction=lambda prompt: {"verdict": "yes", "confidence": 0.9}):
        refused = bench.veracity(home / "refused", *args, online=True)  # the same failure path, a small answer
    rows = [Row("7 model answers", "normal check: exit (peak RSS)", f"{normal.rc} ({normal.peak_rss_mb:.0f} MB)",
                "0", normal.rc == 0),
            Row("7 model answers", "extraction of the wrong shape: exit (peak RSS, the baseline below)",
                f"{refused.rc} ({refused.peak_rss_mb:.0f} MB)", "3", refused.rc == 3)]
    for name, script in (("2,000 claims", {"extraction": claims(2000)}),
                         ("400 claims, under the byte cap", {"extraction": claims(400)}),
                         ("50 MB answer", {"flood_megabytes": 50})):
        searches, judges = bench.search.requests, bench.model.judge_requests
        with bench.model.scripted(**script):  # type: ignore[arg-type]
            run = bench.veracity(home / name.split()[0].replace(",", ""), *args, online=True)
        fanned = (bench.search.requests - searches, bench.model.judge_requests - judges)
        said = " ".join(run.stdout.split())
        caught = "byte cap" if "response was longer than" in said else "claim limit" if re.search(
            r"lists \d+ claims", said) else "?"
        rows += [
            Row("7 model answers", f"{name}: searches / judge requests after it", "{} / {}".format(*fanned),
                "0 / 0", fanned == (0, 0)),
            Row("7 model answers", f"{name}: exit, refused by, s, peak RSS over the baseline",
                f"{run.rc}, {caught}, {run.seconds:.1f} s, {run.peak_rss_mb - refused.peak_rss_mb:+.0f} MB",
                "exit 3", run.rc == 3 and not run.hung),
        ]
    return rows


CASES: dict[str, Callable[[Bench], list[Row]]] = {
    "cache": poisoned_cache, "batch": repeated_batch_ids, "urls": url_form_checks, "pages": page_limits,
    "verify": tampered_reports, "ingest": fifo_ingest, "model": oversized_answers,
}


def run_surfaces(only: list[str] | None = None, keep: bool = False) -> tuple[list[Row], float]:
    """Run the cases named in `only` (all by default); the rows of the table and the wall time."""
    started = time.monotonic()
    root = Path(tempfile.mkdtemp(prefix="veracity-surfaces-"))
    bench = Bench(root=root, model=ModelFake(), search=SearchFake(), escapes=root / "escapes.txt", keep=keep)
    rows: list[Row] = []
    try:
        for name, case in CASES.items():
            if only and name not in only:
                continue
            print(f"  case {name} ...", file=sys.stderr, flush=True)
            case_started = time.monotonic()
            rows += case(bench)
            print(f"  case {name}: {time.monotonic() - case_started:.0f} s", file=sys.stderr, flush=True)
        tracebacks = sum(run.tracebacks for run in bench.runs)
        escapes = bench.escapes.read_text().split("\n")[:-1] if bench.escapes.exists() else []
        rows += [
            Row("all", f"tracebacks (in {len(bench.runs)} runs)", str(tracebacks), "0", tracebacks == 0),
            Row("all", f"model requests without an output cap (of {bench.model.requests})",
                str(bench.model.uncapped), "0", bench.model.uncapped == 0),
            Row("all", "connections or lookups outside loopback (stopped by the guard)",
                str(len(escapes)) + (f" {sorted(set(escapes))[:3]}" if escapes else ""), "0", not escapes),
        ]
    finally:
        bench.model.server.close()
        bench.search.server.close()
        if keep:
            print(f"  kept {root}", file=sys.stderr)
        else:
            shutil.rmtree(root, ignore_errors=True)
    return rows, time.monotonic() - started


def print_table(rows: list[Row], seconds: float) -> bool:
    """Print the table; True when every target is met."""
    print("| case | measured | value | target | ok |\n|---|---|---|---|---|")
    for row in rows:
        mark = "reported" if row.ok is None else "yes" if row.ok else "**NO**"
        print(f"| {row.case} | {row.measure} | {row.value} | {row.target} | {mark} |")
    missed = [row for row in rows if row.ok is False]
    print(f"\n{len(rows) - len(missed)} of {len(rows)} rows meet their target; wall time {seconds:.0f} s")
    return not missed


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of this benchmark (shared with `faults.py --only surfaces`)."""
    parser.add_argument("--case", action="append", choices=list(CASES), dest="cases",
                        help="run only this case (repeatable; default: all)")
    parser.add_argument("--keep", action="store_true",
                        help="keep the temporary folder, with each run's output in logs/")


def main() -> None:
    """Parse arguments, run the cases, print the table, exit 1 when a target is missed."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    add_arguments(parser)
    args = parser.parse_args()
    rows, seconds = run_surfaces(args.cases, args.keep)
    sys.exit(0 if print_table(rows, seconds) else 1)


if __name__ == "__main__":
    main()
