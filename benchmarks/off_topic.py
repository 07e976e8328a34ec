"""Off-topic evidence: how often the offline judge gives a decisive verdict from evidence about something else.

Each of `--claims` FEVER dev claims (`../shared/nli/eval/fever_dev_binary.jsonl`, a seeded sample)
is judged by the shipped offline judge (`EntailmentJudge.judge`, as in a check) against the
evidence of another sampled claim (the evidence list rotated by one; pairs whose evidence
happens to be the same premise are skipped). None of that evidence is about the claim, so every
supported or refuted verdict is wrong. Printed: the share of decisive verdicts (target: at most
2 %), with the counts, and a few of the decisive ones.

This is only the first, FEVER part of the trust measurement that issue 14 asks for.

Run it (from the repository root)::

    .venv/bin/python benchmarks/off_topic.py
    .venv/bin/python benchmarks/off_topic.py --claims 1000 --seed 7
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections import Counter
from pathlib import Path

from veracity.contracts import Evidence
from veracity.offline.judge.entailment_judge import EntailmentJudge

FEVER = Path(__file__).resolve().parents[1].parent / "shared" / "nli" / "eval" / "fever_dev_binary.jsonl"


def sample(path: Path, count: int, seed: int) -> list[dict[str, str]]:
    rows = [json.loads(line) for line in path.open(encoding="utf-8")]
    return random.Random(seed).sample(rows, count)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--claims", type=int, default=1000, help="sampled claims (default 1000)")
    parser.add_argument("--seed", type=int, default=7, help="sampling seed (default 7)")
    parser.add_argument("--data", type=Path, default=FEVER, help="FEVER dev file (default: ../shared/nli/eval/...)")
    args = parser.parse_args()

    rows = sample(args.data, args.claims, args.seed)
    judge = EntailmentJudge()
    labels: Counter[str] = Counter()
    decisive: list[tuple[str, str, str]] = []
    started = time.perf_counter()
    for row, other in zip(rows, rows[1:] + rows[:1], strict=True):
        if other["premise"] == row["premise"]:
            continue
        evidence = [Evidence(id="c1-e1", claim_id="c1", text=other["premise"], backend="kb")]
        output = judge.judge(row["hypothesis"], evidence)
        labels[output["label"]] += 1
        if output["label"] != "unverifiable":
            decisive.append((output["label"], row["hypothesis"], output["quote"] or ""))
    seconds = time.perf_counter() - started
    total = sum(labels.values())
    share = len(decisive) / total if total else 0.0
    print(f"{total} claims judged against another claim's evidence in {seconds:.0f} s "
          f"(seed {args.seed}, {args.data.name})")
    verdict = "met" if share <= 0.02 else "NOT met"
    print(f"decisive verdicts: {len(decisive)} ({share:.1%}); target at most 2 %: {verdict}")
    print("labels: " + ", ".join(f"{label} {labels[label]}" for label in ("supported", "refuted", "unverifiable")))
    for label, claim, quote in decisive[:5]:
        print(f"  {label}: {claim} -- quote: {quote[:100]}")


if __name__ == "__main__":
    main()
