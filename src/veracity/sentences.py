"""Sentence segmentation with character spans.

Shared by the source text's passages, the claim splitter, the knowledge base, the calculator and the
judges, so that all of them cut text the same way.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_ABBREVIATIONS = {
    "mr", "mrs", "ms", "dr", "prof", "sr", "jr", "st", "mt", "ft", "vs", "etc", "e.g", "i.e", "inc", "ltd",
    "co", "corp", "no", "fig", "approx", "dept", "est", "gen", "gov", "jan", "feb", "mar", "apr", "jun",
    "jul", "aug", "sep", "sept", "oct", "nov", "dec", "u.s", "u.k", "a.m", "p.m", "ca", "cf", "al",
}
# A candidate boundary: terminal punctuation, optional closing quotes/brackets, then space.
_BOUNDARY = re.compile(r"[.!?…]+[\"'”’)\]]*(?=\s+|$)")
_NEXT_STARTS_SENTENCE = re.compile(r"\s+[\"'“‘(\[]*[A-Z0-9À-ÖØ-Þ]")
# The start of a last line that may still become a blank line or a list item (see the block pattern below).
_OPEN_LAST_LINE = re.compile(r"\n[ \t]*(?:[-*•]|\d+[.)]?)?\Z")


@dataclass(frozen=True)
class Sentence:
    """A sentence and its [start, end) offsets in the text it came from."""

    text: str
    start: int
    end: int


def _is_abbreviation(text: str, dot: int) -> bool:
    word_start = dot
    while word_start > 0 and (text[word_start - 1].isalpha() or text[word_start - 1] == "."):
        word_start -= 1
    word = text[word_start:dot].lower()
    return word in _ABBREVIATIONS or (len(word) == 1 and word.isalpha())


def split_sentences(text: str) -> list[Sentence]:
    """Split `text` into sentences; blank lines and line-leading bullets also end a sentence."""
    sentences: list[Sentence] = []
    for block in re.finditer(r"[^\n]+(?:\n(?![ \t]*\n)(?![ \t]*(?:[-*•]|\d+[.)])\s)[^\n]+)*", text):
        start = block.start()
        block_end = block.end()
        for match in _BOUNDARY.finditer(text, block.start(), block_end):
            end = match.end()
            punct = match.group(0)
            if punct.startswith(".") and len(punct.rstrip("\"'”’)]")) == 1 and _is_abbreviation(text, match.start()):
                continue
            if end < block_end and not _NEXT_STARTS_SENTENCE.match(text, end):
                continue
            _append(sentences, text, start, end)
            start = end
        _append(sentences, text, start, block_end)
    return sentences


def _append(sentences: list[Sentence], text: str, start: int, end: int) -> None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if end > start:
        sentences.append(Sentence(text[start:end], start, end))


def settled_end(text: str, start: int, end: int) -> int:
    """How far the last sentence of `text`, at [start, end), reaches for certain whatever text is appended.

    Appended text can only lengthen it, except when `text` ends in a line that may still turn out
    to be blank or a list item ("\\n", "\\n  -", "\\n12."): that would end the sentence at the line
    break before it.
    """
    line = text.rfind("\n", start, end)
    if line < 0 or not _OPEN_LAST_LINE.match(text, line):
        return end
    while line > start and text[line - 1].isspace():
        line -= 1
    return line
