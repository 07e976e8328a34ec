"""Framing: does "As everyone knows, <claim>" get the same verdict as the bare claim?

For `--claims` sampled FEVER dev rows (`../shared/nli/eval/fever_dev_binary.jsonl`, seeded), the
bare claim and each of ten framed versions of it ("As everyone knows, ...", "..., right?") go
through the offline claim splitter, and each extracted claim is judged by the shipped offline
judge on the row's evidence. A framed version agrees when it yields exactly one claim and that
claim gets the bare claim's label. Printed: agreement over all claim x framing pairs (target:
at least 98 %), per framing, and a few disagreements.

This is the framing part of the trust measurement that issue 14 asks for.

Run it (from the repository root)::

    .venv/bin/python benchmarks/framing.py
    .venv/bin/python benchmarks/framing.py --claims 50 --seed 7
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

from off_topic import FEVER, sample  # the same FEVER dev file and seeded sampling

from veracity.contracts import Evidence
from veracity.offline.extract import extract_claims_offline
from veracity.offline.judge.entailment_judge import EntailmentJudge

FRAMINGS = (
    "As everyone knows, {lower}",
    "It is well known that {lower}",
    "Obviously, {lower}",
    "Studies confirm that {lower}",
    "Everyone knows that {lower}",
    "Of course, {lower}",
    "Clearly, {lower}",
    "In fact, {lower}",
    "{bare_no_stop}, right?",
    "{bare_no_stop}, isn't it?",
)
"""The ten framings issue 14 names: the splitter was developed against these."""

UNSEEN_FRAMINGS = (
    "As most people are aware, {lower}",
    "It is beyond dispute that {lower}",
    "Scholars have repeatedly demonstrated that {lower}",
    "{bare_no_stop}, as any expert will tell you.",
    "Let's face it: {lower}",
    "It has long been established that {lower}",
    "Nobody can deny that {lower}",
    "{bare_no_stop}, and everyone knows it.",
    "Indisputably, {lower}",
    "{bare_no_stop}, wouldn't you say?",
)
"""Ten more, written after the splitter's framing rules and never used to change them: how the rules
carry over to phrasings nobody wrote them for."""


def framed(claim: str, framing: str) -> str:
    """`claim` inside `framing` (names keep their capital; only a leading article is lowered)."""
    first, _, rest = claim.partition(" ")
    lower = (first.lower() if first in {"The", "A", "An"} else first) + (" " + rest if rest else "")
    return framing.format(lower=lower, bare_no_stop=claim.rstrip(".!"))


def verdict(judge: EntailmentJudge, text: str, evidence: list[Evidence]) -> str | None:
    """The label of the one claim the splitter finds in `text`, or None when it finds none or several."""
    claims = extract_claims_offline(text)["claims"]
    if len(claims) != 1:
        return None
    return str(judge.judge(claims[0]["claim"], evidence)["label"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--claims", type=int, default=50, help="sampled claims (default 50)")
    parser.add_argument("--seed", type=int, default=7, help="sampling seed (default 7)")
    parser.add_argument("--data", type=Path, default=FEVER, help="FEVER dev file (default: ../shared/nli/eval/...)")
    args = parser.parse_args()

    rows = sample(args.data, args.claims, args.seed)
    judge = EntailmentJudge()
    agreed: Counter[str] = Counter()
    misses: list[str] = []
    for row in rows:
        claim = row["hypothesis"].strip()
        claim = claim if claim.endswith((".", "!")) else claim + "."
        evidence = [Evidence(id="c1-e1", claim_id="c1", text=row["premise"], backend="kb")]
        bare = verdict(judge, claim, evidence)
        for framing in FRAMINGS:
            text = framed(claim, framing)
            label = verdict(judge, text, evidence)
            if label is not None and label == bare:
                agreed[framing] += 1
            elif len(misses) < 8:
                misses.append(f"{text!r}: {label} (bare: {bare})")
    total = len(rows) * len(FRAMINGS)
    share = sum(agreed.values()) / total
    print(f"{len(rows)} claims x {len(FRAMINGS)} framings (seed {args.seed}, {args.data.name})")
    print(f"same verdict as the bare claim: {sum(agreed.values())} of {total} ({share:.1%}); "
          f"target at least 98 %: {'met' if share >= 0.98 else 'NOT met'}")
    for framing in FRAMINGS:
        print(f"  {agreed[framing]:3d}/{len(rows)}  {framing}")
    for miss in misses:
        print("  differs: " + miss)


if __name__ == "__main__":
    main()
