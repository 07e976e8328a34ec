"""Trust benchmark: does the offline default ever assert what it cannot show? Everything in one run.

Two rulers judge the same evidence side by side:

* ``trusted``: what a check does now: the calculator first (computed claims), then the shipped
  offline judge with its relevance filter (`EntailmentJudge.assess`), each through the risk rule at
  the default target precision (a verdict below its certified threshold is unverifiable);
* ``baseline``: today's judge before issue 14: the same entailment model and thresholds on all
  the evidence, with no relevance filter, no calculator, and support from any passage past the
  threshold (``support_must_dominate`` off), over `EntailmentJudge.candidates`.

Parts (targets from issue 14):

1. **Off-topic, FEVER**: each of `--fever` sampled FEVER dev claims (seeded) judged against another
   sampled claim's evidence. Every decisive verdict is wrong. Target: at most 2 % decisive.
2. **Off-topic, hand-written**: the 100 statements in ``data/trust_off_topic.txt`` (topics the demo
   knowledge base lacks), checked end to end (`veracity.check`, offline, a fresh demo knowledge
   base); the baseline judges the evidence each check retrieved. Target: at most 2 % decisive.
3. **Framing**: 10 framings x 50 claims (25 from each benchmark set's test part); a framed claim
   agrees when the splitter yields one claim and it gets the bare claim's label. Target: 98 %. The
   same for ten framings that were not used to write the splitter's rules (`UNSEEN_FRAMINGS`).
4. **Computed**: the cases in ``data/trust_computed.jsonl`` (ages, durations, lifespans,
   comparisons, unit conversions, counts, arithmetic) with their expected labels, checked end to
   end against the demo knowledge base with today fixed by `--today`. Target: 95 % right, 0 crashes.
5. **Decisive precision** on the held-out test parts of ``climatefever_claims`` and
   ``factcheckgpt_pairs.dev`` (`training/claim_split.py`): the share of supported/refuted verdicts
   that are right, with coverage (the share of rows given one), per-label P/R/F1, the confusion
   matrix and 3-way balanced accuracy, for both rulers.

Run it (repository root; about 15 minutes on two cores, or pick parts with --parts)::

    .venv/bin/python benchmarks/trust.py
    .venv/bin/python benchmarks/trust.py --fever 1000 --limit 2000 --today 2026-11-24
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import json
import random
import sys
import tempfile
import time
import traceback
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "training"))
sys.path.insert(0, str(HERE))

from claim_split import ClaimSplit  # noqa: E402
from framing import FRAMINGS, UNSEEN_FRAMINGS, framed  # noqa: E402
from off_topic import FEVER, sample  # noqa: E402

import veracity  # noqa: E402
from veracity.calculator import calculate  # noqa: E402
from veracity.contracts import LABELS, Evidence  # noqa: E402
from veracity.evaluation.metrics import classify  # noqa: E402
from veracity.kb.seeding import ensure_demo  # noqa: E402
from veracity.kb.store import KnowledgeBase  # noqa: E402
from veracity.offline.calibration.risk import DEFAULT_MIN_PRECISION  # noqa: E402
from veracity.offline.calibration.ruling import CaseRule, RiskRule  # noqa: E402
from veracity.offline.extract import extract_claims_offline  # noqa: E402
from veracity.offline.judge.entailment_judge import EntailmentDecider, EntailmentJudge  # noqa: E402

SHARED = HERE.parents[1] / "shared"
PARTS = {"climatefever_claims": "climatefever_claims.jsonl", "factcheckgpt": "factcheckgpt_pairs.dev.jsonl"}
DECISIVE = ("supported", "refuted")


class Rulers:
    """The two rulers, sharing one judge (one model load)."""

    def __init__(self, today: datetime.date) -> None:
        self.judge = EntailmentJudge()
        self.before = EntailmentDecider(dataclasses.replace(self.judge.settings, support_must_dominate=False))
        self.today = today

    def baseline(self, claim: str, evidence: list[Evidence]) -> str:
        """Today's judge before issue 14: all evidence, no relevance filter, no calculator, and any passage
        past the support threshold supports (even one read as more contradicting)."""
        if not evidence:
            return "unverifiable"
        return self.before.decide(claim, self.judge.candidates(claim, evidence)).label

    def trusted(self, claim: str, evidence: list[Evidence]) -> str:
        """What a check does now: the calculator, else the judge with its relevance filter, each through the
        risk rule at the default target precision (a verdict below its certified threshold is unverifiable)."""
        answer = calculate(claim, evidence, self.today)
        if answer is not None:
            first = answer.inputs[0] if answer.inputs else None
            computed = {"label": answer.label, "reason": answer.text, "evidence_id": first.evidence.id if first
                        else None, "quote": first.quote if first else None}
            return str(CaseRule.shipped("calculator", DEFAULT_MIN_PRECISION).rule(computed).answer["label"])
        if not evidence:
            return "unverifiable"
        judgement = self.judge.assess(claim, evidence)
        return str(RiskRule.shipped(DEFAULT_MIN_PRECISION).rule(judgement).answer["label"])


def share(count: int, total: int) -> str:
    return f"{count}/{total} = {100 * count / total:.1f} %" if total else "0/0"


def off_topic_fever(rulers: Rulers, count: int, seed: int) -> dict[str, int]:
    rows = sample(FEVER, count, seed)
    decisive = Counter[str]()
    total = 0
    for row, other in zip(rows, rows[1:] + rows[:1], strict=True):
        if other["premise"] == row["premise"]:
            continue
        total += 1
        evidence = [Evidence(id="c1-e1", claim_id="c1", text=other["premise"], backend="kb")]
        for name, rule in (("baseline", rulers.baseline), ("trusted", rulers.trusted)):
            decisive[name] += rule(row["hypothesis"], evidence) in DECISIVE
    return {"total": total, **decisive}


def demo_kb() -> Path:
    path = Path(tempfile.mkdtemp(prefix="veracity-trust-")) / "kb"
    ensure_demo(KnowledgeBase(path))
    return path


def end_to_end(rulers: Rulers, texts: list[str], kb: Path) -> list[tuple[str, str | None, str | None, str]]:
    """(text, trusted label, baseline label, note) per text; None for a crash or not one claim."""
    results = []
    for text in texts:
        try:
            report = veracity.check(text, model="offline", search="kb", kb_path=str(kb), today=rulers.today.isoformat())
        except Exception:  # counted as a crash, and shown
            results.append((text, None, None, traceback.format_exc(limit=1).strip().splitlines()[-1]))
            continue
        if len(report.claims) != 1:
            results.append((text, None, None, f"{len(report.claims)} claims extracted"))
            continue
        [claim] = report.claims
        verdict = report.verdict_for(claim.id)
        evidence = [e for e in report.evidence if e.claim_id == claim.id]
        trusted = verdict.label if verdict else None
        results.append((text, trusted, rulers.baseline(claim.text, evidence), verdict.reason if verdict else ""))
    return results


def framing(
    rulers: Rulers, split: ClaimSplit, per_set: int, seed: int, forms: tuple[str, ...] = FRAMINGS
) -> tuple[Counter[str], int, list[str]]:
    agreed: Counter[str] = Counter()
    pairs = 0
    misses: list[str] = []
    rows = []
    for part in PARTS.values():
        test = split.rows(part, "test")
        rows += random.Random(seed).sample(test, per_set)
    for row in rows:
        claim = row["claim"].strip()
        claim = claim if claim.endswith((".", "!")) else claim + "."
        evidence = [Evidence(id="c1-e1", claim_id="c1", text=row["evidence"], backend="kb")]
        bare = one_claim_label(rulers, claim, evidence)
        for form in forms:
            pairs += 1
            label = one_claim_label(rulers, framed(claim, form), evidence)
            if label is not None and label == bare:
                agreed[form] += 1
            elif len(misses) < 6:
                misses.append(f"{framed(claim, form)!r}: {label} vs bare {bare}")
    return agreed, pairs, misses


def one_claim_label(rulers: Rulers, text: str, evidence: list[Evidence]) -> str | None:
    claims = extract_claims_offline(text)["claims"]
    return rulers.trusted(claims[0]["claim"], evidence) if len(claims) == 1 else None


def precision_part(rulers: Rulers, split: ClaimSplit, part: str, limit: int, seed: int) -> dict[str, object]:
    rows = split.rows(part, "test")
    if limit < len(rows):
        rows = [rows[i] for i in sorted(random.Random(seed).sample(range(len(rows)), limit))]
    gold = [row["label"] for row in rows]
    found: dict[str, list[str]] = {"baseline": [], "trusted": []}
    for row in rows:
        evidence = [Evidence(id="c1-e1", claim_id="c1", text=row["evidence"], backend="kb")]
        found["baseline"].append(rulers.baseline(row["claim"], evidence))
        found["trusted"].append(rulers.trusted(row["claim"], evidence))
    out: dict[str, object] = {"rows": len(rows)}
    for name, predicted in found.items():
        decisive = [(g, p) for g, p in zip(gold, predicted, strict=True) if p in DECISIVE]
        right = sum(g == p for g, p in decisive)
        result = classify(gold, predicted, LABELS)
        out[name] = {
            "decisive_precision": right / len(decisive) if decisive else None, "right": right,
            "decisive": len(decisive), "coverage": len(decisive) / len(rows),
            "balanced_accuracy": result.balanced_accuracy, "result": result,
        }
    return out


def report_off_topic_fever(rulers: Rulers, args: argparse.Namespace) -> None:
    fever = off_topic_fever(rulers, args.fever, args.seed)
    print(f"## 1. Off-topic, FEVER dev ({fever['total']} claims against another claim's evidence)")
    for name in ("baseline", "trusted"):
        print(f"- {name}: decisive {share(fever[name], fever['total'])} (target ≤ 2 %)")


def report_off_topic_written(rulers: Rulers, kb: Path) -> None:
    lines = (HERE / "data" / "trust_off_topic.txt").read_text(encoding="utf-8").splitlines()
    statements = [line for line in lines if line.strip() and not line.startswith("#")]
    results = end_to_end(rulers, statements, kb)
    print(f"\n## 2. Off-topic, hand-written ({len(statements)} statements, end to end on the demo knowledge base)")
    for index, name in ((1, "trusted"), (2, "baseline")):
        decisive = [r for r in results if r[index] in DECISIVE]
        print(f"- {name}: decisive {share(len(decisive), len(results))} (target ≤ 2 %)")
        for text, *_ in decisive[:4]:
            print(f"    {text}")
    not_one = [r for r in results if r[1] is None]
    print(f"- not exactly one claim or crashed: {len(not_one)}" + "".join(f"\n    {r[0]} ({r[3]})" for r in not_one))


def report_framing(rulers: Rulers, split: ClaimSplit, args: argparse.Namespace) -> None:
    for title, forms in (("the issue's framings", FRAMINGS), ("unseen framings", UNSEEN_FRAMINGS)):
        agreed, pairs, misses = framing(rulers, split, args.framing_claims, args.seed, forms)
        print(f"\n## 3. Framing, {title} ({len(forms)} x {2 * args.framing_claims} benchmark claims, trusted)")
        print(f"- agreement with the bare claim: {share(sum(agreed.values()), pairs)} (target ≥ 98 %)")
        for form in forms:
            print(f"    {form!r}: {agreed[form]}/{2 * args.framing_claims}")
        for miss in misses:
            print(f"    {miss}")


def report_computed(rulers: Rulers, kb: Path, today: datetime.date) -> None:
    cases = [json.loads(line) for line in (HERE / "data" / "trust_computed.jsonl").open(encoding="utf-8")]
    computed = end_to_end(rulers, [case["text"] for case in cases], kb)
    right = {"trusted": 0, "baseline": 0}
    crashes = sum(r[1] is None and "claims extracted" not in r[3] for r in computed)
    wrong = []
    for case, (text, trusted, baseline, note) in zip(cases, computed, strict=True):
        right["trusted"] += trusted == case["label"]
        right["baseline"] += baseline == case["label"]
        if trusted != case["label"]:
            wrong.append(f"{text} → {trusted} (expected {case['label']}): {note[:150]}")
    print(f"\n## 4. Computed ({len(cases)} cases, end to end, today {today})")
    for name in ("trusted", "baseline"):
        print(f"- {name}: right {share(right[name], len(cases))} (target ≥ 95 %)")
    print(f"- crashes: {crashes}")
    for line in wrong:
        print(f"    {line}")


def report_precision(rulers: Rulers, split: ClaimSplit, args: argparse.Namespace) -> None:
    print(f"\n## 5. Decisive precision on the held-out test parts (up to {args.limit} rows each)")
    print("| part | ruler | decisive precision | coverage | balanced accuracy (3-way) |")
    print("|---|---|---|---|---|")
    details = []
    for name, part in PARTS.items():
        measured = precision_part(rulers, split, part, args.limit, args.seed)
        for ruler in ("baseline", "trusted"):
            m = measured[ruler]
            assert isinstance(m, dict)
            precision = "n/a" if m["decisive_precision"] is None else f"{m['decisive_precision']:.3f}"
            print(f"| {name} ({measured['rows']}) | {ruler} | {precision} ({m['right']}/{m['decisive']}) | "
                  f"{m['coverage']:.3f} | {m['balanced_accuracy']:.3f} |")
            details.append((f"{name}, {ruler}", m["result"]))
    for title, result in details:
        print(f"\n### {title}\n")
        print(result.to_markdown())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--fever", type=int, default=1000, help="FEVER dev claims for the off-topic part (1000)")
    parser.add_argument("--limit", type=int, default=2000, help="rows per test part for decisive precision (2000)")
    parser.add_argument("--framing-claims", type=int, default=25, help="claims per benchmark set for framing (25)")
    parser.add_argument("--seed", type=int, default=7, help="sampling seed (7)")
    parser.add_argument("--today", type=datetime.date.fromisoformat, default=datetime.date(2026, 11, 24),
                        help="today's date for computed claims (2026-11-24, so figures reproduce)")
    parser.add_argument("--parts", default="1,2,3,4,5", help="which parts to run, e.g. 3,4 (default: all)")
    args = parser.parse_args()
    parts = {int(part) for part in args.parts.split(",")}
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[attr-defined]
    started = time.perf_counter()
    rulers = Rulers(args.today)
    split = ClaimSplit(SHARED / "benchmarks")
    kb = demo_kb() if parts & {2, 4} else Path()
    if 1 in parts:
        report_off_topic_fever(rulers, args)
    if 2 in parts:
        report_off_topic_written(rulers, kb)
    if 3 in parts:
        report_framing(rulers, split, args)
    if 4 in parts:
        report_computed(rulers, kb, args.today)
    if 5 in parts:
        report_precision(rulers, split, args)
    print(f"\n({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
