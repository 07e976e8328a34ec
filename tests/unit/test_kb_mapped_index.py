"""Searches read the FAISS index memory-mapped (never once it changed on disk); writers read it into memory."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.unit.kb_fixtures import AUSTRALIA, TOWER, write
from veracity.kb import KnowledgeBase
from veracity.kb import generation as generation_module
from veracity.kb.generation import load_dense

FORMAT1 = Path(__file__).parent / "kb_fixtures" / "format1"


@pytest.fixture(params=["current", "format 1"])
def filled_kb(request: pytest.FixtureRequest, kb: KnowledgeBase, tmp_path: Path) -> KnowledgeBase:
    if request.param == "format 1":
        shutil.copytree(FORMAT1, tmp_path / "old-kb")
        return KnowledgeBase(tmp_path / "old-kb")
    docs = tmp_path / "docs"
    write(docs / "australia.md", AUSTRALIA)
    write(docs / "tower.txt", TOWER)
    kb.ingest([docs])
    return kb


def test_a_mapped_index_finds_what_the_index_in_memory_finds(filled_kb: KnowledgeBase) -> None:
    manifest = filled_kb.manifest()
    in_memory = load_dense(filled_kb.path, manifest)
    mapped = load_dense(filled_kb.path, manifest, mapped=True)
    queries = filled_kb.embedder.embed(["capital of Australia", "How tall is the tower?", "bees"])
    assert mapped.ntotal == in_memory.ntotal > 0
    for found, expected in zip(mapped.search(queries, 5), in_memory.search(queries, 5), strict=True):
        assert np.array_equal(found, expected)


def test_searches_map_the_index_and_an_ingest_reads_it_into_memory(kb: KnowledgeBase, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    docs = tmp_path / "docs"
    write(docs / "australia.md", AUSTRALIA)
    kb.ingest([docs])
    calls: list[bool] = []
    real_load = generation_module.load_dense

    def recording(kb_path: Path, manifest: object, *, mapped: bool = False) -> object:
        calls.append(mapped)
        return real_load(kb_path, manifest, mapped=mapped)

    monkeypatch.setattr("veracity.kb.index.load_dense", recording)
    monkeypatch.setattr("veracity.kb.writer.load_dense", recording)
    assert "Canberra" in KnowledgeBase(kb.path).search("capital of Australia", limit=1)[0].text
    write(docs / "tower.txt", TOWER)
    KnowledgeBase(kb.path).ingest([docs])  # builds on the current generation's index
    assert calls == [True, False]
    assert "Eiffel" in KnowledgeBase(kb.path).search("How tall is the Eiffel Tower?", limit=1)[0].text


# The searching part runs in a child process: a search that touched a truncated mapping would die
# there of SIGBUS (a failed test), not take pytest down with it.
SEARCH_AROUND_A_CHANGE = r"""
import json, os, sys
from veracity.kb import KnowledgeBase, KnowledgeBaseError

kb_path, name, change = sys.argv[1:4]
kb = KnowledgeBase(kb_path)


def search():
    try:
        return [hit.text for hit in kb.search("What is the capital of Australia?", limit=2)]
    except KnowledgeBaseError as exc:
        return {"error": str(exc)}


outcomes = [search()]
path = kb.manifest().files(kb.path).folder / name
original, status = path.read_bytes(), path.stat()
with open(path, "r+b") as handle:  # in place: the mapping sees it
    if change == "truncated":
        handle.truncate(min(4096, len(original) // 2) if len(original) > 8192 else 0)
    else:
        middle = len(original) // 2
        handle.seek(middle)
        handle.write(bytes(byte ^ 0xFF for byte in original[middle:middle + 64]))
if change == "flipped, time put back":
    os.utime(path, ns=(status.st_atime_ns, status.st_mtime_ns))
outcomes += [search(), search()]
with open(path, "r+b") as handle:  # put back as it was, still in place
    handle.write(original)
outcomes.append(search())
print(json.dumps(outcomes))
"""


@pytest.fixture(scope="module")
def large_kb_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A knowledge base whose dense index spans many pages, so that a truncated mapping would fault."""
    folder = tmp_path_factory.mktemp("large-kb")
    facts = "\n\n".join(f"Station {n} lies on line {n % 7} and opened in {1900 + n % 120}." for n in range(1500))
    write(folder / "docs" / "australia.md", AUSTRALIA)
    write(folder / "docs" / "stations.txt", facts)
    KnowledgeBase(folder / "kb").ingest([folder / "docs"])
    return folder / "kb"


@pytest.mark.parametrize(("fixture", "name", "change", "found"), [
    ("current", "dense.faiss", "truncated", "found 4,096 bytes"),
    ("current", "dense.faiss", "flipped", "found sha256"),
    ("current", "dense.faiss", "flipped, time put back", "found sha256"),
    ("format 1", "sentences.npy", "truncated", "found 0 bytes"),
])
def test_a_mapped_file_changed_between_two_searches_is_refused_then_reopened_when_put_back(
        fixture: str, name: str, change: str, found: str, large_kb_template: Path, tmp_path: Path) -> None:
    target = tmp_path / "kb"
    shutil.copytree(large_kb_template if fixture == "current" else FORMAT1, target)
    child = subprocess.run([sys.executable, "-c", SEARCH_AROUND_A_CHANGE, str(target), name, change],
                           capture_output=True, text=True, timeout=600, check=False)
    assert child.returncode == 0, f"the searching process ended with {child.returncode}: {child.stderr[-2000:]}"
    first, changed, again, put_back = json.loads(child.stdout)
    assert isinstance(first, list) and "Canberra is the capital of Australia." in first[0]
    for refused in (changed, again):  # every search until it is repaired: never the changed mapping
        assert isinstance(refused, dict), refused
        assert f"{name} is damaged" in refused["error"] and found in refused["error"]
    assert put_back == first  # the same file again: opened anew and mapped again
    assert "changed on disk while in use" in child.stderr and "Traceback" not in child.stderr
