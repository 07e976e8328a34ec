"""Evidence from a source text the user supplies, such as a policy an answer must stay within."""

from __future__ import annotations

import re

from veracity.contracts import SearchHit
from veracity.evidence.capabilities import Capabilities
from veracity.sentences import split_sentences

PASSAGE_CHARS = 1_500
"""Longest passage handed to the judge; longer paragraphs are cut at sentence boundaries."""


def source_passages(text: str, *, max_chars: int = PASSAGE_CHARS) -> list[str]:
    """Cut a source into passages: its paragraphs, with long ones split between sentences."""
    passages: list[str] = []
    for paragraph in re.split(r"\n[ \t]*\n", text):
        paragraph = paragraph.strip()
        if not paragraph:
            continue
        if len(paragraph) <= max_chars:
            passages.append(paragraph)
            continue
        current = ""
        for sentence in split_sentences(paragraph):
            if current and len(current) + 1 + len(sentence.text) > max_chars:
                passages.append(current)
                current = ""
            current = f"{current} {sentence.text}".strip()
        if current:
            passages.append(current)
    return passages


def _overlap(query: str, passage: str) -> int:
    words = set(re.findall(r"\w+", query.lower()))
    return len(words & set(re.findall(r"\w+", passage.lower())))


class SourceTextBackend:
    """Returns passages of one given text, most word overlap with the claim first. No search runs."""

    name = "source"
    capabilities = Capabilities(source_text=True)

    def __init__(self, text: str, *, title: str = "source", url: str | None = None) -> None:
        self.passages = source_passages(text)
        self.title = title
        self.url = url

    async def search(self, query: str, *, limit: int) -> list[SearchHit]:
        """The passages, ranked by shared words with `query`; all of them when they fit in `limit`."""
        ranked = self.passages
        if len(ranked) > limit:
            ranked = sorted(ranked, key=lambda p: -_overlap(query, p))
        return [SearchHit(title=self.title, url=self.url, text=p) for p in ranked[:limit]]
