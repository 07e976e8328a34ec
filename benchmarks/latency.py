"""Latency benchmark: the engine's wall time against the critical path of a simulated check.

What is simulated
-----------------
* The chat model is `veracity.testing.ScriptedChatModel` with a fixed time to first token
  (`--ttft`, default 0.25 s) plus a per-output-token delay (`--token-delay`, default
  0.004 s/token), so one call takes ``ttft + token_delay * output_tokens`` (output tokens are
  the model's own word count of its JSON reply, `veracity.testing.count_tokens`). It reports
  token usage.
  - Extraction prompts ("Text to split into claims") get ``{"claims": [...]}`` with one
    claim per sentence of a generated paragraph; each `source` is that sentence, verbatim.
  - Judge prompts ("Claim: ..." plus "[cK-e1] ...") get a *supported* verdict citing
    ``cK-e1`` with a quote copied verbatim from that evidence. The length of the `reason`
    (hence the judge's output tokens and latency) is drawn per claim from a seeded RNG.
* The evidence backend is a small class (`SimulatedSearch`) whose latency per claim is drawn
  from the same seeded RNG (uniform `--search-min`..`--search-max`, default 0.15-0.45 s).

Each repetition draws a fresh scenario from ``(seed, N, repetition)``, so runs are
reproducible and the slowest search / slowest judge vary between claims and runs.

What is measured
----------------
* **graph**: ``veracity.acheck(text, model=..., backend=..., search_backoff=0.01)`` end to end
  (graph build included), timed with `time.perf_counter`.
* **critical path** (computed from the simulator's parameters, never measured):
  ``extraction delay + max(search delay) + max(judge delay)`` for that run. The tighter bound
  for per-claim branches, ``extraction + max(search_i + judge_i)``, is reported as well.
* **ratio** = wall / critical, **overhead** = (wall - critical) / N in ms per claim.
  Targets: ratio <= 1.15 and overhead <= 50 ms/claim (median over repetitions).
* **batched**: the same simulator, driven by `batched_check` below: extraction, all searches
  at once (`asyncio.gather`), then ONE judge call for all claims whose reply is the list of
  the per-claim verdicts (plus a `claim_id` each), so its latency is
  ``ttft + token_delay * total output tokens``. Quotes are checked with
  `veracity.citations.quote_problem`.

Every run is checked for correctness (all N claims supported with a verified citation, and
the graph's reported output tokens equal to what the simulator predicts); a run that fails
the check aborts the benchmark.

Table columns are medians over the repetitions of each size, taken column by column (the
ratio and overhead columns are medians of the per-run values). "graph CPU" is the process
CPU time spent during the `acheck` call. The exit status is 1 when a target is missed.

Run it (from the repository root)::

    .venv/bin/python benchmarks/latency.py
    .venv/bin/python benchmarks/latency.py --reps 5 --sizes 1,4,10,20 --seed 7 --json

With every delay set to zero, the wall time is the engine's own cost (ratios show n/a)::

    .venv/bin/python benchmarks/latency.py --ttft 0 --token-delay 0 --search-min 0 --search-max 0
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import re
import statistics
import sys
import time
from dataclasses import dataclass, field

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel

import veracity
from veracity.citations import quote_problem
from veracity.context import Context
from veracity.contracts import Evidence, ExtractionOutput, JudgeOutput, SearchHit
from veracity.llm.calls import ask_structured
from veracity.nodes.extract import extraction_messages
from veracity.nodes.extraction_gate import claims_from_output
from veracity.prompts.judge import JUDGE_PROMPT, format_evidence
from veracity.testing import ScriptedChatModel, count_tokens, prompt_text

TARGET_RATIO = 1.15
TARGET_OVERHEAD_MS = 50.0

# --------------------------------------------------------------------------- scenario

_NAMES = [
    "Harbour", "Granite", "Meridian", "Lakeside", "Crescent", "Northgate", "Willow", "Beacon",
    "Summit", "Riverside", "Falcon", "Orchard", "Ironbridge", "Lantern", "Copper", "Ashford",
    "Silverline", "Kingsway", "Elmstead", "Bayview", "Redcliff", "Thornbury", "Westmarch",
    "Oakhurst", "Stonegate",
]
_KINDS = ["Library", "Bridge", "Tower", "Museum", "Station", "Observatory", "Theatre", "Market Hall"]
_CITIES = ["Leeds", "Porto", "Ghent", "Tallinn", "Bergen", "Lyon", "Graz", "Turku", "Aarhus", "Bilbao"]
_DETAILS = [
    "after a public design competition",
    "following nine years of construction",
    "with funding from a municipal bond",
    "on the site of a former wool warehouse",
    "",
    "",
]
_FILLER = (
    "The cited passage states this directly and gives the same name place and year as the claim "
    "so nothing in the evidence contradicts it and no other item is needed for the ruling while "
    "the remaining items only repeat general background about the city its history and its "
    "architecture without adding anything that bears on the claim one way or the other"
).split()


@dataclass
class ClaimSpec:
    """One claim of a scenario, with the simulator's latencies for it."""

    text: str
    search_delay: float
    reason_words: int
    hits: list[SearchHit] = field(default_factory=list)


@dataclass
class Scenario:
    """A paragraph of N claims and every delay the simulator will apply to it."""

    text: str
    claims: list[ClaimSpec]
    ttft: float
    token_delay: float

    def by_text(self) -> dict[str, ClaimSpec]:
        return {claim.text: claim for claim in self.claims}

    # -- replies: pure functions of their inputs, shared by the responder and the predictions

    def extraction_reply(self) -> dict:
        return {"claims": [{"claim": c.text, "source": c.text} for c in self.claims]}

    def judge_reply(self, claim_text: str, evidence_id: str, evidence_text: str) -> dict:
        spec = self.by_text().get(claim_text)
        words = spec.reason_words if spec else 10
        reason = " ".join((_FILLER * 4)[:words]) + "."
        return {"label": "supported", "reason": reason, "evidence_id": evidence_id, "quote": _quote(evidence_text)}

    def call_delay(self, reply: dict) -> float:
        """What ScriptedChatModel sleeps for this reply: ttft + token_delay * output tokens."""
        return self.ttft + self.token_delay * count_tokens(json.dumps(reply))

    # -- predictions (computed from the simulator's parameters, not measured)

    def predicted_judge_replies(self) -> list[dict]:
        return [
            self.judge_reply(c.text, f"c{k}-e1", c.hits[0].text) for k, c in enumerate(self.claims, start=1)
        ]

    def batched_judge_reply(self) -> dict:
        verdicts = [
            {"claim_id": f"c{k}", **reply} for k, reply in enumerate(self.predicted_judge_replies(), start=1)
        ]
        return {"verdicts": verdicts}

    def critical_path(self) -> dict:
        extraction = self.call_delay(self.extraction_reply())
        judges = [self.call_delay(r) for r in self.predicted_judge_replies()]
        searches = [c.search_delay for c in self.claims]
        return {
            "extraction_s": extraction,
            "max_search_s": max(searches),
            "max_judge_s": max(judges),
            "critical_s": extraction + max(searches) + max(judges),
            "branch_critical_s": extraction + max(s + j for s, j in zip(searches, judges, strict=True)),
            "batched_critical_s": extraction + max(searches) + self.call_delay(self.batched_judge_reply()),
            "predicted_tokens_out": count_tokens(json.dumps(self.extraction_reply()))
            + sum(count_tokens(json.dumps(r)) for r in self.predicted_judge_replies()),
        }


def _quote(evidence_text: str) -> str:
    """The verbatim passage the judge quotes: the evidence text after its lead-in, up to the first period."""
    body = evidence_text.split(": ", 1)[-1]
    return body[: body.index(".") + 1] if "." in body else body


def make_scenario(seed: int, n: int, rep: int, args: argparse.Namespace) -> Scenario:
    """Draw a reproducible scenario for (seed, n, rep)."""
    rng = random.Random(f"veracity-latency:{seed}:{n}:{rep}")
    names = rng.sample(_NAMES, k=min(n, len(_NAMES)))
    claims: list[ClaimSpec] = []
    for k in range(n):
        name = names[k % len(names)] + ("" if k < len(names) else f" {k // len(names) + 1}")
        kind, city = rng.choice(_KINDS), rng.choice(_CITIES)
        detail = rng.choice(_DETAILS)
        year = rng.randint(1850, 2015)
        text = f"The {name} {kind} in {city} opened in {year}{' ' + detail if detail else ''}."
        spec = ClaimSpec(
            text=text,
            search_delay=round(rng.uniform(args.search_min, args.search_max), 4),
            reason_words=rng.randint(args.reason_min, args.reason_max),
        )
        url = f"https://example.org/{k}"
        spec.hits = [  # e1 holds the claim verbatim; the others are background
            SearchHit(title=f"{name} {kind}", url=f"{url}/1", score=0.9,
                      text=f"City register: {text} It remains in use."),
            SearchHit(title=f"{city} history", url=f"{url}/2", score=0.5,
                      text=f"{city} grew quickly in the {year // 100}th century."),
            SearchHit(title=f"{kind}s of Europe", url=f"{url}/3", score=0.3,
                      text=f"Many a {kind.lower()} was rebuilt after {year}."),
        ]
        claims.append(spec)
    return Scenario(text=" ".join(c.text for c in claims), claims=claims, ttft=args.ttft, token_delay=args.token_delay)


# --------------------------------------------------------------------------- simulator

_CLAIM_LINE = re.compile(r"^Claim(?: (c\d+))?: (.+)$", re.MULTILINE)
_EVIDENCE = re.compile(r"^<<<evidence (c\d+)-e1 (?P<fence>\w+)>>>[^\n]*\n(.*?)\n<<<end of evidence \1-e1 (?P=fence)>>>",
                       re.MULTILINE | re.DOTALL)
"""An evidence item as the judge prompt fences it (see `veracity.prompts.judge.format_evidence`)."""
BATCH_MARKER = "Claims to judge"


def make_responder(scenario: Scenario):
    """The ScriptedChatModel responder for a scenario (extraction, per-claim judge, batched judge)."""

    def respond(messages: list[BaseMessage]) -> dict | Exception:
        prompt = prompt_text(messages)
        if "Text to split into claims" in prompt:
            return scenario.extraction_reply()
        evidence = {match.group(1): match.group(3) for match in _EVIDENCE.finditer(prompt)}
        claims = _CLAIM_LINE.findall(prompt)
        if BATCH_MARKER in prompt:
            return {"verdicts": [
                {"claim_id": cid, **scenario.judge_reply(text, f"{cid}-e1", evidence[cid])} for cid, text in claims
            ]}
        if claims and len(evidence) == 1:
            (cid, ev_text), = evidence.items()
            return scenario.judge_reply(claims[0][1], f"{cid}-e1", ev_text)
        return ValueError(f"benchmark responder: unrecognised prompt: {prompt[:200]!r}")

    return respond


class SimulatedSearch:
    """An evidence backend with a per-claim latency taken from the scenario."""

    name = "sim"

    def __init__(self, scenario: Scenario) -> None:
        self.claims = scenario.by_text()
        self.calls = 0

    async def search(self, query: str, *, limit: int) -> list[SearchHit]:
        self.calls += 1
        spec = self.claims[query]
        await asyncio.sleep(spec.search_delay)
        return spec.hits[:limit]


def make_model(scenario: Scenario) -> ScriptedChatModel:
    return ScriptedChatModel(
        responder=make_responder(scenario), first_token_delay=scenario.ttft, token_delay=scenario.token_delay
    )


# --------------------------------------------------------------------------- batched-judge variant


class BatchedVerdict(JudgeOutput):
    claim_id: str


class BatchedJudgeOutput(BaseModel):
    verdicts: list[BatchedVerdict]


BATCHED_JUDGE_PROMPT = JUDGE_PROMPT + (
    "\n\nYou are given several claims, each with its own evidence. Judge every claim separately and "
    'reply with {"verdicts": [{"claim_id": ..., "label": ..., "reason": ..., "evidence_id": ..., "quote": ...}]}.'
)


async def batched_check(text: str, model: ScriptedChatModel, backend: SimulatedSearch, context: Context) -> dict:
    """Extraction, all searches concurrently, then one judge call for all claims."""
    extraction = await ask_structured(model, extraction_messages(text, context, []), ExtractionOutput)
    claims, error = claims_from_output(ExtractionOutput.model_validate(extraction.payload), text)
    if error:
        raise RuntimeError(error)
    hits = await asyncio.gather(*(backend.search(c.text, limit=context.max_results) for c in claims))
    evidence = {
        claim.id: [
            Evidence(id=f"{claim.id}-e{i}", claim_id=claim.id, backend=backend.name, **hit.model_dump())
            for i, hit in enumerate(claim_hits, start=1)
        ]
        for claim, claim_hits in zip(claims, hits, strict=True)
    }
    blocks = [
        f"Claim {claim.id}: {claim.text}\n\nEvidence:\n\n{format_evidence(evidence[claim.id])}" for claim in claims
    ]
    messages = [SystemMessage(BATCHED_JUDGE_PROMPT), HumanMessage(f"{BATCH_MARKER}:\n\n" + "\n\n---\n\n".join(blocks))]
    judged = await ask_structured(model, messages, BatchedJudgeOutput)
    output = BatchedJudgeOutput.model_validate(judged.payload)
    verified = 0
    for verdict in output.verdicts:
        cited = {e.id: e for e in evidence.get(verdict.claim_id, [])}.get(verdict.evidence_id or "")
        if verdict.label == "supported" and cited is not None and quote_problem(verdict.quote, cited.text) is None:
            verified += 1
    return {
        "claims": len(claims),
        "verified": verified,
        "tokens_in": extraction.tokens_in + judged.tokens_in,
        "tokens_out": extraction.tokens_out + judged.tokens_out,
        "llm_calls": 2,
    }


# --------------------------------------------------------------------------- runs


async def run_graph(scenario: Scenario) -> dict:
    n = len(scenario.claims)
    model, backend = make_model(scenario), SimulatedSearch(scenario)
    start, cpu = time.perf_counter(), time.process_time()
    report = await veracity.acheck(scenario.text, model=model, backend=backend, search_backoff=0.01)
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    problems = []
    if not report.ok or report.summary.claims != n or report.summary.supported != n:
        problems.append(f"report not ok: {report.summary} {report.evaluation.issues[:3]}")
    if not all(v.citation_verified for v in report.verdicts):
        problems.append("unverified citation")
    if len(model.calls) != n + 1 or backend.calls != n:
        problems.append(f"expected {n + 1} LLM calls and {n} searches, got {len(model.calls)} and {backend.calls}")
    return {
        "wall_s": wall, "cpu_s": cpu, "tokens_in": report.tokens_in, "tokens_out": report.tokens_out,
        "llm_calls": len(model.calls), "problems": problems,
    }


async def run_batched(scenario: Scenario) -> dict:
    n = len(scenario.claims)
    model, backend = make_model(scenario), SimulatedSearch(scenario)
    start = time.perf_counter()
    result = await batched_check(scenario.text, model, backend, Context())
    wall = time.perf_counter() - start
    problems = [] if result["claims"] == n and result["verified"] == n else [f"batched: {result}"]
    return {"wall_s": wall, **{k: result[k] for k in ("tokens_in", "tokens_out", "llm_calls")}, "problems": problems}


def median(values: list[float | None]) -> float | None:
    """Median, or None when any value is undefined (a zero critical path)."""
    return None if any(v is None for v in values) else statistics.median(values)


def _ratio(wall: float, critical: float) -> float | None:
    return wall / critical if critical > 0 else None


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


async def bench_size(n: int, args: argparse.Namespace) -> dict:
    runs = []
    for rep in range(-args.warmup, args.reps):  # negative reps are warm-ups
        scenario = make_scenario(args.seed, n, rep, args)
        cp = scenario.critical_path()
        graph = await run_graph(scenario)
        batched = await run_batched(scenario)
        problems = graph.pop("problems") + batched.pop("problems")
        if graph["tokens_out"] != cp["predicted_tokens_out"]:
            problems.append(f"graph tokens_out {graph['tokens_out']} != predicted {cp['predicted_tokens_out']}")
        if problems:
            raise SystemExit(f"N={n} rep={rep}: invalid run: {'; '.join(problems)}")
        if rep < 0:
            continue
        runs.append({
            "rep": rep, **{k: round(v, 6) if isinstance(v, float) else v for k, v in cp.items()},
            "graph": graph, "batched": batched,
            "ratio": _ratio(graph["wall_s"], cp["critical_s"]),
            "branch_ratio": _ratio(graph["wall_s"], cp["branch_critical_s"]),
            "overhead_ms_per_claim": (graph["wall_s"] - cp["critical_s"]) / n * 1000,
            "branch_overhead_ms_per_claim": (graph["wall_s"] - cp["branch_critical_s"]) / n * 1000,
            "batched_ratio": _ratio(batched["wall_s"], cp["batched_critical_s"]),
        })
    row = {
        "n": n,
        "critical_s": median([r["critical_s"] for r in runs]),
        "branch_critical_s": median([r["branch_critical_s"] for r in runs]),
        "graph_wall_s": median([r["graph"]["wall_s"] for r in runs]),
        "ratio": median([r["ratio"] for r in runs]),
        "branch_ratio": median([r["branch_ratio"] for r in runs]),
        "overhead_ms_per_claim": median([r["overhead_ms_per_claim"] for r in runs]),
        "branch_overhead_ms_per_claim": median([r["branch_overhead_ms_per_claim"] for r in runs]),
        "graph_cpu_ms": median([r["graph"]["cpu_s"] for r in runs]) * 1000,
        "batched_critical_s": median([r["batched_critical_s"] for r in runs]),
        "batched_wall_s": median([r["batched"]["wall_s"] for r in runs]),
        "batched_ratio": median([r["batched_ratio"] for r in runs]),
        "graph_tokens_in": median([r["graph"]["tokens_in"] for r in runs]),
        "graph_tokens_out": median([r["graph"]["tokens_out"] for r in runs]),
        "batched_tokens_in": median([r["batched"]["tokens_in"] for r in runs]),
        "batched_tokens_out": median([r["batched"]["tokens_out"] for r in runs]),
        "runs": runs,
    }
    row["ratio_pass"] = None if row["ratio"] is None else row["ratio"] <= TARGET_RATIO
    row["overhead_pass"] = row["overhead_ms_per_claim"] <= TARGET_OVERHEAD_MS
    return row


def markdown(rows: list[dict], args: argparse.Namespace) -> str:
    ok = lambda flag: "n/a" if flag is None else "pass" if flag else "FAIL"  # noqa: E731
    lines = [
        f"Medians of {args.reps} repetition(s) per size after {args.warmup} warm-up; seed {args.seed}; "
        f"ttft {args.ttft:g} s, {args.token_delay * 1000:g} ms/output token, search "
        f"{args.search_min:g}-{args.search_max:g} s, judge reason {args.reason_min}-{args.reason_max} words; "
        f"engine {_revision() or 'revision unknown'}; Python {platform.python_version()}, {os.cpu_count()} CPU(s).",
        "",
        "Per-claim graph (`veracity.acheck`) against the critical path "
        "(extraction + slowest search + slowest judge):",
        "",
        "| N | critical path (s) | graph wall (s) | wall/critical | overhead (ms/claim) | ratio ≤ 1.15 "
        "| overhead ≤ 50 ms | branch critical (s) | wall/branch | overhead vs branch (ms/claim) | graph CPU (ms) |",
        "|---:|---:|---:|---:|---:|:---:|:---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['n']} | {r['critical_s']:.3f} | {r['graph_wall_s']:.3f} | {_fmt(r['ratio'])} "
            f"| {r['overhead_ms_per_claim']:.1f} | {ok(r['ratio_pass'])} | {ok(r['overhead_pass'])} "
            f"| {r['branch_critical_s']:.3f} | {_fmt(r['branch_ratio'])} | {r['branch_overhead_ms_per_claim']:.1f} "
            f"| {r['graph_cpu_ms']:.0f} |"
        )
    lines += [
        "",
        "Per-claim graph against a batched judge (extraction, concurrent searches, one judge call for all claims):",
        "",
        "| N | graph wall (s) | batched critical (s) | batched wall (s) | batched/graph wall "
        "| graph tokens in / out | batched tokens in / out |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['n']} | {r['graph_wall_s']:.3f} | {r['batched_critical_s']:.3f} | {r['batched_wall_s']:.3f} "
            f"| {r['batched_wall_s'] / r['graph_wall_s']:.2f} "
            f"| {r['graph_tokens_in']:.0f} / {r['graph_tokens_out']:.0f} "
            f"| {r['batched_tokens_in']:.0f} / {r['batched_tokens_out']:.0f} |"
        )
    return "\n".join(lines)


def _revision() -> str | None:
    """The git commit of the checkout (with '+dirty' for local changes), if git is available."""
    import subprocess

    try:
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, check=True)
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "src"], cwd=root, capture_output=True, text=True)
        return head.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "")
    except (OSError, subprocess.CalledProcessError):
        return None


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1,4,10,20", help="claims per paragraph, comma-separated")
    parser.add_argument("--reps", type=int, default=5, help="measured repetitions per size (median reported)")
    parser.add_argument("--warmup", type=int, default=1, help="warm-up repetitions per size (not reported)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", action="store_true", help="print JSON instead of a Markdown table")
    parser.add_argument("--ttft", type=float, default=0.25, help="simulated time to first token (s)")
    parser.add_argument("--token-delay", type=float, default=0.004, help="simulated seconds per output token")
    parser.add_argument("--search-min", type=float, default=0.15)
    parser.add_argument("--search-max", type=float, default=0.45)
    parser.add_argument("--reason-min", type=int, default=8, help="fewest words in a judge's reason")
    parser.add_argument("--reason-max", type=int, default=60, help="most words in a judge's reason")
    args = parser.parse_args(argv)
    args.sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    if args.reps < 1 or any(n < 1 for n in args.sizes):
        parser.error("--reps and every size must be >= 1")
    return args


def main(argv: list[str] | None = None) -> int:
    os.environ["LANGSMITH_TRACING"] = "false"
    os.environ["LANGCHAIN_TRACING_V2"] = "false"
    try:  # langsmith caches environment look-ups
        from langsmith import utils as ls_utils

        ls_utils.get_env_var.cache_clear()
    except (ImportError, AttributeError):
        pass
    args = parse_args(argv)

    async def run_all() -> list[dict]:
        return [await bench_size(n, args) for n in args.sizes]

    rows = asyncio.run(run_all())
    if args.json:
        print(json.dumps({
            "config": {k: v for k, v in vars(args).items() if k != "json"},
            "targets": {"ratio": TARGET_RATIO, "overhead_ms_per_claim": TARGET_OVERHEAD_MS},
            "machine": {"python": platform.python_version(), "cpus": os.cpu_count(), "platform": platform.platform()},
            "engine_revision": _revision(),
            "rows": rows,
        }, indent=2))
    else:
        print(markdown(rows, args))
    return 0 if all(r["ratio_pass"] is not False and r["overhead_pass"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
