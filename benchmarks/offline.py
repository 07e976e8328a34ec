"""Offline-mode performance: ingest throughput, warm check latency by knowledge-base size, CLI cold start, memory.

Everything runs locally with the real all-MiniLM-L6-v2 int8 ONNX embedder, the offline claim
splitter and the offline judge. Each measurement runs in its own child process (this script
re-invoked with a hidden ``--_child`` option), so peak memory and caches are per measurement.

What is measured
----------------
1. **Ingest throughput** (real embedder). Documents are made from the unique evidence sentences
   of Climate-FEVER (``climatefever_pairs.jsonl``, Wikipedia text, read from ``--data-dir``, never
   copied into the repository): sentences are grouped by their Wikipedia article, each article
   becomes a ``## title`` section, and consecutive sections (in a seeded shuffled order) form
   Markdown documents of 800-2,500 words. They are fed, from memory, to
   ``KnowledgeBase(tmp).ingest_sources(...)`` with the default chunk settings (600 tokens, 72
   overlap) in a fresh process whose embedders (the ingest one and the checks' one) are loaded,
   and have embedded one sentence, before the clock starts. Throughput = chunks (and stored
   sentence vectors) / wall time of the ingest call, commit (BM25 build, FAISS write, fsync)
   included. The embedder cache starts empty; a sentence repeated in a chunk overlap is embedded once, as in real use.

2. **Warm check latency** of a 5-claim paragraph against knowledge bases of 1k, 10k and 100k
   chunks (``--sizes``): ``veracity.check(paragraph, model="offline", search="kb", kb_path=KB)``
   end to end (graph build, claim splitting, 5 kb searches, 5 offline judgements, gates,
   evaluation, report), timed with ``time.perf_counter``. Each size runs in a fresh process:

   * one warm-up check of a paragraph that is never measured (loads the ONNX model, the index,
     the judge; its time is reported as "first check in process");
   * **first pass**: each of the 20 paragraphs below once. No paragraph or claim has been seen
     by this process before, so every claim's query embedding is an embedder-cache miss;
     evidence sentences retrieved earlier may be cached (as in any long-running process);
   * **repeated passes** (``--rounds`` - 1 of them): the same 20 paragraphs again, same order.
     Claims and evidence are then served from the embedder's LRU cache, and the judgements
     from the offline judge's memory: this is the best case, reported separately, never mixed
     into the first-pass figure;
   * **cold-cache pass**: the 20 paragraphs again with the embedder cache emptied before each
     check (``forget_vectors`` on every ``Embedder`` the process made, and the offline judge's
     memory of past judgements emptied too), the
     worst case for a warm process: every text the judge scores is embedded again except the
     sentence vectors the knowledge-base search itself primes.

   The 20 paragraphs hold 100 distinct claims on the demo-corpus topics, true and false mixed;
   each yields exactly 5 claims with the offline splitter (the script checks it). p50 / p95 are
   ``numpy.percentile`` (linear interpolation) over the runs of a pass. Targets are judged on the
   first pass. Label counts are printed only as a sanity check (this is not an accuracy benchmark).

   **Building the indexes.** Embedding 100k chunks (~1.6 M sentences) with the real model would
   take hours on 2 cores, so the bulk *filler* chunks get vectors from a stand-in:
   ``StandInEmbedder`` maps each sentence to a deterministic pseudo-random unit vector of 384
   floats (a normal draw seeded by the BLAKE2b hash of the text). The filler texts are real
   (Climate-FEVER sentences reshuffled per pass over the data, so chunks differ), so BM25 and
   SQLite see real text. The 18 demo notes are ingested first with the real embedder, then the
   filler with ``KnowledgeBase(path, embedder=StandInEmbedder())`` into the same knowledge base
   (the manifest records the model id, not the embedder object, so both ingests are accepted).
   A FAISS ``IndexFlatIP`` search computes the inner product with every stored vector whatever
   their values, so the dense-search cost at N chunks is what it would be with real vectors;
   the demo chunks keep real vectors so the claims find their evidence. What the stand-in
   changes: filler chunks rank by chance in the dense list (a real corpus would put its own
   near-duplicates there) and their sentence vectors, primed into the embedder cache by the
   search, are near-orthogonal to every claim. Queries and the judge always use the real
   embedder. Built indexes are cached in ``--cache-dir`` (default: a folder in the system temp
   directory, never the repository) and reused unless ``--rebuild``.

   **Breakdown.** Every check also records where its time goes through light wrappers
   (``time.perf_counter``, about 60 wrapped calls per check, well under 0.1 ms in all) around
   the offline claim splitter, ``KnowledgeBase.search`` (query embedding, BM25, FAISS + fusion,
   chunk fetch, cache priming) and the offline judge's ``judge`` (embedding of texts missing from
   the cache, the entailment model's batch, and the rest). The 5 claims' branches run in worker
   threads and may overlap, so the components summed over the claims can exceed the wall time.
   ``--profile`` adds a cProfile run of one extra first pass (fresh process, preloaded variant) at
   the first size of at least 10k chunks; the kb searches and judge calls, which run in worker threads, are profiled per
   call and merged with the main thread's profile.

   **Steps alone.** In the preloaded process, after its passes, each step of one claim's branch
   is also timed alone, one claim at a time over the 100 claims (ONNX claim embedding, FAISS
   search, BM25 search, chunk fetch, whole kb search, judge), to separate each step's own cost
   from the contention of 5 concurrent branches on 2 cores.

   **Variants** (``--variants``). *as-shipped*: the process' first call is ``veracity.check``
   itself, as in any script or CLI run. *preloaded*: ``default_embedder()`` and
   ``default_entailment_model()`` are called once in the main thread before the warm-up. The
   two differ because the first check's 5 branches reach the lazily created models from 5
   worker threads at once; the script reports how many
   ``Embedder`` objects each process created and whether the kb search and the judge share one.
   Targets are judged on *as-shipped*.

3. **CLI cold start**: wall time of ``veracity check "<1 claim>" --model offline --search kb
   --kb <demo-only kb>``, of the same with a 5-claim paragraph, of ``veracity --help`` and of
   ``python -c "import veracity"``, each a fresh process, after one untimed run (page cache
   warm). Median of ``--cli-runs`` runs. Python's bytecode cache is as the
   environment has it (``PYTHONDONTWRITEBYTECODE`` is reported).

4. **Peak memory**: maximum resident set size (``ru_maxrss`` from ``os.wait4``) of the child
   process of each measurement: the whole process life (imports, model and index load, all
   checks) for checks, model load plus ingest for ingest, one process for the CLI.
   It is RSS, not the Python heap (tracemalloc is not used).

Targets: first-pass p50 of the 5-claim warm check <= 300 ms at 10k chunks (with the entailment
judge; the first offline judge had 200 ms); CLI cold start (median) <= 3 s. The exit status is 1
when a target is missed.

Run it (from the repository root)::

    .venv/bin/python benchmarks/offline.py
    .venv/bin/python benchmarks/offline.py --sizes 1000,10000,100000 --rounds 3 --json
    .venv/bin/python benchmarks/offline.py --quick          # smoke run: 1k chunks, few runs
    .venv/bin/python benchmarks/offline.py --rebuild        # rebuild the cached indexes
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA_DIR = Path(__file__).resolve().parents[2] / "shared" / "benchmarks"
DEFAULT_CACHE_DIR = Path(tempfile.gettempdir()) / "veracity-bench-offline"
DATA_FILE = "climatefever_pairs.jsonl"
BUILD_VERSION = "v1"
"""Part of every cached index's folder name: bump it when the way filler is generated changes."""

TARGET_P50_MS = 300.0
TARGET_SIZE = 10_000
TARGET_CLI_S = 3.0
DIMENSIONS = 384

# --------------------------------------------------------------------------- paragraphs

PARAGRAPHS = [
    ("The Sydney Opera House opened in 1973. The Sydney Opera House was designed by Jørn Utzon. Construction of the "
    "Sydney Opera House began in 1965. The roof shells of the Opera House are covered with more than one million "
    "tiles. The Sydney Opera House has been a UNESCO World Heritage Site since 2007."),
    ("Canberra is the capital of Australia. Sydney is the largest city in Australia. Australia has eight states. "
    "The Australian dollar replaced the Australian pound in 1966. The population of Australia is about 27 million "
    "people."),
    ("The Eiffel Tower is in Paris. The Eiffel Tower was completed in 1889. The Eiffel Tower is about 500 metres "
    "tall. The company of Gustave Eiffel built the Eiffel Tower. The Eiffel Tower was the tallest man-made "
    "structure in the world until 1930."),
    ("Mount Everest is the highest mountain on Earth. Mount Everest lies in the Andes. The height of Mount Everest "
    "is 8,848.86 metres. Edmund Hillary reached the summit of Mount Everest in 1953. The Nepali name of Mount "
    "Everest is Sagarmatha."),
    ("Apollo 11 landed on the Moon in 1969. Neil Armstrong was the first person to walk on the Moon. Michael "
    "Collins walked on the Moon. Apollo 11 was launched from Florida. Twelve astronauts walked on the Moon."),
    ("Albert Einstein was born in Ulm in 1879. Albert Einstein died in 1955. Einstein published the theory of "
    "special relativity in 1905. Einstein received the Nobel Prize in Physics in 1921. Einstein completed the "
    "general theory of relativity in 1925."),
    ("The Amazon River flows into the Atlantic Ocean. The Amazon rises in the Andes of Peru. The Amazon is the "
    "largest river in the world by volume. The Amazon is about 6,400 kilometres long. The drainage basin of the "
    "Amazon covers about 2 million square kilometres."),
    ("Water boils at 100 degrees Celsius at sea level. Water freezes at 0 degrees Celsius. Water boils at 212 "
    "degrees Fahrenheit at sea level. On the summit of Mount Everest water boils at about 70 degrees Celsius. "
    "Dissolving salt in water lowers its boiling point."),
    ("DNA carries the genetic instructions of living organisms. The double-helix structure of DNA was described in "
    "1953. DNA is built from four bases. Adenine pairs with cytosine. The human genome contains about 3 billion "
    "base pairs."),
    ("The Great Barrier Reef is the largest coral reef system in the world. The Great Barrier Reef lies off the "
    "coast of Queensland. The Great Barrier Reef stretches for more than 2,300 kilometres. The Great Barrier Reef "
    "became a World Heritage Site in 1981. The Great Barrier Reef lies in the Indian Ocean."),
    ("The Great Wall of China is visible from the Moon with the naked eye. Most of the Great Wall was built during "
    "the Ming dynasty. The Great Wall is about 21,000 kilometres long. The Great Wall has been a UNESCO World "
    "Heritage Site since 1987. Construction of the Great Wall started as early as the 7th century BC."),
    ("Marie Curie was born in Warsaw in 1867. Marie Curie was the first woman to win a Nobel Prize. Marie Curie "
    "won the Nobel Prize in Chemistry in 1911. Marie Curie discovered radium in 1898. Marie Curie died in 1950."),
    ("The Nile flows north into the Mediterranean Sea. The Nile is about 6,650 kilometres long. The White Nile "
    "meets the Blue Nile at Cairo. The Aswan High Dam was completed in 1970. Lake Nasser was formed by the Aswan "
    "High Dam."),
    ("The Pacific is the largest ocean on Earth. The Pacific Ocean covers about 165 million square kilometres. The "
    "Challenger Deep is in the Mariana Trench. The Challenger Deep is about 5,000 metres below sea level. "
    "Ferdinand Magellan named the Pacific Ocean."),
    ("The Solar System formed about 4.6 billion years ago. The Solar System has nine planets. Jupiter is the "
    "largest planet in the Solar System. Mercury is the closest planet to the Sun. Pluto was reclassified as a "
    "dwarf planet in 2006."),
    ("The speed of light in a vacuum is 299,792,458 metres per second. Light from the Sun takes about 8 minutes to "
    "reach Earth. A light-year is about 9.46 trillion kilometres. The metre has been defined by the speed of light "
    "since 1983. Objects with mass can travel faster than light."),
    ("The Statue of Liberty stands on Liberty Island. The Statue of Liberty was a gift from France to the United "
    "States. The Statue of Liberty was dedicated in 1886. The Statue of Liberty was designed by Gustave Eiffel. "
    "The Statue of Liberty has been a UNESCO World Heritage Site since 1984."),
    ("William Shakespeare was born in Stratford-upon-Avon. Shakespeare died in 1616. Shakespeare wrote about 39 "
    "plays. Shakespeare wrote 154 sonnets. The Globe Theatre was built in 1620."),
    ("Queen Elizabeth II opened the Sydney Opera House in 1973. Melbourne is the capital of Victoria. The Eiffel "
    "Tower was built for the 1889 World's Fair. Buzz Aldrin walked on the Moon in 1969. Canberra is the largest "
    "city in Australia."),
    ("Tasmania is a state of Australia. The Sydney Opera House has about 1,000 rooms. Pure water boils at 100 "
    "degrees Celsius at standard pressure. Tenzing Norgay was a Sherpa from Nepal. The Moon is about 1 million "
    "kilometres from Earth."),
]
WARMUP_PARAGRAPH = (
    "The Sydney Opera House stands on Bennelong Point. Peter Hall completed the interiors of the Opera House. "
    "Jørn Utzon resigned from the project in 1966. The Opera House Lottery funded the Sydney Opera House. The "
    "first estimate for the Opera House was 7 million dollars."
)
PROFILE_PARAGRAPHS_NOTE = "the same 20 paragraphs, in a fresh process after the same warm-up"
CLI_CLAIM = "The Sydney Opera House opened in 1973."
CLAIMS_PER_PARAGRAPH = 5

# --------------------------------------------------------------------------- corpus


class StandInEmbedder:
    """Deterministic stand-in for corpus vectors: a unit-length pseudo-random 384-d vector per text.

    The vector is a standard normal draw seeded by the text's BLAKE2b hash, then L2-normalised.
    Used only to build the bulk filler of the large indexes; never for queries or the judge.
    """

    def __init__(self) -> None:
        self._vectors: dict[str, np.ndarray] = {}
        self.texts = 0

    def _vector(self, text: str) -> np.ndarray:
        vector = self._vectors.get(text)
        if vector is None:
            seed = int.from_bytes(hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest(), "little")
            vector = np.random.default_rng(seed).standard_normal(DIMENSIONS).astype(np.float32)
            vector /= np.linalg.norm(vector)
            self._vectors[text] = vector
        return vector

    def embed(self, texts, *, batch_size: int = 64) -> np.ndarray:
        self.texts += len(texts)
        if not texts:
            return np.zeros((0, DIMENSIONS), dtype=np.float32)
        return np.stack([self._vector(text) for text in texts])

    def prime(self, texts, vectors) -> None:  # the KnowledgeBase never calls it while ingesting
        pass


def vector_memory(embedder: Any) -> Any:
    """An embedder's memory of vectors: `cache` now, the private `_cache` in versions before it."""
    memory = getattr(embedder, "cache", None)
    return memory if memory is not None else embedder._cache


def forget_vectors(embedder: Any) -> None:
    """Empty an embedder's memory of vectors (in any version of the code)."""
    lock = getattr(embedder, "_cache_lock", None)
    if lock is None:
        vector_memory(embedder).clear()
        return
    with lock:
        vector_memory(embedder).clear()


def load_articles(data_dir: Path) -> list[tuple[str, list[str]]]:
    """(article title, its unique evidence sentences) from Climate-FEVER, sorted for reproducibility."""
    path = data_dir / DATA_FILE
    if not path.exists():
        raise SystemExit(f"{path} not found: pass --data-dir, the folder holding {DATA_FILE}")
    articles: dict[str, dict[str, None]] = defaultdict(dict)
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            text = " ".join(row["evidence"].split())
            if text:
                articles[row["meta"].get("article") or "Untitled"][text] = None
    return [(title, list(sentences)) for title, sentences in sorted(articles.items())]


def data_fingerprint(data_dir: Path) -> str:
    """SHA-256 prefix of the data file (recorded with every cached index)."""
    digest = hashlib.sha256((data_dir / DATA_FILE).read_bytes()).hexdigest()
    return digest[:12]


def documents(articles: list[tuple[str, list[str]]], seed: int, *, prefix: str, limit_sentences: int | None = None):
    """Endless Markdown documents of 800-2,500 words made of article sections.

    Pass p over the data shuffles the article order and each article's sentences with
    Random((seed, p)), so later passes produce different chunks from the same sentences.
    Yields (key, text). With `limit_sentences`, stops after that many sentences (first pass only);
    without it the generator never ends: the caller stops it.
    """
    number, used = 0, 0
    for epoch in range(10**9):
        rng = random.Random(f"{seed}:{epoch}")
        order = list(range(len(articles)))
        rng.shuffle(order)
        sections, words, target = [], 0, rng.randint(800, 2500)
        for index in order:
            title, sentences = articles[index]
            sentences = sentences[:]
            if epoch:
                rng.shuffle(sentences)
            if limit_sentences is not None:
                sentences = sentences[:max(0, limit_sentences - used)]
                if not sentences:
                    break
            used += len(sentences)
            body = " ".join(sentences)
            sections.append(f"## {title}\n\n{body}\n")
            words += len(body.split())
            if words >= target:
                number += 1
                yield f"{prefix}{number:06d}.md", f"# {prefix}{number:06d}\n\n" + "\n".join(sections)
                sections, words, target = [], 0, rng.randint(800, 2500)
        if sections:
            number += 1
            yield f"{prefix}{number:06d}.md", f"# {prefix}{number:06d}\n\n" + "\n".join(sections)
        if limit_sentences is not None:
            return


def memory_source(key: str, text: str):
    """A `Source` served from memory (no file is written)."""
    from veracity.kb.sources import Source

    data = text.encode("utf-8")
    return Source(key=key, name=key.rsplit(":", 1)[-1], kind="markdown", size=len(data), mtime=None,
                  opener=lambda data=data: io.BytesIO(data))


def filler_sources(articles, target_chunks: int, seed: int) -> list:
    """Documents holding exactly `target_chunks` chunks (default chunk settings)."""
    from veracity.kb.chunking import ChunkSettings, chunk_text

    settings = ChunkSettings()
    sources, total = [], 0
    for key, text in documents(articles, seed, prefix="bench-filler:"):
        if total >= target_chunks:
            break
        chunks = chunk_text(text, settings)
        remaining = target_chunks - total
        if len(chunks) > remaining:
            text = text[:chunks[remaining - 1].end]
            chunks = chunk_text(text, settings)
            if len(chunks) != remaining:
                raise RuntimeError(f"could not cut a filler document to {remaining} chunks ({len(chunks)})")
        sources.append(memory_source(key, text))
        total += len(chunks)
    return sources


# --------------------------------------------------------------------------- helpers


def percentile(values: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(values, dtype=float), q))


def summarise(values: list[float]) -> dict:
    return {
        "n": len(values), "p50": percentile(values, 50), "p95": percentile(values, 95),
        "mean": statistics.fmean(values), "min": min(values), "max": max(values),
    }


def heavy_processes() -> list[str]:
    """Other processes running pytest or a benchmark script (they distort timings on 2 cores)."""
    found = []
    me = os.getpid()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == me:
            continue
        try:
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
        except OSError:
            continue
        if any(word in command for word in ("pytest", "offline_judge.py", "latency.py")) or (
            "benchmarks/offline.py" in command and "--_child" not in command and int(entry.name) != os.getppid()
        ):
            found.append(f"{entry.name}: {command[:120]}")
    return found


def loadavg() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "n/a"


def run_child(args: list[str], *, env: dict | None = None, timeout: float | None = None) -> dict:
    """Run a command, return its exit code, wall time, peak RSS (from wait4) and stdout/stderr."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        process = subprocess.Popen(args, stdout=out, stderr=err, env=env, cwd=ROOT)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return {
            "rc": process.returncode, "wall_s": wall, "max_rss_mib": usage.ru_maxrss / 1024,
            "user_s": usage.ru_utime, "sys_s": usage.ru_stime,
            "stdout": out.read().decode(errors="replace"), "stderr": err.read().decode(errors="replace"),
        }


def child(mode: str, config: dict, quiet_errors: bool = False) -> dict:
    """Run this script in `mode` in a fresh process; return its JSON result plus the process' peak RSS."""
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as handle:
        result_path = handle.name
    try:
        env = {**os.environ, "LANGSMITH_TRACING": "false", "LANGCHAIN_TRACING_V2": "false"}
        run = run_child([sys.executable, str(Path(__file__).resolve()), "--_child", mode, json.dumps(config),
                         result_path], env=env)
        if run["rc"] != 0:
            raise SystemExit(f"child {mode} failed (exit {run['rc']}):\n{run['stderr'][-4000:]}")
        result = json.loads(Path(result_path).read_text())
    finally:
        Path(result_path).unlink(missing_ok=True)
    result["process"] = {k: run[k] for k in ("wall_s", "max_rss_mib", "user_s", "sys_s")}
    if run["stderr"].strip() and not quiet_errors:
        sys.stderr.write(run["stderr"])
    return result


def log(message: str) -> None:
    print(f"[offline-bench {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------- children


def child_ingest(config: dict) -> dict:
    """Ingest throughput with the real embedder, in this fresh process."""
    from veracity.kb import KnowledgeBase
    from veracity.offline.model.embedder import Embedder, default_embedder

    articles = load_articles(Path(config["data_dir"]))
    limit = config["sentences"] or sum(len(sentences) for _, sentences in articles)  # default: one pass, all of them
    sources = [memory_source(key, text) for key, text in
               documents(articles, config["seed"], prefix="bench-ingest:", limit_sentences=limit)]
    from veracity.offline.model import embedder as embedder_module

    # Load, before the clock starts, the embedder ingest uses (a separate multi-core one where the
    # package has `bulk_embedder`) and the one checks use.
    bulk = getattr(embedder_module, "bulk_embedder", default_embedder)()
    bulk.embed(["Warm-up sentence for the embedder."])
    embedder = default_embedder()
    embedder.embed(["Another warm-up sentence."])
    calls = {"texts": 0, "batches": 0}
    original_run = Embedder._run

    def counting_run(self, texts):
        calls["texts"] += len(texts)
        calls["batches"] += 1
        return original_run(self, texts)

    Embedder._run = counting_run
    with tempfile.TemporaryDirectory(prefix="veracity-ingest-") as folder:
        kb = KnowledgeBase(Path(folder) / "kb")
        started, cpu = time.perf_counter(), time.process_time()
        report = kb.ingest_sources(sources)
        wall, cpu = time.perf_counter() - started, time.process_time() - cpu
        stats = kb.stats()
    Embedder._run = original_run
    claims = list(dict.fromkeys(
        sentence.text for paragraph in PARAGRAPHS for sentence in _split(paragraph)))
    query_ms = []
    for claim in claims:  # distinct texts: every one is a cache miss
        began = time.perf_counter()
        embedder.embed([claim])
        query_ms.append((time.perf_counter() - began) * 1000)
    # The embedder alone on corpus sentences: 256 unique ingested sentences, cache emptied first.
    sample = list(dict.fromkeys(
        sentence.text for source in sources for sentence in _split(source.open().read().decode())))[:256]
    forget_vectors(bulk)
    began = time.perf_counter()
    bulk.embed(sample)
    sample_seconds = time.perf_counter() - began
    tokens = sum(sum(e.attention_mask) for e in bulk._tokenizer.encode_batch(sample))
    return {
        "query_embed_ms_p50": percentile(query_ms, 50), "query_embed_n": len(query_ms),
        "sample_sentences": len(sample), "sample_per_s": len(sample) / sample_seconds,
        "sample_tokens_per_s": tokens / sample_seconds, "sample_mean_tokens": tokens / max(1, len(sample)),
        "documents": stats.documents, "chunks": stats.chunks, "sentences": stats.sentences,
        "embedded_texts": calls["texts"], "onnx_batches": calls["batches"], "seconds": wall, "cpu_s": cpu,
        "chunks_per_s": stats.chunks / wall, "sentences_per_s": stats.sentences / wall,
        "embedded_per_s": calls["texts"] / wall, "words": sum(len(s.open().read().split()) for s in sources),
        "added": len(report.with_status("added")), "size_bytes": stats.size_bytes,
    }


def _split(text: str) -> list:
    from veracity.sentences import split_sentences

    return split_sentences(text)


class _Progress:
    """Logs filler ingest progress to stderr about every 10,000 chunks."""

    def __init__(self, total: int) -> None:
        from veracity.kb.ingest import IngestProgress

        class Progress(IngestProgress):
            def __init__(inner) -> None:
                inner.done, inner.next, inner.started_at = 0, 10_000, time.perf_counter()

            def chunks_indexed(inner, key: str, count: int) -> None:
                inner.done += count
                if inner.done >= inner.next:
                    inner.next += 10_000
                    rate = inner.done / (time.perf_counter() - inner.started_at)
                    log(f"  filler: {inner.done:,}/{total:,} chunks ({rate:,.0f} chunks/s)")

        self.progress = Progress()


def child_build(config: dict) -> dict:
    """Build a knowledge base of exactly config['size'] chunks: demo notes (real embedder) + filler (stand-in)."""
    from veracity.kb import KnowledgeBase
    from veracity.kb.sources import demo_sources

    path = Path(config["path"])
    started = time.perf_counter()
    demo = KnowledgeBase(path).ingest_sources(demo_sources())
    demo_seconds = time.perf_counter() - started
    demo_chunks = KnowledgeBase(path).stats().chunks
    filler_chunks = config["size"] - demo_chunks
    stand_in = StandInEmbedder()
    filler_seconds = 0.0
    documents_count = 0
    if filler_chunks > 0:
        articles = load_articles(Path(config["data_dir"]))
        generated = time.perf_counter()
        sources = filler_sources(articles, filler_chunks, config["seed"])
        generate_seconds = time.perf_counter() - generated
        documents_count = len(sources)
        log(f"  {len(sources):,} filler documents generated in {generate_seconds:.1f} s; ingesting with the stand-in")
        began = time.perf_counter()
        KnowledgeBase(path, embedder=stand_in).ingest_sources(sources, progress=_Progress(filler_chunks).progress)
        filler_seconds = time.perf_counter() - began
    stats = KnowledgeBase(path).stats()
    if stats.chunks != config["size"]:
        raise RuntimeError(f"built {stats.chunks} chunks, wanted {config['size']}")
    return {
        "size": config["size"], "chunks": stats.chunks, "documents": stats.documents, "sentences": stats.sentences,
        "size_bytes": stats.size_bytes, "demo_chunks": demo_chunks, "demo_documents": len(demo.results),
        "demo_seconds": demo_seconds, "filler_chunks": max(filler_chunks, 0), "filler_documents": documents_count,
        "filler_seconds": filler_seconds, "stand_in_texts": stand_in.texts,
        "stand_in_unique_texts": len(stand_in._vectors), "seed": config["seed"],
        "data_sha256_12": config["data_sha"], "build_version": BUILD_VERSION,
        "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }


class Recorder:
    """Per-check time per component, from wrappers around the offline pipeline's functions."""

    def __init__(self) -> None:
        self.local = threading.local()
        self.lock = threading.Lock()
        self.times: dict[str, float] = defaultdict(float)
        self.counts: dict[str, int] = defaultdict(int)

    def reset(self) -> None:
        self.times, self.counts = defaultdict(float), defaultdict(int)

    def add(self, name: str, seconds: float, count: int = 1) -> None:
        with self.lock:
            self.times[name] += seconds
            self.counts[name] += count

    def context(self) -> str:
        return getattr(self.local, "context", "other")

    def wrap(self, owner, attribute: str, name: str | None = None, *, sets_context: str | None = None,
             contextual: bool = False, count=None) -> None:
        original = getattr(owner, attribute)
        recorder = self

        def wrapper(*args, **kwargs):
            label = f"{recorder.context()}.{name}" if contextual else name
            previous = getattr(recorder.local, "context", "other")
            if sets_context:
                recorder.local.context = sets_context
            started = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                recorder.add(label, time.perf_counter() - started, count(args) if count else 1)
                recorder.local.context = previous

        setattr(owner, attribute, wrapper)


def install_recorder() -> Recorder:
    from veracity.kb.index import IndexReader
    from veracity.kb.lexical import LexicalIndex
    from veracity.kb.store import KnowledgeBase
    from veracity.offline import extractor
    from veracity.offline.judge.base import PassageJudge
    from veracity.offline.model.embedder import Embedder
    from veracity.offline.model.entailment import EntailmentModel

    recorder = Recorder()
    recorder.wrap(extractor, "extract_claims_offline", "extract", sets_context="extract")
    recorder.wrap(KnowledgeBase, "search", "search", sets_context="search")
    recorder.wrap(IndexReader, "rank", "search.rank")
    recorder.wrap(LexicalIndex, "search", "search.bm25")
    recorder.wrap(IndexReader, "candidates", "search.hits")
    recorder.wrap(PassageJudge, "judge", "judge", sets_context="judge")
    recorder.wrap(Embedder, "embed", "embed", contextual=True, count=lambda a: len(a[1]))
    recorder.wrap(Embedder, "_run", "onnx", contextual=True, count=lambda a: len(a[1]))
    recorder.wrap(Embedder, "prime", "prime", contextual=True, count=lambda a: len(a[1]))
    recorder.wrap(EntailmentModel, "predict", "entail", contextual=True, count=lambda a: len(a[1]))
    return recorder


def count_embedders() -> list:
    """Wrap `Embedder.__init__` to keep (weak references to) every embedder the process creates."""
    import weakref

    from veracity.offline.model.embedder import Embedder

    made: list = []
    original = Embedder.__init__

    def init(self, *args, **kwargs):
        made.append(weakref.ref(self))
        original(self, *args, **kwargs)

    Embedder.__init__ = init
    return made


def profiled_pass(one, paragraphs: list[str]) -> tuple[list[dict], str]:
    """One pass under cProfile: the main thread, plus every kb search and judge call in its worker thread.

    cProfile sees only the thread it is enabled in, so the two functions that run in worker threads
    get a profiler of their own per call; all the profiles are merged.
    """
    import cProfile
    import pstats

    from veracity.kb.store import KnowledgeBase
    from veracity.offline.judge.base import PassageJudge

    thread_profiles: list[cProfile.Profile] = []
    originals = {(KnowledgeBase, "search"): KnowledgeBase.search, (PassageJudge, "judge"): PassageJudge.judge}

    def profiled(function):
        def wrapper(*args, **kwargs):
            profiler = cProfile.Profile()
            thread_profiles.append(profiler)
            return profiler.runcall(function, *args, **kwargs)

        return wrapper

    for (owner, attribute), function in originals.items():
        setattr(owner, attribute, profiled(function))
    main = cProfile.Profile()
    main.enable()
    try:
        runs = [one(text) for text in paragraphs]
    finally:
        main.disable()
        for (owner, attribute), function in originals.items():
            setattr(owner, attribute, function)
    stream = io.StringIO()
    stats = pstats.Stats(main, stream=stream)
    for profiler in thread_profiles:
        stats.add(profiler)
    stats.strip_dirs()
    stream.write(f"{len(paragraphs)} checks; main thread + {len(thread_profiles)} worker-thread calls merged\n")
    stats.sort_stats("tottime").print_stats(25)
    stats.sort_stats("cumulative").print_stats(30)
    return runs, stream.getvalue()


def isolated_costs(kb_path: str, paragraphs: list[str]) -> dict:
    """Each step of one claim's branch timed alone, one claim at a time, in this (warm) process.

    Per claim of the paragraphs: ONNX inference of the claim alone (`Embedder._run`, never cached),
    the FAISS search and the BM25 search of `IndexReader.rank` (same candidate pool), the chunk
    fetch (`hits`), the whole `KnowledgeBase.search`, and the offline judge's `judge` on the 5 hits just
    found (their sentence vectors primed by that search, as in a check). Medians in ms.
    """
    from veracity.contracts import Evidence
    from veracity.kb.index import CANDIDATES
    from veracity.offline.extract import extract_claims_offline
    from veracity.offline.plugin import shipped_judge
    from veracity.resources import _knowledge_base

    kb = _knowledge_base(kb_path).knowledge_base
    judge = shipped_judge()
    reader = kb.load()
    embedder = kb.embedder
    limit = 5
    pool = min(reader.manifest.chunks, max(CANDIDATES, 5 * limit))
    times: dict[str, list[float]] = defaultdict(list)

    def timed(name: str, function, *args):
        began = time.perf_counter()
        value = function(*args)
        times[name].append((time.perf_counter() - began) * 1000)
        return value

    claims = [c["claim"] for text in paragraphs for c in extract_claims_offline(text)["claims"]]
    for claim in claims:
        vector = timed("embed_claim_onnx", embedder._run, [claim])[0]
        timed("faiss", reader._dense.search, vector.reshape(1, -1).astype(np.float32), pool)
        timed("bm25", reader._lexical.search, claim, pool)
        ranked = timed("rank", reader.rank, claim, vector, limit)
        timed("hits", reader.candidates, ranked)
        hits = timed("kb_search", kb.search, claim, limit)
        evidence = [Evidence(id=f"c1-e{i}", claim_id="c1", backend="kb", **hit.model_dump())
                    for i, hit in enumerate(hits, start=1)]
        timed("judge", judge.judge, claim, evidence)
    result = {name: percentile(values, 50) for name, values in times.items()}
    result["claims"] = len(claims)
    result["same_embedder"] = kb.embedder is judge.embedder
    return result


def child_check(config: dict) -> dict:
    """Warm check latency against one knowledge base, in this fresh process."""
    import_started = time.perf_counter()
    import veracity
    from veracity.offline.model.embedder import default_embedder
    from veracity.offline.model.entailment import default_entailment_model

    import_seconds = time.perf_counter() - import_started
    embedders = count_embedders()
    recorder = install_recorder() if config["breakdown"] else None
    if config.get("preload"):
        default_embedder()  # created here, in the main thread, before any check
        default_entailment_model()
    kb_path = config["kb"]
    paragraphs = PARAGRAPHS[:config["paragraphs"]]

    def one(text: str) -> dict:
        if recorder:
            recorder.reset()
        started, cpu = time.perf_counter(), time.process_time()
        report = veracity.check(text, model="offline", search="kb", kb_path=kb_path)
        wall, cpu = time.perf_counter() - started, time.process_time() - cpu
        summary = report.summary
        if summary.claims != CLAIMS_PER_PARAGRAPH:
            raise SystemExit(f"expected {CLAIMS_PER_PARAGRAPH} claims, got {summary.claims}: {text!r}")
        run = {
            "wall_ms": wall * 1000, "cpu_ms": cpu * 1000, "ok": report.ok, "supported": summary.supported,
            "refuted": summary.refuted, "unverifiable": summary.unverifiable, "failures": len(report.failures),
            "evidence": len(report.evidence),
            "filler_evidence": sum(1 for e in report.evidence if (e.url or "").startswith("bench-filler:")),
        }
        if recorder:
            run["components_ms"] = {k: v * 1000 for k, v in recorder.times.items()}
            run["component_counts"] = dict(recorder.counts)
        return run

    def forget_judgements() -> None:
        from veracity.offline.plugin import shipped_judge

        shipped_judge()._judgements.clear()

    started = time.perf_counter()
    warmup = one(WARMUP_PARAGRAPH)
    warmup["wall_ms_total"] = (time.perf_counter() - started) * 1000
    profile_text = None
    passes: dict[str, list[dict]] = {}
    if config.get("profile"):
        passes["first"], profile_text = profiled_pass(one, paragraphs)
    else:
        passes["first"] = [one(text) for text in paragraphs]
        for _ in range(config["rounds"] - 1):
            passes.setdefault("repeated", []).extend(one(text) for text in paragraphs)
        if config["cold_pass"]:
            runs = []
            for text in paragraphs:
                for reference in embedders:  # every instance: the kb's and the judge's may differ
                    if (embedder := reference()) is not None:
                        forget_vectors(embedder)
                forget_judgements()  # the judge's own memory of claims it has judged, too
                runs.append(one(text))
            passes["cold_cache"] = runs
    isolated = isolated_costs(kb_path, paragraphs) if config.get("isolated") else None
    import resource

    from veracity.offline.plugin import shipped_judge
    from veracity.resources import _knowledge_base

    kb_embedder = _knowledge_base(kb_path).knowledge_base.embedder
    judge_embedder = shipped_judge().embedder
    return {
        "kb": kb_path, "import_s": import_seconds, "warmup": warmup, "passes": passes,
        "self_max_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "profile": profile_text, "embedder_cache_entries": len(vector_memory(judge_embedder)),
        "embedders_created": len(embedders), "kb_and_judge_share_embedder": kb_embedder is judge_embedder,
        "preload": bool(config.get("preload")), "isolated": isolated,
    }


# --------------------------------------------------------------------------- parent


def kb_folder(cache: Path, size: int, seed: int) -> Path:
    return cache / f"kb-{size}-s{seed}-{BUILD_VERSION}"


def ensure_kb(args: argparse.Namespace, size: int, data_sha: str) -> dict:
    """A cached knowledge base of `size` chunks (built in a child process when missing or stale)."""
    path = kb_folder(args.cache_dir, size, args.seed)
    info_path = path.with_name(path.name + ".json")
    if not args.rebuild and info_path.exists() and path.exists():
        info = json.loads(info_path.read_text())
        if info.get("data_sha256_12") == data_sha and info.get("chunks") == size:
            info["cached"] = True
            info["path"] = str(path)
            return info
    shutil.rmtree(path, ignore_errors=True)
    info_path.unlink(missing_ok=True)
    args.cache_dir.mkdir(parents=True, exist_ok=True)
    log(f"building the {size:,}-chunk knowledge base in {path} (demo notes: real embedder; filler: stand-in)")
    info = child("build", {"path": str(path), "size": size, "seed": args.seed, "data_dir": str(args.data_dir),
                           "data_sha": data_sha})
    info_path.write_text(json.dumps(info, indent=2))
    info["cached"] = False
    info["path"] = str(path)
    return info


def ensure_demo_kb(args: argparse.Namespace) -> Path:
    """A knowledge base holding only the demo notes (real embedder), for the CLI cold start."""
    path = args.cache_dir / f"kb-demo-{BUILD_VERSION}"
    if args.rebuild or not (path / "manifest.json").exists():
        shutil.rmtree(path, ignore_errors=True)
        args.cache_dir.mkdir(parents=True, exist_ok=True)
        code = "import sys; from veracity.kb import KnowledgeBase, ensure_demo; ensure_demo(KnowledgeBase(sys.argv[1]))"
        subprocess.run([sys.executable, "-c", code, str(path)], check=True, cwd=ROOT)
    return path


def cli_cold_start(args: argparse.Namespace, demo_kb: Path) -> dict:
    veracity_bin = Path(sys.executable).with_name("veracity")
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "TAVILY_API_KEY")}
    env.update(LANGSMITH_TRACING="false", LANGCHAIN_TRACING_V2="false")
    commands = {
        "check": [str(veracity_bin), "check", CLI_CLAIM, "--model", "offline", "--search", "kb", "--kb", str(demo_kb)],
        "check5": [str(veracity_bin), "check", PARAGRAPHS[0], "--model", "offline", "--search", "kb", "--kb",
                   str(demo_kb)],
        "help": [str(veracity_bin), "--help"],
        "import": [sys.executable, "-c", "import veracity"],
    }
    results = {}
    for name, command in commands.items():
        warm = run_child(command, env=env)  # untimed: warms the page cache
        if name.startswith("check") and warm["rc"] not in (0, 1):
            raise SystemExit(f"`{' '.join(command)}` exited {warm['rc']}:\n{warm['stderr'][-2000:]}")
        runs = [run_child(command, env=env) for _ in range(args.cli_runs)]
        results[name] = {
            "command": " ".join(command), "runs_s": [r["wall_s"] for r in runs],
            "median_s": statistics.median(r["wall_s"] for r in runs),
            "max_rss_mib": max(r["max_rss_mib"] for r in runs), "exit_codes": sorted({r["rc"] for r in runs}),
            "cpu_s": statistics.median(r["user_s"] + r["sys_s"] for r in runs),
        }
        if name.startswith("check"):
            results[name]["stdout_tail"] = runs[-1]["stdout"].strip().splitlines()[-1:] if runs[-1]["stdout"] else []
    results["check"]["pass"] = results["check"]["median_s"] <= TARGET_CLI_S
    return results


def revision() -> dict:
    def git(*command: str) -> str:
        try:
            return subprocess.run(["git", *command], cwd=ROOT, capture_output=True, text=True, check=True).stdout
        except (OSError, subprocess.CalledProcessError):
            return ""

    status = git("status", "--porcelain")
    judge = ROOT / "src" / "veracity" / "offline" / "entailment_judge.py"
    judge_info = None
    if judge.exists():
        judge_info = {
            "mtime": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(judge.stat().st_mtime)),
            "sha256_12": hashlib.sha256(judge.read_bytes()).hexdigest()[:12],
            "git_status": (git("status", "--porcelain", "--", str(judge)).strip() or "tracked, unmodified"),
        }
    assets = ROOT / "src" / "veracity" / "offline" / "assets" / "entailment"
    model = {
        "sha256_12": hashlib.sha256((assets / "model.int8.onnx").read_bytes()).hexdigest()[:12],
        "judge_settings": json.loads((assets / "config.json").read_text())["judge"],
    }
    return {
        "entailment_model": model,
        "head": git("rev-parse", "--short", "HEAD").strip() or None,
        "head_subject": git("log", "-1", "--format=%s").strip(),
        "dirty": bool(status.strip()),
        "dirty_src": [line for line in status.splitlines() if line[3:].startswith("src/")],
        "offline_judge": judge_info,
    }


def machine() -> dict:
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory = None
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                memory = round(int(line.split()[1]) / 1024 / 1024, 1)
    except OSError:
        pass
    import faiss
    import onnxruntime

    return {
        "cpus": os.cpu_count(), "cpu_model": cpu, "memory_gib": memory, "python": platform.python_version(),
        "platform": platform.platform(), "faiss": faiss.__version__, "onnxruntime": onnxruntime.__version__,
        "numpy": np.__version__, "PYTHONDONTWRITEBYTECODE": os.environ.get("PYTHONDONTWRITEBYTECODE", ""),
    }


BREAKDOWN_ROWS = [
    ("extract", "claim splitting (offline extractor)"),
    ("search", "kb search, total (5 claims)"),
    ("search.embed", "  query embedding (`Embedder.embed`)"),
    ("search.bm25", "  BM25 (`LexicalIndex.search`)"),
    ("search.dense", "  FAISS flat search + fusion (`rank` − BM25)"),
    ("search.hits", "  chunk fetch, sentence split, vectors (`hits`)"),
    ("search.prime", "  embedder cache priming (`prime`)"),
    ("judge", "offline judge, total (5 claims)"),
    ("judge.embed", "  embedding (`Embedder.embed`, cache hits and misses)"),
    ("judge.onnx", "    of which ONNX runs for cache misses"),
    ("judge.entail", "  entailment model (`EntailmentModel.predict`, one batch per claim)"),
    ("judge.rest", "  passages, lexical signals, decision"),
    ("other", "rest: graph build, gates, evaluation, threads (wall − above, may be < 0)"),
]


def breakdown(runs: list[dict]) -> dict | None:
    """Mean ms per check of each component (and mean ONNX texts per check)."""
    if not runs or "components_ms" not in runs[0]:
        return None
    def mean(key: str) -> float:
        return statistics.fmean(r["components_ms"].get(key, 0.0) for r in runs)

    def count(key: str) -> float:
        return statistics.fmean(r["component_counts"].get(key, 0) for r in runs)

    rows = {
        "extract": mean("extract"), "search": mean("search"), "search.embed": mean("search.embed"),
        "search.bm25": mean("search.bm25"), "search.dense": mean("search.rank") - mean("search.bm25"),
        "search.hits": mean("search.hits"), "search.prime": mean("search.prime"), "judge": mean("judge"),
        "judge.embed": mean("judge.embed"), "judge.onnx": mean("judge.onnx"), "judge.entail": mean("judge.entail"),
        "judge.rest": mean("judge") - mean("judge.embed") - mean("judge.entail"),
    }
    wall = statistics.fmean(r["wall_ms"] for r in runs)
    rows["other"] = wall - rows["extract"] - rows["search"] - rows["judge"]
    return {
        "ms": rows, "wall_ms": wall, "cpu_ms": statistics.fmean(r["cpu_ms"] for r in runs),
        "onnx_texts_search": count("search.onnx"), "onnx_texts_judge": count("judge.onnx"),
        "judge_embed_texts": count("judge.embed"), "judge_entail_pairs": count("judge.entail"),
    }


def check_row(size: int, variant: str, info: dict, measured: dict) -> dict:
    """Summary of one check child: per pass p50/p95 etc., labels, breakdown."""
    row = {"size": size, "variant": variant, "kb": info, "import_s": measured["import_s"],
           "warmup": measured["warmup"], "max_rss_mib": measured["process"]["max_rss_mib"], "passes": {},
           "breakdown": {}, "embedder_cache_entries": measured["embedder_cache_entries"],
           "embedders_created": measured["embedders_created"],
           "kb_and_judge_share_embedder": measured["kb_and_judge_share_embedder"],
           "isolated": measured.get("isolated")}
    for name, runs in measured["passes"].items():
        walls = [r["wall_ms"] for r in runs]
        evidence = sum(r["evidence"] for r in runs)
        row["passes"][name] = {
            **summarise(walls), "cpu_ms_p50": percentile([r["cpu_ms"] for r in runs], 50),
            "labels": {k: sum(r[k] for r in runs) for k in ("supported", "refuted", "unverifiable")},
            "not_ok": sum(1 for r in runs if not r["ok"]), "failures": sum(r["failures"] for r in runs),
            "filler_evidence_share": sum(r["filler_evidence"] for r in runs) / max(1, evidence),
            "runs_ms": [round(w, 2) for w in walls],
        }
        row["breakdown"][name] = breakdown(runs)
    if size == TARGET_SIZE:
        row["pass"] = row["passes"]["first"]["p50"] <= TARGET_P50_MS
    return row


def measure(args: argparse.Namespace) -> dict:
    started = time.time()
    result: dict = {
        "command": " ".join([".venv/bin/python", "benchmarks/offline.py", *args.argv]),
        "started_utc": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(started)),
        "machine": machine(), "revision": revision(), "concurrent": [], "loadavg": {"start": loadavg()},
        "config": {"sizes": args.sizes, "paragraphs": args.paragraphs, "rounds": args.rounds,
                   "cold_pass": args.cold_pass, "cli_runs": args.cli_runs, "seed": args.seed,
                   "variants": args.variants,
                   "ingest_sentences": args.ingest_sentences, "data_dir": str(args.data_dir),
                   "cache_dir": str(args.cache_dir)},
        "targets": {"p50_ms": TARGET_P50_MS, "at_chunks": TARGET_SIZE, "cli_s": TARGET_CLI_S},
    }

    def note_concurrency(stage: str) -> None:
        for process in heavy_processes():
            result["concurrent"].append(f"{stage}: {process}")

    data_sha = data_fingerprint(args.data_dir)
    result["data_sha256_12"] = data_sha

    # 1. ingest
    note_concurrency("ingest")
    log(f"ingest throughput: {args.ingest_sentences or 'all'} Climate-FEVER sentences, real embedder")
    ingest = child("ingest", {"data_dir": str(args.data_dir), "seed": args.seed, "sentences": args.ingest_sentences})
    result["ingest"] = ingest
    note_concurrency("ingest (end)")

    # 2. warm checks per size
    result["sizes"] = []
    for size in args.sizes:
        info = ensure_kb(args, size, data_sha)
        for variant in args.variants:
            note_concurrency(f"check {size} {variant}")
            log(f"warm checks at {size:,} chunks ({variant}): {args.paragraphs} paragraphs x {args.rounds} round(s)"
                + (" + cold-cache pass" if args.cold_pass else ""))
            measured = child("check", {"kb": info["path"], "paragraphs": args.paragraphs, "rounds": args.rounds,
                                       "cold_pass": args.cold_pass, "breakdown": not args.no_breakdown,
                                       "preload": variant == "preloaded", "isolated": variant == "preloaded"})
            note_concurrency(f"check {size} {variant} (end)")
            result["sizes"].append(check_row(size, variant, info, measured))

    # optional cProfile of a first pass
    if args.profile:
        big = [s for s in args.sizes if s >= TARGET_SIZE] or args.sizes[-1:]
        info = ensure_kb(args, big[0], data_sha)
        variant = "preloaded" if "preloaded" in args.variants else args.variants[0]
        log(f"cProfile of a first pass at {big[0]:,} chunks ({variant})")
        profiled = child("check", {"kb": info["path"], "paragraphs": args.paragraphs, "rounds": 1,
                                   "cold_pass": False, "breakdown": False, "profile": True,
                                   "preload": variant == "preloaded"})
        first = [r["wall_ms"] for r in profiled["passes"]["first"]]
        result["profile"] = {"size": big[0], "variant": variant, "first_pass_under_profiler": summarise(first),
                             "text": profiled["profile"]}

    # 3. CLI cold start
    demo_kb = ensure_demo_kb(args)
    note_concurrency("cli")
    log(f"CLI cold start: {args.cli_runs} runs each after one untimed run")
    result["cli"] = cli_cold_start(args, demo_kb)
    result["cli"]["demo_kb"] = str(demo_kb)
    note_concurrency("cli (end)")
    result["loadavg"]["end"] = loadavg()
    result["seconds"] = time.time() - started
    return result


def _ms(value: float) -> str:
    return f"{value:.0f}" if value >= 100 else f"{value:.1f}"


def markdown(result: dict) -> str:
    def ok(flag: bool) -> str:
        return "pass" if flag else "FAIL"

    m, rev, cfg = result["machine"], result["revision"], result["config"]
    judge = rev.get("offline_judge") or {}
    lines = [
        f"Command: `{result['command']}` (started {result['started_utc']} UTC, {result['seconds']:.0f} s in all).",
        f"Commit `{rev['head']}` ({rev['head_subject']!r}), tree {'dirty' if rev['dirty'] else 'clean'}"
        + (f"; src/ changes: {', '.join(line.strip() for line in rev['dirty_src'])}" if rev["dirty_src"] else "")
        + ".",
        (f"Offline judge measured: `src/veracity/offline/judge/entailment_judge.py` mtime {judge.get('mtime')}, "
        f"sha256 {judge.get('sha256_12')}…, git status: {judge.get('git_status')}; entailment model "
        f"sha256 {rev['entailment_model']['sha256_12']}…, "
        f"settings {json.dumps(rev['entailment_model']['judge_settings'])}."),
        (f"Machine: {m['cpus']} CPUs ({m['cpu_model']}), {m['memory_gib']} GiB RAM, {m['platform']}, Python "
        f"{m['python']}, onnxruntime {m['onnxruntime']}, faiss {m['faiss']}, numpy {m['numpy']}, "
        f"PYTHONDONTWRITEBYTECODE={m['PYTHONDONTWRITEBYTECODE'] or 'unset'}; "
        f"load average {result['loadavg']['start']} at start, {result['loadavg']['end']} at end."),
        "Other heavy processes seen during the run: "
        + ("; ".join(result["concurrent"]) if result["concurrent"]
           else "none (pytest, offline_judge.py, latency.py were looked for before and after each stage)."),
        "",
        "### Ingest throughput (real embedder)",
        "",
        ("| documents | words | chunks | sentence vectors stored | texts embedded (unique) | seconds | chunks/s "
        "| sentences/s | embedded texts/s | peak RSS (MiB) |"),
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    ing = result["ingest"]
    lines.append(
        f"| {ing['documents']} | {ing['words']:,} | {ing['chunks']} | {ing['sentences']:,} | {ing['embedded_texts']:,} "
        f"| {ing['seconds']:.1f} | {ing['chunks_per_s']:.1f} | {ing['sentences_per_s']:.0f} "
        f"| {ing['embedded_per_s']:.0f} | {ing['process']['max_rss_mib']:.0f} |"
    )
    lines += [
        "",
        (f"Embedders alone, same process: the checks' embedder (`default_embedder()`), one claim at a time (batch "
        f"of 1), p50 {ing['query_embed_ms_p50']:.1f} ms over {ing['query_embed_n']} distinct claims; the ingest "
        f"embedder, {ing['sample_sentences']} of the ingested sentences "
        f"(mean {ing['sample_mean_tokens']:.0f} tokens) in one `embed` call: {ing['sample_per_s']:.0f} sentences/s, "
        f"{ing['sample_tokens_per_s']:,.0f} tokens/s (unpadded)."),
        "",
        "### Warm check latency, 5-claim paragraph (`veracity.check(..., model=\"offline\", search=\"kb\")`)",
        "",
        (f"{cfg['paragraphs']} different paragraphs (5 claims each). *first*: each paragraph once, never seen by "
        f"the process; *repeated*: the same paragraphs {cfg['rounds'] - 1} more time(s), same order (embedder cache "
        "warm); "
        "*cold cache*: the paragraphs again with every embedder cache emptied before each check. "
        "*as-shipped*: the process' first call is `veracity.check` itself (the warm-up); *preloaded*: "
        "`default_embedder()` and `default_entailment_model()` were called once in the main thread before it."),
        "",
        ("| chunks in kb | variant | pass | runs | p50 (ms) | p95 (ms) | mean (ms) | max (ms) | CPU p50 (ms) "
        "| first check in process (ms) | embedders loaded | peak RSS (MiB) | p50 ≤ 300 ms at 10k |"),
        "|---:|:---|:---|---:|---:|---:|---:|---:|---:|---:|---:|---:|:---:|",
    ]
    for row in result["sizes"]:
        for name, stats in row["passes"].items():
            verdict = ok(stats["p50"] <= TARGET_P50_MS) if row["size"] == TARGET_SIZE and name == "first" else ""
            first = name == "first"
            warmup = _ms(row["warmup"]["wall_ms"]) if first else ""
            embedders = str(row["embedders_created"]) if first else ""
            rss = f"{row['max_rss_mib']:.0f}" if first else ""
            lines.append(
                f"| {row['size']:,} | {row['variant']} | {name.replace('_', ' ')} | {stats['n']} | {_ms(stats['p50'])} "
                f"| {_ms(stats['p95'])} | {_ms(stats['mean'])} | {_ms(stats['max'])} | {_ms(stats['cpu_ms_p50'])} "
                f"| {warmup} | {embedders} | {rss} | {verdict} |"
            )
    lines += [
        "",
        ("Knowledge bases (demo notes with the real embedder + filler with the stand-in embedder; labels of the "
        "first pass of the first variant, a sanity check only):"),
        "",
        ("| chunks | documents | sentence vectors | size on disk (MiB) | demo chunks | filler chunks | build (s) "
        "| first-pass labels S/R/U | evidence items from filler | reports not ok |"),
        "|---:|---:|---:|---:|---:|---:|---:|:---:|---:|---:|",
    ]
    seen = set()
    for row in result["sizes"]:
        if row["size"] in seen:
            continue
        seen.add(row["size"])
        kb, first = row["kb"], row["passes"]["first"]
        labels = first["labels"]
        lines.append(
            f"| {kb['chunks']:,} | {kb['documents']:,} | {kb['sentences']:,} | {kb['size_bytes'] / 2**20:.0f} "
            f"| {kb['demo_chunks']} | {kb['filler_chunks']:,} | {kb['demo_seconds'] + kb['filler_seconds']:.0f}"
            f"{' (cached)' if kb.get('cached') else ''} | {labels['supported']}/{labels['refuted']}/"
            f"{labels['unverifiable']} | {first['filler_evidence_share']:.0%} | {first['not_ok']} |"
        )
    rows = [row for row in result["sizes"] if row["breakdown"].get("first")]
    if rows:
        lines += [
            "",
            "### Where the time goes (first pass, mean ms per 5-claim check)",
            "",
            ("Components are summed over the 5 claims; the claims' branches run in worker threads and overlap, so "
            "the sum can exceed the wall time and the last line can be negative."),
            "",
            "| component | " + " | ".join(f"{row['size']:,} {row['variant']}" for row in rows) + " |",
            "|:---|" + "---:|" * len(rows),
        ]
        for key, label in BREAKDOWN_ROWS:
            lines.append(f"| {label} | " + " | ".join(f"{row['breakdown']['first']['ms'][key]:.1f}" for row in rows)
                         + " |")
        walls = [row["breakdown"]["first"] for row in rows]
        lines.append("| **wall (mean)** | " + " | ".join(f"**{b['wall_ms']:.1f}**" for b in walls) + " |")
        lines.append("| process CPU (mean) | " + " | ".join(f"{b['cpu_ms']:.1f}" for b in walls) + " |")
        lines.append("| texts embedded by ONNX: search / judge | "
                     + " | ".join(f"{b['onnx_texts_search']:.1f} / {b['onnx_texts_judge']:.1f}" for b in walls) + " |")
        lines.append("| texts the judge asked to embed (incl. cache hits) | "
                     + " | ".join(f"{b['judge_embed_texts']:.1f}" for b in walls) + " |")
        lines.append("| passages scored by the entailment model | "
                     + " | ".join(f"{b.get('judge_entail_pairs', 0):.1f}" for b in walls) + " |")
        lines.append("| kb search and judge share one embedder | "
                     + " | ".join("yes" if row["kb_and_judge_share_embedder"] else "**no**" for row in rows) + " |")
    iso_rows = [row for row in result["sizes"] if row.get("isolated")]
    if iso_rows:
        names = [("embed_claim_onnx", "claim embedding, ONNX, batch of 1"), ("faiss", "FAISS flat search (pool of 50)"),
                 ("bm25", "BM25 search (pool of 50)"), ("rank", "`rank`: FAISS + BM25 + fusion"),
                 ("hits", "`hits`: SQLite fetch, sentence split, vectors"),
                 ("kb_search", "whole `KnowledgeBase.search` (embedding cached)"),
                 ("judge", "the offline judge's `judge` on the 5 hits (sentences primed)")]
        lines += [
            "",
            "### One claim's steps timed alone (median ms per claim, one at a time, no concurrency)",
            "",
            (f"Over the {iso_rows[0]['isolated']['claims']} claims of the paragraphs, in the preloaded process after "
            "its passes. A 5-claim check runs 5 such branches on 2 cores, plus graph work."),
            "",
            "| step | " + " | ".join(f"{row['size']:,} chunks" for row in iso_rows) + " |",
            "|:---|" + "---:|" * len(iso_rows),
        ]
        for key, label in names:
            lines.append(f"| {label} | " + " | ".join(f"{row['isolated'][key]:.2f}" for row in iso_rows) + " |")
    cli = result["cli"]
    lines += [
        "",
        "### CLI cold start (fresh process each run, demo-only knowledge base)",
        "",
        "| command | runs | median (s) | runs (s) | CPU median (s) | peak RSS (MiB) | exit | ≤ 3 s |",
        "|:---|---:|---:|:---|---:|---:|:---:|:---:|",
    ]
    labels = {
        "check": f"`veracity check \"{CLI_CLAIM}\" --model offline --search kb --kb DEMO`",
        "check5": "the same with a 5-claim paragraph (paragraph 1 above)",
        "help": "`veracity --help`", "import": "`python -c \"import veracity\"`",
    }
    for name, label in labels.items():
        if name not in cli:
            continue
        c = cli[name]
        lines.append(
            f"| {label} | {len(c['runs_s'])} | {c['median_s']:.2f} | {', '.join(f'{s:.2f}' for s in c['runs_s'])} "
            f"| {c['cpu_s']:.2f} | {c['max_rss_mib']:.0f} | {','.join(map(str, c['exit_codes']))} "
            f"| {ok(c['pass']) if name == 'check' else ''} |"
        )
    target_rows = [row for row in result["sizes"] if row["size"] == TARGET_SIZE]
    lines += ["", "### Targets", ""]
    if target_rows:
        for row in target_rows:
            first = row["passes"]["first"]
            binding = " (the target is judged on this one)" if row["variant"] == "as-shipped" else " (for comparison)"
            lines.append(f"- 5-claim warm check p50 ≤ {TARGET_P50_MS:.0f} ms at {TARGET_SIZE:,} chunks, first pass, "
                         f"{row['variant']}{binding}: {first['p50']:.0f} ms, **{ok(row['pass'])}**.")
    else:
        lines.append(f"- 5-claim warm check at {TARGET_SIZE:,} chunks: not measured in this run (see --sizes).")
    lines.append(f"- CLI cold start ≤ {TARGET_CLI_S:.0f} s (median, 1 claim): {cli['check']['median_s']:.2f} s, "
                 f"**{ok(cli['check']['pass'])}**.")
    if result.get("profile"):
        profile = result["profile"]
        first = profile["first_pass_under_profiler"]
        lines += [
            "",
            (f"### cProfile, first pass at {profile['size']:,} chunks, {profile['variant']} "
            f"(p50 under the profiler {first['p50']:.0f} ms)"),
            "",
            "```",
            profile["text"].strip(),
            "```",
        ]
    return "\n".join(lines)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000,100000", help="knowledge-base sizes in chunks, comma-separated")
    parser.add_argument("--paragraphs", type=int, default=len(PARAGRAPHS),
                        help=f"different 5-claim paragraphs per pass (at most {len(PARAGRAPHS)})")
    parser.add_argument("--rounds", type=int, default=3, help="passes over the paragraphs: 1 first + (N-1) repeated")
    parser.add_argument("--no-cold-pass", dest="cold_pass", action="store_false",
                        help="skip the pass with the embedder cache emptied before each check")
    parser.add_argument("--no-breakdown", action="store_true", help="do not wrap pipeline functions with timers")
    parser.add_argument("--variants", default="as-shipped,preloaded",
                        help="as-shipped: the process' first call is veracity.check itself; preloaded: "
                             "default_embedder() is called in the main thread before it (comma-separated)")
    parser.add_argument("--profile", action="store_true",
                        help="add a cProfile run of a first pass at the first size >= 10k chunks (preloaded variant)")
    parser.add_argument("--cli-runs", type=int, default=5, help="timed runs of each CLI command (median reported)")
    parser.add_argument("--ingest-sentences", type=int, default=None,
                        help="Climate-FEVER sentences to ingest for the throughput figure (default: all)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA_DIR, help=f"folder holding {DATA_FILE}")
    parser.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE_DIR,
                        help="where built knowledge bases are kept between runs (never the repository)")
    parser.add_argument("--rebuild", action="store_true", help="rebuild the cached knowledge bases")
    parser.add_argument("--build-only", action="store_true", help="build the cached knowledge bases, then stop")
    parser.add_argument("--quick", action="store_true",
                        help="smoke run: 1k chunks, 5 paragraphs x 2 rounds, 600 ingest sentences, 2 CLI runs")
    parser.add_argument("--json", action="store_true", help="print JSON instead of Markdown")
    parser.add_argument("--save-json", type=Path, default=None, help="also write the full JSON result to this file")
    args = parser.parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)
    if args.quick:
        args.sizes, args.paragraphs, args.rounds, args.cli_runs = "1000", 5, 2, 2
        args.ingest_sentences = args.ingest_sentences or 600
    args.sizes = [int(s.replace("_", "")) for s in str(args.sizes).split(",") if s.strip()]
    args.variants = [v.strip() for v in str(args.variants).split(",") if v.strip()]
    if not args.variants or set(args.variants) - {"as-shipped", "preloaded"}:
        parser.error("--variants takes as-shipped and/or preloaded")
    if not 1 <= args.paragraphs <= len(PARAGRAPHS) or args.rounds < 1 or args.cli_runs < 1:
        parser.error(f"--paragraphs must be 1..{len(PARAGRAPHS)}, --rounds and --cli-runs >= 1")
    if any(size < 100 for size in args.sizes):
        parser.error("every size must be at least 100 chunks (the demo notes alone are 18)")
    args.data_dir = args.data_dir.resolve()
    args.cache_dir = args.cache_dir.expanduser().resolve()
    if ROOT in args.cache_dir.parents or args.cache_dir == ROOT:
        parser.error("--cache-dir must be outside the repository")
    return args


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--_child"]:
        mode, config, out = argv[1], json.loads(argv[2]), argv[3]
        handler = {"ingest": child_ingest, "build": child_build, "check": child_check}[mode]
        Path(out).write_text(json.dumps(handler(config)))
        return 0
    os.environ["LANGSMITH_TRACING"] = "false"
    os.environ["LANGCHAIN_TRACING_V2"] = "false"
    args = parse_args(argv)
    if args.build_only:
        data_sha = data_fingerprint(args.data_dir)
        for size in args.sizes:
            info = ensure_kb(args, size, data_sha)
            print(f"{size:,} chunks: {info['path']} ({'cached' if info['cached'] else 'built'}, "
                  f"{info['size_bytes'] / 2**20:.0f} MiB, "
                  f"built in {info['demo_seconds'] + info['filler_seconds']:.0f} s)")
        print(f"demo-only: {ensure_demo_kb(args)}")
        return 0
    result = measure(args)
    if args.save_json:
        args.save_json.write_text(json.dumps(result, indent=2))
    print(json.dumps(result, indent=2) if args.json else markdown(result))
    passed = result["cli"]["check"]["pass"] and all(
        row.get("pass", True) for row in result["sizes"] if row["variant"] == "as-shipped")
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
