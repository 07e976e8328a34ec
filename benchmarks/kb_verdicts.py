"""Offline verdicts when the evidence comes from the knowledge base: decisive precision and coverage.

`veracity eval` judges rows against the evidence they carry; a `veracity check --search kb`
judges against what the knowledge base returns, so retrieval changes its verdicts. This script
builds the knowledge base of ``benchmarks/retrieval_recall.py``'s Climate-FEVER corpus (the long
documents made of every evidence sentence of ``climatefever_pairs.jsonl``), then checks each
claim of a held-out part of ``climatefever_claims.jsonl`` (``training/claim_split.py``) with
``veracity.check(claim, model="offline", search="kb")``. Rows whose claim the splitter cuts in
two or more are left out (the same rows for every version of the code, as the splitter is the
same). It prints, against the rows' labels: decisive precision (supported or refuted verdicts
that are right), coverage (verdicts that are decisive), the confusion matrix and balanced
accuracy. The figures depend on the code imported::

    python3 training/claim_split.py --out /tmp/veracity-split
    .venv/bin/python benchmarks/kb_verdicts.py --rows /tmp/veracity-split/climatefever_claims.test.jsonl --kb /tmp/kbv
    PYTHONPATH=/tmp/before/src .venv/bin/python benchmarks/kb_verdicts.py --rows ... --kb /tmp/kbv-before

``--kb`` is built on first use and reused after (its stored sentence vectors included).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("LANGSMITH_TRACING", "false")

import offline  # noqa: E402
import retrieval_recall  # noqa: E402 (the long-document corpus writer)

LABELS = ("supported", "refuted", "unverifiable")


def build(kb_path: Path, data_dir: Path) -> None:
    """Write the Climate-FEVER long documents beside `kb_path` and ingest them, unless done already."""
    from veracity.kb import KnowledgeBase

    kb = KnowledgeBase(kb_path)
    if kb.exists():
        return
    folder = kb_path.with_name(kb_path.name + "-docs")
    if not folder.exists():
        retrieval_recall.climatefever(data_dir, folder)  # its claims are not needed here
    kb.ingest([folder])


def main() -> int:
    """Check every single-claim row and print the figures as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=Path, required=True)
    parser.add_argument("--kb", type=Path, required=True)
    parser.add_argument("--data-dir", type=Path, default=offline.DEFAULT_DATA_DIR)
    parser.add_argument("--limit", type=int, default=None, help="only the first N rows")
    args = parser.parse_args()
    import veracity

    build(args.kb, args.data_dir)
    with open(args.rows, encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle][:args.limit]
    confusion: Counter[tuple[str, str]] = Counter()
    left_out = 0
    started = time.perf_counter()
    for row in rows:
        report = veracity.check(row["claim"], model="offline", search="kb", kb_path=str(args.kb))
        if len(report.verdicts) != 1:
            left_out += 1
            continue
        confusion[(row["label"], report.verdicts[0].label)] += 1
    decisive = sum(count for (_, said), count in confusion.items() if said != "unverifiable")
    right = sum(count for (gold, said), count in confusion.items() if said != "unverifiable" and said == gold)
    judged = sum(confusion.values())
    recalls = [confusion[(label, label)] / total for label in LABELS
               if (total := sum(count for (gold, _), count in confusion.items() if gold == label))]
    print(json.dumps({
        "veracity": veracity.__file__, "rows": len(rows), "judged": judged, "left_out_split": left_out,
        "decisive": decisive, "decisive_right": right,
        "decisive_precision": round(right / decisive, 3) if decisive else None,
        "coverage": round(decisive / judged, 3) if judged else None,
        "balanced_accuracy": round(sum(recalls) / len(recalls), 3) if recalls else None,
        "confusion": {f"{gold}->{said}": count for (gold, said), count in sorted(confusion.items())},
        "seconds": round(time.perf_counter() - started, 1),
    }))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
