"""Which model and which evidence a check uses, resolved from settings and the environment."""

from __future__ import annotations

import os
from dataclasses import dataclass

from veracity.context import DEFAULT_MODEL, Context
from veracity.errors import ConfigurationError, SourceConflictError

OFFLINE = "offline"
"""The model setting that selects the local claim splitter and judge."""


@dataclass(frozen=True)
class Mode:
    """A resolved mode: `model` is 'offline' or a model name; `search` names the evidence backend."""

    model: str
    search: str

    @property
    def offline(self) -> bool:
        """True when the local claim splitter and judge run instead of a chat model."""
        return self.model == OFFLINE

    @property
    def source(self) -> bool:
        """True when the only evidence is a source text supplied by the user."""
        return self.search == "source"

    @property
    def label(self) -> str:
        """Short form for reports, e.g. 'offline+kb' or 'llm+web'."""
        return f"{'offline' if self.offline else 'llm'}+{self.search}"

    def describe(self, context: Context) -> str:
        """One line for people: what runs, and how to change it."""
        judge = (
            "offline (local claim splitter and judge; set OPENAI_API_KEY or --model for an LLM)"
            if self.offline else f"model {self.model}"
        )
        evidence = {
            "web": "evidence from the web (Tavily)",
            "kb": f"evidence from the knowledge base{' at ' + context.kb_path if context.kb_path else ''}"
                  " (set TAVILY_API_KEY or --search web for web search)",
            "source": f"evidence only from the source text '{context.source_title}'",
        }.get(self.search, f"evidence from the {self.search} backend")
        return f"{judge}; {evidence}{self._cache_note(context)}"

    def _cache_note(self, context: Context) -> str:
        """Where model answers and web searches are kept, when this run keeps any."""
        if self.offline and self.search != "web":
            return ""
        if not context.cache:
            return "; cache off"
        from veracity.cache import default_cache_path

        return f"; cache {context.cache_path or default_cache_path()} (--no-cache to bypass)"


def resolve_mode(context: Context, *, bound_model: object = None, bound_backend: object = None) -> Mode:
    """Decide the model and evidence backend for a run.

    Model: a bound object or string wins; then `context.model`; then the default OpenAI model
    when OPENAI_API_KEY is set; else offline. Evidence: a source text, when given, is the only
    evidence, and naming another search or binding a backend with it raises `SourceConflictError`
    (see `source_conflict`); otherwise a bound backend wins, then an explicit `context.search`; in
    'auto', the web when TAVILY_API_KEY is set, else the local knowledge base.
    """
    if bound_model is not None and not isinstance(bound_model, str):
        model = f"custom:{type(bound_model).__name__}"
    else:
        model = bound_model or context.model or (DEFAULT_MODEL if os.environ.get("OPENAI_API_KEY") else OFFLINE)

    problem = source_conflict(context.search, context.source_text, bound_backend=bound_backend)
    if problem is not None:
        raise SourceConflictError(problem)
    if bound_backend is not None:
        search = getattr(bound_backend, "name", "custom")
    elif context.search != "auto":
        search = context.search
    elif context.source_text is not None:
        search = "source"
    else:
        search = "web" if os.environ.get("TAVILY_API_KEY") else "kb"
    if search == "source" and bound_backend is None and not (context.source_text or "").strip():
        raise ConfigurationError("search 'source' needs a non-empty source text (--source FILE, or source_text=...)")
    return Mode(model=model, search=search)


SOURCE_SEARCHES = ("auto", "source")
"""The `search` settings that agree with a source text: with either, the evidence is that source."""


def source_conflict(search: str | None, source_text: str | None, *, bound_backend: object = None) -> str | None:
    """Why these evidence settings contradict the source text, or None when they agree.

    A source text is always the evidence of the check that carries it: naming another search
    ('web', 'kb') or binding a backend alongside it is a usage error, never a silent switch.
    """
    if source_text is None:
        return None
    if bound_backend is not None:
        forced = f"the bound backend {getattr(bound_backend, 'name', 'custom')!r}"
    elif search is not None and search not in SOURCE_SEARCHES:
        forced = f"search {search!r}"
    else:
        return None
    return (f"a source text was given, so the evidence is that source; {forced} cannot be combined with "
            "source_text (drop one)")
