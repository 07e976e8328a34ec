"""Golden reports: offline checks over fixed inputs, written as canonical JSON, to show a change keeps behaviour.

Three sets, one file each in OUT (one JSON object per line, keys sorted, run-dependent fields removed):

* ``faithfulness.jsonl``: each row of ``data/faithfulness.jsonl``, its text checked against its source text;
* ``trust.jsonl``: the trust benchmark's hand-written inputs (``data/trust_off_topic.txt`` and the texts of
  ``data/trust_computed.jsonl``), checked against a fresh demo knowledge base with `today` fixed;
* ``fever.jsonl``: `--fever` seeded rows of ``../shared/nli/eval/fever_dev_binary.jsonl``, each hypothesis
  checked against its premise as the source text.

Every check runs offline (``model="offline"``) with the cache off. Removed from each report: wall times
(``trace[].seconds``) and when a page was fetched (``checked_at``); nothing else varies between runs.

Compare two trees (say, a commit's worktree against the working tree)::

    PYTHONPATH=/tmp/base/src .venv/bin/python benchmarks/golden_reports.py /tmp/golden-before
    .venv/bin/python benchmarks/golden_reports.py /tmp/golden-after
    diff -r /tmp/golden-before /tmp/golden-after
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"
FEVER = HERE.parents[1] / "shared" / "nli" / "eval" / "fever_dev_binary.jsonl"
RUN_DEPENDENT = frozenset({"seconds", "checked_at"})
"""Keys whose values differ from run to run (wall times, fetch times), removed wherever they occur."""

Case = tuple[str, str, dict[str, Any]]
"""One check: its id, its text, and its settings."""


def canonical(value: Any) -> Any:
    """`value` (a report's JSON form) without the run-dependent keys, at any depth."""
    if isinstance(value, dict):
        return {key: canonical(item) for key, item in value.items() if key not in RUN_DEPENDENT}
    if isinstance(value, list):
        return [canonical(item) for item in value]
    return value


def jsonl(path: Path) -> list[dict[str, Any]]:
    """The rows of a JSON-lines file."""
    with path.open(encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


def faithfulness_cases() -> Iterator[Case]:
    """Each faithfulness row: its text against its source."""
    for row in jsonl(DATA / "faithfulness.jsonl"):
        yield row["id"], row["text"], {"source_text": row["source"]}


def trust_cases(kb: Path, today: str) -> Iterator[Case]:
    """The trust benchmark's hand-written statements and computed cases, against the demo knowledge base."""
    settings = {"search": "kb", "kb_path": str(kb), "today": today}
    lines = (DATA / "trust_off_topic.txt").read_text(encoding="utf-8").splitlines()
    statements = [line for line in lines if line.strip() and not line.startswith("#")]
    for number, statement in enumerate(statements, 1):
        yield f"off_topic-{number}", statement, settings
    for number, case in enumerate(jsonl(DATA / "trust_computed.jsonl"), 1):
        yield f"computed-{number}", case["text"], settings


def fever_cases(count: int, seed: int) -> Iterator[Case]:
    """`count` seeded FEVER dev rows: the hypothesis against its premise as the source text."""
    rows = random.Random(seed).sample(jsonl(FEVER), count)
    for row in rows:
        yield row["id"], row["hypothesis"], {"source_text": row["premise"]}


def write_set(path: Path, cases: Iterator[Case]) -> int:
    """Check every case and write its canonical report, one line each; return how many."""
    import veracity

    count = 0
    with path.open("w", encoding="utf-8") as out:
        for case_id, text, settings in cases:
            report = veracity.check(text, model="offline", cache=False, **settings)
            line = {"id": case_id, "report": canonical(report.model_dump(mode="json"))}
            out.write(json.dumps(line, sort_keys=True, ensure_ascii=False) + "\n")
            count += 1
    return count


def demo_kb() -> Path:
    """A fresh demo knowledge base in a temporary folder."""
    from veracity.kb.seeding import ensure_demo
    from veracity.kb.store import KnowledgeBase

    path = Path(tempfile.mkdtemp(prefix="veracity-golden-")) / "kb"
    ensure_demo(KnowledgeBase(path))
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("out", type=Path, help="folder for the three files (created)")
    parser.add_argument("--fever", type=int, default=300, help="FEVER dev rows (300)")
    parser.add_argument("--seed", type=int, default=7, help="sampling seed for the FEVER rows (7)")
    parser.add_argument("--today", default="2026-11-24", help="today's date for computed claims (2026-11-24)")
    parser.add_argument("--sets", default="faithfulness,trust,fever", help="which sets to write (all three)")
    args = parser.parse_args()
    os.environ.pop("OPENAI_API_KEY", None)
    os.environ.pop("TAVILY_API_KEY", None)
    os.environ["LANGSMITH_TRACING"] = "false"
    args.out.mkdir(parents=True, exist_ok=True)
    wanted = set(args.sets.split(","))
    import veracity

    print(f"veracity from {Path(veracity.__file__).parent}", file=sys.stderr)
    sets = {
        "faithfulness": lambda: faithfulness_cases(),
        "trust": lambda: trust_cases(demo_kb(), args.today),
        "fever": lambda: fever_cases(args.fever, args.seed),
    }
    for name, cases in sets.items():
        if name not in wanted:
            continue
        started = time.perf_counter()
        count = write_set(args.out / f"{name}.jsonl", cases())
        print(f"{name}: {count} reports ({time.perf_counter() - started:.0f} s)", file=sys.stderr)


if __name__ == "__main__":
    main()
