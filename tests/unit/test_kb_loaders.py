"""Loading .txt, .md, .html and .pdf files, bad input, streaming, and finding files under folders."""

from __future__ import annotations

from pathlib import Path

import pytest

import veracity.kb.chunking
from tests.unit.kb_fixtures import minimal_pdf, write
from veracity.kb.chunking import ChunkSettings, chunk_stream
from veracity.kb.loaders import REPLACEMENT_NOTE, SkipDocument, load, strip_tags
from veracity.kb.sources import Source, demo_sources, discover


def text_of(path: Path, **options) -> tuple[str, str, list[str]]:
    document = load(Source.from_path(path), **options)
    text = "".join(document.pieces)
    return document.title, text, document.notes


def test_markdown_title_is_the_first_heading(tmp_path: Path) -> None:
    path = write(tmp_path / "notes.md", "Intro line.\n\n# Canberra notes\n\nCanberra is the capital of Australia.\n")
    title, text, notes = text_of(path)
    assert title == "Canberra notes"
    assert "Canberra is the capital of Australia." in text and notes == []


def test_text_title_is_the_file_name_and_a_bom_is_dropped(tmp_path: Path) -> None:
    path = write(tmp_path / "plain.txt", "\ufeffWater boils at 100 degrees Celsius.".encode("utf-8"))
    assert text_of(path)[:2] == ("plain.txt", "Water boils at 100 degrees Celsius.")


def test_utf16_with_a_byte_order_mark_is_text(tmp_path: Path) -> None:
    path = write(tmp_path / "wide.txt", "Marie Curie won two Nobel Prizes.".encode("utf-16"))
    assert text_of(path)[1] == "Marie Curie won two Nobel Prizes."


def test_html_title_and_main_text(tmp_path: Path) -> None:
    page = (
        "<html><head><title>Tower &amp; facts</title><style>p {color: red}</style></head><body>"
        "<nav>Home | About</nav><article><h1>Eiffel Tower</h1>"
        "<p>The Eiffel Tower is in Paris. It was completed in 1889 for the World's Fair.</p>"
        "<p>It is about 330 metres tall.</p></article><script>var x = 1;</script></body></html>"
    )
    title, text, _ = text_of(write(tmp_path / "tower.html", page))
    assert title == "Tower & facts"
    assert "It was completed in 1889 for the World's Fair." in text and "330 metres" in text
    assert "<p>" not in text and "color: red" not in text and "var x" not in text


SPHINX_PAGE = """<html><head><title>Built-in Types</title></head><body><div class="body" role="main">
<h1>Built-in Types<a class="headerlink" href="#built-in-types" title="Permalink">\u00b6</a></h1>
<dl class="py method"><dt class="sig" id="str.removeprefix"><span class="sig-name">str.removeprefix</span>\
(<em>prefix</em>, <em>/</em>)<a class="headerlink" href="#str.removeprefix">\u00b6</a></dt>
<dd><p>If the string starts with the <em>prefix</em> string, return
<code class="docutils literal"><span class="pre">string[len(prefix):]</span></code>. Otherwise, return a copy of the
original string:</p>
<div class="highlight-default notranslate"><div class="highlight">\
<pre><span class="gp">&gt;&gt;&gt; </span>'TestHook'.removeprefix('Test')
'Hook'
</pre></div></div>
<div class="versionadded"><p><span class="versionmodified">New in version 3.9.</span></p></div>
</dd></dl>
<p>Strings also support two styles of string formatting, one providing a large degree of flexibility and
customization, and the other based on the C printf style formatting that handles a narrower range of types
and is slightly harder to use correctly, but is often faster for the cases it can handle.</p>
</div></body></html>"""
"""A page as Sphinx writes it: paragraphs hard-wrapped in the HTML source, a doctest block, permalinks."""


def test_a_hard_wrapped_paragraph_is_one_paragraph_and_code_blocks_are_left_out(tmp_path: Path) -> None:
    _, text, _ = text_of(write(tmp_path / "stdtypes.html", SPHINX_PAGE))
    paragraphs = text.split("\n\n")
    assert ("If the string starts with the prefix string, return string[len(prefix):]. Otherwise, return a copy "
            "of the original string:") in paragraphs
    assert any(p.startswith("Strings also support two styles") and p.endswith("cases it can handle.")
               for p in paragraphs)
    assert "str.removeprefix(prefix, /)" in paragraphs
    assert ">>>" not in text and "'Hook'" not in text and "\u00b6" not in text
    assert all("\n" not in paragraph for paragraph in paragraphs)


def test_html_falls_back_to_stripping_tags(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import trafilatura

    monkeypatch.setattr(trafilatura, "extract", lambda *args, **kwargs: None)
    title, text, _ = text_of(write(tmp_path / "page.htm", "<p>First para.</p><div>Second <b>bold</b> para.</div>"))
    assert title == "page.htm"
    assert text == "First para.\n\nSecond bold para.\n\n"


def test_strip_tags_skips_scripts_and_keeps_blocks_apart() -> None:
    text = strip_tags("<title>T</title><h1>Head</h1><script>x()</script><ul><li>one</li><li>two</li></ul>")
    assert text.split("\n\n")[:3] == ["Head", "one", "two"]


def test_pdf_text_and_metadata_title(tmp_path: Path) -> None:
    pdf = minimal_pdf(["Mount Everest is 8,849 metres high.", "It lies in the Himalayas."], title="Everest facts")
    title, text, _ = text_of(write(tmp_path / "everest.pdf", pdf))
    assert title == "Everest facts"
    assert "Mount Everest is 8,849 metres high." in text and "Himalayas" in text


def test_pdf_without_a_title_uses_the_file_name(tmp_path: Path) -> None:
    assert text_of(write(tmp_path / "scan.pdf", minimal_pdf(["Some text."])))[0] == "scan.pdf"


def test_damaged_pdf_is_skipped(tmp_path: Path) -> None:
    path = write(tmp_path / "broken.pdf", b"%PDF-1.4\nthis is not a real pdf")
    with pytest.raises(SkipDocument, match="PDF"):
        text_of(path)


@pytest.mark.parametrize("name", ["data.txt", "notes.md"])
def test_binary_text_files_are_skipped(tmp_path: Path, name: str) -> None:
    path = write(tmp_path / name, b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    with pytest.raises(SkipDocument, match="binary file"):
        load(Source.from_path(path))


def test_empty_files_are_skipped(tmp_path: Path) -> None:
    with pytest.raises(SkipDocument, match="empty file"):
        load(Source.from_path(write(tmp_path / "empty.txt", "")))


def test_invalid_utf8_is_decoded_with_replacement_and_noted(tmp_path: Path) -> None:
    _, text, notes = text_of(write(tmp_path / "latin1.txt", "Café au lait.".encode("latin-1")))
    assert text == "Caf\ufffd au lait."
    assert notes == [REPLACEMENT_NOTE]


def test_large_files_are_streamed_in_blocks(tmp_path: Path) -> None:
    body = "Ünïcödé sentence number {}. ".format
    content = "".join(body(i) for i in range(2000)).encode("utf-8") + b"\xff tail."
    path = write(tmp_path / "big.txt", content)
    document = load(Source.from_path(path), stream_threshold=1000, block_size=997)  # odd size: splits characters
    pieces = list(document.pieces)
    assert len(pieces) > 10
    assert "".join(pieces) == content.decode("utf-8", errors="replace")
    assert any(note.startswith("streamed") for note in document.notes)
    assert REPLACEMENT_NOTE in document.notes


# Prose with what a stream could cut differently at a block boundary: sentences longer than 8 x
# chunk_tokens characters, a word longer than a chunk, list items and blank lines that are only
# recognised once the next line has arrived, CRLF line ends and multi-byte characters.
AWKWARD = (
    "Dr. Smith measured the bridge in 1889. It is 3.5 km long, e.g. longer than the café’s! Is it “the longest”? Yes.\n"
    * 3
    + "Facts:\n- the river floods\n- the naïve plan\n12. twelfth item\n13) thirteenth\n\n"
    + " ".join(f"word{i}" for i in range(400)) + ".\n\n"
    + "Windows line one.\r\nWindows line two\r\n\r\nNext paragraph.\r\n"
    + "x" * 1500 + " tail.\n\n"
) * 4
SMALL_CHUNKS = ChunkSettings(chunk_tokens=40, overlap_tokens=5)


@pytest.mark.parametrize("block_size", [3, 17, 256, 4099])
def test_streamed_and_whole_file_chunks_are_the_same(tmp_path: Path, block_size: int) -> None:
    source = Source.from_path(write(tmp_path / "awkward.txt", AWKWARD))
    whole = list(chunk_stream(load(source).pieces, SMALL_CHUNKS))
    streamed = load(source, stream_threshold=100, block_size=block_size)
    assert any(note.startswith("streamed") for note in streamed.notes)
    assert list(chunk_stream(streamed.pieces, SMALL_CHUNKS)) == whole


def test_streaming_splits_each_character_about_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Held-back text is re-split with every block; it must stay bounded, or streaming turns quadratic."""
    split = []

    def counting_split(text: str):
        split.append(len(text))
        return real_split(text)

    real_split = veracity.kb.chunking.split_sentences
    monkeypatch.setattr(veracity.kb.chunking, "split_sentences", counting_split)
    unpunctuated_line = "Intro.\n" + " ".join(f"word{i}" for i in range(40_000))
    for text in (AWKWARD * 4, unpunctuated_line, "a" * 200_000):
        split.clear()
        source = Source.from_path(write(tmp_path / "doc.txt", text))
        chunks = list(chunk_stream(load(source, stream_threshold=100, block_size=1024).pieces, SMALL_CHUNKS))
        assert chunks and sum(split) < 1.5 * len(text)


BLANK_LINES = 60_000


@pytest.mark.parametrize("text", [
    "\n" * BLANK_LINES,
    " \n" * BLANK_LINES,
    "\r\n" * BLANK_LINES,
    "Intro sentence.\n" + " \n" * BLANK_LINES,
    "Intro sentence.\r\n" + "\r\n" * BLANK_LINES,
    "Intro sentence." + " " * BLANK_LINES,
    " \n" * BLANK_LINES + "Closing sentence.",
], ids=["newlines", "space lines", "crlf lines", "text then space lines", "text then crlf lines",
        "text then spaces", "space lines then text"])
def test_streaming_blank_lines_splits_each_character_about_once(tmp_path: Path, text: str,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """A stream of whitespace used to be re-split whole with every block: quadratic in the file's size."""
    split = []

    def counting_split(text: str):
        split.append(len(text))
        return real_split(text)

    real_split = veracity.kb.chunking.split_sentences
    monkeypatch.setattr(veracity.kb.chunking, "split_sentences", counting_split)
    source = Source.from_path(write(tmp_path / "blank.txt", text))
    whole = list(chunk_stream(load(source).pieces, SMALL_CHUNKS))
    split_whole, split[:] = sum(split), []
    streamed = load(source, stream_threshold=100, block_size=1024)
    assert list(chunk_stream(streamed.pieces, SMALL_CHUNKS)) == whole
    # Read whole, the text is split once or twice; the old stream split about len(text)² / 2048 characters.
    assert sum(split) <= split_whole <= 2 * len(text)


def test_large_html_is_streamed_with_tags_stripped(tmp_path: Path) -> None:
    page = "<html><head><title>Big</title></head><body>" + "<p>A paragraph about rivers.</p>" * 200 + "</body></html>"
    document = load(Source.from_path(write(tmp_path / "big.html", page)), stream_threshold=100, block_size=64)
    text = "".join(document.pieces)
    assert document.title == "Big"
    assert text.count("A paragraph about rivers.") == 200 and "<p>" not in text


def test_discover_walks_folders_and_reports_what_it_skips(tmp_path: Path) -> None:
    write(tmp_path / "docs" / "a.md", "A.")
    write(tmp_path / "docs" / "sub" / "b.txt", "B.")
    write(tmp_path / "docs" / "sub" / "c.HTML", "<p>C.</p>")
    write(tmp_path / "docs" / "image.png", b"\x89PNG")
    write(tmp_path / "docs" / ".hidden" / "secret.md", "hidden")
    write(tmp_path / "docs" / ".dotfile.txt", "hidden")
    sources, skipped = discover([tmp_path / "docs", tmp_path / "docs" / "a.md", tmp_path / "missing.txt"])
    assert sorted(Path(s.key).name for s in sources) == ["a.md", "b.txt", "c.HTML"]
    assert {Path(s.key).name: s.kind for s in sources}["c.HTML"] == "html"
    reasons = {Path(s.key).name: s.reason for s in skipped}
    assert reasons["image.png"].startswith("unsupported file type '.png'")
    assert reasons["missing.txt"] == "not found"
    assert len(skipped) == 2


def test_demo_sources_are_bundled_notes() -> None:
    sources = demo_sources()
    assert 12 <= len(sources) <= 20
    keys = {s.key for s in sources}
    assert {"demo:sydney-opera-house.md", "demo:australia.md"} <= keys
    with sources[0].open() as handle:
        assert handle.read(2) == b"# "


def test_a_symbolic_link_loop_is_skipped_with_a_reason_and_the_rest_is_found(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    (docs / "sub").mkdir(parents=True)
    (docs / "a.txt").write_text("The Nile flows north.", encoding="utf-8")
    (docs / "sub" / "up").symlink_to("..")  # a folder loop: not followed
    (docs / "loop.txt").symlink_to("other.txt")
    (docs / "other.txt").symlink_to("loop.txt")  # before: RuntimeError "Symlink loop" aborted the whole ingest
    sources, skipped = discover([docs])
    assert [source.name for source in sources] == ["a.txt"]
    reasons = {Path(item.key).name: item.reason for item in skipped}
    assert set(reasons) == {"loop.txt", "other.txt"}
    assert all("loop" in reason or "symbolic" in reason or "cannot read" in reason for reason in reasons.values())
