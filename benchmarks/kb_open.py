"""Opening a knowledge base for searches: time, and the memory it takes, in fresh processes.

Each run starts a new Python process that opens the knowledge base (``KnowledgeBase.load()``:
manifest, file checks, FAISS, BM25, metadata), then runs one search. It reports the open time
and the growth of the process's anonymous memory (its own, as a server worker holds it) and of
its file-backed memory (pages of mapped files: shared between processes, and given back by the
system under pressure), from ``/proc/self/status``, after the open and after the search. The
figures depend on the code imported, so an older checkout is measured by putting its ``src``
first on the path::

    .venv/bin/python benchmarks/kb_open.py --kb /tmp/kb10k --runs 5
    PYTHONPATH=/tmp/before/src .venv/bin/python benchmarks/kb_open.py --kb /tmp/kb10k --runs 5

The knowledge base can be one ``benchmarks/kb_first_touch.py build`` made. Linux only.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

CHILD = r"""
import json, sys, time

def memory():
    fields = dict(line.split(":", 1) for line in open("/proc/self/status"))
    return {name: int(fields[name].split()[0]) / 1024 for name in ("RssAnon", "RssFile")}

from veracity.kb import KnowledgeBase
from veracity.offline.model.embedder import default_embedder

kb = KnowledgeBase(sys.argv[1])
default_embedder().embed(["warm-up"])
start = memory()
started = time.perf_counter()
kb.load()
opened = time.perf_counter() - started
after_open = memory()
kb.search("How much has the sea level risen since 1900?", limit=5)
after_search = memory()
print(json.dumps({
    "open_ms": 1000 * opened,
    "anon_open_mib": after_open["RssAnon"] - start["RssAnon"],
    "file_open_mib": after_open["RssFile"] - start["RssFile"],
    "anon_search_mib": after_search["RssAnon"] - start["RssAnon"],
    "file_search_mib": after_search["RssFile"] - start["RssFile"],
}))
"""


def main() -> int:
    """Open the knowledge base in `--runs` fresh processes; print the medians as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kb", type=Path, required=True)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    runs = []
    for _ in range(args.runs):
        done = subprocess.run([sys.executable, "-c", CHILD, str(args.kb)], capture_output=True, text=True,
                              check=True)
        runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
    import veracity

    result = {"veracity": veracity.__file__, "runs": len(runs)}
    result.update({name: round(statistics.median(run[name] for run in runs), 1) for name in runs[0]})
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
