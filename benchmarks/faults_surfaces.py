"""Quiet gaps and what a user sees (issue 37, items 7 and 8): each case run as a user meets it, one line per case.

What runs
---------
Each case runs the ``veracity`` command line (or ``veracity serve``) in a fresh subprocess with
a time limit, its knowledge base, cache, keys and data in a temporary folder, behind the socket
guard of ``surface_faults.py`` (nothing leaves 127.0.0.1). The web search and chat model of the
cache case are the loopback fakes of ``surface_faults.py``; every other case runs offline.

1. **batch rerun over errored rows**: ``veracity batch`` on a checkable row, a row with no text
   and a line that is not JSON, then the same command again. Target: the rerun exits 3 and
   names both rows that have no report.
2. **checkpoint with a dropped table**: a finished ``check --checkpoint`` file loses its
   ``checkpoints`` (then its ``writes``) table; the same check runs again. Target: exit 2, an
   error naming the file, nothing re-run silently.
3. **invented closest quote**: an unsigned report (``check --out``, signature removed) whose
   held-back verdict's quote is replaced by one the evidence does not hold. Target:
   ``veracity verify`` fails it (exit 1), and holds the genuine report (exit 0).
4. **poisoned search entry**: a web check fills the cache; the search entry is rewritten as
   plain JSON of the right shape saying something else (digest kept, and as a plain list); the
   check runs again. Target: the search runs again, the poison is in no report, the verdicts
   are unchanged.
5. **signing key mode 0666**: ``check --out`` with a private key others may read. Target:
   exit 2 before checking, with ``chmod 600 PATH`` in the message, nothing written.
6. **one pass/fail field**: ``check --json`` on a text that fails although the check is sound
   (one claim refuted against the demo notes: ``ok`` true). Target: ``passed`` is the only field
   of that name in the JSON (no ``evaluation.passed: true`` beside it).
7. **held-back verdict on the web page**: ``veracity serve`` (offline) checks a text against a
   policy; its held-back verdict must carry the closest quote, and the page must render a
   held-back verdict's quote (the rendering itself is tested in a real browser by
   ``tests/integration/test_web_page.py``).
8. **kb warm progress**: a knowledge base of a few dozen notes ingested through the CLI, then
   ``veracity kb warm`` with stderr piped. Target: progress lines (done of total, rate, time
   left or done) on stderr and a summary line with the rate on stdout.

Every line says the case, what happened, and ``ok`` when it ended in a typed failure or a
clear error (no traceback, no lost row, no silently changed verdict), else ``MISSED``.

Run it (from the repository root; about three minutes on two cores)::

    .venv/bin/python benchmarks/faults_surfaces.py
    .venv/bin/python benchmarks/faults_surfaces.py --case cache --case warm --keep

The exit status is 1 when a case is missed.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import sqlite3
import sys
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

from surface_faults import CLI, Bench, Outcome, Run, clean, run_cases, said

POLICY = "The customer may return a package within 14 days of the delivery date."
HELD_BACK = "You can return the package within 30 days."
WEB_TEXT = "Alderbrook opened its railway station in 1931."
POISON = "Alderbrook has never had a railway station of any kind."
ROOMS = "The Sydney Opera House opened in 1973. It has over 2,000 rooms."






def policy_file(home: Path) -> Path:
    home.mkdir(parents=True, exist_ok=True)
    path = home / "policy.txt"
    path.write_text(POLICY, encoding="utf-8")
    return path


# 1 -----------------------------------------------------------------------------------------------------------

def batch_rerun(bench: Bench) -> Outcome:
    home = bench.root / "batch"
    home.mkdir(parents=True)
    source, out = home / "in.jsonl", home / "out.jsonl"
    source.write_text(json.dumps({"id": "returns", "text": HELD_BACK, "source": POLICY}) + "\n"
                      + json.dumps({"id": "empty", "text": " "}) + "\n{not json\n", encoding="utf-8")
    first = bench.veracity(home, "batch", str(source), "--out", str(out))
    lines = out.read_text(encoding="utf-8") if out.exists() else ""
    again = bench.veracity(home, "batch", str(source), "--out", str(out))
    text = said(again)
    named = "line 2 (empty)" in text and "line 3 (line-3)" in text
    kept = out.exists() and out.read_text(encoding="utf-8") == lines and len(lines.splitlines()) == 3
    ok = first.rc == 3 and again.rc == 3 and named and kept and clean(first, again)
    return Outcome("7 batch rerun over errored rows",
                   f"first run exit {first.rc}, rerun exit {again.rc}; rerun names the 2 rows without a report: "
                   f"{'yes' if named else 'no'}; 3 input rows, {len(lines.splitlines())} output lines", ok)


# 2 -----------------------------------------------------------------------------------------------------------

def checkpoint_dropped(bench: Bench) -> Outcome:
    home = bench.root / "checkpoint"
    policy = policy_file(home)
    args = ("check", HELD_BACK, "--source", str(policy), "--json", "--thread", "t1")
    first = home / "first.sqlite"
    made = bench.veracity(home, *args, "--checkpoint", str(first))
    results = []
    for table in ("checkpoints", "writes"):
        store = home / f"without-{table}.sqlite"
        shutil.copy(first, store)
        with sqlite3.connect(store) as db:
            db.execute(f"DROP TABLE {table}")
        run = bench.veracity(home, *args, "--checkpoint", str(store))
        results.append((table, run, run.rc == 2 and str(store) in "".join(run.stderr.split())
                         and "delete" in run.stderr and clean(run)))
    ok = made.rc == 1 and all(good for _, _, good in results)
    return Outcome("7 checkpoint with a dropped table",
                   "; ".join(f"{table} dropped: exit {run.rc}"
                             + (f", \"{_first_error(run)}\"" if run.rc == 2 else ", re-ran silently")
                             for table, run, _ in results), ok)


def _first_error(run: Run) -> str:
    """The error's reason in brief: what the file holds, without its path."""
    text = " ".join(run.stderr.split())
    found = re.search(r"is damaged or was not written by veracity \(([^)]*)\)", text)
    return f"damaged or not written by veracity ({found.group(1)})" if found else text[:90]


# 3 -----------------------------------------------------------------------------------------------------------

def invented_quote(bench: Bench) -> Outcome:
    home = bench.root / "verify"
    policy = policy_file(home)
    written = bench.veracity(home, "check", HELD_BACK, "--source", str(policy), "--out", str(home / "out"))
    report = home / "out" / "report.json"
    (home / "out" / "report.json.sig").unlink(missing_ok=True)
    genuine = bench.veracity(home, "verify", str(report))
    data = json.loads(report.read_text(encoding="utf-8"))
    verdict = data["verdicts"][0]
    held_back = verdict["label"] == "unverifiable" and bool(verdict.get("quote"))
    verdict["quote"] = "Packages may be returned within 30 days of delivery."
    report.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    tampered = bench.veracity(home, "verify", str(report))
    caught = tampered.rc == 1 and "unverifiable, but the quote" in said(tampered)
    ok = written.rc == 1 and held_back and genuine.rc == 0 and caught and clean(written, genuine, tampered)
    return Outcome("7 unsigned report, invented closest quote",
                   f"genuine held-back report: verify exit {genuine.rc}; invented quote: verify exit {tampered.rc}"
                   + (", \"FAILS c1: unverifiable, but the quote … does not appear verbatim\"" if caught else ""), ok)


# 4 -----------------------------------------------------------------------------------------------------------

def poisoned_search(bench: Bench) -> Outcome:
    home = bench.root / "cache"
    args = ("check", WEB_TEXT, "--search", "web", "--no-page-check", "--json")
    first = bench.veracity(home, *args, online=True)
    labels = [v["label"] for v in (first.report() or {}).get("verdicts", [])]
    cache = home / "cache.sqlite"
    with sqlite3.connect(cache) as db:
        rows = db.execute("SELECT key, val FROM cache WHERE ns LIKE 'search%'").fetchall()
    entries = {key: json.loads(raw) for key, raw in rows}

    def poisoned(entry: dict[str, Any], form: str) -> Any:
        hits = [{**hit, "text": POISON} for hit in entry["value"]]
        return {"value": hits, "digest": entry["digest"]} if form == "digest kept" else hits

    findings = []
    for form in ("digest kept", "a plain list"):
        with sqlite3.connect(cache) as db:
            for key, entry in entries.items():
                db.execute("UPDATE cache SET val = ? WHERE key = ?", (json.dumps(poisoned(entry, form)).encode(), key))
        before = bench.search.requests
        again = bench.veracity(home, *args, online=True)
        report = again.report() or {}
        searched = bench.search.requests - before == len(entries)
        poisoned_report = POISON in json.dumps(report)
        same = [v["label"] for v in report.get("verdicts", [])] == labels
        findings.append((form, searched, poisoned_report, same, clean(again) and again.rc in (0, 1)))
    ok = first.rc in (0, 1) and bool(labels) and all(s and not p and same and c for _, s, p, same, c in findings)
    return Outcome("7 poisoned plain-JSON search entries",
                   f"{len(entries)} entries rewritten; "
                   + "; ".join(f"{form}: searched again {'yes' if s else 'NO'}, poison in report "
                             f"{'YES' if p else 'no'}, verdicts unchanged {'yes' if same else 'NO'}"
                             for form, s, p, same, _ in findings), ok)


# 5 -----------------------------------------------------------------------------------------------------------

def open_key(bench: Bench) -> Outcome:
    home = bench.root / "keys"
    policy = policy_file(home)
    made = bench.veracity(home, "check", HELD_BACK, "--source", str(policy), "--out", str(home / "first"))
    private = home / "keys" / "report-signing-key.pem"
    private.chmod(0o666)
    run = bench.veracity(home, "check", HELD_BACK, "--source", str(policy), "--out", str(home / "second"))
    fixes = f"chmod 600 {private}" in said(run)
    ok = made.rc == 1 and run.rc == 2 and fixes and not (home / "second").exists() and clean(made, run)
    return Outcome("7 private signing key with mode 0666",
                   f"check --out exit {run.rc}; the message gives `chmod 600 PATH`: {'yes' if fixes else 'no'}; "
                   f"files written: {'yes' if (home / 'second').exists() else 'none'}", ok)


# 6 -----------------------------------------------------------------------------------------------------------

def keys_named(data: Any, name: str, path: str = "$") -> list[str]:
    """Where in the JSON `data` a key called `name` occurs."""
    if isinstance(data, dict):
        return [found for key, value in data.items()
                for found in ([f"{path}.{key}"] if key == name else []) + keys_named(value, name, f"{path}.{key}")]
    if isinstance(data, list):
        return [found for n, item in enumerate(data) for found in keys_named(item, name, f"{path}[{n}]")]
    return []


def one_pass_field(bench: Bench) -> Outcome:
    home = bench.root / "json"
    run = bench.veracity(home, "check", ROOMS, "--search", "kb", "--json")  # the demo notes: one claim refuted
    report = run.report() or {}
    fields = keys_named(report, "passed")
    ok = run.rc == 1 and fields == ["$.passed"] and report.get("passed") is False and report.get("ok") is True \
        and clean(run)
    return Outcome("8 --json on a failing text",
                   f"exit {run.rc}; fields named passed: {', '.join(fields) or 'none'} "
                   f"(passed={report.get('passed')}, ok={report.get('ok')})", ok)


# 7 -----------------------------------------------------------------------------------------------------------

def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def page_quote(bench: Bench) -> Outcome:
    import subprocess

    home = bench.root / "serve"
    home.mkdir(parents=True)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = subprocess.Popen([sys.executable, "-c", CLI, "serve", "--port", str(port), "--workers", "1",
                               "--model", "offline"], env=bench.env(home, online=False), cwd=home,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(base + "/healthz", timeout=2):
                    break
            except OSError:
                time.sleep(0.5)
        page = urllib.request.urlopen(base + "/", timeout=10).read().decode()
        request = urllib.request.Request(base + "/factcheck/invoke", method="POST",
                                         headers={"content-type": "application/json"},
                                         data=json.dumps({"input": {"text": HELD_BACK, "source_text": POLICY,
                                                                    "model": "offline"}}).encode())
        body = json.loads(urllib.request.urlopen(request, timeout=120).read())
    finally:
        os.killpg(server.pid, 15)
        _, errors = server.communicate(timeout=30)
    report = body.get("output", body)
    verdict = (report.get("verdicts") or [{}])[0]
    held_back = verdict.get("label") == "unverifiable" and verdict.get("leaning") is not None
    carries = bool(verdict.get("quote"))
    renders = "closest: “" in page and 'className = "closest"' in page
    traceback = b"Traceback" in errors
    ok = held_back and carries and renders and not traceback
    return Outcome("8 held-back verdict on the web page",
                   f"verdict {verdict.get('label')}, leans {verdict.get('leaning')}, "
                   f"{verdict.get('confidence') or 0:.2f}; closest quote sent: {'yes' if carries else 'NO'}; "
                   f"page renders it: {'yes' if renders else 'NO'}", ok)


# 8 -----------------------------------------------------------------------------------------------------------

WARM_LINE = re.compile(r"veracity: warm: [\d,]+ of [\d,]+ sentence vectors stored \(\d+%\), .*(left|done)")


def warm_progress(bench: Bench) -> Outcome:
    home = bench.root / "warm"
    notes = home / "notes"
    notes.mkdir(parents=True)
    towns = ("Alderbrook", "Bramcote", "Corriehill", "Dunmere", "Elmstead", "Fallowfield", "Glenrock", "Hartwell")
    for n, town in enumerate(towns * 5):
        (notes / f"{town.lower()}-{n}.md").write_text(
            f"# {town} {n}\n\n{town} has {n + 2} public libraries. {town} opened its railway station in "
            f"{1900 + n}. {town} holds a market every {('Monday', 'Friday')[n % 2]}. {town} lies {n + 10} "
            f"kilometres from the coast.\n", encoding="utf-8")
    ingest = bench.veracity(home, "ingest", str(notes), "--kb", str(home / "kb"))
    run = bench.veracity(home, "kb", "warm", "--kb", str(home / "kb"))
    lines = [line for line in run.stderr.splitlines() if WARM_LINE.search(line)]
    summary = re.search(r"Stored [\d,]+ sentence vectors; .*vectors/s\)", " ".join(run.stdout.split()))
    ok = ingest.rc == 0 and run.rc == 0 and bool(lines) and "vectors/s" in lines[-1] and bool(summary) \
        and clean(ingest, run)
    return Outcome("8 kb warm progress",
                   f"exit {run.rc}; {len(lines)} progress line(s) on stderr, last: "
                   f"\"{lines[-1].removeprefix('veracity: ') if lines else 'none'}\"; summary: "
                   f"\"{summary.group(0) if summary else 'none'}\"", ok)


CASES: dict[str, Callable[[Bench], Outcome]] = {
    "batch": batch_rerun, "checkpoint": checkpoint_dropped, "verify": invented_quote, "cache": poisoned_search,
    "key": open_key, "json": one_pass_field, "page": page_quote, "warm": warm_progress,
}


def main() -> None:
    """Run the cases, print one line each, exit 1 when one is missed."""
    run_cases(CASES, __doc__.split("\n", 1)[0], "veracity-faults-surfaces-")


if __name__ == "__main__":
    main()
