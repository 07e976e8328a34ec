"""A real handbook, before and after: HTML ingest, `kb warm`, and a first check against a warm one.

    python benchmarks/handbook.py --before-src /tmp/veracity-before/src [--pages DIR ...]
                                  [--warm-seconds 60] [--claims N]

The corpus is the Python library documentation from Debian's `python3-doc`
(`apt-get install -y python3-doc`): by default `library/` and `whatsnew/` under
/usr/share/doc/python3.11/html, 338 HTML pages (the compressed changelog is skipped). It is read
in place, never copied into the repository.

Each step runs as whole `veracity` processes, the "before" tree (`--before-src`, e.g. a worktree
of an older commit) and this one, alternately, with the same Python and libraries:

* ingest: `veracity ingest --replace --kb NEW PAGES...`, wall clock from process start to exit
  (imports, discovery, extraction, embedding, writing and the final fsync all included);
  chunks/s = chunks indexed / wall. The two indexes are then compared: documents, chunks (text,
  offsets, sentence spans, ids), the chunks' dense vectors and the BM25 files.
* warm: `KnowledgeBase.warm` on a copy of each tree's index for at most `--warm-seconds`, in a
  child process; sentences/s = sentence vectors stored / seconds, read from its progress events.
* first against warm: this tree only, on a fresh copy of its index with no sentence vectors:
  each claim of `CLAIMS` checked once (its first check: the chunks it retrieves get their
  sentence vectors then) and once more (warm), each a whole `veracity check --model offline
  --search kb` process; the verdicts of the two must be the same.

Before anything is timed, each tree runs one check against its own default knowledge base (the
demo notes), so every module it imports is compiled to bytecode, as an installed package has it.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from startup import RUN_CLI, tree_environment  # this folder: the script's own

SRC = Path(__file__).resolve().parents[1] / "src"
DOCS = Path("/usr/share/doc/python3.11/html")

CLAIMS = [
    "str.removeprefix() was added in Python 3.9.",
    "math.isqrt() returns the integer square root of a nonnegative integer.",
    "The json module's dumps() escapes non-ASCII characters by default.",
    "The statistics module provides a function that computes the median of data.",
    "functools.lru_cache() can be used to memoize a function.",
    "The bisect module keeps a list in sorted order without sorting it after each insertion.",
    "zoneinfo was added to the standard library in Python 3.9.",
    "The walrus operator := was introduced in Python 3.8.",
]
"""Claims about the handbook, written for this script (a mix of true and false ones)."""


def run(arguments: list[str], env: dict[str, str], *, ok: tuple[int, ...] = (0, 1)) -> tuple[float, str]:
    """Wall seconds and stdout of one whole `veracity` process."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", RUN_CLI, *arguments], env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if done.returncode not in ok:
        raise SystemExit(f"veracity {' '.join(arguments[:3])} exited {done.returncode}:\n{done.stderr[-2000:]}")
    return wall, done.stdout


def index_digest(kb: Path) -> dict[str, str]:
    """Digests of what an index holds: documents, chunks, dense vectors, BM25 files (not timestamps)."""
    manifest = json.loads((kb / "manifest.json").read_text())
    folder = kb / manifest["generation"]
    connection = sqlite3.connect(f"{(folder / 'meta.sqlite').resolve().as_uri()}?mode=ro", uri=True)
    queries = {
        "documents": "SELECT id, path, title, sha256, size, chunk_count, notes FROM documents ORDER BY id",
        "chunks": "SELECT id, document_id, chunk_index, start_char, end_char, text, sentence_row, sentence_count,"
                  " sentence_spans FROM chunks ORDER BY id",
    }
    digests = {name: hashlib.sha256(repr(connection.execute(query).fetchall()).encode()).hexdigest()
               for name, query in queries.items()}
    connection.close()
    digests["dense"] = hashlib.sha256((folder / "dense.faiss").read_bytes()).hexdigest()
    bm25 = hashlib.sha256()
    for path in sorted((folder / "bm25").iterdir()):
        bm25.update(path.name.encode() + path.read_bytes())
    digests["bm25"] = bm25.hexdigest()
    return digests


def chunk_count(kb: Path) -> int:
    """Chunks in an index."""
    manifest = json.loads((kb / "manifest.json").read_text())
    connection = sqlite3.connect(f"{(kb / manifest['generation'] / 'meta.sqlite').resolve().as_uri()}?mode=ro",
                                 uri=True)
    (count,) = connection.execute("SELECT COUNT(*) FROM chunks").fetchone()
    connection.close()
    return int(count)


WARM_CHILD = """
import json, sys, time
from pathlib import Path
from veracity.kb import KnowledgeBase, WarmProgress

class Stop(Exception):
    pass

class Budget(WarmProgress):
    def __init__(self, seconds):
        self.seconds, self.stored, self.missing = seconds, 0, 0
    def started(self, sentences, missing):
        self.missing, self.began = missing, time.perf_counter()
    def advanced(self, count):
        self.stored += count
        self.elapsed = time.perf_counter() - self.began
        if self.elapsed >= self.seconds:
            raise Stop

budget = Budget(float(sys.argv[2]))
try:
    KnowledgeBase(Path(sys.argv[1])).warm(budget)
except Stop:
    pass
print(json.dumps({"stored": budget.stored, "seconds": budget.elapsed, "missing": budget.missing}))
"""


def warm_rate(kb: Path, env: dict[str, str], seconds: float) -> dict[str, float]:
    """Sentence vectors stored per second by `KnowledgeBase.warm` in a child process, for at most `seconds`."""
    done = subprocess.run([sys.executable, "-c", WARM_CHILD, str(kb), str(seconds)], env=env, capture_output=True,
                          text=True, check=True)
    result = json.loads(done.stdout.strip().splitlines()[-1])
    return result | {"rate": result["stored"] / result["seconds"]}


def verdicts(stdout: str) -> str:
    """The one-line summary of a check's report ('1 claim(s): 0 supported, ...')."""
    return next((line.strip() for line in stdout.splitlines() if "claim(s):" in line), stdout[-200:])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before-src", type=Path, required=True, help="the src folder of the code to compare against")
    parser.add_argument("--pages", type=Path, nargs="+", default=[DOCS / "library", DOCS / "whatsnew"])
    parser.add_argument("--warm-seconds", type=float, default=60.0)
    parser.add_argument("--claims", type=int, default=len(CLAIMS))
    parser.add_argument("--skip", choices=["warm", "first"], action="append", default=[])
    args = parser.parse_args()
    missing = [str(path) for path in args.pages if not path.is_dir()]
    if missing:
        raise SystemExit(f"not found: {', '.join(missing)} (apt-get install -y python3-doc)")
    trees = {"before": args.before_src.resolve(), "after": SRC}
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores; pages: {' '.join(map(str, args.pages))}")
    with tempfile.TemporaryDirectory(prefix="veracity-handbook-") as scratch_name:
        scratch = Path(scratch_name)
        envs = {name: tree_environment(src, scratch / name / "default-kb", scratch / name / "pycache")
                for name, src in trees.items()}
        kbs = {name: scratch / name / "kb" for name in trees}
        for name in trees:  # bytecode compiled (and the default knowledge base seeded) before anything is timed
            run(["check", "The Eiffel Tower is in Paris.", "--model", "offline", "--search", "kb"], envs[name])
        for name in trees:
            wall, _ = run(["ingest", "--replace", "--kb", str(kbs[name]), *map(str, args.pages)], envs[name])
            chunks = chunk_count(kbs[name])
            print(f"ingest  {name:6}: {chunks} chunks in {wall:.1f} s = {chunks / wall:.1f} chunks/s", flush=True)
        same = index_digest(kbs["before"]) == index_digest(kbs["after"])
        parts = {part: index_digest(kbs["before"])[part] == index_digest(kbs["after"])[part]
                 for part in ("documents", "chunks", "dense", "bm25")}
        print(f"ingest  same index: {same} ({', '.join(f'{k} {v}' for k, v in parts.items())})", flush=True)
        if "warm" not in args.skip:
            for name in trees:
                copy = scratch / name / "kb-warm"
                shutil.copytree(kbs[name], copy)
                result = warm_rate(copy, envs[name], args.warm_seconds)
                print(f"warm    {name:6}: {result['stored']:,} of {result['missing']:,} sentence vectors in "
                      f"{result['seconds']:.1f} s = {result['rate']:.1f} sentences/s", flush=True)
        if "first" not in args.skip:
            copy = scratch / "after" / "kb-first"
            shutil.copytree(kbs["after"], copy)
            firsts, warms, changed = [], [], 0
            for claim in CLAIMS[:args.claims]:
                command = ["check", claim, "--model", "offline", "--search", "kb", "--kb", str(copy)]
                first, first_out = run(command, envs["after"])
                warm, warm_out = run(command, envs["after"])
                firsts.append(first)
                warms.append(warm)
                changed += verdicts(first_out) != verdicts(warm_out)
                print(f"first   {first:.2f} s, warm {warm:.2f} s ({first / warm:.2f}x): {claim}", flush=True)
            ratios = [first / warm for first, warm in zip(firsts, warms, strict=True)]
            print(f"first   median {statistics.median(firsts):.2f} s, warm median {statistics.median(warms):.2f} s, "
                  f"ratio of medians {statistics.median(firsts) / statistics.median(warms):.2f}, "
                  f"largest ratio {max(ratios):.2f}; verdicts that differ between first and warm: {changed}")


if __name__ == "__main__":
    main()
