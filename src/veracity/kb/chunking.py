"""Cut a document into overlapping chunks of whole sentences, as a stream.

Token counts are an approximation, not the embedding model's tokenizer: a text counts as
`words x 1.3` tokens, or `characters / 4` when that is larger (text with few spaces, such as
Chinese or long identifiers). It is cheap, and close to WordPiece counts for English prose.

Each chunk's text is an exact slice of the document, `text[start:end]`, so offsets map back.
A chunk is made of whole sentences up to `chunk_tokens`; the next chunk starts with the last
sentences of the previous one, up to `overlap_tokens` (a single longer sentence is not
repeated). A sentence longer than a whole chunk is cut between words.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import NamedTuple

from veracity.sentences import settled_end, split_sentences

DEFAULT_CHUNK_TOKENS = 600
DEFAULT_OVERLAP_TOKENS = 72
"""About 12% of a default chunk."""
OVERLAP_SHARE = 0.12

SEGMENT_CHARS_PER_TOKEN = 8
"""A sentence longer than `chunk_tokens` x 8 characters is first cut into segments of at most that
many characters, at whitespace. This bounds what a stream holds back, and as the cut depends
only on the text before it, a streamed document is cut exactly like a whole one."""

_WORD = re.compile(r"\S+")
_LAST_WHITESPACE = re.compile(r"\s(?=\S*\Z)")


def count_tokens(text: str) -> int:
    """Approximate token count: max(words x 1.3, characters / 4), at least 1."""
    return max(1, math.ceil(max(len(text.split()) * 1.3, len(text) / 4)))


@dataclass(frozen=True)
class ChunkSettings:
    """How documents are cut: target tokens per chunk and tokens shared with the previous chunk."""

    chunk_tokens: int = DEFAULT_CHUNK_TOKENS
    overlap_tokens: int = DEFAULT_OVERLAP_TOKENS

    @classmethod
    def resolve(cls, chunk_tokens: int | None, overlap_tokens: int | None,
                base: ChunkSettings | None = None) -> ChunkSettings:
        """Settings from optional choices: what is not given comes from `base` (default: the defaults).

        A new chunk size without an overlap gets an overlap of 12% of it.
        """
        base = base or cls()
        if overlap_tokens is None:
            overlap_tokens = base.overlap_tokens if chunk_tokens is None else round(chunk_tokens * OVERLAP_SHARE)
        return cls(chunk_tokens if chunk_tokens is not None else base.chunk_tokens, overlap_tokens)

    def __post_init__(self) -> None:
        if self.chunk_tokens < 20:
            raise ValueError(f"chunk_tokens must be at least 20, not {self.chunk_tokens}")
        if not 0 <= self.overlap_tokens <= self.chunk_tokens // 2:
            raise ValueError(
                f"overlap_tokens must be between 0 and half of chunk_tokens ({self.chunk_tokens // 2}), "
                f"not {self.overlap_tokens}"
            )


@dataclass(frozen=True)
class Chunk:
    """A slice of a document: its position among the document's chunks, [start, end) offsets and text."""

    index: int
    start: int
    end: int
    text: str


class _Unit(NamedTuple):
    """A sentence (or a piece of an over-long one) by its document offsets."""

    start: int
    end: int
    tokens: int


def _pieces_of_long_sentence(text: str, base: int, start: int, end: int, limit: int) -> Iterator[_Unit]:
    """Cut text[start:end] (offsets relative to `text`, which begins at document offset `base`) between words."""
    piece_start: int | None = None
    piece_end = 0
    piece_tokens = 0.0
    for word in _WORD.finditer(text, start, end):
        word_tokens = max(1.3, (len(word.group()) + 1) / 4)  # + 1: the space after it counts too
        if word_tokens > limit:  # one "word" longer than a chunk: cut it by characters
            if piece_start is not None:
                yield _Unit(base + piece_start, base + piece_end, math.ceil(piece_tokens))
                piece_start, piece_tokens = None, 0.0
            step = limit * 4
            for cut in range(word.start(), word.end(), step):
                stop = min(cut + step, word.end())
                yield _Unit(base + cut, base + stop, count_tokens(text[cut:stop]))
            continue
        if piece_start is not None and piece_tokens + word_tokens > limit:
            yield _Unit(base + piece_start, base + piece_end, math.ceil(piece_tokens))
            piece_start, piece_tokens = None, 0.0
        if piece_start is None:
            piece_start = word.start()
        piece_end = word.end()
        piece_tokens += word_tokens
    if piece_start is not None:
        yield _Unit(base + piece_start, base + piece_end, max(1, math.ceil(piece_tokens)))


def _segments(text: str, start: int, end: int, limit: int) -> list[tuple[int, int]]:
    """text[start:end] cut into segments of at most `limit` characters.

    Each cut is at the last whitespace within the limit, or after exactly `limit` characters where there is none.
    """
    segments = []
    while end - start > limit:
        space = _LAST_WHITESPACE.search(text, start + 1, start + limit + 1)
        if space is None:
            cut = resume = start + limit
        else:
            cut, resume = space.start(), space.end()
            while text[cut - 1].isspace():
                cut -= 1
            while text[resume].isspace():
                resume += 1
        segments.append((start, cut))
        start = resume
    segments.append((start, end))
    return segments


class _ChunkBuilder:
    """Packs units into chunks and starts each chunk with the overlap of the previous one."""

    def __init__(self, settings: ChunkSettings) -> None:
        self.settings = settings
        self.units: list[_Unit] = []
        self.fresh = False  # whether `units` holds anything not yet emitted
        self.index = 0

    def add(self, unit: _Unit, window: str, window_start: int) -> Chunk | None:
        """Add a unit; return the chunk it completed, if any."""
        emitted = None
        if self.units and sum(u.tokens for u in self.units) + unit.tokens > self.settings.chunk_tokens:
            emitted = self.emit(window, window_start)
            self.units = self._overlap()
            if sum(u.tokens for u in self.units) + unit.tokens > self.settings.chunk_tokens:
                self.units = []
        self.units.append(unit)
        self.fresh = True
        return emitted

    def emit(self, window: str, window_start: int) -> Chunk | None:
        """The chunk of the units collected so far (None if they were all emitted already)."""
        if not self.fresh:
            return None
        start, end = self.units[0].start, self.units[-1].end
        chunk = Chunk(self.index, start, end, window[start - window_start:end - window_start])
        self.index += 1
        self.fresh = False
        return chunk

    def _overlap(self) -> list[_Unit]:
        kept: list[_Unit] = []
        budget = self.settings.overlap_tokens
        for unit in reversed(self.units):
            if unit.tokens > budget:
                break
            kept.insert(0, unit)
            budget -= unit.tokens
        return kept

    @property
    def first_start(self) -> int | None:
        """Document offset of the earliest text the builder may still need."""
        return self.units[0].start if self.units else None


def chunk_stream(pieces: Iterable[str], settings: ChunkSettings | None = None) -> Iterator[Chunk]:
    """Chunk a document given as consecutive pieces of text; yields chunks as soon as they are complete.

    Only the unfinished chunk and the sentence being read are kept in memory, never the whole document
    (a run of whitespace is kept until the text after it arrives). Each character is split into
    sentences a bounded number of times, so the cost is linear in the document's length.
    """
    settings = settings or ChunkSettings()
    builder = _ChunkBuilder(settings)
    max_segment = settings.chunk_tokens * SEGMENT_CHARS_PER_TOKEN
    window, window_start, scan = "", 0, 0  # window = document text from window_start; scan = first unsplit offset

    def sentence_units(start: int, end: int) -> Iterator[_Unit]:
        for first, last in _segments(window, start, end, max_segment):
            tokens = count_tokens(window[first:last])
            if tokens > settings.chunk_tokens:
                yield from _pieces_of_long_sentence(window, window_start, first, last, settings.chunk_tokens)
            else:
                yield _Unit(window_start + first, window_start + last, tokens)

    def units(final: bool) -> Iterator[_Unit]:
        nonlocal scan
        local = scan - window_start
        spans = [(local + s.start, local + s.end) for s in split_sentences(window[local:])]
        held = spans.pop() if spans and not final else None  # the last sentence may continue in the next piece
        for start, end in spans:
            yield from sentence_units(start, end)
        if held is not None:
            # Emit the segments of the held sentence that more text cannot change; keep back the rest.
            *complete, (rest, _) = _segments(window, held[0], settled_end(window, *held), max_segment)
            for start, end in complete:
                yield from sentence_units(start, end)
            scan = window_start + rest
        elif spans:
            scan = window_start + spans[-1][1]

    def feed(final: bool) -> Iterator[Chunk]:
        nonlocal window, window_start
        for unit in units(final):
            if (chunk := builder.add(unit, window, window_start)) is not None:
                yield chunk
        keep_from = min(scan, builder.first_start if builder.first_start is not None else scan)
        window, window_start = window[keep_from - window_start:], keep_from

    blank: list[str] = []  # pieces of whitespace only, not split yet
    for piece in pieces:
        if not piece or piece.isspace():
            # Whitespace is split together with the next piece that holds text (or at the end):
            # re-splitting a growing run of blank lines with every block would make a stream of
            # them quadratic. Splitting later changes no chunk, only the moment one is yielded.
            blank.append(piece)
            continue
        window += "".join(blank) + piece
        blank.clear()
        yield from feed(final=False)
    window += "".join(blank)
    yield from feed(final=True)
    if (chunk := builder.emit(window, window_start)) is not None:
        yield chunk


def chunk_text(text: str, settings: ChunkSettings | None = None) -> list[Chunk]:
    """Chunk a whole document held in memory (see `chunk_stream`)."""
    return list(chunk_stream([text], settings))
