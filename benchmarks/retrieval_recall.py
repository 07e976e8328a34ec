"""Knowledge-base retrieval quality and ingest speed on the shared benchmark corpora.

For each corpus the script ingests the documents into a new knowledge base (timed: chunks/s)
and then searches every decisive claim with `KnowledgeBase.search(claim, limit=5)`, as a check
does, counting a claim as found when one of its five hits holds its gold evidence:

* ``climatefever``: the long Markdown documents that ``benchmarks/ingest_speed.py`` builds from
  the unique evidence sentences of ``climatefever_pairs.jsonl`` (Wikipedia prose, seeded order);
  the claims of ``climatefever_claims.jsonl`` labelled supported or refuted whose gold quotes are
  in that corpus; found = a hit's text contains one of the claim's gold quotes.
* ``factcheckgpt``: one document per unique evidence passage of ``factcheckgpt_pairs.dev.jsonl``
  (web text); its rows labelled supported or refuted; found = a hit comes from the row's own
  evidence document.

Recall@5 = claims found / claims searched. The figures depend only on the code imported, so
the same script measures an older checkout by putting its ``src`` first on the path::

    .venv/bin/python benchmarks/retrieval_recall.py --data-dir ../shared/benchmarks
    PYTHONPATH=/tmp/before/src .venv/bin/python benchmarks/retrieval_recall.py --data-dir ../shared/benchmarks

``--json FILE`` writes the figures; ``--corpus`` picks one corpus.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import ingest_speed  # noqa: E402 (the sibling benchmark's corpus writer)
import offline  # noqa: E402

SEED = 7


def _clean(text: str) -> str:
    return " ".join(text.split())


def climatefever(data_dir: Path, folder: Path) -> list[tuple[str, set[str]]]:
    """Write the long-document corpus; return (claim, gold quotes) for the decisive claims it covers."""
    articles = offline.load_articles(data_dir)
    ingest_speed.write_long(folder, articles, SEED, None)
    sentences = {sentence for _, texts in articles for sentence in texts}
    claims = []
    with open(data_dir / "climatefever_claims.jsonl", encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            quotes = {_clean(q) for q in row.get("gold_quotes") or []} & sentences
            if row["label"] in ("supported", "refuted") and quotes:
                claims.append((row["claim"], quotes))
    return claims


def factcheckgpt(data_dir: Path, folder: Path) -> list[tuple[str, set[str]]]:
    """Write one document per evidence passage; return (claim, {its document's file name})."""
    folder.mkdir(parents=True)
    names: dict[str, str] = {}
    claims = []
    with open(data_dir / "factcheckgpt_pairs.dev.jsonl", encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            evidence = _clean(row["evidence"])
            if evidence not in names:
                names[evidence] = f"passage-{len(names):05d}.md"
                (folder / names[evidence]).write_text(f"# Passage {len(names)}\n\n{evidence}\n", encoding="utf-8")
            if row["label"] in ("supported", "refuted"):
                claims.append((row["claim"], {names[evidence]}))
    return claims


def measure(name: str, data_dir: Path, work: Path) -> dict[str, object]:
    """Ingest one corpus into a new knowledge base, then search its claims."""
    from veracity.kb import KnowledgeBase

    folder = work / name
    claims = (climatefever if name == "climatefever" else factcheckgpt)(data_dir, folder)
    kb = KnowledgeBase(work / f"{name}-kb")
    started = time.perf_counter()
    report = kb.ingest([folder])
    ingest_seconds = time.perf_counter() - started
    found = 0
    started = time.perf_counter()
    for claim, gold in claims:
        hits = kb.search(claim, limit=5)
        if name == "climatefever":
            found += any(quote in _clean(hit.text) for hit in hits for quote in gold)
        else:
            found += any(Path(hit.url).name in gold for hit in hits)
    search_seconds = time.perf_counter() - started
    return {
        "corpus": name, "documents": len(list(folder.iterdir())), "chunks": report.chunks,
        "ingest_s": round(ingest_seconds, 2), "chunks_per_s": round(report.chunks / ingest_seconds, 1),
        "claims": len(claims), "found": found, "recall_at_5": round(found / len(claims), 4),
        "search_ms_mean": round(1000 * search_seconds / len(claims), 2),
    }


def main() -> int:
    """Measure and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", type=Path, default=Path("../shared/benchmarks"))
    parser.add_argument("--corpus", choices=["climatefever", "factcheckgpt"], action="append")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    import veracity

    results = []
    with tempfile.TemporaryDirectory() as work:
        for name in args.corpus or ["climatefever", "factcheckgpt"]:
            results.append(measure(name, args.data_dir, Path(work)))
            print(json.dumps(results[-1]), flush=True)
    if args.json:
        args.json.write_text(json.dumps({"veracity": veracity.__file__, "results": results}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
