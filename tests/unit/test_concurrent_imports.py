"""Two threads importing different parts of veracity at once do not deadlock on Python's import locks.

A check's warm-up imports the knowledge base's store on its thread while the check's preflight
imports the knowledge-base backend on another. When `veracity/kb/__init__.py` imported its
submodules eagerly, the two lock orders crossed and one thread got a `_DeadlockError` (or a
"partially initialized module" ImportError) in about one start in three. Each case runs in a
fresh interpreter, several times, since an import happens once per process.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

RACE = """
import importlib, sys, threading
barrier = threading.Barrier(2)
errors = []
def load(name):
    barrier.wait()
    try:
        importlib.import_module(name)
    except Exception as exc:
        errors.append(repr(exc))
threads = [threading.Thread(target=load, args=(name,)) for name in sys.argv[1:3]]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
print(errors[0] if errors else "ok")
"""

PAIRS = [
    ("veracity.kb.store", "veracity.kb.backend"),  # the warm-up's knowledge base and the preflight's backend
    ("veracity.kb.seeding", "veracity.kb.store"),
    ("veracity.kb.ingest", "veracity.kb.backend"),
    ("veracity.api", "veracity.kb.store"),  # the check's graph on one thread, the warm-up on the other
    ("veracity.api", "veracity.offline.plugin"),
]

TRIES = 6


@pytest.mark.parametrize(("first", "second"), PAIRS)
def test_two_threads_import_knowledge_base_modules_without_deadlock(first: str, second: str) -> None:
    outcomes = [
        subprocess.run([sys.executable, "-c", RACE, first, second], capture_output=True, text=True, timeout=120,
                       check=False).stdout.strip()
        for _ in range(TRIES)
    ]
    assert outcomes == ["ok"] * TRIES
