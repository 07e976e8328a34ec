"""The knowledge base on disk: ingest, hybrid search, updates, removal, damage, locking and the demo notes."""

from __future__ import annotations

import json
import os
import shutil
import threading
from pathlib import Path

import numpy as np
import pytest

import veracity
import veracity.kb.ingest
import veracity.kb.sources
from tests.unit.kb_fixtures import AUSTRALIA, TOWER, corrupt, minimal_pdf, strip_checksums, write
from veracity.errors import ConfigurationError
from veracity.kb import (
    KB_ENV,
    IngestProgress,
    KnowledgeBase,
    KnowledgeBaseError,
    default_kb_path,
    ensure_demo,
    open_default_kb,
)
from veracity.kb.lock import writer_lock
from veracity.kb.manifest import MANIFEST_NAME
from veracity.offline.model.embedder import default_embedder
from veracity.offline.model.static import STATIC_MODEL_ID
from veracity.sentences import split_sentences


def statuses(report) -> dict[str, str]:
    return {Path(r.key).name: r.status for r in report.results}


def generation(kb: KnowledgeBase) -> str:
    return kb.manifest().generation


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    write(folder / "australia.md", AUSTRALIA)
    write(folder / "tower.txt", TOWER)
    write(folder / "web" / "opera.html",
          "<html><head><title>Opera page</title></head><body><article>"
          "<p>The Sydney Opera House was designed by Jørn Utzon, a Danish architect.</p>"
          "<p>It was formally opened by Queen Elizabeth II on 20 October 1973.</p></article></body></html>")
    write(folder / "everest.pdf", minimal_pdf(
        ["Mount Everest is the highest mountain on Earth.", "Its summit was first reached in 1953."],
        title="Everest report"))
    return folder


def test_ingest_all_formats_and_search_them(kb: KnowledgeBase, corpus: Path) -> None:
    report = kb.ingest([corpus])
    assert statuses(report) == {"australia.md": "added", "tower.txt": "added", "opera.html": "added",
                                "everest.pdf": "added"}
    assert report.chunks == 4 and "added 4" in report.summary()

    hits = kb.search("capital of Australia", limit=3)
    assert hits[0].url == str((corpus / "australia.md").resolve())
    assert hits[0].title == "Australia facts"
    assert "Canberra is the capital of Australia." in hits[0].text
    assert hits[0].score == pytest.approx(2 / 61)  # first in both rankings
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)

    assert kb.search("Who designed the Sydney Opera House?", limit=1)[0].title == "Opera page"
    assert kb.search("first ascent of the highest mountain", limit=1)[0].title == "Everest report"
    assert kb.search("how tall is the tower in Paris", limit=1)[0].title == "tower.txt"


def test_search_limits_and_empty_queries(kb: KnowledgeBase, corpus: Path) -> None:
    kb.ingest([corpus])
    assert len(kb.search("anything at all", limit=2)) == 2
    assert len(kb.search("anything at all", limit=50)) == 4
    assert kb.search("   ", limit=5) == [] and kb.search("Paris", limit=0) == []


def test_search_primes_the_embedder_with_the_chunk_sentences(kb: KnowledgeBase, corpus: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    kb.ingest([corpus])
    embedder = default_embedder()
    embedder.cache.clear()
    hits = kb.search("capital of Australia", limit=2)
    sentences = [s.text for hit in hits for s in split_sentences(hit.text)]
    fresh = embedder._run(sentences)

    def no_model(texts):
        raise AssertionError(f"not primed: {texts}")

    monkeypatch.setattr(embedder, "_run", no_model)
    primed = embedder.embed(sentences)
    assert np.allclose(np.linalg.norm(primed, axis=1), 1.0, atol=1e-5)
    assert np.min(np.sum(primed * fresh, axis=1)) > 0.999


def test_reingesting_unchanged_files_is_a_no_op(kb: KnowledgeBase, corpus: Path) -> None:
    kb.ingest([corpus])
    before = generation(kb)
    report = kb.ingest([corpus])
    assert set(statuses(report).values()) == {"unchanged"}
    assert not report.changed and generation(kb) == before


def test_a_changed_file_replaces_its_chunks(kb: KnowledgeBase, corpus: Path) -> None:
    kb.ingest([corpus])
    write(corpus / "tower.txt", "The Leaning Tower of Pisa is in Italy. It leans because of soft ground.")
    report = kb.ingest([corpus])
    assert statuses(report)["tower.txt"] == "updated"
    assert statuses(report)["australia.md"] == "unchanged"
    texts = [hit.text for hit in kb.search("Eiffel Tower Paris 1889", limit=10)]
    assert not any("Eiffel" in text for text in texts)
    assert any("Pisa" in text for text in texts)
    assert kb.stats().chunks == 4


def test_remove_a_file_a_folder_and_demo_notes(demo_kb: KnowledgeBase, corpus: Path) -> None:
    demo_kb.ingest([corpus])
    report = demo_kb.remove([corpus / "web", corpus / "tower.txt", "demo:nile.md", corpus / "nothing-here"])
    removed = sorted(Path(r.key).name for r in report.with_status("removed"))
    assert removed == ["demo:nile.md", "opera.html", "tower.txt"]
    assert [Path(r.key).name for r in report.with_status("skipped")] == ["nothing-here"]
    paths = [d.path for d in demo_kb.documents()]
    assert str((corpus / "australia.md").resolve()) in paths and "demo:nile.md" not in paths
    assert all("Opera page" != hit.title for hit in demo_kb.search("Jørn Utzon Danish architect", limit=20))

    demo_kb.remove([corpus])
    demo_kb.remove(["demo:"])
    assert demo_kb.documents() == [] and demo_kb.stats().chunks == 0
    assert demo_kb.search("Australia", limit=3) == []


def test_stats_and_list(kb: KnowledgeBase, corpus: Path) -> None:
    kb.ingest([corpus])
    stats = kb.stats()
    assert (stats.documents, stats.chunks) == (4, 4) and stats.sentences >= 8
    assert stats.model_id == STATIC_MODEL_ID and stats.location == kb.path.resolve() and stats.size_bytes > 10_000
    assert (stats.chunk_tokens, stats.overlap_tokens) == (600, 72)
    documents = {Path(d.path).name: d for d in kb.documents()}
    assert documents["everest.pdf"].title == "Everest report" and documents["everest.pdf"].chunks == 1
    assert len(documents["tower.txt"].sha256) == 64 and documents["tower.txt"].ingested_at.endswith("+00:00")


def test_bad_files_are_skipped_with_reasons_and_the_index_is_kept(kb: KnowledgeBase, corpus: Path, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    kb.ingest([corpus])
    before = generation(kb)
    bad = tmp_path / "bad"
    write(bad / "binary.txt", b"abc\x00def")
    write(bad / "empty.md", "")
    write(bad / "blank.txt", "   \n\n  ")
    write(bad / "broken.pdf", b"%PDF-1.4 garbage")
    write(bad / "picture.jpg", b"\xff\xd8")
    locked = write(bad / "locked.txt", "secret")
    real_open = open

    def guarded_open(path, *args, **kwargs):
        if Path(path) == locked.resolve():
            raise PermissionError(13, "Permission denied")
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(veracity.kb.sources, "open", guarded_open, raising=False)
    report = kb.ingest([bad])
    reasons = {Path(r.key).name: r.reason for r in report.with_status("skipped")}
    assert reasons["binary.txt"].startswith("binary file")
    assert reasons["empty.md"] == "empty file"
    assert reasons["blank.txt"].startswith("no text to index")
    assert reasons["broken.pdf"].startswith("cannot read the PDF")
    assert reasons["picture.jpg"].startswith("unsupported file type '.jpg'")
    assert reasons["locked.txt"] == "cannot read: Permission denied"
    assert not report.changed and generation(kb) == before
    assert kb.search("capital of Australia", limit=1)[0].title == "Australia facts"


def test_a_file_that_turns_bad_keeps_its_indexed_version(kb: KnowledgeBase, corpus: Path) -> None:
    kb.ingest([corpus])
    write(corpus / "tower.txt", b"\x00\x01binary now")
    report = kb.ingest([corpus / "tower.txt"])
    assert report.results[0].status == "skipped"
    assert "the version indexed before is kept" in report.results[0].reason
    assert any("Eiffel" in hit.text for hit in kb.search("Eiffel Tower", limit=4))


def test_non_utf8_text_is_noted(kb: KnowledgeBase, tmp_path: Path) -> None:
    path = write(tmp_path / "latin1.txt", "Le café est à Paris. La tour Eiffel aussi.".encode("latin-1"))
    report = kb.ingest([path])
    assert report.results[0].status == "added"
    assert report.results[0].notes == ("decoded with replacement (the file is not valid UTF-8)",)
    assert kb.documents()[0].notes == report.results[0].notes


def test_large_files_are_ingested_as_a_stream(kb: KnowledgeBase, tmp_path: Path) -> None:
    sentences = [f"Fact number {i} says that river {i} flows into lake {i % 7}." for i in range(300)]
    path = write(tmp_path / "big.txt", " ".join(sentences))
    report = kb.ingest([path], stream_threshold=2_000, chunk_tokens=100)
    result = report.results[0]
    assert result.status == "added" and result.chunks > 10
    assert any(note.startswith("streamed") for note in result.notes)
    hit = kb.search("river 123 flows into which lake", limit=1)[0]
    assert "Fact number 123 says that river 123 flows into lake 4." in hit.text
    assert hit.text in path.read_text()


def test_a_failure_mid_ingest_leaves_the_previous_index(kb: KnowledgeBase, corpus: Path, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    kb.ingest([corpus / "australia.md"])
    before = generation(kb)
    calls = []
    real_embed = kb.chunk_embedder.embed

    def failing_embed(texts, **kwargs):
        calls.append(texts)
        if len(calls) == 2:
            raise RuntimeError("simulated crash")
        return real_embed(texts, **kwargs)

    monkeypatch.setattr(kb.chunk_embedder, "embed", failing_embed)
    # One embedding call per chunk (documents are otherwise embedded together): it crashes after one is written.
    monkeypatch.setattr(veracity.kb.ingest, "EMBED_BATCH_CHUNKS", 1)
    with pytest.raises(RuntimeError, match="simulated crash"):
        kb.ingest([corpus])
    monkeypatch.undo()
    assert generation(kb) == before
    assert sorted(p.name for p in kb.path.iterdir() if p.name.startswith("gen-")) == [before]
    assert [Path(d.path).name for d in kb.documents()] == ["australia.md"]
    assert kb.search("capital of Australia", limit=1)[0].title == "Australia facts"


# ---------------------------------------------------------------------------- damage


def _break(path: Path, content: bytes = b"garbage") -> None:
    path.write_bytes(content)


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda kb, gen: _break(kb / MANIFEST_NAME, b"{not json"), "manifest.json cannot be read"),
        (lambda kb, gen: (kb / MANIFEST_NAME).unlink(), "manifest.json is missing"),
        (lambda kb, gen: _edit_manifest(kb, format_version=99), "format version 99"),
        (lambda kb, gen: _edit_manifest(kb, model_id="other-model"), "embedding model 'other-model'"),
        (lambda kb, gen: _edit_manifest(kb, chunks="many"), "incomplete or invalid"),
        (lambda kb, gen: _edit_manifest(kb, checksums={"../x": {}}), "incomplete or invalid"),
        (lambda kb, gen: _edit_manifest(kb, generation="gen-gone"), "gen-gone"),
        (lambda kb, gen: _break(gen / "dense.faiss"), "dense.faiss"),
        (lambda kb, gen: _break(gen / "meta.sqlite"), "meta.sqlite"),
        (lambda kb, gen: _break(gen / "bm25_ids.npy"), "bm25_ids.npy"),
    ],
)
def test_a_damaged_index_raises_with_the_fix(demo_kb: KnowledgeBase, damage, message: str) -> None:
    damage(demo_kb.path, demo_kb.path / generation(demo_kb))
    fresh = KnowledgeBase(demo_kb.path)
    for attempt in (fresh.verify, lambda: fresh.search("Canberra"), lambda: fresh.ingest([])):
        with pytest.raises(KnowledgeBaseError, match=message) as caught:
            attempt()
        assert "veracity ingest --replace" in str(caught.value) and isinstance(caught.value, ConfigurationError)


@pytest.mark.parametrize("name", ["dense.faiss", "meta.sqlite"])
def test_damage_inside_an_index_file_is_found_on_open(demo_kb: KnowledgeBase, name: str) -> None:
    corrupt(demo_kb.path / generation(demo_kb) / name)  # same size, still a valid FAISS index / .npy file
    fresh = KnowledgeBase(demo_kb.path)
    for attempt in (fresh.verify, fresh.stats, lambda: fresh.search("Canberra"), lambda: fresh.ingest([])):
        with pytest.raises(KnowledgeBaseError, match=rf"{name} is damaged: expected sha256 .*veracity kb verify"):
            attempt()


def test_a_check_on_a_corrupt_knowledge_base_fails_with_a_typed_error(demo_kb: KnowledgeBase) -> None:
    corrupt(demo_kb.path / generation(demo_kb) / "dense.faiss")
    with pytest.raises(KnowledgeBaseError, match="dense.faiss is damaged") as caught:
        veracity.check("The Sydney Opera House opened in 1973.", model="offline", search="kb",
                       kb_path=str(demo_kb.path))
    assert isinstance(caught.value, ConfigurationError)


def test_damage_that_keeps_size_and_time_is_found_in_full_and_never_carried_forward(demo_kb: KnowledgeBase,
                                                                                    corpus: Path) -> None:
    before = generation(demo_kb)
    corrupt(demo_kb.path / before / "dense.faiss", keep_time=True)
    assert demo_kb.verify()  # the cheap check on open compares sizes and times only
    report = demo_kb.check_integrity()
    [damage] = report.damage
    assert report.recorded and report.files == len(demo_kb.manifest().checksums)
    assert damage.path == f"{before}/dense.faiss"
    assert damage.expected.startswith("sha256 ") and damage.found.startswith("sha256 ")
    assert damage.expected != damage.found
    with pytest.raises(KnowledgeBaseError, match="dense.faiss is damaged.*veracity kb verify.*--replace"):
        demo_kb.ingest([corpus / "tower.txt"])
    with pytest.raises(KnowledgeBaseError, match="dense.faiss is damaged"):
        demo_kb.remove(["demo:"])
    assert generation(demo_kb) == before
    demo_kb.ingest([corpus / "tower.txt"], replace=True)  # the repair
    assert demo_kb.check_integrity().damage == []


def test_every_file_of_a_generation_is_checksummed(kb: KnowledgeBase, corpus: Path) -> None:
    kb.ingest([corpus])
    manifest = kb.manifest()
    folder = kb.path / manifest.generation
    files = {p.relative_to(folder).as_posix(): p for p in folder.rglob("*") if p.is_file()}
    assert set(manifest.checksums) == set(files) and {"dense.faiss", "meta.sqlite", "bm25_ids.npy"} <= set(files)
    for name, record in manifest.checksums.items():
        assert record.size == files[name].stat().st_size and record.mtime_ns == files[name].stat().st_mtime_ns
    report = kb.check_integrity()
    assert report.damage == [] and report.size_bytes == sum(p.stat().st_size for p in files.values())


def test_a_copy_with_new_file_times_still_opens(demo_kb: KnowledgeBase, tmp_path: Path) -> None:
    copy = tmp_path / "copied"
    shutil.copytree(demo_kb.path, copy, copy_function=shutil.copy)  # file times are not kept
    assert KnowledgeBase(copy).search("capital of Australia", limit=1)[0].url == "demo:australia.md"
    assert KnowledgeBase(copy).stats().documents >= 12


def test_a_manifest_without_checksums_opens_and_the_next_ingest_adds_them(demo_kb: KnowledgeBase,
                                                                         corpus: Path) -> None:
    strip_checksums(demo_kb.path)
    assert demo_kb.manifest().checksums is None
    assert demo_kb.search("capital of Australia", limit=1)[0].url == "demo:australia.md"
    report = demo_kb.check_integrity()
    assert not report.recorded and report.damage == []
    demo_kb.ingest([corpus / "tower.txt"])
    assert demo_kb.manifest().checksums and demo_kb.check_integrity().recorded


def _edit_manifest(kb: Path, **changes) -> None:
    data = json.loads((kb / MANIFEST_NAME).read_text())
    data.update(changes)
    (kb / MANIFEST_NAME).write_text(json.dumps(data))


@pytest.mark.parametrize("name", ["bm25_ids.npy", "bm25/params.index.json"])
def test_damaged_lexical_index_is_reported_on_load(demo_kb: KnowledgeBase, name: str) -> None:
    _break(demo_kb.path / generation(demo_kb) / name)
    with pytest.raises(KnowledgeBaseError, match="--replace"):
        KnowledgeBase(demo_kb.path).search("Canberra")


def test_replace_repairs_a_damaged_index(demo_kb: KnowledgeBase, corpus: Path) -> None:
    _break(demo_kb.path / MANIFEST_NAME, b"\x00")
    report = demo_kb.ingest([corpus / "tower.txt"], replace=True)
    assert statuses(report) == {"tower.txt": "added"}
    assert [Path(d.path).name for d in demo_kb.documents()] == ["tower.txt"]
    assert len([p for p in demo_kb.path.iterdir() if p.name.startswith("gen-")]) == 1


def test_replace_drops_everything_else_including_the_demo(demo_kb: KnowledgeBase, corpus: Path) -> None:
    demo_kb.ingest([corpus], replace=True, demo=False)
    assert not any(d.path.startswith("demo:") for d in demo_kb.documents())
    demo_kb.ingest([], demo=True)
    assert {"demo:australia.md", str((corpus / "tower.txt").resolve())} <= {d.path for d in demo_kb.documents()}


def test_replace_with_nothing_indexable_keeps_the_index(demo_kb: KnowledgeBase, tmp_path: Path) -> None:
    before = generation(demo_kb)
    report = demo_kb.ingest([write(tmp_path / "empty.txt", "")], replace=True)
    assert not report.changed and generation(demo_kb) == before and len(demo_kb.documents()) >= 12


def test_chunk_settings_are_the_knowledge_base_s_own(kb: KnowledgeBase, corpus: Path) -> None:
    kb.ingest([corpus / "tower.txt"], chunk_tokens=200)
    assert kb.manifest().settings.chunk_tokens == 200 and kb.manifest().settings.overlap_tokens == 24
    kb.ingest([corpus / "australia.md"])  # no settings given: the knowledge base's are used
    with pytest.raises(KnowledgeBaseError, match="--replace"):
        kb.ingest([corpus / "everest.pdf"], chunk_tokens=300)
    kb.ingest([corpus], chunk_tokens=300, replace=True)
    assert kb.manifest().settings.chunk_tokens == 300


def test_refuses_a_folder_that_is_not_a_knowledge_base(tmp_path: Path, corpus: Path) -> None:
    with pytest.raises(KnowledgeBaseError, match="not empty and holds no knowledge base"):
        KnowledgeBase(corpus).ingest([corpus / "tower.txt"])
    assert sorted(p.name for p in corpus.iterdir()) == ["australia.md", "everest.pdf", "tower.txt", "web"]


def test_missing_knowledge_base(tmp_path: Path) -> None:
    missing = KnowledgeBase(tmp_path / "nowhere")
    assert not missing.exists()
    for attempt in (missing.verify, missing.stats, missing.documents, lambda: missing.search("x"),
                    lambda: missing.remove(["x"])):
        with pytest.raises(KnowledgeBaseError, match="no knowledge base at .*veracity ingest"):
            attempt()
    assert not missing.path.exists()


# ---------------------------------------------------------------------------- concurrency


class Recorder(IngestProgress):
    def __init__(self) -> None:
        self.waiting = threading.Event()

    def waiting_for_lock(self, lock_path: Path) -> None:
        self.waiting.set()


def test_an_ingest_waits_for_the_lock(kb: KnowledgeBase, corpus: Path) -> None:
    recorder, outcome = Recorder(), {}
    with writer_lock(kb.path):
        worker = threading.Thread(target=lambda: outcome.update(report=kb.ingest([corpus / "tower.txt"],
                                                                                 progress=recorder)))
        worker.start()
        assert recorder.waiting.wait(10)
        assert not kb.exists()  # still waiting
    worker.join(30)
    assert statuses(outcome["report"]) == {"tower.txt": "added"}


def test_a_lock_timeout_is_reported(kb: KnowledgeBase, corpus: Path) -> None:
    with writer_lock(kb.path), pytest.raises(KnowledgeBaseError, match="still holds"):
        kb.ingest([corpus / "tower.txt"], lock_timeout=0.2)


def test_concurrent_ingests_are_serialised_and_lose_nothing(kb: KnowledgeBase, corpus: Path) -> None:
    errors = []

    def ingest(path: Path) -> None:
        try:
            KnowledgeBase(kb.path).ingest([path])
        except Exception as exc:  # noqa: BLE001 - collected and asserted below
            errors.append(exc)

    threads = [threading.Thread(target=ingest, args=(corpus / name,)) for name in ("tower.txt", "australia.md",
                                                                                     "everest.pdf")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert errors == []
    assert sorted(Path(d.path).name for d in kb.documents()) == ["australia.md", "everest.pdf", "tower.txt"]


def test_a_search_sees_changes_made_by_another_object(demo_kb: KnowledgeBase, corpus: Path) -> None:
    assert demo_kb.search("Eiffel Tower completed", limit=1)[0].url == "demo:eiffel-tower.md"
    KnowledgeBase(demo_kb.path).remove(["demo:eiffel-tower.md"])
    assert all(hit.url != "demo:eiffel-tower.md" for hit in demo_kb.search("Eiffel Tower completed", limit=5))


# ---------------------------------------------------------------------------- demo and location


def test_demo_seeding(demo_kb: KnowledgeBase, kb: KnowledgeBase) -> None:
    paths = {d.path for d in demo_kb.documents()}
    assert {"demo:sydney-opera-house.md", "demo:australia.md", "demo:eiffel-tower.md"} <= paths
    assert demo_kb.search("Who designed the Sydney Opera House?", limit=1)[0].url == "demo:sydney-opera-house.md"
    assert demo_kb.search("What is the capital of Australia?", limit=1)[0].url == "demo:australia.md"
    assert ensure_demo(demo_kb) is False  # an existing knowledge base is left alone
    kb.ingest([], demo=True)
    assert ensure_demo(kb) is False


def test_default_location(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(KB_ENV, str(tmp_path / "custom"))
    assert default_kb_path() == tmp_path / "custom"
    assert KnowledgeBase().path == tmp_path / "custom"
    monkeypatch.delenv(KB_ENV)
    assert default_kb_path().parts[-2:] == ("veracity", "kb")


def test_open_default_kb_seeds_the_demo(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(KB_ENV, str(tmp_path / "fresh"))
    kb = open_default_kb()
    assert kb.path == tmp_path / "fresh" and kb.stats().documents >= 12
    assert "Canberra" in kb.search("capital of Australia", limit=1)[0].text


def test_demo_notes_state_the_key_facts(demo_kb: KnowledgeBase) -> None:
    text = " ".join(hit.text for hit in demo_kb.search("Sydney Opera House Australia", limit=30))
    for fact in ("Jørn Utzon", "20 October 1973", "about 1,000 rooms", "Opera House Lottery", "2007",
                 "capital of Australia is Canberra", "six states and ten territories", "Australian dollar",
                 "27 million"):
        assert fact in text, fact


def test_index_files_are_consistent(demo_kb: KnowledgeBase) -> None:
    manifest = demo_kb.manifest()
    files = manifest.files(demo_kb.path)
    assert not files.sentences.exists() and not (files.folder / "sentences.spool").exists()
    assert os.path.getsize(files.dense) > manifest.sentences * 384 * 2  # one half-precision vector per sentence
