"""A fixed split of the shared claim benchmarks into train / calibration / test parts, grouped by claim.

Every row of ``climatefever_pairs.jsonl``, ``climatefever_claims.jsonl``,
``climatefever_claims_ambiguous.jsonl`` and ``factcheckgpt_pairs.dev.jsonl`` goes to the part
its *claim text* hashes to, so one claim never sits in two parts (Climate-FEVER's sentence-level
and claim-level files share their claims). The parts:

* ``train`` (40 %): rows the entailment model may be fine-tuned on;
* ``calibration`` (20 %): rows the judge's thresholds are chosen on;
* ``test`` (40 %): rows that only ever score the result.

The first offline judge's thresholds were chosen on the first 200 rows of
``climatefever_pairs.jsonl``; a claim of those rows that hashes to ``test`` is moved to
``calibration``, so the test part is held out from every judge compared on it.

The assignment depends only on the claim text and `SPLIT_SEED`, so it is the same on every
machine and for every script. The Climate-FEVER files may not be redistributed: write the parts
to a folder outside the repository::

    .venv/bin/python training/claim_split.py --out /tmp/veracity-split
"""

from __future__ import annotations

import argparse
import hashlib
import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

DEFAULT_DATA_DIR = Path(__file__).resolve().parents[2] / "shared" / "benchmarks"
SPLIT_SEED = "veracity-claim-split-v1"
PARTS = ("train", "calibration", "test")
BOUNDS = (0.4, 0.6)
"""Cumulative shares: hash < 0.4 is train, < 0.6 calibration, the rest test."""
BENCHMARK_FILES = (
    "climatefever_pairs.jsonl",
    "climatefever_claims.jsonl",
    "climatefever_claims_ambiguous.jsonl",
    "factcheckgpt_pairs.dev.jsonl",
)
FIRST_JUDGE_TUNING_FILE = "climatefever_pairs.jsonl"
FIRST_JUDGE_TUNING_ROWS = 200


def hashed_part(claim: str) -> str:
    """The part a claim text hashes to, before any move."""
    digest = hashlib.sha256(f"{SPLIT_SEED}\x00{claim.strip()}".encode()).digest()
    position = int.from_bytes(digest[:8], "big") / 2**64
    return PARTS[0] if position < BOUNDS[0] else PARTS[1] if position < BOUNDS[1] else PARTS[2]


def read_jsonl(path: Path) -> Iterator[dict]:
    """The rows of a JSONL file."""
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                yield json.loads(line)


def first_judge_tuning_claims(data_dir: Path) -> frozenset[str]:
    """Claims of the rows the first offline judge's thresholds were chosen on."""
    claims = set()
    for number, row in enumerate(read_jsonl(data_dir / FIRST_JUDGE_TUNING_FILE)):
        if number >= FIRST_JUDGE_TUNING_ROWS:
            break
        claims.add(row["claim"].strip())
    return frozenset(claims)


class ClaimSplit:
    """Assigns benchmark rows to train / calibration / test by their claim."""

    def __init__(self, data_dir: Path = DEFAULT_DATA_DIR) -> None:
        """`data_dir` is the shared benchmarks folder (read only)."""
        self.data_dir = data_dir
        self._kept_from_test = first_judge_tuning_claims(data_dir)

    def part(self, claim: str) -> str:
        """The part of a claim: its hashed part, except that first-judge tuning claims never land in test."""
        part = hashed_part(claim)
        if part == "test" and claim.strip() in self._kept_from_test:
            return "calibration"
        return part

    def rows(self, file_name: str, part: str) -> list[dict]:
        """The rows of one benchmark file that belong to `part`."""
        if part not in PARTS:
            raise ValueError(f"unknown part {part!r}; expected one of {PARTS}")
        return [row for row in read_jsonl(self.data_dir / file_name) if self.part(row["claim"]) == part]


def part_file_name(file_name: str, part: str) -> str:
    """``climatefever_claims.jsonl`` + ``test`` -> ``climatefever_claims.test.jsonl``."""
    return file_name.removesuffix(".jsonl") + f".{part}.jsonl"


def write_parts(split: ClaimSplit, out_dir: Path) -> list[str]:
    """Write every benchmark file's parts into `out_dir`; return one summary line per written file."""
    out_dir.mkdir(parents=True, exist_ok=True)
    lines = []
    for file_name in BENCHMARK_FILES:
        for part in PARTS:
            rows = split.rows(file_name, part)
            target = out_dir / part_file_name(file_name, part)
            with target.open("w", encoding="utf-8") as handle:
                handle.writelines(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
            counts = Counter(row["label"] for row in rows)
            described = ", ".join(f"{label} {count}" for label, count in sorted(counts.items()))
            lines.append(f"{target}: {len(rows)} rows, {len({r['claim'] for r in rows})} claims ({described})")
    return lines


def main(argv: list[str] | None = None) -> int:
    """Parse options and write the parts."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA_DIR, help="the shared benchmarks folder")
    parser.add_argument("--out", type=Path, required=True, help="folder for the part files (outside the repository)")
    args = parser.parse_args(argv)
    for line in write_parts(ClaimSplit(args.data_dir), args.out):
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
