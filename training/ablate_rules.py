"""Which of the offline judge's rules earn their place: every rule left out in turn, on held-out dev data.

The judge's first reading (`EntailmentJudge.assess`, before risk control) is measured with all its
rules, with each rule of `RULES` and each override signal left out in turn, and with none, on:

* the *calibration* parts of the shared benchmarks (``judged_rows.load_rows``: Climate-FEVER
  claims and pairs, Factcheck-GPT, HealthVer's calibration half, FEVER dev calibration rows);
* the *dev* part of the hand-written contrast set (``benchmarks/data/contrast/dev.jsonl``), each
  passage as one evidence item, the way a source text is judged.

None of these is a test part. For each variant and dataset it prints decisive precision (the share
of supported and refuted readings that are right) and coverage (the share of rows given one); a
rule earns its place where leaving it out lowers decisive precision, or coverage at no loss of
precision. Run it (repository root, runtime environment)::

    .venv/bin/python training/ablate_rules.py --limit 1000 --json training/out/ablation.json
    .venv/bin/python training/ablate_rules.py --model-folder training/out/contrast1/assets
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time
from dataclasses import replace
from pathlib import Path

from judged_rows import CALIBRATION_SETS, Row, ScoreMemory, load_rows

from veracity.contracts import Evidence
from veracity.offline.judge.entailment_judge import OVERRIDE_SIGNALS, RULES, EntailmentJudge, JudgeSettings
from veracity.offline.model.embedder import Embedder
from veracity.offline.model.entailment import EntailmentModel

ROOT = Path(__file__).resolve().parents[1]
CONTRAST_DEV = ROOT / "benchmarks" / "data" / "contrast" / "dev.jsonl"


def contrast_rows(path: Path = CONTRAST_DEV) -> list[Row]:
    """The contrast set's rows as claims with their passage as the one evidence item."""
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        item = Evidence(id="e1", claim_id="c1", text=row["passage"], backend="benchmark")
        rows.append(Row("contrast_dev", row["claim"], (item,), row["label"]))
    return rows


def variants(base: JudgeSettings) -> dict[str, JudgeSettings]:
    """All rules; each rule or override left out; none at all."""
    found = {"all rules": base}
    for rule in sorted(base.rules):
        found[f"without {rule}"] = replace(base, rules=base.rules - {rule})
    for signal in base.overrides:
        found[f"without override {signal}"] = replace(base, overrides=tuple(s for s in base.overrides if s != signal))
    found["no rule, no override"] = replace(base, rules=frozenset(), overrides=())
    return found


def right(label: str, gold: str) -> bool:
    """Whether a decisive reading is right (FEVER dev's not_supported is a refutation)."""
    return label == gold or (gold == "not_supported" and label == "refuted")


def measure(judge: EntailmentJudge, rows: list[Row]) -> dict:
    """Decisive precision and coverage of the first reading on `rows`."""
    decisive = hits = 0
    for row in rows:
        label = judge.assess(row.claim, list(row.evidence)).decision.label
        if label != "unverifiable":
            decisive += 1
            hits += right(label, row.label)
    return {"rows": len(rows), "decisive": decisive, "right": hits,
            "precision": hits / decisive if decisive else None, "coverage": decisive / len(rows)}


def main(argv: list[str] | None = None) -> int:
    """Judge every dataset under every variant and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=1000, help="rows per calibration dataset (seeded sample)")
    parser.add_argument("--model-folder", type=Path, default=None,
                        help="a folder with model.int8.onnx and config.json (default: the shipped model)")
    parser.add_argument("--only", nargs="*", default=None, help="variant names to run (default: all)")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)

    model = EntailmentModel(folder=args.model_folder, threads=2) if args.model_folder else EntailmentModel(threads=2)
    memory_path = ROOT / "training" / "out" / "ablation-memory.pkl"
    memory = ScoreMemory(model, memory_path)
    if args.model_folder is not None:  # the memory is keyed by the model file actually scored
        memory.fingerprint = hashlib.sha256((args.model_folder / model.config["model_file"]).read_bytes()).hexdigest()
        memory.scores = {}
    embedder = Embedder(threads=2, cache_size=1_000_000)
    datasets = {name: load_rows(name, "calibration", limit=args.limit) for name in CALIBRATION_SETS}
    datasets["contrast_dev"] = contrast_rows()
    base = JudgeSettings.from_config(model.config)
    results: dict[str, dict[str, dict]] = {}
    for name, settings in variants(base).items():
        if args.only and name not in args.only:
            continue
        started = time.perf_counter()
        judge = EntailmentJudge(embedder=embedder, model=memory, settings=settings, remembered=0)  # type: ignore[arg-type]
        results[name] = {dataset: measure(judge, rows) for dataset, rows in datasets.items()}
        memory.save()
        cells = "  ".join(f"{d} {_cell(r)}" for d, r in results[name].items())
        print(f"{name:32s} {cells}  [{time.perf_counter() - started:.0f} s]", flush=True)
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"rules": list(RULES), "overrides": list(OVERRIDE_SIGNALS),
                                         "limit": args.limit, "results": results}, indent=1))
    return 0


def _cell(result: dict) -> str:
    precision = "  n/a" if result["precision"] is None else f"{result['precision']:.3f}"
    return f"{precision}/{result['coverage']:.3f}"


if __name__ == "__main__":
    raise SystemExit(main())
