"""`veracity ingest` and `veracity kb stats|warm|list|remove|verify`: output, progress and exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.unit.kb_fixtures import AUSTRALIA, TOWER, corrupt, strip_checksums, write
from veracity.cli.knowledge_base import ingest_command, kb_group
from veracity.kb import KB_ENV, KnowledgeBase, KnowledgeBaseError
from veracity.kb.manifest import MANIFEST_NAME


@pytest.fixture
def runner(monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    monkeypatch.setenv("COLUMNS", "200")
    return CliRunner()


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    write(tmp_path / "docs" / "australia.md", AUSTRALIA)
    write(tmp_path / "docs" / "tower.txt", TOWER)
    return tmp_path / "docs"


def test_ingest_reports_progress_and_a_summary(runner: CliRunner, docs: Path, tmp_path: Path) -> None:
    result = runner.invoke(ingest_command, [str(docs), "--kb", str(tmp_path / "kb")])
    assert result.exit_code == 0, result.output
    assert "added 2, updated 0, unchanged 0, skipped 0; 2 chunks indexed" in result.stdout
    assert f"[2/2] added {(docs / 'tower.txt').resolve()} (1 chunk)" in result.stderr
    again = runner.invoke(ingest_command, [str(docs), "--kb", str(tmp_path / "kb")])
    assert again.exit_code == 0 and "Nothing changed in" in again.stdout and "unchanged 2" in again.stdout


def test_skipped_files_are_listed_and_exit_1(runner: CliRunner, docs: Path, tmp_path: Path) -> None:
    write(docs / "blob.txt", b"\x00\x01\x02")
    write(docs / "slides.pptx", b"PK")
    write(docs / "latin1.txt", "Caf\xe9 society.".encode("latin-1"))
    result = runner.invoke(ingest_command, [str(docs), "--kb", str(tmp_path / "kb")])
    assert result.exit_code == 1
    assert "Skipped:" in result.stdout and "binary file" in result.stdout
    assert "unsupported file type '.pptx'" in result.stdout
    assert "Notes:" in result.stdout and "decoded with replacement" in result.stdout


def test_ingest_usage_errors_exit_2(runner: CliRunner, docs: Path, tmp_path: Path) -> None:
    assert runner.invoke(ingest_command, ["--kb", str(tmp_path / "kb")]).exit_code == 2
    result = runner.invoke(ingest_command, [str(docs), "--kb", str(tmp_path / "kb"), "--chunk-tokens", "100",
                                            "--overlap-tokens", "80"])
    assert result.exit_code == 2 and "overlap_tokens" in result.stderr
    result = runner.invoke(ingest_command, [str(docs / "tower.txt"), "--kb", str(docs)])
    assert result.exit_code == 2 and "not empty and holds no knowledge base" in result.stderr


def test_a_damaged_index_exits_2_with_the_fix_and_replace_repairs_it(runner: CliRunner, demo_kb: KnowledgeBase,
                                                                     docs: Path) -> None:
    (demo_kb.path / MANIFEST_NAME).write_text("{}")
    result = runner.invoke(ingest_command, [str(docs), "--kb", str(demo_kb.path)])
    assert result.exit_code == 2 and "veracity ingest --replace" in result.stderr
    result = runner.invoke(ingest_command, [str(docs), "--replace", "--demo", "--kb", str(demo_kb.path)])
    assert result.exit_code == 0, result.output
    assert KnowledgeBase(demo_kb.path).stats().documents >= 14


def test_stats_and_list(runner: CliRunner, demo_kb: KnowledgeBase) -> None:
    stats = runner.invoke(kb_group, ["stats", "--kb", str(demo_kb.path)])
    assert stats.exit_code == 0
    for label in ("Location", "Documents", "Chunks", "Sentences", "Size on disk", "all-MiniLM-L6-v2-static-projected",
                  "Sentence vectors"):
        assert label in stats.stdout
    figures = json.loads(runner.invoke(kb_group, ["stats", "--json", "--kb", str(demo_kb.path)]).stdout)
    assert figures["documents"] >= 12 and figures["location"] == str(demo_kb.path.resolve())

    listing = runner.invoke(kb_group, ["list", "--kb", str(demo_kb.path)])
    assert listing.exit_code == 0 and "demo:sydney-opera-house.md" in listing.stdout
    assert "Sydney Opera House" in listing.stdout
    documents = json.loads(runner.invoke(kb_group, ["list", "--json", "--kb", str(demo_kb.path)]).stdout)
    assert {"path", "title", "chunks", "ingested_at"} <= set(documents[0])


@pytest.mark.parametrize("damage", ["bm25 of an old manifest", "inside dense.faiss"])
def test_stats_exits_2_on_a_knowledge_base_that_a_check_rejects(runner: CliRunner, demo_kb: KnowledgeBase,
                                                                damage: str) -> None:
    folder = demo_kb.path / demo_kb.manifest().generation
    if damage == "inside dense.faiss":
        corrupt(folder / "dense.faiss")
    else:  # no checksums to compare, and the files that used to be checked look right
        strip_checksums(demo_kb.path)
        (folder / "bm25" / "params.index.json").write_text("{")
    with pytest.raises(KnowledgeBaseError):
        KnowledgeBase(demo_kb.path).search("Canberra")
    result = runner.invoke(kb_group, ["stats", "--kb", str(demo_kb.path)])
    assert result.exit_code == 2 and "unusable" in result.stderr and "veracity ingest --replace" in result.stderr


def test_verify_reports_every_damaged_file_and_exits_2(runner: CliRunner, demo_kb: KnowledgeBase) -> None:
    result = runner.invoke(kb_group, ["verify", str(demo_kb.path)])
    assert result.exit_code == 0 and "OK, 8 files" in result.stdout and "match their checksums" in result.stdout
    generation = demo_kb.manifest().generation
    checksums = demo_kb.manifest().checksums
    corrupt(demo_kb.path / generation / "dense.faiss", keep_time=True)
    (demo_kb.path / generation / "bm25_ids.npy").unlink()
    result = runner.invoke(kb_group, ["verify", "--kb", str(demo_kb.path)])
    assert result.exit_code == 2
    lines = result.stdout.splitlines()
    size = checksums["bm25_ids.npy"].size
    assert lines[0] == f"damaged: {generation}/bm25_ids.npy: expected {size:,} bytes, found no such file"
    expected = checksums["dense.faiss"].sha256
    assert lines[1].startswith(f"damaged: {generation}/dense.faiss: expected sha256 {expected}, found sha256 ")
    assert "2 of 8 files are damaged" in result.stderr and "veracity ingest --replace" in result.stderr


def test_verify_without_checksums_exits_1_with_a_note(runner: CliRunner, demo_kb: KnowledgeBase) -> None:
    strip_checksums(demo_kb.path)
    result = runner.invoke(kb_group, ["verify", "--kb", str(demo_kb.path)])
    assert result.exit_code == 1 and "no checksums recorded; re-ingest to add them" in result.stdout
    assert runner.invoke(kb_group, ["verify", "a", "--kb", "b"]).exit_code == 2  # the folder given twice


def test_kb_env_sets_the_location(runner: CliRunner, demo_kb: KnowledgeBase, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KB_ENV, str(demo_kb.path))
    assert "demo:australia.md" in runner.invoke(kb_group, ["list"]).stdout


def test_remove(runner: CliRunner, demo_kb: KnowledgeBase, docs: Path) -> None:
    runner.invoke(ingest_command, [str(docs), "--kb", str(demo_kb.path)])
    result = runner.invoke(kb_group, ["remove", str(docs), "demo:nile.md", "--kb", str(demo_kb.path)])
    assert result.exit_code == 0 and "Removed 3 document(s)" in result.stdout
    result = runner.invoke(kb_group, ["remove", str(docs), "--kb", str(demo_kb.path)])
    assert result.exit_code == 1 and "Not found" in result.stdout


def test_management_commands_without_a_knowledge_base_exit_2(runner: CliRunner, tmp_path: Path) -> None:
    for args in (["stats"], ["list"], ["remove", "x.md"], ["verify"]):
        result = runner.invoke(kb_group, [*args, "--kb", str(tmp_path / "none")])
        assert result.exit_code == 2 and "no knowledge base at" in result.stderr


def test_help_documents_exit_codes_and_examples(runner: CliRunner) -> None:
    text = runner.invoke(ingest_command, ["--help"]).stdout
    assert "Exit codes:" in text and "veracity ingest --replace" in text and ".pdf" in text
    assert "Exit codes:" in runner.invoke(kb_group, ["remove", "--help"]).stdout
    text = runner.invoke(kb_group, ["verify", "--help"]).stdout
    assert "Exit codes:" in text and "veracity kb verify ./kb" in text and "no checksums recorded" in text


def test_first_ingest_into_the_default_location_keeps_the_demo_notes(tmp_path, monkeypatch) -> None:
    """A newcomer's first `ingest` adds to the demo notes, exactly as a first `check` would have."""
    from click.testing import CliRunner

    from veracity.cli.knowledge_base import ingest_command
    from veracity.kb import KnowledgeBase

    monkeypatch.setenv("VERACITY_KB", str(tmp_path / "default-kb"))
    note = tmp_path / "note.txt"
    note.write_text("Canberra is the capital city of Australia.")
    result = CliRunner().invoke(ingest_command, [str(note)])
    assert result.exit_code == 0, result.output
    paths = [d.path for d in KnowledgeBase().documents()]
    assert str(note.resolve()) in paths and any(p.startswith("demo:") for p in paths)


def test_warm_fills_the_sentence_vectors_and_stats_shows_them(runner: CliRunner, demo_kb: KnowledgeBase) -> None:
    distinct = len({text for document in demo_kb.documents() for text in _sentences_of(demo_kb, document.path)})
    result = runner.invoke(kb_group, ["warm", "--kb", str(demo_kb.path)])
    assert result.exit_code == 0, result.output
    assert f"all {distinct:,} distinct sentences have one" in result.stdout
    assert "have no stored vector yet" in result.stderr
    again = runner.invoke(kb_group, ["warm", "--kb", str(demo_kb.path)])
    assert "Stored 0 sentence vectors" in again.stdout
    stats = json.loads(runner.invoke(kb_group, ["stats", "--kb", str(demo_kb.path), "--json"]).stdout)
    assert stats["sentence_vectors"] == distinct
    assert runner.invoke(kb_group, ["warm", "--kb", str(demo_kb.path / "missing")]).exit_code == 2


def _sentences_of(kb: KnowledgeBase, path: str) -> list[str]:
    import sqlite3

    connection = sqlite3.connect(kb.manifest().files(kb.path).meta)
    rows = connection.execute(
        "SELECT c.text, c.sentence_spans FROM chunks c JOIN documents d ON d.id = c.document_id WHERE d.path = ?",
        (path,),
    ).fetchall()
    connection.close()
    return [text[start:end] for text, spans in rows for start, end in json.loads(spans)]
