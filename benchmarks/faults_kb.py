"""Knowledge-base fault benchmark: the mapped index, the sentence-vector store and streamed ingest, misused.

What runs
---------
Every case runs the way a user meets it, in a fresh subprocess (the ``veracity`` command line,
``veracity serve``, or the Python API) with ``VERACITY_KB``, ``VERACITY_CACHE`` and
``XDG_DATA_HOME`` in a temporary folder, offline. The knowledge base holds two short notes
(Australia, the Eiffel Tower) and 1,500 one-line facts, so its dense index spans many pages.

1. **Mapped index changed under a running process** (``dense.faiss`` is memory-mapped for
   searches): between two searches of one ``KnowledgeBase``, the file is truncated in place,
   has 64 bytes flipped in place, or has them flipped with its modification time put back;
   then it is put back as it was. A format-1 index's ``sentences.npy`` (also mapped) is
   truncated too. Target: each search after the change ends in ``KnowledgeBaseError`` (a
   typed error), never a signal; the search after the file is put back answers as before.
2. **The server over a truncated index**: ``veracity serve --workers 1`` answers a check,
   ``dense.faiss`` is truncated in place, and the same check is sent again. Target: HTTP 200
   with a report whose claim ends in a typed tool failure, the server still up, and a line in
   its log saying what changed.
3. **Sentence-vector store rows**: after ``veracity kb warm``, every row of
   ``sentence-vectors.sqlite`` is rewritten as NaN, as inf, permuted, zeroed or negated (the
   digest column left as it was), and four claims are checked (``veracity.check``, search kb).
   Target: no traceback, the same verdicts as over the intact store, and ``veracity kb verify``
   exits 2 naming the store.
4. **A store that is a symbolic link** (to a file outside the knowledge base that does not
   exist yet): a check runs and ``kb verify`` runs. Target: the file outside is never created,
   the check's verdicts are unchanged, verify exits 2 naming the link.
5. **Streamed ingest of blank lines**: ``KnowledgeBase.ingest`` of a file of ``" \\n"`` lines
   (21 MB by default: over the 20 MB stream threshold), streamed and read whole. Measured: CPU
   seconds of each and characters handed to the sentence splitter. Target: streamed costs no
   more than 1.5 x whole, and the file is reported skipped ("no text to index"), not lost.

Each case prints one line: the case, what happened, and OK or MISSED against its target.

Run it (from the repository root; a few minutes on two cores)::

    .venv/bin/python benchmarks/faults_kb.py
    .venv/bin/python benchmarks/faults_kb.py --case index --case store --blank-mb 4

The exit status is 1 when a case misses its target.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parent.parent
FORMAT1 = REPOSITORY / "tests" / "unit" / "kb_fixtures" / "format1"
TRACEBACK = "Traceback (most recent call last)"
STORE = "sentence-vectors.sqlite"
AUSTRALIA = ("# Australia facts\n\nCanberra is the capital of Australia. It was chosen as a compromise between Sydney "
             "and Melbourne.\n\nSydney is the largest city in Australia.")
TOWER = "The Eiffel Tower is in Paris. It was completed in 1889 and is about 330 metres tall."
CLAIMS = ["Canberra is the capital of Australia.", "Sydney is the capital of Australia.",
          "The Eiffel Tower is in Paris.", "The Eiffel Tower was completed in 1925."]

CLI = "import sys\nfrom veracity.cli import main\nsys.argv[0] = 'veracity'\nmain()\n"

SEARCH_AROUND_A_CHANGE = r"""
import json, os, sys
from veracity.kb import KnowledgeBase, KnowledgeBaseError

kb_path, name, change = sys.argv[1:4]
kb = KnowledgeBase(kb_path)


def search():
    try:
        return [hit.text for hit in kb.search("What is the capital of Australia?", limit=2)]
    except KnowledgeBaseError as exc:
        return {"error": str(exc)}


outcomes = [search()]
path = kb.manifest().files(kb.path).folder / name
original, status = path.read_bytes(), path.stat()
with open(path, "r+b") as handle:
    if change == "truncated":
        handle.truncate(4096 if len(original) > 8192 else 0)
    else:
        middle = len(original) // 2
        handle.seek(middle)
        handle.write(bytes(byte ^ 0xFF for byte in original[middle:middle + 64]))
if change == "flipped, time put back":
    os.utime(path, ns=(status.st_atime_ns, status.st_mtime_ns))
outcomes.append(search())
with open(path, "r+b") as handle:
    handle.write(original)
outcomes.append(search())
print(json.dumps(outcomes))
"""

CHECK_CLAIMS = r"""
import json, sys
import veracity
rows = []
for text in json.loads(sys.argv[2]):
    report = veracity.check(text, search="kb", kb_path=sys.argv[1], cache=False, max_revisions=0)
    rows.append([(v.label, v.leaning) for v in report.verdicts] + [f.kind for f in report.failures])
print(json.dumps(rows))
"""

INGEST_BLANK_LINES = r"""
import json, sys
import veracity.kb.chunking as chunking
from veracity.kb import KnowledgeBase
split = [0]
real_split = chunking.split_sentences
def counting_split(text):
    split[0] += len(text)
    return real_split(text)
chunking.split_sentences = counting_split
threshold = 20 * 1024 * 1024 if sys.argv[3] == "streamed" else 1 << 62
report = KnowledgeBase(sys.argv[1]).ingest([sys.argv[2]], stream_threshold=threshold)
print(json.dumps({"split": split[0], "files": [(r.status, r.reason, list(r.notes)) for r in report.results]}))
"""


@dataclass
class Run:
    """One finished subprocess: exit status, output, CPU seconds, and whether it was killed for taking too long."""

    rc: int
    stdout: str
    stderr: str
    cpu: float
    hung: bool

    @property
    def tracebacks(self) -> int:
        """Tracebacks printed on either stream."""
        return self.stdout.count(TRACEBACK) + self.stderr.count(TRACEBACK)

    def json(self) -> object:
        """The JSON on the last line of stdout, or None."""
        try:
            return json.loads(self.stdout.strip().splitlines()[-1])
        except (IndexError, ValueError):
            return None


class Bench:
    """The temporary home every run shares, and how runs are started."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.env = {name: value for name, value in os.environ.items()
                    if not name.startswith(("OPENAI_", "TAVILY_", "VERACITY_")) and not name.upper().endswith("_PROXY")}
        self.env.update(VERACITY_KB=str(root / "default-kb"), VERACITY_CACHE=str(root / "cache.sqlite"),
                        XDG_DATA_HOME=str(root / "data"), LANGSMITH_TRACING="false", PYTHONUNBUFFERED="1",
                        HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")

    def python(self, script: str, *args: str, timeout: float = 900) -> Run:
        """Run a Python snippet with `args`."""
        return self.spawn([sys.executable, "-c", script, *args], timeout)

    def veracity(self, *args: str, timeout: float = 300) -> Run:
        """Run the `veracity` command line."""
        return self.spawn([sys.executable, "-c", CLI, *args], timeout)

    def spawn(self, argv: list[str], timeout: float) -> Run:
        """Run `argv` in its own session; kill its group after `timeout` s; record its CPU time."""
        with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
            started = time.monotonic()
            process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=err, env=self.env,
                                       cwd=self.root, start_new_session=True)
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
            out.seek(0)
            err.seek(0)
            return Run(os.waitstatus_to_exitcode(status), out.read().decode(errors="replace"),
                       err.read().decode(errors="replace"), usage.ru_utime + usage.ru_stime, hung)


@dataclass
class Line:
    """One printed line: the case, what happened, and whether it met its target."""

    case: str
    happened: str
    ok: bool


def ended(run: Run) -> str:
    """How a run ended, in words."""
    if run.hung:
        return "killed after its time limit"
    if run.rc < 0:
        return f"killed by {signal.Signals(-run.rc).name}"
    return f"exit {run.rc}"


def short(error: str, limit: int = 110) -> str:
    """The part of a KnowledgeBaseError message that says what is wrong."""
    text = error.split(" is unusable: ", 1)[-1].split("; `veracity kb verify", 1)[0]
    text = re.sub(r"sha256 ([0-9a-f]{8})[0-9a-f]{56}", r"sha256 \1...", text)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def knowledge_base(bench: Bench, name: str) -> Path:
    """A new knowledge base of the two notes and 1,500 one-line facts, built by `veracity ingest`."""
    docs = bench.root / f"{name}-docs"
    docs.mkdir()
    (docs / "australia.md").write_text(AUSTRALIA, encoding="utf-8")
    (docs / "tower.txt").write_text(TOWER, encoding="utf-8")
    (docs / "stations.txt").write_text("\n\n".join(f"Station {n} lies on line {n % 7} and opened in {1900 + n % 120}."
                                                   for n in range(1500)), encoding="utf-8")
    run = bench.veracity("ingest", str(docs), "--kb", str(bench.root / name))
    if run.rc != 0:
        raise SystemExit(f"cannot build the benchmark's knowledge base: {run.stderr[-2000:]}")
    return bench.root / name


# ---------------------------------------------------------------------------------------- cases


def mapped_index(bench: Bench, kb: Path) -> list[Line]:
    """Case 1: a mapped file changed between two searches of one KnowledgeBase, then put back."""
    lines = []
    cases = [(kb, "dense.faiss", change) for change in ("truncated", "flipped", "flipped, time put back")]
    cases.append((FORMAT1, "sentences.npy", "truncated"))
    for number, (template, name, change) in enumerate(cases):
        target = bench.root / f"mapped-{number}"
        shutil.copytree(template, target)
        run = bench.python(SEARCH_AROUND_A_CHANGE, str(target), name, change)
        outcomes = run.json()
        label = f"1 mapped index: {name} {change}"
        if run.rc != 0 or not isinstance(outcomes, list):
            lines.append(Line(label, f"the searching process ended: {ended(run)}", False))
            continue
        first, changed, put_back = outcomes
        typed = isinstance(changed, dict)
        what = f"KnowledgeBaseError ({short(changed['error'])})" if typed else "served the changed file"
        lines.append(Line(label, f"next search: {what}; put back: {'same hits' if put_back == first else 'other'}",
                          typed and put_back == first and run.tracebacks == 0))
    return lines


def free_port() -> int:
    """A free TCP port on the loopback interface."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def post(port: int, text: str) -> tuple[int, dict]:
    """POST a check to the server; (status, JSON body)."""
    request = urllib.request.Request(f"http://127.0.0.1:{port}/factcheck/invoke", method="POST",
                                     data=json.dumps({"input": {"text": text}}).encode(),
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=300) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, {}


def served_index(bench: Bench, kb: Path) -> list[Line]:
    """Case 2: `veracity serve --workers 1` while its index is truncated in place."""
    target = bench.root / "served-kb"
    shutil.copytree(kb, target)
    port, log = free_port(), bench.root / "serve.log"
    command = [sys.executable, "-c", CLI, "serve", "--model", "offline", "--workers", "1", "--port",
               str(port), "--search", "kb", "--kb", str(target), "--rate-limit", "1000/minute"]
    with log.open("w") as err:
        server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=err, env=bench.env, cwd=bench.root,
                                  start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2):
                    break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    started_not = f"the server did not start: {log.read_text()[-500:]}"
                    return [Line("2 serve: dense.faiss truncated", started_not, False)]
                time.sleep(0.2)
        before = post(port, CLAIMS[0])
        with open(next(target.glob("gen-*")) / "dense.faiss", "r+b") as handle:
            handle.truncate(4096)
        try:
            status, body = post(port, CLAIMS[0])
        except OSError as error:
            status, body = 0, {"connection": str(error)}
        alive = server.poll() is None
    finally:
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait(timeout=30)
    text = log.read_text()
    failures = [f"{f['kind']} failure ({f['error']})" for f in body.get("output", {}).get("failures", [])]
    labels = [v["label"] for v in body.get("output", {}).get("verdicts", [])]
    logged = "changed on disk while in use" in text
    happened = (f"before: HTTP {before[0]}; after: HTTP {status or 'no answer'}, verdicts {labels}, "
                f"{', '.join(failures) or 'no failure'}; server {'up' if alive else 'gone'}; "
                f"log line: {'yes' if logged else 'no'}")
    return [Line("2 serve: dense.faiss truncated", happened,
                 status == 200 and failures == ["tool failure (unavailable)"] and alive and logged
                 and TRACEBACK not in text)]


def rewrite_rows(store: Path, change: Callable[[bytes], bytes]) -> int:
    """Replace every stored vector of the store by `change(vector bytes)`; the other columns are kept."""
    connection = sqlite3.connect(store)
    with connection:
        rows = connection.execute("SELECT key, vector FROM vectors").fetchall()
        connection.executemany("UPDATE vectors SET vector = ? WHERE key = ?", [(change(v), k) for k, v in rows])
    connection.close()
    return len(rows)


def half_floats(values: list[float]) -> bytes:
    """float16 bytes (little-endian) of `values`."""
    import struct

    return struct.pack(f"<{len(values)}e", *values)


def floats(blob: bytes) -> list[float]:
    """The float16 values of `blob`."""
    import struct

    return list(struct.unpack(f"<{len(blob) // 2}e", blob))


TAMPERS: dict[str, Callable[[bytes], bytes]] = {
    "NaN": lambda blob: half_floats([float("nan")] * (len(blob) // 2)),
    "inf": lambda blob: half_floats([float("inf")] * (len(blob) // 2)),
    "permuted": lambda blob: blob[2:] + blob[:2],
    "zeroed": lambda blob: bytes(len(blob)),
    "negated": lambda blob: half_floats([-value for value in floats(blob)]),
}


def store_rows(bench: Bench, kb: Path) -> list[Line]:
    """Case 3: rows of the sentence-vector store rewritten; four claims checked; `kb verify`."""
    warmed = bench.root / "warm-kb"
    shutil.copytree(kb, warmed)
    bench.veracity("kb", "warm", "--kb", str(warmed), timeout=900)
    baseline = bench.python(CHECK_CLAIMS, str(warmed), json.dumps(CLAIMS))
    expected = baseline.json()
    lines = [Line("3 store: intact (baseline)", f"verdicts {expected}", baseline.rc == 0 and not baseline.tracebacks)]
    for name, change in TAMPERS.items():
        target = bench.root / f"store-{name}"
        shutil.copytree(warmed, target)
        rows = rewrite_rows(target / STORE, change)
        checked = bench.python(CHECK_CLAIMS, str(target), json.dumps(CLAIMS))
        verify = bench.veracity("kb", "verify", str(target))
        same = checked.json() == expected
        happened = (f"{rows} rows; check {ended(checked)}, {checked.tracebacks} traceback(s), verdicts "
                    f"{'unchanged' if same else checked.json()}; kb verify {ended(verify)}"
                    f"{', names the store' if STORE in verify.stdout + verify.stderr else ''}")
        lines.append(Line(f"3 store: rows {name}", happened, checked.rc == 0 and not checked.tracebacks and same
                          and verify.rc == 2 and STORE in verify.stdout + verify.stderr and not verify.tracebacks))
    return lines


def store_link(bench: Bench, kb: Path) -> list[Line]:
    """Case 4: the store is a symbolic link to a file outside the knowledge base."""
    target, outside = bench.root / "linked-kb", bench.root / "outside" / "victim.sqlite"
    shutil.copytree(kb, target)
    outside.parent.mkdir()
    for file in target.glob(f"{STORE}*"):
        file.unlink()
    os.symlink(outside, target / STORE)
    checked = bench.python(CHECK_CLAIMS, str(target), json.dumps(CLAIMS[:1]))
    verify = bench.veracity("kb", "verify", str(target))
    said = "is a symbolic link" in checked.stderr
    happened = (f"check {ended(checked)}, verdicts {checked.json()}, warned: {'yes' if said else 'no'}; file outside "
                f"{'CREATED' if outside.exists() else 'not created'}; kb verify {ended(verify)}")
    return [Line("4 store: a symbolic link", happened,
                 checked.rc == 0 and said and not outside.exists() and verify.rc == 2 and not checked.tracebacks)]


def blank_lines(bench: Bench, megabytes: float) -> list[Line]:
    """Case 5: a file of blank lines ingested streamed and whole: CPU and characters split."""
    path = bench.root / "blank.txt"
    path.write_text(" \n" * int(megabytes * 1024 * 1024 / 2), encoding="utf-8")
    runs = {mode: bench.python(INGEST_BLANK_LINES, str(bench.root / f"blank-kb-{mode}"), str(path), mode,
                               timeout=3600) for mode in ("whole", "streamed")}
    figures = {mode: run.json() for mode, run in runs.items()}
    if not all(isinstance(value, dict) for value in figures.values()):
        return [Line("5 ingest: blank lines", "; ".join(f"{mode} {ended(run)}" for mode, run in runs.items()), False)]
    whole, streamed = runs["whole"], runs["streamed"]
    files = figures["streamed"]["files"]  # type: ignore[index]
    skipped = files and files[0][0] == "skipped" and "no text" in (files[0][1] or "")
    happened = (f"{path.stat().st_size / 1048576:.1f} MB: streamed {streamed.cpu:.1f} s CPU, "
                f"{figures['streamed']['split']:,} chars split; whole {whole.cpu:.1f} s CPU, "  # type: ignore[index]
                f"{figures['whole']['split']:,} chars split; reported: {files[0][0]} ({files[0][1]})")
    return [Line("5 ingest: blank lines", happened, bool(skipped) and streamed.cpu <= 1.5 * whole.cpu + 1.0
                 and not streamed.tracebacks)]


def main() -> None:
    """Parse arguments, run the cases, print one line each; exit 1 when a case misses its target."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--case", action="append", dest="cases", choices=("index", "serve", "store", "link", "ingest"),
                        help="run only these cases (repeatable; default: all)")
    parser.add_argument("--blank-mb", type=float, default=21.0, help="size of the file of blank lines (case 5)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = parser.parse_args()
    cases = args.cases or ["index", "serve", "store", "link", "ingest"]
    root = Path(tempfile.mkdtemp(prefix="faults-kb-"))
    started = time.monotonic()
    try:
        bench = Bench(root)
        kb = knowledge_base(bench, "kb") if set(cases) - {"ingest"} else root / "kb"
        steps: dict[str, Callable[[], list[Line]]] = {
            "index": lambda: mapped_index(bench, kb), "serve": lambda: served_index(bench, kb),
            "store": lambda: store_rows(bench, kb), "link": lambda: store_link(bench, kb),
            "ingest": lambda: blank_lines(bench, args.blank_mb),
        }
        met = True
        for case in cases:
            for line in steps[case]():
                met = met and line.ok
                print(f"{line.case:<48} {line.happened} -> {'OK' if line.ok else 'MISSED'}", flush=True)
        print(f"({time.monotonic() - started:.0f} s)")
    finally:
        if args.keep:
            print(f"kept {root}", file=sys.stderr)
        else:
            shutil.rmtree(root, ignore_errors=True)
    sys.exit(0 if met else 1)


if __name__ == "__main__":
    main()
