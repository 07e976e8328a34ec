"""The local knowledge base: the user's documents, chunked, embedded and indexed on disk.

Ingest files with `veracity ingest PATH...` (or `KnowledgeBase.ingest`); the `kb` evidence
backend searches them with hybrid dense + BM25 retrieval. The judge's sentence vectors are
computed when a chunk is first retrieved and kept (`veracity kb warm` computes them all).
See `manifest.py` for the layout on disk and `chunking.py` for how documents are cut.

Heavy libraries (faiss, bm25s, pypdf, trafilatura) are imported on first use, not here.
"""

from veracity.errors import KnowledgeBaseError
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
