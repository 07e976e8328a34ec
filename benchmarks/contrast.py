"""The hand-written contrast set, checked end to end: does the offline judge read one changed word?

Each row of ``data/contrast/{dev,test}.jsonl`` (a passage, a claim, a label; see that folder's
README) is checked the two ways a user would:

* **source**: ``veracity.check(claim, source_text=passage)``, the answer held to its source;
* **kb**: every passage of the part ingested as one document of a new knowledge base, then
  ``veracity.check(claim, search="kb")``.

A row's verdict is the check's: refuted when any of its claims is refuted, supported when all are
supported, otherwise unverifiable (the splitter may cut a row into two claims). The verdict said
(after risk control, at the default target precision) and the judge's first reading (the lean of a
held-back verdict) are both kept. Printed per mode: contradictions judged supported and refuted,
faithful twins supported, decisive precision and coverage, balanced accuracy, per-label
precision/recall/F1 and the confusion matrix.

Before and after in one run: ``--before-src`` names another checkout's ``src`` (a ``git worktree``
of the commit before), whose judge runs in a child process with that source first on the path::

    git worktree add /tmp/veracity-before 9c97e31
    .venv/bin/python benchmarks/contrast.py --part test --before-src /tmp/veracity-before/src
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "benchmarks" / "data" / "contrast"
LABELS = ("supported", "refuted", "unverifiable")
MODES = ("source", "kb")


def row_label(labels: list[str]) -> str:
    """One verdict for a row whose text the splitter may have cut into several claims."""
    if not labels:
        return "unverifiable"
    if "refuted" in labels:
        return "refuted"
    return "supported" if all(label == "supported" for label in labels) else "unverifiable"


def judge_rows(rows: list[dict], modes: tuple[str, ...], out: Path) -> None:
    """Check every row in each mode with the importable `veracity`; write one JSON line per row and mode."""
    import veracity
    from veracity.kb import KnowledgeBase

    with tempfile.TemporaryDirectory() as folder, out.open("w", encoding="utf-8") as handle:
        kb_path = Path(folder) / "kb"
        if "kb" in modes:
            documents = Path(folder) / "documents"
            documents.mkdir()
            for row in rows:
                passage_id = row["id"].rsplit("-", 2)[0]
                (documents / f"{passage_id}.md").write_text(row["passage"] + "\n", encoding="utf-8")
            KnowledgeBase(kb_path).ingest([documents], replace=True)
        for row in rows:
            for mode in modes:
                settings = ({"source_text": row["passage"]} if mode == "source"
                            else {"search": "kb", "kb_path": str(kb_path)})
                report = veracity.check(row["claim"], model="offline", cache=False, **settings)
                said = [v.label for v in report.verdicts]
                read = [v.leaning or v.label for v in report.verdicts]
                handle.write(json.dumps({
                    "id": row["id"], "mode": mode, "said": row_label(said), "read": row_label(read),
                    "claims": len(report.claims), "reasons": [v.reason for v in report.verdicts],
                }) + "\n")


def run_child(rows_path: Path, modes: tuple[str, ...], out: Path, src: Path | None) -> None:
    """`judge_rows` in a child process, with `src` (another checkout's) first on the path."""
    environment = dict(os.environ)
    if src is not None:
        environment["PYTHONPATH"] = str(src)
    subprocess.run([sys.executable, __file__, "--child", str(rows_path), str(out), *modes], check=True,
                   env=environment)


def scores(gold: list[str], predicted: list[str], kinds: list[str]) -> dict:
    """Every figure the issue asks for, for one mode and one reading."""
    contradictions = [p for g, p, k in zip(gold, predicted, kinds, strict=True) if g == "refuted"]
    faithful = [p for g, p in zip(gold, predicted, strict=True) if g == "supported"]
    additions = [p for g, p in zip(gold, predicted, strict=True) if g == "unverifiable"]
    decisive = [(g, p) for g, p in zip(gold, predicted, strict=True) if p != "unverifiable"]
    per_label = {}
    for label in LABELS:
        tp = sum(1 for g, p in zip(gold, predicted, strict=True) if g == p == label)
        said = sum(1 for p in predicted if p == label)
        real = sum(1 for g in gold if g == label)
        precision, recall = (tp / said if said else 0.0), (tp / real if real else 0.0)
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        per_label[label] = {"precision": precision, "recall": recall, "f1": f1, "n": real}
    return {
        "rows": len(gold),
        "contradictions_supported": contradictions.count("supported") / len(contradictions),
        "contradictions_refuted": contradictions.count("refuted") / len(contradictions),
        "faithful_supported": faithful.count("supported") / len(faithful),
        "additions_unverifiable": additions.count("unverifiable") / len(additions) if additions else None,
        "decisive_precision": sum(g == p for g, p in decisive) / len(decisive) if decisive else None,
        "coverage": len(decisive) / len(gold),
        "balanced_accuracy": sum(per_label[label]["recall"] for label in LABELS) / len(LABELS),
        "per_label": per_label,
        "confusion": {g: dict(Counter(p for gg, p in zip(gold, predicted, strict=True) if gg == g)) for g in LABELS},
    }


def evaluate(rows: list[dict], results: list[dict], mode: str, reading: str) -> dict:
    """`scores` of one mode's rows, for the verdict said ("said") or the first reading ("read")."""
    by_id = {r["id"]: r for r in results if r["mode"] == mode}
    gold = [row["label"] for row in rows]
    predicted = [by_id[row["id"]][reading] for row in rows]
    return scores(gold, predicted, [row["kind"] for row in rows])


def kinds_missed(rows: list[dict], results: list[dict], mode: str) -> dict[str, str]:
    """Per kind of change: contradictions said supported / refuted / of all, in this mode."""
    by_id = {r["id"]: r for r in results if r["mode"] == mode}
    out = {}
    for kind in sorted({row["kind"] for row in rows if row["label"] == "refuted"}):
        said = [by_id[row["id"]]["said"] for row in rows if row["label"] == "refuted" and row["kind"] == kind]
        out[kind] = f"{said.count('supported')}/{said.count('refuted')}/{len(said)}"
    return out


def show(name: str, figures: dict) -> None:
    """Print one block of figures."""
    def pct(value: float | None) -> str:
        return "n/a" if value is None else f"{value:.1%}"

    print(f"  {name}: contradictions supported {pct(figures['contradictions_supported'])}, "
          f"refuted {pct(figures['contradictions_refuted'])}; faithful supported {pct(figures['faithful_supported'])}; "
          f"additions unverifiable {pct(figures['additions_unverifiable'])}; decisive precision "
          f"{pct(figures['decisive_precision'])} at coverage {pct(figures['coverage'])}; balanced accuracy "
          f"{figures['balanced_accuracy']:.3f}")
    labels = "  ".join(f"{label} P {v['precision']:.2f} R {v['recall']:.2f} F1 {v['f1']:.2f}"
                       for label, v in figures["per_label"].items())
    print(f"    {labels}")
    confusion = "; ".join(f"{gold}: " + ", ".join(f"{p} {n}" for p, n in sorted(row.items()))
                          for gold, row in figures["confusion"].items())
    print(f"    confusion (gold: predicted) {confusion}")


def main(argv: list[str] | None = None) -> int:
    """Check a part of the contrast set with this checkout's judge (and another's) and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--part", choices=("dev", "test"), default="dev")
    parser.add_argument("--modes", nargs="+", choices=MODES, default=list(MODES))
    parser.add_argument("--before-src", type=Path, default=None, help="another checkout's src, judged first")
    parser.add_argument("--after-src", type=Path, default=ROOT / "src", help="the src judged after (default: this one)")
    parser.add_argument("--json", type=Path, default=None, help="also write every figure and row result here")
    args = parser.parse_args(argv)
    rows = [json.loads(line) for line in (DATA / f"{args.part}.jsonl").read_text(encoding="utf-8").splitlines()]
    judges = ([("before", args.before_src)] if args.before_src else []) + [("after", args.after_src)]
    record: dict = {"part": args.part, "judges": {}}
    with tempfile.TemporaryDirectory() as folder:
        rows_path = Path(folder) / "rows.jsonl"
        rows_path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
        for name, src in judges:
            out = Path(folder) / f"{name}.jsonl"
            run_child(rows_path, tuple(args.modes), out, src)
            results = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
            record["judges"][name] = {"src": str(src), "results": results, "figures": {}}
            print(f"{name} ({src}), {args.part} part, {len(rows)} rows")
            for mode in args.modes:
                for reading in ("said", "read"):
                    figures = evaluate(rows, results, mode, reading)
                    record["judges"][name]["figures"][f"{mode}/{reading}"] = figures
                    show(f"{mode}, {'verdict said' if reading == 'said' else 'first reading'}", figures)
                missed = kinds_missed(rows, results, mode)
                print(f"    {mode}: contradictions by kind (supported/refuted/all): {missed}")
    if args.json is not None:
        args.json.write_text(json.dumps(record, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child_rows = [json.loads(line) for line in Path(sys.argv[2]).read_text(encoding="utf-8").splitlines()]
        judge_rows(child_rows, tuple(sys.argv[4:]), Path(sys.argv[3]))
        raise SystemExit(0)
    raise SystemExit(main())
