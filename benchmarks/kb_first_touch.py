"""Warm 5-claim check latency on a 10k-chunk knowledge base: on its first touch of a chunk and once filled.

Two steps, each run with whatever veracity is first on the path (so an older checkout is
measured by putting its ``src`` first, as for the "before" figure)::

    .venv/bin/python benchmarks/kb_first_touch.py build --kb /tmp/kb10k
    .venv/bin/python benchmarks/kb_first_touch.py check --kb /tmp/kb10k     # first touch
    .venv/bin/python benchmarks/kb_first_touch.py check --kb /tmp/kb10k     # filled by the run above

``build`` makes a knowledge base of ``--size`` chunks as ``benchmarks/offline.py`` does (the 18
demo notes, then filler documents of real Climate-FEVER sentences). With format-1 code the
filler's sentence vectors come from that script's stand-in embedder; with the current code the
chunks' static vectors are real and no sentence vector is computed at ingest.

``check`` runs, in this fresh process, one warm-up check of a paragraph never measured, then
each of the 20 five-claim paragraphs of ``benchmarks/offline.py`` once
(``veracity.check(..., model="offline", search="kb")``), and prints the wall-time p50, p95 and
mean. On a current-format knowledge base the first ``check`` is the *first touch*: every chunk
it retrieves has its sentence vectors computed then, and stored; a second ``check`` in a new
process finds them stored (*filled*). ``--json FILE`` writes the figures.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import offline  # noqa: E402 (the paragraphs and the knowledge-base builder)


def build(args: argparse.Namespace) -> dict[str, object]:
    """Build the knowledge base with the code on the path."""
    config = {"path": str(args.kb), "size": args.size, "data_dir": str(args.data_dir), "seed": args.seed,
              "data_sha": offline.data_fingerprint(args.data_dir)}
    started = time.perf_counter()
    result = offline.child_build(config)
    result["seconds"] = round(time.perf_counter() - started, 1)
    return result


def check(args: argparse.Namespace) -> dict[str, object]:
    """Time the first pass over the paragraphs after one warm-up check."""
    import veracity
    from veracity.kb import KnowledgeBase

    stored_before = getattr(KnowledgeBase(args.kb).stats(), "sentence_vectors", None)  # None: format-1 code
    veracity.check(offline.WARMUP_PARAGRAPH, model="offline", search="kb", kb_path=str(args.kb))
    times = []
    for paragraph in offline.PARAGRAPHS[:args.paragraphs]:
        started = time.perf_counter()
        veracity.check(paragraph, model="offline", search="kb", kb_path=str(args.kb))
        times.append(1000 * (time.perf_counter() - started))
    return {
        "veracity": veracity.__file__, "chunks": KnowledgeBase(args.kb).stats().chunks, "runs": len(times),
        "p50_ms": round(float(offline.percentile(times, 50)), 1),
        "p95_ms": round(float(offline.percentile(times, 95)), 1), "mean_ms": round(statistics.fmean(times), 1),
        "sentence_vectors_stored_before": stored_before,
    }


def main() -> int:
    """Run one step and print its figures as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("step", choices=["build", "check"])
    parser.add_argument("--kb", type=Path, required=True)
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--paragraphs", type=int, default=len(offline.PARAGRAPHS))
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--data-dir", type=Path, default=offline.DEFAULT_DATA_DIR)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    result = build(args) if args.step == "build" else check(args)
    print(json.dumps(result), flush=True)
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
