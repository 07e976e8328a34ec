"""Write the offline judge's calibration (or test) rows as a `veracity calibrate` / `veracity eval` file.

The rows are those `fit_confidence.py` judges (`judged_rows.load_rows`: the calibration parts of
Climate-FEVER claims and pairs, Factcheck-GPT, HealthVer's calibration half and the FEVER dev
sample), each with its dataset as its ``group``, its evidence items with their titles, and FEVER's
``not_supported`` read as refuted. Run from the repository root::

    .venv/bin/python training/calibration_rows.py --out /tmp/calibration-rows.jsonl
    .venv/bin/veracity calibrate /tmp/calibration-rows.jsonl --mode offline --out /tmp/offline.json

The second command then produces the shipped calibrator and thresholds (``confidence.json``'s
``models`` and ``risk``), since `fit_confidence.py` fits them with the same code; compare them with::

    .venv/bin/python training/calibration_rows.py --compare /tmp/offline.json
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from judged_rows import CALIBRATION_SETS, TEST_SETS, load_rows  # noqa: E402


def gold_label(label: str) -> str:
    """A row's label in the judge's terms: FEVER dev's not_supported rows are its REFUTES claims (no NEI)."""
    return "refuted" if label == "not_supported" else label


def compare(path: Path) -> int:
    """Print how a calibration file's models and thresholds differ from the shipped ones; 0 when thresholds agree."""
    from veracity.offline.calibration.confidence import shipped_calibration

    shipped, made = shipped_calibration(), json.loads(path.read_text(encoding="utf-8"))
    same = all(shipped["risk"][key] == made["risk"][key] for key in ("delta", "levels", "thresholds"))
    differences = [abs(a - b) for label, model in shipped["models"].items()
                   for key in ("mean", "scale", "weights") for a, b in zip(model[key], made["models"][label][key],
                                                                             strict=True)]
    differences += [abs(model["bias"] - made["models"][label]["bias"]) for label, model in shipped["models"].items()]
    levels = len(shipped["risk"]["levels"])
    print(f"thresholds: {'identical' if same else 'DIFFERENT'} at all {levels} levels for both labels; "
          f"models: largest difference of a mean, scale, weight or bias {max(differences):.2g}")
    return 0 if same else 1


def main(argv: list[str] | None = None) -> int:
    """Write the rows."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, help="the JSONL file to write")
    parser.add_argument("--part", choices=("calibration", "test"), default="calibration")
    parser.add_argument("--compare", type=Path, metavar="FILE",
                        help="instead, compare a calibration file with the shipped one and exit")
    args = parser.parse_args(argv)
    if args.compare is not None:
        return compare(args.compare)
    if args.out is None:
        parser.error("--out is needed (or --compare FILE)")
    count = 0
    with args.out.open("w", encoding="utf-8") as out:
        for name in CALIBRATION_SETS if args.part == "calibration" else TEST_SETS:
            for number, row in enumerate(load_rows(name, args.part), 1):
                out.write(json.dumps({
                    "id": f"{name}-{number}", "claim": row.claim, "label": gold_label(row.label), "group": name,
                    "evidence": [{"text": item.text, "title": item.title} for item in row.evidence],
                }) + "\n")
                count += 1
    print(f"wrote {count} rows to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
