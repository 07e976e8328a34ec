"""What the difference reader made of each contrast row: the model's decision, the judge's, and the differences.

For iterating on the aligner and the classifier (`veracity.offline.difference`): each row of a part of the
hand-written contrast set is judged as a source-mode check judges it (the passage as the source text, its
passages as a check fetches them), and printed with

- the entailment model's own decision and the judge's final one (label and basis),
- the sentence the claim lines up with best, its entailment reading and its reach,
- its matches and every difference with the classifier's P(changing).

Rows can be filtered by gold label and by final decision, so that one kind of failure can be read at a time::

    .venv/bin/python training/difference_report.py --part dev --gold refuted --final supported/entailment
    .venv/bin/python training/difference_report.py --part dev --summary

Only the dev part should steer changes; the test part is for reporting (see the contrast set's README).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from fit_confidence import source_evidence  # noqa: E402

from veracity.offline.difference.alignment import Alignment  # noqa: E402
from veracity.offline.difference.reader import best_alignment  # noqa: E402
from veracity.offline.judge.entailment_judge import EntailmentJudge  # noqa: E402

CONTRAST = ROOT / "benchmarks" / "data" / "contrast"


def judged_rows(part: str) -> list[dict]:
    """Every row of the part with the model's decision, the judge's decision and each sentence's alignment."""
    judge = EntailmentJudge()
    decider = judge.decider
    rule = decider.differences
    if rule is None:
        raise SystemExit("the shipped judge has no 'differences' rule in its config")
    model_alone = dataclasses.replace(decider, differences=None)
    found = []
    for line in (CONTRAST / f"{part}.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        candidates = judge.candidates(row["claim"], source_evidence(row["claim"], row["passage"]))
        model = model_alone.decide(row["claim"], candidates)
        final = decider.decide(row["claim"], candidates)
        sentences = [c for c in candidates if c.sentences == 1 and c.entailment is not None]
        alignments = [rule.read(row["claim"], c) for c in sentences]
        best = best_alignment(alignments)
        reading = next((c.entailment for c, a in zip(sentences, alignments, strict=True) if a is best), None)
        found.append({"row": row, "model": model.label, "final": f"{final.label}/{final.basis}",
                      "best": best, "reading": reading})
    return found


def describe(entry: dict) -> str:
    """One row as text: the row, both decisions, the best sentence, its matches and differences."""
    row, best = entry["row"], entry["best"]
    lines = [f"== {row['label']} {row['kind']} ({row['id']}) model={entry['model']} final={entry['final']}"
             f"{' change=' + row['change'] if row['change'] else ''}",
             f"   claim:    {row['claim']}"]
    if isinstance(best, Alignment):
        p = entry["reading"]
        said = f"entails {p.supported:.2f}, contradicts {p.refuted:.2f}, " if p is not None else ""
        lines.append(f"   sentence: {best.passage}  [{said}reach {best.reach:.2f}]")
        lines.append("   matches:  " + "; ".join(f"{m.claim.text} ~ {m.passage.text} ({m.relation})"
                                                 for m in best.matches))
        for d in best.differences:
            lines.append(f"   - {d.changing or 0.0:.2f} {d.kind}: {d.describe()}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Judge the part and print the rows asked for (or a count of outcomes)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--part", choices=("dev", "test"), default="dev")
    parser.add_argument("--gold", choices=("supported", "refuted", "unverifiable"), default=None,
                        help="only rows with this hand label")
    parser.add_argument("--final", default=None,
                        help="only rows the judge decided so, as label/basis (e.g. supported/entailment)")
    parser.add_argument("--summary", action="store_true",
                        help="print how many rows of each hand label got each model and final decision")
    args = parser.parse_args(argv)
    entries = judged_rows(args.part)
    if args.summary:
        counts = Counter((e["row"]["label"], e["model"], e["final"]) for e in entries)
        print("count  gold  model  final")
        for (gold, model, final), n in sorted(counts.items()):
            print(f"{n:5d}  {gold}  {model}  {final}")
        return 0
    for entry in entries:
        if args.gold and entry["row"]["label"] != args.gold:
            continue
        if args.final and entry["final"] != args.final:
            continue
        print(describe(entry))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
