"""Chunking: whole sentences, exact offsets, overlap, long sentences, and streaming."""

from __future__ import annotations

import random
from itertools import pairwise

import pytest

from veracity.kb.chunking import ChunkSettings, chunk_stream, chunk_text, count_tokens
from veracity.sentences import split_sentences

WORDS = ["alpha", "beta", "gamma", "delta", "Dr.", "Smith", "went", "home.", "The", "end!", "Is", "it?",
         "Yes.\n\nA", "new", "paragraph,", "e.g.", "this", "one."]


def prose(words: int, seed: int = 1) -> str:
    rng = random.Random(seed)
    return " ".join(rng.choice(WORDS) for _ in range(words)) + "."


def test_token_count_is_words_times_1_3_or_characters_over_4() -> None:
    assert count_tokens("one two three four five six seven eight nine ten") == 13
    assert count_tokens("x" * 400) == 100  # no spaces: characters / 4
    assert count_tokens("") == 1


def test_chunks_are_exact_slices_of_whole_sentences_within_budget() -> None:
    text = prose(3000)
    settings = ChunkSettings(chunk_tokens=120, overlap_tokens=15)
    chunks = chunk_text(text, settings)
    assert len(chunks) > 10
    starts = {s.start for s in split_sentences(text)}
    ends = {s.end for s in split_sentences(text)}
    for index, chunk in enumerate(chunks):
        assert chunk.index == index
        assert text[chunk.start:chunk.end] == chunk.text
        assert chunk.start in starts and chunk.end in ends
        assert count_tokens(chunk.text) <= settings.chunk_tokens + 2
    assert chunks[0].start == 0 and chunks[-1].end == len(text.rstrip())


def test_consecutive_chunks_overlap_by_whole_sentences() -> None:
    text = prose(2000, seed=3)
    chunks = chunk_text(text, ChunkSettings(chunk_tokens=100, overlap_tokens=20))
    sentence_starts = {s.start for s in split_sentences(text)}
    overlapping = 0
    for previous, current in pairwise(chunks):
        assert not text[previous.end:current.start].strip()  # no text is lost between chunks
        if current.start < previous.end:
            overlapping += 1
            assert current.start in sentence_starts
            assert count_tokens(text[current.start:previous.end]) <= 20 + 2
    assert overlapping >= len(chunks) // 3


def test_no_overlap_when_asked() -> None:
    chunks = chunk_text(prose(1000), ChunkSettings(chunk_tokens=60, overlap_tokens=0))
    assert all(b.start >= a.end for a, b in pairwise(chunks))


def test_a_sentence_longer_than_a_chunk_is_cut_between_words() -> None:
    sentence = " ".join(f"word{i}" for i in range(300)) + "."
    chunks = chunk_text(sentence, ChunkSettings(chunk_tokens=50, overlap_tokens=0))
    assert len(chunks) >= 7
    assert " ".join(c.text for c in chunks) == sentence
    assert all(count_tokens(c.text) <= 50 for c in chunks)


def test_a_word_longer_than_a_chunk_is_cut_by_characters() -> None:
    chunks = chunk_text("a" * 1000, ChunkSettings(chunk_tokens=50, overlap_tokens=0))
    assert "".join(c.text for c in chunks) == "a" * 1000


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_streaming_gives_the_same_chunks_as_whole_text(seed: int) -> None:
    text = prose(5000, seed=seed)
    settings = ChunkSettings(chunk_tokens=90, overlap_tokens=12)
    rng = random.Random(seed)
    pieces, position = [], 0
    while position < len(text):
        size = rng.randint(1, 2000)
        pieces.append(text[position:position + size])
        position += size
    assert list(chunk_stream(pieces, settings)) == chunk_text(text, settings)


def test_streaming_yields_chunks_before_the_input_is_exhausted() -> None:
    consumed = []

    def pieces():
        for number in range(1000):
            consumed.append(number)
            yield prose(100, seed=number) + " "

    stream = chunk_stream(pieces(), ChunkSettings(chunk_tokens=100, overlap_tokens=10))
    next(stream)
    assert len(consumed) < 10  # only a few pieces were read to produce the first chunk


def test_settings_validation_and_defaults() -> None:
    assert ChunkSettings() == ChunkSettings(600, 72)
    assert ChunkSettings.resolve(300, None) == ChunkSettings(300, 36)
    assert ChunkSettings.resolve(None, 10, ChunkSettings(200, 20)) == ChunkSettings(200, 10)
    with pytest.raises(ValueError, match="overlap_tokens"):
        ChunkSettings(100, 60)
    with pytest.raises(ValueError, match="chunk_tokens"):
        ChunkSettings(10, 0)


def test_empty_and_blank_text_give_no_chunk() -> None:
    assert chunk_text("") == []
    assert chunk_text(" \n\n\t ") == []
