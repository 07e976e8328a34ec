"""Hardening, fourth round (issue 47): calibration files, trusted folders, bounded reads, links, and what users read.

What runs
---------
Every case runs the ``veracity`` command line in a fresh subprocess with a time limit, its data in
a temporary folder, behind the socket guard of ``surface_faults.py`` (nothing leaves 127.0.0.1);
all of it offline except the models line, which points a chat judge at the loopback fake.

1. **calibration edits**: ``veracity calibrate`` writes a calibration of the offline judge (on the
   contrast set's dev part). Each of 32 hand edits of that file (thresholds, levels, delta,
   models, weights, the judge, the format; see `EDITS`) is then given to ``veracity check
   --calibration`` on a text checked against a knowledge base that holds a policy (source mode
   keeps its own calibration, so it would not show an edit). Each edit is *refused* (exit 2 naming the file),
   *unchanged* (the same labels and confidences as with the untouched file) or *changed*.
   Target: 0 changed without a message, i.e. every changed report names the edited file and
   its SHA-256 under ``calibration``; no traceback, no hang.
2. **trusted folder**: a calibration found in ``$VERACITY_CALIBRATIONS`` that is world-writable,
   a symlink, owned by another user, or in a world-writable folder. Target: exit 2 with the
   reason; the clean file is used and named in the report; ``veracity serve`` logs which
   calibration it uses at start-up.
3. **writes through links**: ``calibrate --out X.json`` with ``X.md`` a symlink to a victim file,
   and with a symlink planted at the temporary names (``.X.json.tmp``, ``.X.json.part``); the same for
   ``check --out`` (``report.json``), ``eval --out`` and ``batch --out``/``--summary``. Target:
   every victim unchanged, a refused link is exit 2 with a message.
4. **unbounded reads**: ``--calibration`` on a FIFO and on ``/dev/zero``, ``calibrate /dev/zero``,
   ``eval`` and ``batch`` on a FIFO. Target: exit 2 within seconds, no traceback.
5. **gzip page**: a loopback page sends one small gzip member followed by 200 MB of other bytes,
   and a 200 MB gzip body; `fetch_page` reads each with the 5 MB cap. Target: the extra memory
   (peak RSS after minus before) stays under 30 MB.
6. **models line**: ``check --extract-model offline --judge-model openai:my-judge``, without a key
   and with one (the loopback fake). Target: without a key the first stderr line is the key error
   (exit 2); with one it names each step's model, not the default.
7. **one confidence text**: the same check as ``--json`` (what the web page shows, ``shown_label``)
   and as the CLI table. Target: every verdict reads the same in both.
8. **limits**: "not more than", "no more than", "up to", "at most", "a maximum of", "N or fewer",
   "at least" against claimed amounts, in source mode and in knowledge-base mode (`LIMITS`).
   Target: each verdict as expected.

Every line says the case, what happened and ``ok`` when it met its target, else ``MISSED``.

Run it (repository root; about eight minutes on two cores)::

    .venv/bin/python benchmarks/faults_round4.py
    .venv/bin/python benchmarks/faults_round4.py --case edits --keep

The exit status is 1 when a case is missed.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import shutil
import socket
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from surface_faults import CLI, Bench, Outcome, Run, check_all, clean, run_cases, said

ROOT = Path(__file__).resolve().parents[1]
POLICY = "The customer may return a package within 14 days of the delivery date. Refunds are paid within 5 days."
TEXT = "You can return the package within 30 days. Refunds are paid within 5 days. The shop is in Leeds."
FAST = 30.0
"""Seconds a refusal may take (the model is loaded first by some commands)."""






def digest(path: Path) -> str:
    """The SHA-256 of the file at `path`."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


# The calibration every case starts from -----------------------------------------------------------------------

def contrast_rows(folder: Path) -> Path:
    """The contrast set's dev part as judge rows, the data `calibrate` fits on."""
    path = folder / "contrast-dev.jsonl"
    rows = (json.loads(line) for line in (ROOT / "benchmarks/data/contrast/dev.jsonl").read_text().splitlines())
    path.write_text("".join(json.dumps({"id": row["id"], "claim": row["claim"], "evidence": row["passage"],
                                        "label": row["label"], "group": row["domain"]}) + "\n" for row in rows))
    return path


def base_calibration(bench: Bench) -> Path:
    """A calibration of the offline judge written by `veracity calibrate` into a private folder (made once)."""
    folder = bench.root / "calibrations"
    found = sorted(folder.glob("*.json")) if folder.exists() else []
    if found:
        return found[0]
    home = bench.root / "base"
    home.mkdir(parents=True, exist_ok=True)
    folder.mkdir(mode=0o700)
    run = bench.spawn(["env", f"VERACITY_CALIBRATIONS={folder}", sys.executable, "-c", CLI,
                       "calibrate", str(contrast_rows(home)), "--mode", "offline"],
                      bench.env(home, online=False), 900, home)
    found = sorted(folder.glob("*.json"))
    if run.rc != 0 or not found:
        raise RuntimeError(f"calibrate failed (exit {run.rc}): {run.stderr[-400:]}")
    return found[0]


def policy_file(home: Path) -> Path:
    """The policy the checks are made against."""
    home.mkdir(parents=True, exist_ok=True)
    path = home / "policy.txt"
    path.write_text(POLICY, encoding="utf-8")
    return path


def kb_home(bench: Bench, name: str) -> Path:
    """A folder whose knowledge base holds the policy: a check there uses a user calibration (source mode does not)."""
    home = bench.root / name
    notes = home / "notes"
    notes.mkdir(parents=True)
    (notes / "policy.txt").write_text(POLICY, encoding="utf-8")
    run = bench.veracity(home, "ingest", str(notes), timeout=300)
    if run.rc != 0:
        raise RuntimeError(f"ingest failed (exit {run.rc}): {run.stderr[-300:]}")
    return home


KB_CHECK = ("check", TEXT, "--search", "kb", "--json")
"""The check each calibration case makes: the text against the knowledge base holding the policy."""


def free_port() -> int:
    """A loopback port nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def verdicts(run: Run) -> list[tuple[str, float | None]] | None:
    """Each claim's label and confidence (to 4 places) in a `--json` report, or None without a report.

    Two runs of one check can differ in a confidence's sixth decimal (the model's batches are padded
    differently); that is not a change a calibration edit made.
    """
    report = run.report()
    if report is None:
        return None
    return [(verdict["label"], None if verdict.get("confidence") is None else round(verdict["confidence"], 4))
            for verdict in report.get("verdicts", [])]


def named_calibration(run: Run) -> dict[str, Any] | None:
    """The calibration a `--json` report says ruled its verdicts."""
    report = run.report()
    found = report.get("calibration") if report else None
    return found if isinstance(found, dict) else None


# 1 -----------------------------------------------------------------------------------------------------------

Edit = Callable[[dict[str, Any]], Any]


def _set_all(section: dict[str, list[Any]], value: Any) -> None:
    for label in section:
        section[label] = [value for _ in section[label]]


def _first_label(data: dict[str, Any]) -> str:
    return sorted(data["risk"]["thresholds"])[0]


def _model(data: dict[str, Any]) -> dict[str, Any]:
    return data["models"][sorted(data["models"])[0]]


EDITS: dict[str, Edit] = {
    "one threshold 0": lambda d: d["risk"]["thresholds"][_first_label(d)].__setitem__(0, 0.0),
    "every threshold 0": lambda d: _set_all(d["risk"]["thresholds"], 0.0),
    "a threshold negative": lambda d: d["risk"]["thresholds"][_first_label(d)].__setitem__(0, -0.5),
    "a threshold above 1": lambda d: d["risk"]["thresholds"][_first_label(d)].__setitem__(0, 1.5),
    "a threshold a string": lambda d: d["risk"]["thresholds"][_first_label(d)].__setitem__(0, "0.5"),
    "a threshold NaN": lambda d: d["risk"]["thresholds"][_first_label(d)].__setitem__(0, math.nan),
    "a threshold infinite": lambda d: d["risk"]["thresholds"][_first_label(d)].__setitem__(0, math.inf),
    "a threshold list short": lambda d: d["risk"]["thresholds"][_first_label(d)].pop(),
    "a threshold list long": lambda d: d["risk"]["thresholds"][_first_label(d)].append(0.5),
    "every threshold none": lambda d: _set_all(d["risk"]["thresholds"], None),
    "every level 0.9": lambda d: d["risk"].__setitem__("levels", [0.9 for _ in d["risk"]["levels"]]),
    "levels reversed": lambda d: d["risk"]["levels"].reverse(),
    "a level above 1": lambda d: d["risk"]["levels"].__setitem__(-1, 1.2),
    "a level negative": lambda d: d["risk"]["levels"].__setitem__(0, -0.1),
    "delta 0": lambda d: d["risk"].__setitem__("delta", 0),
    "delta 2": lambda d: d["risk"].__setitem__("delta", 2),
    "refuted model deleted": lambda d: d["models"].pop("refuted"),
    "supported model deleted": lambda d: d["models"].pop("supported"),
    "a weight a string": lambda d: _model(d)["weights"].__setitem__(0, "x"),
    "a weight NaN": lambda d: _model(d)["weights"].__setitem__(0, math.nan),
    "weights short": lambda d: _model(d)["weights"].pop(),
    "a scale 0": lambda d: _model(d)["scale"].__setitem__(0, 0.0),
    "bias huge": lambda d: _model(d).__setitem__("bias", 1e308),
    "bias a string": lambda d: _model(d).__setitem__("bias", "1"),
    "a feature renamed": lambda d: _model(d)["features"].__setitem__(0, "no_such_signal"),
    "judge kind chat": lambda d: d["judge"].__setitem__("kind", "chat"),
    "judge version changed": lambda d: d["judge"].__setitem__("judge_version", "0.0.0+elsewhere"),
    "format removed": lambda d: d.pop("format"),
    "version 2": lambda d: d.__setitem__("version", 2),
    "risk section removed": lambda d: d.pop("risk"),
    "an unknown section": lambda d: d.__setitem__("overrides", {"refuted": 0.0}),
    "a label added": lambda d: d["risk"]["thresholds"].__setitem__("maybe", list(d["risk"]["thresholds"][
        _first_label(d)])),
}


def edit_file(base: Path, edit: Edit, target: Path) -> Path:
    """`base` with `edit` applied, written to `target` (NaN and infinity as Python's json writes them)."""
    data = json.loads(base.read_text())
    edit(data)
    target.write_text(json.dumps(data, indent=1))
    return target


def calibration_edits(bench: Bench) -> Outcome:
    base = base_calibration(bench)
    home = kb_home(bench, "edits")

    def check(calibration: Path) -> Callable[[], Run]:
        return lambda: bench.veracity(home, *KB_CHECK, "--calibration", str(calibration), timeout=180)

    untouched = home / "untouched.json"
    shutil.copy(base, untouched)
    files = {name: edit_file(base, edit, home / f"edit-{number:02d}.json")
             for number, (name, edit) in enumerate(EDITS.items())}
    runs = check_all([check(untouched), *(check(path) for path in files.values())])
    reference, edited = runs[0], dict(zip(files, runs[1:], strict=True))
    expected = verdicts(reference)
    if expected is None:
        return Outcome("1 calibration edits", f"the untouched file gave no report (exit {reference.rc}): "
                                               f"{reference.stderr[-300:]}", False)
    counts = {"refused": 0, "unchanged": 0, "changed, named": 0, "changed without a message": 0}
    for name, run in edited.items():
        path = files[name]
        if run.rc == 2 and str(path) in said(run).replace(" ", "") or (run.rc == 2 and path.name in said(run)):
            kind = "refused"
            detail = " ".join(run.stderr.split())[:220]
        elif verdicts(run) == expected:
            kind, detail = "unchanged", ""
        else:
            shown = named_calibration(run) or {}
            kind = "changed, named" if shown.get("sha256") == digest(path) else "changed without a message"
            detail = f"{expected} -> {verdicts(run)}"
        counts[kind] += 1
        print(f"  edit {name!r}: {kind} (exit {run.rc}{', TRACEBACK' if run.tracebacks else ''}"
              f"{', HUNG' if run.hung else ''}) {detail}", flush=True)
    ok = counts["changed without a message"] == 0 and clean(reference, *edited.values())
    return Outcome("1 calibration edits", f"{len(EDITS)} edits: " + ", ".join(f"{n} {k}" for k, n in counts.items())
                   + f"; {sum(run.tracebacks for run in runs)} traceback(s), {sum(run.hung for run in runs)} hang(s)",
                   ok)


# 2 -----------------------------------------------------------------------------------------------------------

def trusted_folder(bench: Bench) -> Outcome:
    base = base_calibration(bench)
    home = kb_home(bench, "trust")
    results: list[tuple[str, Run, bool]] = []

    def folder_with(name: str, spoil: Callable[[Path, Path], None]) -> Path:
        folder = home / name / "calibration"
        folder.mkdir(parents=True)
        folder.chmod(0o700)
        target = folder / base.name
        shutil.copy(base, target)
        target.chmod(0o600)
        spoil(folder, target)
        return folder

    def as_link(folder: Path, target: Path) -> None:
        kept = folder.parent / "kept.json"
        target.rename(kept)
        target.symlink_to(kept)

    cases: dict[str, Callable[[Path, Path], None]] = {
        "clean": lambda folder, target: None,
        "world-writable file": lambda folder, target: target.chmod(0o666),
        "symlink": as_link,
        "world-writable folder": lambda folder, target: folder.chmod(0o777),
    }
    if os.getuid() == 0:
        cases["owned by another user"] = lambda folder, target: os.chown(target, 65534, 65534)
    for name, spoil in cases.items():
        folder = folder_with(name.replace(" ", "-"), spoil)
        run = bench.spawn(["env", f"VERACITY_CALIBRATIONS={folder}", sys.executable, "-c", CLI, *KB_CHECK],
                          bench.env(home, online=False), 180, home)
        if name == "clean":
            shown = named_calibration(run) or {}
            good = run.rc in (0, 1) and shown.get("sha256") == digest(folder / base.name)
        else:
            good = run.rc == 2 and "calibration" in said(run).lower()
        results.append((name, run, good and clean(run)))
    serve_folder = folder_with("serve", lambda folder, target: None)
    served = bench.spawn(["env", f"VERACITY_CALIBRATIONS={serve_folder}", sys.executable, "-c", CLI, "serve",
                          "--port", str(free_port())], bench.env(home, online=False), 25, home)
    served.hung = False  # a server runs until it is stopped: stopping it after 25 s is no hang
    logged = base.name in served.stderr or digest(base)[:12] in served.stderr
    lines = "; ".join(f"{name}: exit {run.rc}" + ("" if good else " MISSED") for name, run, good in results)
    return Outcome("2 trusted folder", f"{lines}; serve logs the calibration at start-up: {'yes' if logged else 'NO'}",
                   all(good for _, _, good in results) and logged and served.tracebacks == 0)


# 3 -----------------------------------------------------------------------------------------------------------

def writes_through_links(bench: Bench) -> Outcome:
    home = bench.root / "links"
    home.mkdir(parents=True)
    policy = policy_file(home)
    rows = contrast_rows(home)
    small = home / "small.jsonl"
    small.write_text("".join(rows.read_text().splitlines(keepends=True)[:12]))  # enough for eval, not calibrate
    victims: list[Path] = []

    def victim(name: str) -> Path:
        path = home / f"victim-{name}"
        path.write_text("precious\n")
        victims.append(path)
        return path

    results: list[str] = []
    oks: list[bool] = []
    card_out = home / "card" / "mine.json"
    card_out.parent.mkdir()
    (card_out.parent / "mine.md").symlink_to(victim("card"))
    run = bench.veracity(home, "calibrate", str(rows), "--mode", "offline", "--out", str(card_out), timeout=300)
    results.append(f"calibrate with a linked card: exit {run.rc}")
    oks.append(run.rc == 2 and "link" in said(run) and clean(run))
    planted_out = home / "planted" / "mine.json"
    planted_out.parent.mkdir()
    for name in (".mine.json.tmp", ".mine.json.part", ".mine.md.tmp", ".mine.md.part"):
        (planted_out.parent / name).symlink_to(victim(name))
    run = bench.veracity(home, "calibrate", str(rows), "--mode", "offline", "--out", str(planted_out), timeout=600)
    results.append(f"calibrate with planted temporary links: exit {run.rc}")
    oks.append(run.rc == 0 and planted_out.is_file() and clean(run))
    audit = home / "audit"
    audit.mkdir()
    (audit / "report.json").symlink_to(victim("report"))
    run = bench.veracity(home, "check", TEXT, "--source", str(policy), "--out", str(audit))
    results.append(f"check --out with a linked report.json: exit {run.rc}")
    oks.append(run.rc == 2 and "link" in said(run) and clean(run))
    linked_eval = home / "eval.md"
    linked_eval.symlink_to(victim("eval"))
    run = bench.veracity(home, "eval", str(small), "--mode", "offline", "--out", str(linked_eval), timeout=300)
    results.append(f"eval --out a link: exit {run.rc}")
    oks.append(run.rc == 2 and "link" in said(run) and clean(run))
    batch_in = home / "batch.jsonl"
    batch_in.write_text(json.dumps({"text": TEXT, "source": POLICY}) + "\n")
    for option in ("--out", "--summary"):
        link = home / f"batch{option.strip('-')}.out"
        link.symlink_to(victim(option.strip("-")))
        extra = ["--out", str(home / "batch-out.jsonl")] if option == "--summary" else []
        run = bench.veracity(home, "batch", str(batch_in), *extra, option, str(link))
        results.append(f"batch {option} a link: exit {run.rc}")
        oks.append(run.rc == 2 and "link" in said(run) and clean(run))
    untouched = all(path.read_text() == "precious\n" for path in victims)
    return Outcome("3 writes through links", "; ".join(results) + f"; {len(victims)} victim files untouched: "
                   f"{'yes' if untouched else 'NO'}", all(oks) and untouched)


# 4 -----------------------------------------------------------------------------------------------------------

def unbounded_reads(bench: Bench) -> Outcome:
    home = bench.root / "reads"
    home.mkdir(parents=True)
    policy = policy_file(home)
    fifo = home / "rows.jsonl"
    os.mkfifo(fifo)
    cases = {
        "check --calibration FIFO": ("check", TEXT, "--source", str(policy), "--calibration", str(fifo)),
        "check --calibration /dev/zero": ("check", TEXT, "--source", str(policy), "--calibration", "/dev/zero"),
        "calibrate /dev/zero": ("calibrate", "/dev/zero", "--mode", "offline"),
        "calibrate FIFO": ("calibrate", str(fifo), "--mode", "offline"),
        "eval FIFO": ("eval", str(fifo), "--mode", "offline"),
        "batch FIFO": ("batch", str(fifo), "--out", str(home / "out.jsonl")),
    }
    runs = {name: bench.veracity(home, *args, timeout=FAST) for name, args in cases.items()}
    lines = [f"{name}: exit {run.rc} in {run.seconds:.1f} s, {run.peak_rss_mb:.0f} MB"
             + (" HUNG" if run.hung else "") + (" TRACEBACK" if run.tracebacks else "") for name, run in runs.items()]
    ok = all(run.rc == 2 and "regular file" in said(run) and clean(run) for run in runs.values())
    return Outcome("4 unbounded reads", "; ".join(lines), ok)


# 5 -----------------------------------------------------------------------------------------------------------

PAGE_READER = r"""
import asyncio, gzip, resource, sys, threading, zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from veracity.pages.addresses import AddressPolicy
from veracity.pages.fetch import FetchSettings, fetch_page, page_client
import ipaddress

TRAILING = 200_000_000
member = gzip.compress(b"<p>The customer may return a package within 14 days.</p>")
squeezer = zlib.compressobj(1, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
big = b"".join([*(squeezer.compress(bytes(1_000_000)) for _ in range(200)), squeezer.flush()])
block = bytes(range(256)) * 4096

class Page(BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Encoding", "gzip")
        self.end_headers()
        try:
            if self.path == "/trailing":
                self.wfile.write(member)
                for _ in range(TRAILING // len(block)):
                    self.wfile.write(block)
            else:
                self.wfile.write(big)
        except (BrokenPipeError, ConnectionResetError):
            pass
    def log_message(self, *args):
        pass

server = ThreadingHTTPServer(("127.0.0.1", 0), Page)
threading.Thread(target=server.serve_forever, daemon=True).start()
settings = FetchSettings(timeout=60, policy=AddressPolicy((ipaddress.ip_network("127.0.0.1/32"),)))

async def read(path):
    async with page_client(settings) as client:
        page = await fetch_page(f"http://127.0.0.1:{server.server_address[1]}{path}", settings, client)
    return len(page.raw), page.truncated

before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
size, truncated = asyncio.run(read(sys.argv[1]))
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(f"{size} {truncated} {after - before:.1f}")
"""


def gzip_page(bench: Bench) -> Outcome:
    home = bench.root / "page"
    home.mkdir(parents=True)
    lines, oks = [], []
    for path in ("/trailing", "/bomb"):
        run = bench.spawn([sys.executable, "-c", PAGE_READER, path], bench.env(home, online=False), 120, home)
        try:
            size, truncated, extra = run.stdout.split()
            lines.append(f"{path}: {int(size):,} bytes kept, truncated {truncated}, +{float(extra):.0f} MB peak")
            oks.append(float(extra) < 30 and clean(run))
        except ValueError:
            lines.append(f"{path}: no result (exit {run.rc}): {run.stderr[-300:]}")
            oks.append(False)
    return Outcome("5 gzip page", "; ".join(lines), all(oks))


# 6 -----------------------------------------------------------------------------------------------------------

def models_line(bench: Bench) -> Outcome:
    home = bench.root / "models"
    policy = policy_file(home)
    args = ("check", TEXT, "--source", str(policy), "--extract-model", "offline", "--judge-model", "openai:my-judge")
    keyless = bench.veracity(home, *args)
    keyed = bench.veracity(home, *args, online=True)
    first_keyless = keyless.stderr.strip().splitlines()[0] if keyless.stderr.strip() else ""
    first_keyed = keyed.stderr.strip().splitlines()[0] if keyed.stderr.strip() else ""
    no_key_first = keyless.rc == 2 and "OPENAI_API_KEY" in first_keyless and "offline (" not in keyless.stderr
    named = "extract: offline" in first_keyed and "judge: openai:my-judge" in first_keyed \
        and "gpt-4.1-mini" not in first_keyed
    return Outcome("6 models line", f"without a key: exit {keyless.rc}, first line {first_keyless[:110]!r}; with a "
                   f"key: first line {first_keyed[:110]!r}", no_key_first and named and clean(keyless, keyed))


# 7 -----------------------------------------------------------------------------------------------------------

def label_cells(table: str) -> list[str]:
    """The first column of the CLI's verdict table, one string per row (a cell's wrapped lines joined)."""
    cells: list[str] = []
    current: list[str] = []
    for line in table.splitlines():
        if line.startswith(("├", "└")) and current:
            cells.append(" ".join(current))
            current = []
        elif line.startswith("│"):
            cell = line.split("│")[1].strip()
            if cell:
                current.append(cell)
    return cells


def rounding(bench: Bench) -> Outcome:
    home = bench.root / "rounding"
    policy = policy_file(home)
    as_json = bench.veracity(home, "check", TEXT, "--source", str(policy), "--json")
    as_table = bench.veracity(home, "check", TEXT, "--source", str(policy))
    report = as_json.report() or {}
    shown = [verdict.get("shown_label", "") for verdict in report.get("verdicts", [])]
    cells = label_cells(as_table.stdout)
    return Outcome("7 one confidence text", f"JSON (what the page shows): {shown}; CLI table: {cells}",
                   bool(shown) and cells == shown and clean(as_json, as_table))


# 8 -----------------------------------------------------------------------------------------------------------

LIMITS = [
    ("Do not take more than 8 tablets in 24 hours.", "You can take up to 10 tablets a day.", "refuted"),
    ("Do not take more than 8 tablets in 24 hours.", "You can take 6 tablets a day.", "supported"),
    ("No more than 30 guests may attend a party in the hall.", "Up to 45 guests may attend a party in the hall.",
     "refuted"),
    ("Expenses of at most £500 can be claimed each month.", "You can claim £800 of expenses each month.", "refuted"),
    ("Loans last up to 14 days.", "A loan can last 21 days.", "refuted"),
    ("Members may borrow a maximum of 6 books at once.", "Members may borrow 4 books at once.", "supported"),
    ("Shoppers may bring 5 or fewer items to the express lane.", "Shoppers may bring 9 items to the express lane.",
     "refuted"),
    ("Drivers must be at least 18 years old to rent a car.", "Drivers aged 16 can rent a car.", "refuted"),
    ("Staff can work from home up to two days a week.", "Staff can work from home three days a week.", "refuted"),
    ("You may park for up to 2 hours.", "You may park for 3 hours on Sundays.", "unverifiable"),
]


def limits(bench: Bench) -> Outcome:
    home = bench.root / "limits"
    home.mkdir(parents=True)
    results: list[tuple[str, str, str, str]] = []
    for number, (evidence, claim, label) in enumerate(LIMITS):
        source = home / f"rule-{number}.txt"
        source.write_text(evidence)
        run = bench.veracity(home, "check", claim, "--source", str(source), "--json")
        got = verdicts(run)
        results.append(("source", claim, label, got[0][0] if got else f"exit {run.rc}"))
    notes = home / "notes"
    notes.mkdir()
    for number, (evidence, _, _) in enumerate(LIMITS):
        (notes / f"rule-{number}.txt").write_text(evidence)
    ingested = bench.veracity(home, "ingest", str(notes), timeout=300)
    for _, claim, label in LIMITS:
        run = bench.veracity(home, "check", claim, "--search", "kb", "--json")
        got = verdicts(run)
        results.append(("kb", claim, label, got[0][0] if got else f"exit {run.rc}"))
    right = [row for row in results if row[2] == row[3]]
    wrong = [f"{mode} {claim!r}: {got} (expected {label})" for mode, claim, label, got in results
             if got != label]
    return Outcome("8 limits", f"{len(right)} of {len(results)} as expected (both modes)"
                   + (f"; {'; '.join(wrong)}" if wrong else ""), not wrong and ingested.rc == 0)


CASES: dict[str, Callable[[Bench], Outcome]] = {
    "edits": calibration_edits, "trust": trusted_folder, "links": writes_through_links,
    "reads": unbounded_reads, "page": gzip_page, "models": models_line, "rounding": rounding, "limits": limits,
}


def main() -> None:
    """Run the cases, print one line each, exit 1 when one is missed."""
    run_cases(CASES, __doc__.split("\n", 1)[0], "veracity-faults-round4-")


if __name__ == "__main__":
    main()
