"""Large-file ingest: the streamed path (files over the stream threshold) against the whole-file path.

The same generated file is ingested twice into fresh knowledge bases in this process: once with
the stream threshold above its size (read whole) and once below (read block by block), and the
two are compared per byte. The chunks of both runs are compared too; they must be identical,
so the embedder does the same work on either path.

By default the embedder is a stand-in that returns a constant unit vector at no cost, which
isolates what differs between the paths (reading, sentence splitting, chunking, indexing,
checksums). ``--real-embedder`` uses the shipped embedder instead (about 34 s per MiB of new
prose on 2 cores; use a small ``--mib``). Shapes of text:

* ``prose``: English-like sentences in paragraphs (seeded);
* ``no-punctuation``: one line of words with no sentence end at all;
* ``word-per-line``: one word per line, no punctuation.

Run it (from the repository root)::

    .venv/bin/python benchmarks/large_ingest.py                       # 21 MiB, stand-in embedder
    .venv/bin/python benchmarks/large_ingest.py --real-embedder --mib 1 --shapes prose
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

WORDS = ("the of and to in is was for on that with as by at from it an were are which this has had river city "
         "mountain museum library council harbour railway bridge station garden market school company built "
         "opened designed founded described reported measured recorded visited crossed named moved north south "
         "old new large small first famous local national public early century year decade population water "
         "stone iron timber history engineer architect mayor village region valley coast island lake forest "
         "road canal tower church castle hall square street").split()


class ConstantEmbedder:
    """Returns the same unit vector for every text: the embedding step at no cost."""

    def embed(self, texts: list[str], **_: Any) -> np.ndarray:
        """One unit vector per text."""
        vectors = np.ones((len(texts), 384), dtype=np.float32)
        return vectors / np.sqrt(384)

    def prime(self, *_: Any) -> None:
        """Nothing to prime."""


def fresh_embedder() -> Any:
    """The shipped embedder with an empty cache, so neither path reuses the other's vectors."""
    import os

    from veracity.offline.model.embedder import Embedder

    return Embedder(threads=os.cpu_count() or 1)


def generate(shape: str, size: int, seed: int) -> str:
    """`size` characters of text of `shape`."""
    rng = random.Random(seed)
    parts: list[str] = []
    total = 0
    while total < size:
        if shape == "prose":
            sentences = []
            for _ in range(rng.randint(3, 8)):
                words = [rng.choice(WORDS) for _ in range(rng.randint(8, 25))]
                if rng.random() < 0.3:
                    words.insert(rng.randint(1, len(words) - 1), str(rng.randint(1800, 2024)))
                sentences.append(" ".join(words).capitalize() + rng.choice(".....?!"))
            part = " ".join(sentences) + "\n\n"
        else:
            separator = " " if shape == "no-punctuation" else "\n"
            part = separator.join(rng.choice(WORDS) for _ in range(1000)) + separator
        parts.append(part)
        total += len(part)
    return "".join(parts)[:size]


def ingest_once(file: Path, threshold: int, real: bool) -> tuple[float, list[str]]:
    """Seconds to ingest `file` into a fresh knowledge base, and the chunk texts it holds."""
    from veracity.kb import KnowledgeBase

    folder = Path(tempfile.mkdtemp(prefix="veracity-large-ingest-"))
    try:
        kb = KnowledgeBase(folder / "kb", embedder=fresh_embedder() if real else ConstantEmbedder())  # type: ignore[arg-type]
        started = time.perf_counter()
        kb.ingest([file], stream_threshold=threshold)
        seconds = time.perf_counter() - started
        reader = kb.load()
        texts = [row[0] for row in reader._db.execute("SELECT text FROM chunks ORDER BY id")]
        return seconds, texts
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def main() -> None:
    """Run each shape on both paths, print a Markdown table; exit 1 if chunks differ or streaming is slower."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--mib", type=float, default=21.0, help="file size in MiB (default 21, over the threshold)")
    parser.add_argument("--shapes", default="prose,no-punctuation,word-per-line")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--real-embedder", action="store_true")
    args = parser.parse_args()
    size = int(args.mib * 1024 * 1024)
    print(f"| shape | MiB | whole file s (median of {args.reps}) | streamed s | whole MiB/s | streamed MiB/s | "
          f"streamed / whole time | chunks | identical |\n|---|---:|---:|---:|---:|---:|---:|---:|---|")
    worst = 0.0
    identical_everywhere = True
    with tempfile.TemporaryDirectory() as scratch:
        for shape in args.shapes.split(","):
            file = Path(scratch) / f"{shape}.txt"
            file.write_text(generate(shape, size, args.seed), encoding="utf-8")
            whole, streamed = [], []
            chunks_whole: list[str] = []
            chunks_streamed: list[str] = []
            for _ in range(args.reps):  # alternate, so drift in the machine hits both paths alike
                seconds, chunks_whole = ingest_once(file, size * 2, args.real_embedder)
                whole.append(seconds)
                seconds, chunks_streamed = ingest_once(file, size // 2, args.real_embedder)
                streamed.append(seconds)
            w, s = statistics.median(whole), statistics.median(streamed)
            same = chunks_whole == chunks_streamed
            identical_everywhere &= same
            worst = max(worst, s / w)
            mib = size / 1024 / 1024
            print(f"| {shape} | {mib:.1f} | {w:.2f} | {s:.2f} | {mib / w:.3f} | {mib / s:.3f} | {s / w:.2f} | "
                  f"{len(chunks_whole):,} | {'yes' if same else 'NO'} |", flush=True)
    print(f"\nembedder: {'shipped' if args.real_embedder else 'constant stand-in'}; worst ratio {worst:.2f}")
    sys.exit(0 if identical_everywhere and worst <= 1.1 else 1)


if __name__ == "__main__":
    main()
