"""The calculator alone on real-world labelled claims: how often it decides, and how often rightly.

`benchmarks/trust.py` part 4 measures the calculator on hand-written computed claims. This
script runs ``veracity.calculator.calculate(claim, [its evidence])`` on every row of labelled
claim/evidence files (no model, no search) and counts the decisive answers (supported or
refuted) that match the row's label. In the binary FEVER file "not_supported" (refuted or not
enough information) counts a refuted answer right. One line per decisive answer follows with
``--list``. The figures depend on the code imported::

    .venv/bin/python benchmarks/calculator_real.py ../shared/benchmarks/climatefever_claims.jsonl \\
        ../shared/benchmarks/factcheckgpt_pairs.dev.jsonl ../shared/nli/eval/healthver.jsonl \\
        ../shared/nli/eval/fever_dev_binary.jsonl
    PYTHONPATH=/tmp/before/src .venv/bin/python benchmarks/calculator_real.py ...

Rows carry their claim as ``claim`` or ``hypothesis`` and their evidence as ``evidence`` or
``premise``. "Today" is fixed (``--today``) so ages come out the same on any day.
"""

from __future__ import annotations

import argparse
import datetime
import json
from collections import Counter
from pathlib import Path


def right(gold: str, said: str) -> bool:
    """Whether a decisive answer matches the row's label."""
    return said == gold or (gold == "not_supported" and said == "refuted")


def main() -> int:
    """Count the calculator's decisive answers per file; print JSON."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--today", type=datetime.date.fromisoformat, default=datetime.date(2026, 11, 27))
    parser.add_argument("--list", action="store_true", help="print each decisive answer")
    args = parser.parse_args()
    import veracity
    from veracity.calculator import calculate
    from veracity.contracts import Evidence

    print(json.dumps({"veracity": veracity.__file__, "today": str(args.today)}))
    for path in args.files:
        counts: Counter[str] = Counter()
        with open(path, encoding="utf-8") as handle:
            for line in handle:
                row = json.loads(line)
                claim, text = row.get("claim") or row.get("hypothesis"), row.get("evidence") or row.get("premise")
                if not claim or not text:
                    continue
                counts["rows"] += 1
                evidence = Evidence(id="c1-e1", claim_id="c1", title=row.get("title") or "", text=text, backend="kb")
                try:
                    answer = calculate(claim, [evidence], args.today)
                except Exception:  # counted, never hidden
                    counts["crashes"] += 1
                    continue
                if answer is None or answer.label == "unverifiable":
                    continue
                ok = right(row["label"], answer.label)
                counts["decisive"] += 1
                counts["right"] += ok
                if args.list:
                    print(f"  {'right' if ok else 'WRONG'} {row.get('id')}: {row['label']} -> {answer.label}: "
                          f"{answer.text[:120]}")
        print(json.dumps({"file": path.name, **counts}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
