"""Benchmark rows judged by the shipped offline judge, for fitting the calibrator and measuring it.

Each row becomes a claim with a list of `Evidence` items, shaped the way a check sees them:

* Climate-FEVER (claim level): one item per evidence sentence, titled with its Wikipedia article,
  as a search returns five passages from several pages;
* Climate-FEVER (sentence pairs): one item, titled with its article;
* Factcheck-GPT, HealthVer and FEVER dev: one untitled item (the data holds no title).

Datasets and parts (never copied into the repository; see the data READMEs):

* calibration: the *calibration* part (``claim_split.py``) of Climate-FEVER claims, Climate-FEVER
  pairs and Factcheck-GPT, HealthVer's calibration half (``cross_validate.healthver_part``), and a
  seeded sample of `FEVER_CALIBRATION_ROWS` FEVER dev rows whose claims are not in the test sample;
* test: the *test* part of Climate-FEVER claims and Factcheck-GPT, HealthVer's test half, and the
  seeded 2,000-row FEVER dev sample of ``benchmarks/offline_judge.py``.

`judge_rows` runs `EntailmentJudge.assess` (relevance filter, passages, decider) on every row. The
entailment model's answers are kept in a pickle (`ScoreMemory`) keyed by the model file's hash, so
re-running after a change to the rules costs only the rules and the embeddings.
"""

from __future__ import annotations

import hashlib
import pickle
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from claim_split import DEFAULT_DATA_DIR, ClaimSplit, read_jsonl
from cross_validate import FEVER_ROWS, NLI_DIR, capped, healthver_part

from veracity.contracts import Evidence
from veracity.offline.judge.entailment_judge import EntailmentJudge
from veracity.offline.judge.judgement import Judgement
from veracity.offline.model.entailment import EntailmentModel, Probabilities, assets_folder

CALIBRATION_SETS = ("climatefever_claims", "factcheckgpt", "climatefever_pairs", "healthver", "fever_dev")
TEST_SETS = ("climatefever_claims", "factcheckgpt", "healthver", "fever_dev")
BENCHMARK_FILES = {
    "climatefever_claims": "climatefever_claims.jsonl",
    "factcheckgpt": "factcheckgpt_pairs.dev.jsonl",
    "climatefever_pairs": "climatefever_pairs.jsonl",
}
FEVER_CALIBRATION_ROWS = 3000
"""FEVER dev calibration rows: a seeded sample of the rows whose claim is not in the 2,000-row test sample."""
DEFAULT_MEMORY = Path(__file__).resolve().parent / "out" / "entailment-memory.pkl"


@dataclass(frozen=True)
class Row:
    """One labelled claim with its evidence items."""

    dataset: str
    claim: str
    evidence: tuple[Evidence, ...]
    label: str
    """supported / refuted / unverifiable (FEVER dev: supported / not_supported)."""


def _item(number: int, text: str, title: str = "") -> Evidence:
    return Evidence(id=f"e{number}", claim_id="c1", title=title, text=text, backend="benchmark")


def _climatefever_items(row: dict) -> tuple[Evidence, ...]:
    sentences = row["evidence"].split("\n")
    titles = row.get("meta", {}).get("articles") or [""] * len(sentences)
    if len(titles) != len(sentences):
        return (_item(1, row["evidence"]),)
    return tuple(_item(n, text, title) for n, (text, title) in enumerate(zip(sentences, titles, strict=True), 1)
                 if text.strip())


def load_rows(name: str, part: str, data_dir: Path = DEFAULT_DATA_DIR, nli_dir: Path = NLI_DIR,
              limit: int | None = None) -> list[Row]:
    """The rows of one dataset's part, shaped as above, capped at a seeded sample of `limit`."""
    if name in BENCHMARK_FILES:
        raw = capped(ClaimSplit(data_dir).rows(BENCHMARK_FILES[name], part), limit)
        rows = []
        for r in raw:
            if name == "climatefever_claims":
                items = _climatefever_items(r)
            elif name == "climatefever_pairs":
                items = (_item(1, r["evidence"], r.get("meta", {}).get("article", "")),)
            else:
                items = (_item(1, r["evidence"]),)
            rows.append(Row(name, r["claim"], items, r["label"]))
        return rows
    if name == "healthver":
        raw = [r for r in read_jsonl(nli_dir / "healthver.jsonl") if healthver_part(r["hypothesis"]) == part]
    elif name == "fever_dev" and part == "test":
        raw = list(read_jsonl(nli_dir / "fever_dev_binary.jsonl"))
        limit = limit or FEVER_ROWS
    elif name == "fever_dev" and part == "calibration":
        everything = list(read_jsonl(nli_dir / "fever_dev_binary.jsonl"))
        tested = {r["hypothesis"].strip() for r in capped(everything, FEVER_ROWS)}
        raw = [r for r in everything if r["hypothesis"].strip() not in tested]
        limit = limit or FEVER_CALIBRATION_ROWS
    else:
        raise ValueError(f"no part {part!r} of {name!r}")
    return [Row(name, r["hypothesis"], (_item(1, r["premise"]),), r["label"]) for r in capped(raw, limit)]


class ScoreMemory:
    """The entailment model with a persistent memory of every (premise, claim) pair it has scored."""

    def __init__(self, model: EntailmentModel, path: Path = DEFAULT_MEMORY) -> None:
        self.model = model
        self.config = model.config
        self.path = path
        model_file = Path(str(assets_folder().joinpath(model.config["model_file"])))
        self.fingerprint = hashlib.sha256(model_file.read_bytes()).hexdigest()
        self.scores: dict[tuple[str, str], Probabilities] = {}
        self.fresh = 0
        if path.exists():
            stored = pickle.loads(path.read_bytes())
            if stored.get("fingerprint") == self.fingerprint:
                self.scores = stored["scores"]

    def probabilities(self, premises: Sequence[str], hypothesis: str) -> list[Probabilities]:
        """As `EntailmentModel.probabilities`, scoring only pairs not seen before."""
        missing = [p for p in dict.fromkeys(premises) if (p, hypothesis) not in self.scores]
        if missing:
            for premise, scored in zip(missing, self.model.probabilities(missing, hypothesis), strict=True):
                self.scores[(premise, hypothesis)] = scored
            self.fresh += len(missing)
        return [self.scores[(p, hypothesis)] for p in premises]

    def save(self) -> None:
        """Write the memory (only when something new was scored)."""
        if self.fresh:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.path.write_bytes(pickle.dumps({"fingerprint": self.fingerprint, "scores": self.scores}))
            self.fresh = 0


def shipped_judge(memory_path: Path = DEFAULT_MEMORY, threads: int = 2) -> tuple[EntailmentJudge, ScoreMemory]:
    """The shipped judge with its model behind a `ScoreMemory`."""
    memory = ScoreMemory(EntailmentModel(threads=threads), memory_path)
    return EntailmentJudge(model=memory, remembered=0), memory  # type: ignore[arg-type]


def judge_rows(rows: list[Row], judge: EntailmentJudge, memory: ScoreMemory | None = None,
               label: str = "") -> list[Judgement]:
    """`assess` every row; the memory is saved every 500 rows and at the end."""
    started = time.perf_counter()
    found = []
    for number, row in enumerate(rows, 1):
        found.append(judge.assess(row.claim, list(row.evidence)))
        if memory is not None and number % 500 == 0:
            memory.save()
            print(f"  {label}: {number}/{len(rows)} rows [{time.perf_counter() - started:.0f} s]", flush=True)
    if memory is not None:
        memory.save()
    print(f"  judged {label}: {len(rows)} rows in {time.perf_counter() - started:.0f} s", flush=True)
    return found
