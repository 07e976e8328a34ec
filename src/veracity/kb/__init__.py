"""The local knowledge base: the user's documents, chunked, embedded and indexed on disk.

Ingest files with `veracity ingest PATH...` (or `KnowledgeBase.ingest`); the `kb` evidence
backend searches them with hybrid dense + BM25 retrieval. The judge's sentence vectors are
computed when a chunk is first retrieved and kept (`veracity kb warm` computes them all).
See `manifest.py` for the layout on disk and `chunking.py` for how documents are cut.

Heavy libraries (faiss, bm25s, pypdf, trafilatura) are imported on first use, not here. The
names below are imported when first read: importing the package runs no submodule, so two
threads importing different parts of it (a check's warm-up and its first step) cannot deadlock
on the import locks, as they could when this file imported them all.
"""

from typing import TYPE_CHECKING

from veracity.errors import KnowledgeBaseError
from veracity.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from veracity.kb.chunking import ChunkSettings
    from veracity.kb.ingest import FileResult, IngestProgress, IngestReport
    from veracity.kb.metadata import DocumentInfo
    from veracity.kb.paths import KB_ENV, default_kb_path
    from veracity.kb.seeding import ensure_demo, open_default_kb
    from veracity.kb.store import IntegrityReport, KnowledgeBase, KnowledgeBaseStats, WarmProgress, WarmReport

__all__ = [
    "KB_ENV",
    "ChunkSettings",
    "DocumentInfo",
    "FileResult",
    "IngestProgress",
    "IngestReport",
    "IntegrityReport",
    "KnowledgeBase",
    "KnowledgeBaseError",
    "KnowledgeBaseStats",
    "WarmProgress",
    "WarmReport",
    "default_kb_path",
    "ensure_demo",
    "open_default_kb",
]

_MODULES = {
    "ChunkSettings": "veracity.kb.chunking",
    "DocumentInfo": "veracity.kb.metadata",
    "FileResult": "veracity.kb.ingest",
    "IngestProgress": "veracity.kb.ingest",
    "IngestReport": "veracity.kb.ingest",
    "IntegrityReport": "veracity.kb.store",
    "KB_ENV": "veracity.kb.paths",
    "KnowledgeBase": "veracity.kb.store",
    "KnowledgeBaseStats": "veracity.kb.store",
    "WarmProgress": "veracity.kb.store",
    "WarmReport": "veracity.kb.store",
    "default_kb_path": "veracity.kb.paths",
    "ensure_demo": "veracity.kb.seeding",
    "open_default_kb": "veracity.kb.seeding",
}

if not TYPE_CHECKING:  # type checkers read the imports above
    __getattr__, __dir__ = lazy_exports(globals(), _MODULES)
