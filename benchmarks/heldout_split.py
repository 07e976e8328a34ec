"""Write the held-out part of the shared claim benchmarks: rows whose claim was never used for tuning.

The first offline judge's thresholds were chosen on the first 200 rows of
``climatefever_pairs.jsonl``; those rows cover 40 claims, 36 of which also appear in
``climatefever_claims.jsonl``. This script drops every row whose claim text is among the
tuning claims and writes the rest, so quality figures are measured on held-out claims only.
``factcheckgpt_pairs.dev.jsonl`` was never used for tuning and is copied through unchanged.

The Climate-FEVER files may not be redistributed, so the output goes to a folder you name,
outside the repository. Run it (from the repository root)::

    .venv/bin/python benchmarks/heldout_split.py --out /tmp/veracity-heldout
    .venv/bin/veracity eval /tmp/veracity-heldout/climatefever_claims.heldout.jsonl --mode offline --baseline
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

DEFAULT_DATA_DIR = Path(__file__).resolve().parents[2] / "shared" / "benchmarks"
TUNING_FILE = "climatefever_pairs.jsonl"
TUNING_ROWS = 200
HELD_OUT = {
    "climatefever_claims.jsonl": "climatefever_claims.heldout.jsonl",
    "factcheckgpt_pairs.dev.jsonl": "factcheckgpt_pairs.dev.heldout.jsonl",
}


def tuning_claims(data_dir: Path, rows: int = TUNING_ROWS) -> set[str]:
    """Claim texts of the rows the offline judge's thresholds were chosen on."""
    claims: set[str] = set()
    with (data_dir / TUNING_FILE).open(encoding="utf-8") as handle:
        for number, line in enumerate(handle):
            if number >= rows:
                break
            claims.add(json.loads(line)["claim"])
    return claims


def write_held_out(source: Path, target: Path, excluded: set[str]) -> tuple[int, int]:
    """Copy the rows of `source` whose claim is not in `excluded`; return (kept, dropped)."""
    kept = dropped = 0
    with source.open(encoding="utf-8") as rows, target.open("w", encoding="utf-8") as out:
        for line in rows:
            if not line.strip():
                continue
            if json.loads(line)["claim"] in excluded:
                dropped += 1
            else:
                out.write(line if line.endswith("\n") else line + "\n")
                kept += 1
    return kept, dropped


def main(argv: list[str] | None = None) -> int:
    """Parse options and write the held-out files."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA_DIR, help="the shared benchmarks folder")
    parser.add_argument("--out", type=Path, required=True, help="folder to write the held-out files to")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    excluded = tuning_claims(args.data_dir)
    for name, held_out in HELD_OUT.items():
        kept, dropped = write_held_out(args.data_dir / name, args.out / held_out, excluded)
        print(f"{args.out / held_out}: {kept} rows kept, {dropped} dropped (claims used for tuning)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
