"""Runtime settings for a check: the graph's `context_schema`.

Every field is plain data so that LangGraph Studio can show and edit it. Model
objects and custom evidence backends are bound with `build_graph(model=..., backend=...)`
instead.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field, fields
from typing import Any

from veracity.evidence.capabilities import SearchKind
from veracity.llm.calls import StructuredOutput
from veracity.offline.calibration.risk import DEFAULT_MIN_PRECISION, check_min_precision
from veracity.prompts.extract import EXTRACT_PROMPT
from veracity.prompts.judge import JUDGE_PROMPT
from veracity.prompts.revise import REVISE_FEEDBACK

DEFAULT_MODEL = "openai:gpt-4.1-mini"
"""Chat model used when none is configured."""

JUDGE_ANSWER_TOKENS = 512
"""A judge answer: a label, a one- or two-sentence reason (~60 tokens), an evidence id and one verbatim
quote (~40-150 tokens), and JSON punctuation: about 250 tokens at most, doubled for margin."""


@dataclass(kw_only=True)
class Context:
    """Settings for one check. Pass as `graph.invoke(..., context=Context(...))`."""

    model: str | None = field(
        default=None,
        metadata={"description": (
            "Chat model as 'provider:model' (init_chat_model), or 'offline' for the local claim splitter and "
            "judge. Unset: openai:gpt-4.1-mini when OPENAI_API_KEY is set, else offline."
        )},
    )
    extract_model: str | None = field(
        default=None,
        metadata={"description": (
            "Model for claim extraction only, as for `model` ('provider:model' or 'offline'). Unset: `model`."
        )},
    )
    judge_model: str | None = field(
        default=None,
        metadata={"description": (
            "Model for the judge only (and revise rounds), as for `model` ('provider:model' or 'offline'). "
            "Unset: `model`."
        )},
    )
    temperature: float = field(default=0.0, metadata={"description": "Sampling temperature for both steps."})
    search: SearchKind = field(
        default="auto",
        metadata={"description": (
            "Evidence: 'web' (Tavily), 'kb' (local knowledge base) or 'source' (only source_text). 'auto': "
            "source when source_text is set, else web when TAVILY_API_KEY is set, else kb. "
            "Ignored when a backend object is bound. 'web' or 'kb' with source_text is a ConfigurationError."
        )},
    )
    source_text: str | None = field(
        default=None,
        metadata={"description": (
            "A text (e.g. a policy) the answer must stay within; used as the only evidence (search must be "
            "'auto' or 'source', and no backend object bound)."
        )},
    )
    source_title: str = field(default="source", metadata={"description": "Name shown for the source text."})
    kb_path: str | None = field(
        default=None,
        metadata={"description": "Knowledge base folder. Default: $VERACITY_KB, else the per-user data folder."},
    )
    tavily_base_url: str | None = field(
        default=None,
        metadata={"description": "Tavily endpoint (a proxy or local fake). Defaults to $TAVILY_API_BASE_URL."},
    )
    max_results: int = field(default=5, metadata={"description": "Evidence items fetched per claim."})
    max_extraction_attempts: int = field(
        default=3, metadata={"description": "Extraction attempts before a GateFailure ends the run."}
    )
    max_judge_attempts: int = field(
        default=3, metadata={"description": "Judge attempts per claim per round before a downgrade."}
    )
    max_revisions: int = field(
        default=2, metadata={"description": "Revise rounds that re-judge failing claims."}
    )
    min_precision: float = field(
        default=DEFAULT_MIN_PRECISION, metadata={"description": (
            "Decisive precision the offline judge and the calculator must reach: a supported or refuted verdict "
            "is kept only when its calibrated confidence clears the threshold certified for this precision on "
            "held-out data; below it the verdict is unverifiable and carries its lean. 0 turns the rule off."
        )},
    )
    search_attempts: int = field(default=3, metadata={"description": "Evidence search attempts per claim."})
    search_timeout: float = field(
        default=20.0, metadata={"description": "Seconds before one search attempt times out."}
    )
    model_timeout: float = field(
        default=120.0, metadata={"description": "Seconds before one chat-model call times out (a failed attempt)."}
    )
    extraction_max_tokens: int | None = field(
        default=None, metadata={"description": (
            "Most tokens the extraction answer may take; a longer answer is cut off, rejected by the gate and "
            "asked again. Unset: sized from the text (256 + 0.75 per character)."
        )},
    )
    judge_max_tokens: int = field(
        default=JUDGE_ANSWER_TOKENS, metadata={"description": "Most tokens one judge answer may take (as above)."}
    )
    revise_max_tokens: int = field(
        default=JUDGE_ANSWER_TOKENS, metadata={"description": "Most tokens one judge answer may take in a revise "
                                                              "round (as above)."}
    )
    structured_output: StructuredOutput = field(
        default="auto", metadata={"description": (
            "How the model is asked for JSON: 'json_schema' (the server enforces the schema: OpenAI, llama.cpp, "
            "vLLM), 'tools' (tool calling), 'prompt' (instructions only). 'auto': json_schema for OpenAI-compatible "
            "models, the provider's own structured output for others. A server that refuses it is asked through "
            "the prompt; the gates check every answer either way."
        )},
    )
    counter_search: bool = field(
        default=True, metadata={"description": "Web evidence: also search for evidence against each claim (a "
                                               "second query, run alongside the first); the judge sees both."}
    )
    verify_pages: bool = field(
        default=True, metadata={"description": "Fetch the cited page of every supported/refuted web verdict and "
                                               "look for its quote there."}
    )
    page_timeout: float = field(default=10.0, metadata={"description": "Seconds one page fetch may take."})
    page_max_bytes: int = field(
        default=5_000_000, metadata={"description": "Bytes of a page read at most; a longer page is cut there."}
    )
    page_allowed_networks: str | None = field(
        default=None, metadata={"description": "Comma-separated networks a page fetch may reach besides public "
                                               "addresses (e.g. '10.0.0.0/8'); loopback, private and link-local "
                                               "addresses are refused otherwise."}
    )
    page_archive_url: str | None = field(
        default=None, metadata={"description": "URL template with {url} (e.g. a Wayback-style service) read when "
                                               "a cited page cannot be fetched live."}
    )
    page_snapshots: str | None = field(
        default=None, metadata={"description": "Folder where each fetched page is kept as read, named by its "
                                               "SHA-256, so a report can be verified offline later."}
    )
    allow_snippet_citations: bool = field(
        default=False, metadata={"description": "Let a verdict whose quote was not found on its page pass (it is "
                                                "still marked 'citation not verified on the page')."}
    )
    check_deadline: float = field(
        default=600.0, metadata={"description": "Seconds a whole check may take; past it, claims not judged yet "
                                                "are unverifiable and the report carries a DeadlineFailure."}
    )
    cache: bool = field(
        default=True, metadata={"description": "Keep model answers and web searches in the cache file and reuse "
                                               "them: an identical call is answered from there."}
    )
    cache_path: str | None = field(
        default=None, metadata={"description": "The cache file. Default: $VERACITY_CACHE, else cache.sqlite in the "
                                               "per-user data folder."}
    )
    search_cache_ttl: int = field(
        default=7 * 24 * 3600, metadata={"description": "Seconds a cached web search is reused (default 7 days); "
                                                        "0 searches afresh every time."}
    )
    search_backoff: float = field(
        default=0.5, metadata={"description": "Initial back-off in seconds between search attempts (exponential)."}
    )
    max_text_chars: int = field(
        default=20_000, metadata={"description": "Longest input text accepted, in characters."}
    )
    today: str | None = field(
        default=None,
        metadata={"description": (
            "Today's date (YYYY-MM-DD) for computed claims such as ages; unset: the system clock. Recorded on "
            "each computed verdict."
        )},
    )
    extraction_prompt: str = field(
        default=EXTRACT_PROMPT, metadata={"description": "System prompt for claim extraction."}
    )
    judge_prompt: str = field(default=JUDGE_PROMPT, metadata={"description": "System prompt for the judge."})
    revise_feedback: str = field(
        default=REVISE_FEEDBACK, metadata={"description": "Template that turns evaluation issues into judge feedback."}
    )

    def __post_init__(self) -> None:
        """Reject a `today` that is not a YYYY-MM-DD date, or a deadline that is not positive, before any work."""
        if self.page_archive_url is not None and "{url}" not in self.page_archive_url:
            raise ValueError(f"page_archive_url must hold '{{url}}', got {self.page_archive_url!r}")
        if self.search_cache_ttl < 0:
            raise ValueError(f"search_cache_ttl must be 0 or more seconds, got {self.search_cache_ttl!r}")
        for name in ("extraction_max_tokens", "judge_max_tokens", "revise_max_tokens"):
            value = getattr(self, name)
            if value is not None and not (isinstance(value, int) and value > 0):
                raise ValueError(f"{name} must be a positive number of tokens, got {value!r}")
        check_min_precision(self.min_precision)
        if not self.check_deadline > 0:
            raise ValueError(f"check_deadline must be a positive number of seconds, got {self.check_deadline!r}")
        if self.today is not None:
            try:
                datetime.date.fromisoformat(self.today)
            except (TypeError, ValueError) as exc:
                raise ValueError(f"today must be a date as YYYY-MM-DD, got {self.today!r}") from exc

    @classmethod
    def from_settings(cls, **settings: Any) -> Context:
        """Build a Context from keyword settings, rejecting unknown names with a clear error."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(settings) - known)
        if unknown:
            raise TypeError(f"unknown setting(s): {', '.join(unknown)}; known: {', '.join(sorted(known))}")
        return cls(**{k: v for k, v in settings.items() if v is not None})
