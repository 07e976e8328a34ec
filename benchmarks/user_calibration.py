"""Calibrating the offline judge on a user's own labelled data: what it changes on that data's held-out part.

The user's data here is the hand-written contrast set (``benchmarks/data/contrast/``: minimal pairs
over ten domains, a dev part and a test part split before any training). `veracity calibrate` runs
on the dev part (each row's domain as its group); then the test part is judged twice through
`veracity eval`'s path, with the shipped calibration and with the new file, at the default target
precision (0.90). Printed per run: the certified thresholds, decisive coverage and precision,
balanced accuracy, per-label precision/recall/F1 and the confusion matrix.

Run it (repository root)::

    .venv/bin/python benchmarks/user_calibration.py --json out.json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CONTRAST = ROOT / "benchmarks" / "data" / "contrast"
TARGET = 0.90


def judge_rows(part: str, folder: Path) -> Path:
    """The contrast set's `part` as judge rows {claim, evidence, label, group} in `folder`."""
    path = folder / f"contrast-{part}.jsonl"
    with path.open("w", encoding="utf-8") as out:
        for line in (CONTRAST / f"{part}.jsonl").read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            out.write(json.dumps({"id": row["id"], "claim": row["claim"], "evidence": row["passage"],
                                  "label": row["label"], "group": row["domain"]}) + "\n")
    return path


def figures(result: Any) -> dict[str, Any]:
    """Decisive coverage and precision, balanced accuracy, per-label scores and the matrix of one eval run."""
    outcomes = result.runs[0].outcomes
    pairs = [(o.gold[0], o.predicted[0]) for o in outcomes]
    decisive = [(g, p) for g, p in pairs if p in ("supported", "refuted")]
    classification = result.runs[0].classification
    return {
        "rows": len(pairs), "decisive": len(decisive), "coverage": len(decisive) / len(pairs),
        "decisive_precision": sum(g == p for g, p in decisive) / len(decisive) if decisive else None,
        "balanced_accuracy": classification.balanced_accuracy,
        "per_label": {label: {"precision": s.precision, "recall": s.recall, "f1": s.f1, "support": s.support}
                      for label, s in classification.per_label.items()},
        "labels": list(result.labels), "confusion_matrix": result.summed_matrix(),
        "contradictions_read_supported": sum(g == "refuted" and p == "supported" for g, p in pairs),
    }


async def main_async() -> dict[str, Any]:
    """Calibrate on dev, judge test with either calibration, return the figures."""
    from veracity.calibrate.runner import acalibrate
    from veracity.evaluation.runner import arun_eval

    folder = Path(tempfile.mkdtemp(prefix="veracity-user-calibration-"))
    dev, test = judge_rows("dev", folder), judge_rows("test", folder)
    calibrated = await acalibrate(dev, mode="offline", out=folder / "contrast.json", say=print)
    risk = calibrated.calibration.risk
    result: dict[str, Any] = {
        "command": "python benchmarks/user_calibration.py", "target": TARGET,
        "calibration": {"rows": calibrated.calibration.record["judged"],
                        "thresholds": {label: risk.threshold(label, TARGET) for label in ("supported", "refuted")}},
    }
    from veracity.offline.calibration.risk import default_risk_control

    shipped = default_risk_control()
    result["shipped_thresholds"] = {label: shipped.threshold(label, TARGET) for label in ("supported", "refuted")}
    for name, settings in (("shipped", {}), ("user", {"calibration": str(folder / "contrast.json")})):
        evaluated = await arun_eval(test, mode="offline", min_precision=TARGET, **settings)
        result[name] = figures(evaluated)
    return result


def main() -> int:
    """Run and print a table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", type=Path, default=None, help="also write every figure here")
    args = parser.parse_args()
    result = asyncio.run(main_async())
    if args.json is not None:
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    print(f"thresholds at {TARGET}: shipped {result['shipped_thresholds']}, "
          f"calibrated on dev ({result['calibration']['rows']} rows) {result['calibration']['thresholds']}")
    print("| calibration | decisive | coverage | decisive precision | balanced accuracy "
          "| contradictions read supported |")
    print("|---|---:|---:|---:|---:|---:|")
    for name in ("shipped", "user"):
        f = result[name]
        precision = "n/a" if f["decisive_precision"] is None else f"{f['decisive_precision']:.3f}"
        print(f"| {name} | {f['decisive']} of {f['rows']} | {f['coverage']:.3f} | {precision} | "
              f"{f['balanced_accuracy']:.3f} | {f['contradictions_read_supported']} |")
        print(f"  per label: {json.dumps(f['per_label'])}")
        print(f"  confusion ({', '.join(f['labels'])}): {f['confusion_matrix']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
