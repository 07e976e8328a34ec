"""Sentences to passages: clause spans, courtesy and question filtering, and the segments between commas and dashes."""

from __future__ import annotations

import re

from veracity.offline.extract import lexicon, worthiness
from veracity.offline.extract.tokens import WORD, trim_end
from veracity.sentences import split_sentences

_CLAUSE_BREAK = re.compile(r";\s+")


_SEGMENT_BREAK = re.compile(r"\s*[,;:]\s+|\s+[-–—]+\s+|\s+(?=(?:and|but)\s)", re.IGNORECASE)


def clause_spans(text: str) -> list[tuple[int, int]]:
    """Sentences, further cut at semicolons (each side of one is a sentence of its own)."""
    spans: list[tuple[int, int]] = []
    for sentence in split_sentences(text):
        start = sentence.start
        for match in _CLAUSE_BREAK.finditer(text, sentence.start, sentence.end):
            spans.append((start, match.start() + 1))
            start = match.end()
        spans.append((start, sentence.end))
    return spans


def passage_spans(text: str, start: int, end: int, strict: bool) -> list[tuple[int, int]]:
    """Maximal runs of non-courtesy segments, as spans.

    A subordinate clause cut off from its main clause by courtesy ("Even though X, don't worry, Y")
    is dropped.
    """
    segments = _segments(text, start, end)
    kept = [not _is_courtesy(text, span, index, len(segments), strict) for index, span in enumerate(segments)]
    passages: list[tuple[int, int]] = []
    run_start = 0
    while run_start < len(segments):
        if not kept[run_start]:
            run_start += 1
            continue
        run_end = run_start
        while run_end + 1 < len(segments) and kept[run_end + 1]:
            run_end += 1
        span = _strip_leading_conjunctions(text, segments[run_start][0], segments[run_end][1])
        inner = range(run_start + 1, run_end + 1)
        cut_off = run_end + 1 < len(segments) and not any(segments[position][2] for position in inner)
        if span and not (cut_off and lexicon.SUBORDINATOR.match(text, span[0])):
            passages.append(span)
        run_start = run_end + 1
    return passages


def courtesy_spans(text: str, start: int, end: int, strict: bool) -> list[tuple[int, int]]:
    """Maximal runs of courtesy segments, as spans trimmed of trailing punctuation: what `passage_spans` leaves out.

    Bare interjections ("Well, ...", "Sure, ...") are listed only when the whole sentence is courtesy.
    """
    segments = _segments(text, start, end)
    courtesy = [_is_courtesy(text, span, index, len(segments), strict) for index, span in enumerate(segments)]
    whole = all(courtesy)
    runs: list[tuple[int, int]] = []
    run: list[tuple[int, int]] = []
    for segment, is_courtesy in [*zip(segments, courtesy, strict=True), ((end, end, False), False)]:
        span = _strip_leading_conjunctions(text, segment[0], segment[1])
        if is_courtesy:
            run.extend([span] if span else [])
            continue
        if run and (whole or not all(worthiness.is_interjection(text[a:b]) for a, b in run)):
            runs.append((run[0][0], trim_end(text, run[0][0], run[-1][1])))
        run = []
    return runs


def is_all_courtesy(text: str, start: int, end: int, strict: bool) -> bool:
    """Whether every segment of text[start:end] is courtesy ("Thanks, is there anything else?")."""
    segments = _segments(text, start, end)
    return all(_is_courtesy(text, span, index, len(segments), strict) for index, span in enumerate(segments))


def _segments(text: str, start: int, end: int) -> list[tuple[int, int, bool]]:
    """(start, end, follows_punctuation) pieces between commas, dashes and "and"/"but"."""
    segments: list[tuple[int, int, bool]] = []
    cursor, after_punctuation = start, False
    for match in _SEGMENT_BREAK.finditer(text, start, end):
        if match.start() > cursor:
            segments.append((cursor, match.start(), after_punctuation))
        cursor, after_punctuation = match.end(), bool(match.group().strip())
    if end > cursor:
        segments.append((cursor, end, after_punctuation))
    return segments


def _is_courtesy(text: str, segment: tuple[int, int, bool], index: int, count: int, strict: bool) -> bool:
    span = _strip_leading_conjunctions(text, segment[0], segment[1])
    if span is None:
        return True
    return worthiness.is_courtesy(text, *span, edge=index in (0, count - 1), strict=strict)


def _strip_leading_conjunctions(text: str, start: int, end: int) -> tuple[int, int] | None:
    for match in WORD.finditer(text, start, end):
        if match.group().lower() not in lexicon.LEADING_CONJUNCTIONS:
            return match.start(), end
    return None
