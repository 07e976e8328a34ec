"""The demo corpus: a few short notes, so that a fresh install can check a paragraph out of the box."""

from __future__ import annotations

from veracity.kb.ingest import IngestProgress
from veracity.kb.sources import demo_sources
from veracity.kb.store import KnowledgeBase


def ensure_demo(kb: KnowledgeBase, *, progress: IngestProgress | None = None) -> bool:
    """Seed a knowledge base that does not exist yet with the demo notes; return whether it did.

    An existing knowledge base, even one without the demo notes, is left alone.
    """
    if kb.exists():
        return False
    return kb.ingest_sources(demo_sources(), progress=progress).changed


def open_default_kb() -> KnowledgeBase:
    """The knowledge base at the default location (`$VERACITY_KB` or the user data folder).

    One that does not exist yet is created with the demo notes.
    """
    kb = KnowledgeBase()
    ensure_demo(kb)
    return kb
