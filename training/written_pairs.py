"""Turn the written minimal pairs of ``training/data/written/`` into training rows, clear of the evaluation sets.

``training/data/written/*.jsonl`` holds passages of everyday documents (policies, timetables, manuals,
memos, leaflets) and of history, geography and science, each with claims written for training: a
faithful claim said another way and its twin with one detail changed, plus claims that add a detail
the passage does not give (see ``training/data/written/README.md``). The judge reads a claim against
a single sentence or a window of two or three, so every claim becomes up to three rows: against the
whole passage, against the passage sentence that shares most words with it, and against that sentence
with its neighbour. The sentence is kept only when its label still holds for it: a refuted or
supported claim needs the sentence to hold every content word that the claim's twin pair changed or
kept (a shared-word test, see `premises_for`); an addition keeps its label against any part.

A passage too close to one of the hand-written evaluation set (``benchmarks/data/contrast``, dev and
test) is left out: its content words overlap those of an evaluation passage by `MAX_OVERLAP` or more
(Jaccard). The script prints how many were left out, so the data cannot teach the test answers::

    python3 training/written_pairs.py --out training/out/written.jsonl
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
WRITTEN = HERE / "data" / "written"
EVALUATION = HERE.parent / "benchmarks" / "data" / "contrast"
MAX_OVERLAP = 0.25
"""Content-word Jaccard overlap with an evaluation passage at or above which a written passage is left out."""
_WORD = re.compile(r"[A-Za-z0-9]+")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(£$€])")
_STOP = frozenset(
    "a an the of to in on at for by with from and or but is are was were be been being it its this that these "
    "those as into than then there their they he she his her them we you your our not no can may must will would "
    "should has have had do does did so if also only up out about over after before per each every all any some "
    "more less most".split())


def content_words(text: str) -> set[str]:
    """Lower-cased words of `text` that carry content (no stop words)."""
    return {w.lower() for w in _WORD.findall(text)} - _STOP


def jaccard(a: set[str], b: set[str]) -> float:
    """Share of words two sets have in common."""
    return len(a & b) / len(a | b) if a | b else 0.0


def read_rows(folder: Path) -> list[dict]:
    """Every row of every JSON Lines file in `folder`, in file order."""
    rows = []
    for path in sorted(folder.glob("*.jsonl")):
        with path.open(encoding="utf-8") as handle:
            rows += [json.loads(line) for line in handle if line.strip()]
    return rows


def contaminated(passages: list[str], evaluation: list[str]) -> set[str]:
    """The written passages that overlap an evaluation passage by `MAX_OVERLAP` or more."""
    held = [content_words(p) for p in evaluation]
    return {p for p in passages if any(jaccard(content_words(p), e) >= MAX_OVERLAP for e in held)}


def sentences_of(passage: str) -> list[str]:
    """The passage cut into sentences."""
    return [s.strip() for s in _SENTENCE_END.split(passage.strip()) if s.strip()]


def premises_for(row: dict, twin: dict | None, passage: str) -> list[tuple[str, str]]:
    """(premise, view) pairs a claim is trained against.

    The views are the passage, its closest sentence, and that sentence with a neighbour.

    For a twin pair the words the two claims share or differ in must all be in the sentence (else the
    sentence may not decide the claim and its label would be wrong there); an addition is unverifiable
    against any part of its passage.
    """
    found = [(passage, "passage")]
    parts = sentences_of(passage)
    if len(parts) < 2:
        return found
    claim_words = content_words(row["claim"])
    best = max(range(len(parts)), key=lambda i: len(claim_words & content_words(parts[i])))
    needed = claim_words | (content_words(twin["claim"]) if twin else set())
    if row["label"] != "unverifiable":
        needed = needed & content_words(passage)
    candidates = [(parts[best], "sentence")]
    neighbour = best + 1 if best + 1 < len(parts) else best - 1
    first, last = sorted((best, neighbour))
    candidates.append((" ".join(parts[first:last + 1]), "window"))
    for text, view in candidates:
        if row["label"] == "unverifiable" or needed <= content_words(text):
            found.append((text, view))
    return found


def training_rows(rows: list[dict], skipped: set[str]) -> list[dict]:
    """The rows as (premise, hypothesis, label) pairs, with the view and kind they came from."""
    by_id = {row["id"]: row for row in rows}
    out = []
    for row in rows:
        if row["passage"] in skipped:
            continue
        twin = by_id.get(row.get("twin") or "")
        for premise, view in premises_for(row, twin, row["passage"]):
            out.append({"premise": premise, "hypothesis": row["claim"], "label": row["label"],
                        "kind": f"written {row['kind']} ({view})", "source": "written"})
    return out


def main(argv: list[str] | None = None) -> int:
    """Write the training rows and print what was left out and kept."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    rows = read_rows(WRITTEN)
    evaluation = list({r["passage"] for r in read_rows(EVALUATION)})
    passages = list(dict.fromkeys(r["passage"] for r in rows))
    skipped = contaminated(passages, evaluation)
    out = training_rows(rows, skipped)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", encoding="utf-8") as handle:
        for row in out:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"{len(passages)} written passages, {len(skipped)} left out as too close to an evaluation passage")
    print(f"{len(out)} rows -> {args.out}: {dict(Counter(r['label'] for r in out))}")
    print("views:", dict(Counter(r["kind"].rsplit("(", 1)[1].rstrip(")") for r in out)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
