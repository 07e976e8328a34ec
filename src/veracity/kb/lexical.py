"""Lexical search: a bm25s index over chunk texts, rebuilt whole after every change (it takes well under a second)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

_STOPWORDS = "en"


def _tokens(texts: list[str], *, ids: bool) -> Any:
    import bm25s

    return bm25s.tokenize(texts, stopwords=_STOPWORDS, return_ids=ids, show_progress=False)


def build_lexical(folder: Path, ids_path: Path, chunk_ids: Sequence[int], texts: list[str]) -> None:
    """Index `texts` and save the index to `folder`, with the chunk id of each row to `ids_path`."""
    import bm25s

    retriever = bm25s.BM25()
    retriever.index(_tokens(texts, ids=True), show_progress=False)
    retriever.save(str(folder), show_progress=False)
    np.save(ids_path, np.asarray(chunk_ids, dtype=np.int64), allow_pickle=False)


class LexicalIndex:
    """A loaded bm25s index that ranks chunk ids for a query."""

    def __init__(self, folder: Path, ids_path: Path) -> None:
        import bm25s

        self._retriever = bm25s.BM25.load(str(folder))
        self._chunk_ids = np.load(ids_path, allow_pickle=False)
        rows = int(self._retriever.scores["num_docs"])
        if rows != len(self._chunk_ids):
            raise ValueError(f"the BM25 index has {rows} rows for {len(self._chunk_ids)} chunk ids")

    def __len__(self) -> int:
        return len(self._chunk_ids)

    def search(self, query: str, limit: int) -> list[int]:
        """Chunk ids of the best `limit` matches, best first; chunks sharing no term with the query are left out."""
        vocabulary = self._retriever.vocab_dict
        terms = [vocabulary[token] for token in _tokens([query], ids=False)[0] if token in vocabulary]
        if not terms or not len(self._chunk_ids):
            return []
        scores = self._retriever.get_scores(terms)
        limit = min(limit, len(scores))
        top = np.argpartition(-scores, limit - 1)[:limit]
        top = top[np.argsort(-scores[top], kind="stable")]
        return [int(self._chunk_ids[row]) for row in top if scores[row] > 0]
