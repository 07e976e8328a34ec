"""Turn a source (text, markdown, HTML or PDF) into a title and a stream of text pieces.

Small files are read whole. Files over the stream threshold are read block by block, so a
large document never sits in memory at once: the chunker consumes the pieces as they come.
"""

from __future__ import annotations

import codecs
import html
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import IO, TYPE_CHECKING, Any

from veracity.kb.sources import Source

if TYPE_CHECKING:
    from pypdf import PdfReader

STREAM_THRESHOLD = 20 * 1024 * 1024
"""Files larger than this many bytes are processed as a stream."""

BLOCK_SIZE = 1024 * 1024
"""Bytes read at a time when streaming."""

_SNIFF_BYTES = 8 * 1024
_HEAD_BYTES = 64 * 1024
_MARKDOWN_TITLE = re.compile(r"^[ \t]{0,3}#[ \t]+(.+?)[ \t#]*$", re.MULTILINE)
_HTML_TITLE = re.compile(r"<title[^>]*>(.*?)</title\s*>", re.IGNORECASE | re.DOTALL)
REPLACEMENT_NOTE = "decoded with replacement (the file is not valid UTF-8)"
NO_TEXT = "no text to index (empty or whitespace only)"


class SkipDocument(Exception):
    """The document cannot be indexed; the message is the reason shown to the user."""


@dataclass
class LoadedDocument:
    """A document ready for chunking. `notes` may grow while `pieces` is consumed."""

    title: str
    pieces: Iterator[str]
    notes: list[str] = field(default_factory=list)
    empty_reason: str = NO_TEXT
    """Why the document is skipped if its pieces turn out to hold no text."""


def load(source: Source, *, stream_threshold: int = STREAM_THRESHOLD, block_size: int = BLOCK_SIZE) -> LoadedDocument:
    """Open `source` and return its title and text; raise `SkipDocument` (or OSError) when it cannot be used."""
    if source.size == 0:
        raise SkipDocument("empty file")
    streamed = source.size > stream_threshold
    loader = {"text": _load_text, "markdown": _load_text, "html": _load_html, "pdf": _load_pdf}[source.kind]
    document = loader(source, streamed, block_size)
    if streamed:
        size = source.size / 1_048_576
        document.notes.append(f"streamed ({size:.1f} MB, over the {stream_threshold:,}-byte threshold)")
    return document


def _read_head(source: Source) -> bytes:
    with source.open() as handle:
        return handle.read(_HEAD_BYTES)


def _blocks(source: Source, streamed: bool, block_size: int) -> Iterator[bytes]:
    """The file's bytes: all at once, or block by block when streaming."""
    with source.open() as handle:
        if not streamed:
            yield handle.read()
            return
        while block := handle.read(block_size):
            yield block


def _decode(blocks: Iterable[bytes], notes: list[str], encoding: str = "utf-8-sig") -> Iterator[str]:
    """Decode strictly; at the first invalid byte switch to replacement characters and add a note."""
    decoder = codecs.getincrementaldecoder(encoding)("strict")
    for block in blocks:
        state = decoder.getstate()
        try:
            text = decoder.decode(block)
        except UnicodeDecodeError:
            decoder = codecs.getincrementaldecoder(encoding)("replace")
            decoder.setstate(state)
            text = decoder.decode(block)
            notes.append(REPLACEMENT_NOTE)
        if text:
            yield text
    if tail := decoder.decode(b"", final=True):
        yield tail


def _text_encoding(head: bytes) -> str:
    """UTF-16 when a byte-order mark says so; otherwise UTF-8 (with or without BOM). NULs mean binary."""
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "utf-16"
    if b"\x00" in head[:_SNIFF_BYTES]:
        raise SkipDocument("binary file (NUL bytes in the first 8 KB), not text")
    return "utf-8-sig"


def _load_text(source: Source, streamed: bool, block_size: int) -> LoadedDocument:
    head = _read_head(source)
    encoding = _text_encoding(head)
    title = source.name
    if source.kind == "markdown":
        match = _MARKDOWN_TITLE.search(head.decode(encoding, errors="replace"))
        if match:
            title = match.group(1).strip()
    document = LoadedDocument(title=title, pieces=iter(()))
    document.pieces = _decode(_blocks(source, streamed, block_size), document.notes, encoding)
    return document


class HtmlText(HTMLParser):
    """Visible text of an HTML document, fed piece by piece: block elements become blank lines."""

    _HIDDEN = frozenset({"head", "title", "script", "style", "noscript", "template", "svg", "iframe"})
    _BLOCKS = frozenset({
        "address", "article", "aside", "blockquote", "br", "dd", "div", "dl", "dt", "figcaption", "figure",
        "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "li", "main", "nav", "ol",
        "p", "pre", "section", "table", "td", "th", "tr", "ul",
    })

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self._hidden = 0
        self._parts: list[str] = []
        self._at_break = True

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        """Start skipping hidden elements; a block element ends the current line."""
        if tag in self._HIDDEN:
            self._hidden += 1
        elif tag in self._BLOCKS:
            self._break()

    def handle_endtag(self, tag: str) -> None:
        """Stop skipping at the end of a hidden element; a block element ends the current line."""
        if tag in self._HIDDEN:
            self._hidden = max(0, self._hidden - 1)
        elif tag in self._BLOCKS:
            self._break()

    def handle_data(self, data: str) -> None:
        """Keep visible text, with its whitespace collapsed."""
        if self._hidden:
            return
        text = re.sub(r"\s+", " ", data)
        if self._at_break:
            text = text.lstrip()
        if text:
            self._parts.append(text)
            self._at_break = False

    def _break(self) -> None:
        if not self._at_break:
            self._parts.append("\n\n")
            self._at_break = True

    def take(self) -> str:
        """The text collected since the last call."""
        text, self._parts = "".join(self._parts), []
        return text


def strip_tags(markup: str) -> str:
    """Plain text of an HTML string, without boilerplate removal (the fallback to trafilatura)."""
    parser = HtmlText()
    parser.feed(markup)
    parser.close()
    return parser.take()


def _html_title(head: bytes) -> str | None:
    match = _HTML_TITLE.search(head.decode("utf-8", errors="replace"))
    title = re.sub(r"\s+", " ", html.unescape(match.group(1))).strip() if match else ""
    return title or None


def _extract_main_text(markup: str) -> str:
    """Main text by trafilatura (boilerplate removed), a paragraph per block; the tag-stripped text if it finds none.

    trafilatura's XML says where each paragraph, heading, list item and table row begins and ends;
    its plain text does not (it keeps a page's hard-wrapped lines, so Sphinx output would be cut into
    fragments such as "str.removeprefix(prefix) and"). Blank lines keep blocks apart; code blocks
    (``pre`` elements, and ``code`` elements outside a sentence) are left out, since they are not
    prose for the judge to read as sentences.
    """
    import trafilatura

    tree = _prose_tree(markup)
    if tree is None:
        return strip_tags(markup)
    extracted = trafilatura.extract(tree, include_comments=False, include_tables=True, favor_recall=True,
                                    output_format="xml")
    paragraphs = main_text_paragraphs(extracted) if extracted else []
    return "\n\n".join(paragraphs) if paragraphs else strip_tags(markup)


def _prose_tree(markup: str) -> Any | None:
    """The page parsed once, without its code listings and with inline code flattened; None if it does not parse.

    ``pre`` elements (listings, console sessions) are removed with their content. Inside inline
    ``code`` the ``span`` elements of syntax highlighting are unwrapped, their text kept: a
    documentation page holds thousands of them, and each costs trafilatura's tree passes time
    without changing the text it returns.
    """
    import lxml.html
    from lxml import etree

    try:
        try:
            tree = lxml.html.document_fromstring(markup)
        except ValueError:  # a str with an XML encoding declaration: lxml takes it as bytes only
            tree = lxml.html.document_fromstring(markup.encode("utf-8"), parser=_utf8_parser())
    except (etree.ParserError, ValueError):  # nothing to parse
        return None
    etree.strip_elements(tree, "pre", with_tail=False)
    for code in tree.iter("code"):
        etree.strip_tags(code, "span")
    return tree


def _utf8_parser() -> Any:
    import lxml.html

    return lxml.html.HTMLParser(encoding="utf-8")


_PERMALINK = "\u00b6"
"""The pilcrow that documentation generators put after headings as a link to them."""
_XML_BLOCKS = frozenset({"p", "head", "item", "quote", "row", "list", "table", "main", "doc", "div", "section"})
"""trafilatura XML elements that hold blocks (the others, such as hi, ref, code in a sentence, are inline)."""
_XML_PARAGRAPHS = frozenset({"p", "head", "item", "quote"})
_SENTENCE_PARENTS = frozenset({"p", "head", "cell", "quote", "hi", "ref"})


def main_text_paragraphs(xml: str) -> list[str]:
    """The paragraphs of trafilatura's XML output, each with its line breaks and runs of spaces collapsed.

    A table row is one paragraph, its cells joined by " | "; a code block (a ``code`` element that
    is not part of a sentence) is left out.
    """
    from lxml import etree

    root = etree.fromstring(xml.encode("utf-8"), parser=etree.XMLParser(recover=True))
    paragraphs: list[str] = []
    if root is not None:
        _collect(root, paragraphs)
    return paragraphs


def _collapse(text: str) -> str:
    return re.sub(r"\s+", " ", text.replace(_PERMALINK, " ")).strip()


def _is_code_block(element: Any) -> bool:
    if element.tag != "code" or element.getparent() is None or element.getparent().tag in _SENTENCE_PARENTS:
        return False
    parent = element.getparent()
    before = parent.text if element.getprevious() is None else element.getprevious().tail
    return "\n" in (element.text or "") or not ((before or "").strip() or (element.tail or "").strip())


def _own_text(element: Any) -> str:
    """The element's text and its inline children's, without its block children's."""
    parts = [element.text or ""]
    for child in element:
        if child.tag not in _XML_BLOCKS and not _is_code_block(child):
            parts.append("".join(child.itertext()))
        parts.append(child.tail or "")
    return _collapse(" ".join(parts) if any(c.tag == "lb" for c in element) else "".join(parts))


def _collect(element: Any, paragraphs: list[str]) -> None:
    if _is_code_block(element) or not isinstance(element.tag, str):
        return
    if element.tag == "row":
        cells = [_collapse("".join(cell.itertext())) for cell in element]
        if row := " | ".join(cell for cell in cells if cell):
            paragraphs.append(row)
        return
    if element.tag in _XML_PARAGRAPHS and (text := _own_text(element)):
        paragraphs.append(text)
    for child in element:
        if child.tag in _XML_BLOCKS or _is_code_block(child):
            _collect(child, paragraphs)


def _streamed_html(texts: Iterable[str]) -> Iterator[str]:
    parser = HtmlText()
    for text in texts:
        parser.feed(text)
        if piece := parser.take():
            yield piece
    parser.close()
    if piece := parser.take():
        yield piece


def _load_html(source: Source, streamed: bool, block_size: int) -> LoadedDocument:
    title = _html_title(_read_head(source)) or source.name
    document = LoadedDocument(title=title, pieces=iter(()))
    texts = _decode(_blocks(source, streamed, block_size), document.notes)
    if streamed:
        document.notes.append("HTML streamed: tags stripped without boilerplate removal")
        document.pieces = _streamed_html(texts)
    else:
        document.pieces = iter([_extract_main_text("".join(texts))])
    return document


def _load_pdf(source: Source, streamed: bool, block_size: int) -> LoadedDocument:
    from pypdf import PdfReader

    handle = source.open()
    try:
        reader = PdfReader(handle)
        if reader.is_encrypted and not reader.decrypt(""):
            raise SkipDocument("encrypted PDF (it needs a password)")
        title = (reader.metadata.title if reader.metadata else None) or ""
    except SkipDocument:
        handle.close()
        raise
    except Exception as exc:  # pypdf raises many kinds of error on damaged files
        handle.close()
        raise SkipDocument(f"cannot read the PDF: {exc}") from exc
    document = LoadedDocument(
        title=title.strip() or source.name,
        pieces=_pdf_pages(reader, handle),
        empty_reason="no extractable text in the PDF (a scanned PDF needs OCR first)",
    )
    return document


def _pdf_pages(reader: PdfReader, handle: IO[bytes]) -> Iterator[str]:
    """The text of each page, one page at a time, separated by blank lines."""
    with handle:
        for number, page in enumerate(reader.pages, start=1):
            try:
                text = page.extract_text() or ""
            except Exception as exc:  # see _load_pdf
                raise SkipDocument(f"cannot read page {number} of the PDF: {exc}") from exc
            if text.strip():
                yield text.strip() + "\n\n"
