"""Runtime settings for a check: the graph's `context_schema`, defined once.

Every field is plain data so that LangGraph Studio can show and edit it. Model
objects and custom evidence backends are bound with `build_graph(model=..., backend=...)`
instead.

Each field's metadata says everything else there is to know about it (`setting`): its section
(models, evidence, pages, limits, cache, prompts), its description (which Studio shows too)
and, where the command line gives it an option of its own, that option (`Flag`). The CLI
(`veracity.cli.settings`), the server's request fields and the help texts' defaults are all
read from here; the settings without an option take `--set NAME=VALUE`.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field, fields
from typing import Any, Literal

from veracity.evidence.capabilities import SearchKind
from veracity.offline.calibration.risk import DEFAULT_MIN_PRECISION, check_min_precision
from veracity.prompts.extract import EXTRACT_PROMPT
from veracity.prompts.judge import JUDGE_PROMPT
from veracity.prompts.revise import REVISE_FEEDBACK

DEFAULT_MODEL = "openai:gpt-4.1-mini"
"""Chat model used when none is configured."""

StructuredOutput = Literal["auto", "json_schema", "tools", "prompt"]
"""How a step asks for its JSON: a JSON schema the server enforces ('json_schema': OpenAI's, llama.cpp's,
vLLM's `response_format`), tool calling ('tools'), or only the prompt's instructions ('prompt').
'auto' is json_schema for OpenAI-compatible models and the provider's own default for the others.
Whatever comes back is validated by the gates (`veracity.llm.calls` asks)."""

JUDGE_ANSWER_TOKENS = 512
"""A judge answer: a label, a one- or two-sentence reason (~60 tokens), an evidence id and one verbatim
quote (~40-150 tokens), and JSON punctuation: about 250 tokens at most, doubled for margin."""

Section = Literal["models", "evidence", "pages", "limits", "cache", "prompts"]
"""The groups the settings fall into, in the order they are listed."""
SECTIONS: tuple[Section, ...] = ("models", "evidence", "pages", "limits", "cache", "prompts")
"""Every section, in order."""


@dataclass(frozen=True)
class Flag:
    """How the command line offers a setting as an option of its own (`veracity.cli.settings` builds it).

    A bool setting becomes a switch to the other value than its default (`--no-cache`), or an
    on/off pair when `name` holds both ('--page-check/--no-page-check').
    """

    name: str | None = None
    """The option, when it is not the field's name with dashes ('--kb' for `kb_path`)."""
    short: str | None = None
    """A one-letter alias ('-m')."""
    metavar: str | None = None
    """What the value is called in the help ('DIR')."""
    help: str | None = None
    """The help, where the command line needs other words than the description (say, other option names)."""
    everywhere: bool = False
    """Offered by every command that runs checks (check, batch, serve, eval); otherwise by `veracity check`
    only, and by the others through `--set`."""
    low: float | None = None
    """Least value the option accepts."""
    high: float | None = None
    """Greatest value the option accepts."""
    low_open: bool = False
    """The least value itself is refused."""
    high_open: bool = False
    """The greatest value itself is refused."""
    kind: Literal["file", "folder", "date"] | None = None
    """A string that names a file, a folder, or a date given as YYYY-MM-DD."""
    shown_default: str | None = None
    """How the help says the default, where the value alone does not say it well."""


def setting(section: Section, description: str, flag: Flag | None = None) -> dict[str, Any]:
    """A field's metadata: its section, its description (shown by Studio and the help) and its option, if any."""
    return {"section": section, "description": description, **({"cli": flag} if flag is not None else {})}


def setting_description(name: str) -> str:
    """The description of the Context field `name`."""
    return str(SETTINGS[name].metadata["description"])


@dataclass(kw_only=True)
class Context:
    """Settings for one check. Pass as `graph.invoke(..., context=Context(...))`."""

    # -- models ---------------------------------------------------------------------------------------------------
    model: str | None = field(default=None, metadata=setting(
        "models",
        f"Chat model as 'provider:model' (any init_chat_model string, e.g. {DEFAULT_MODEL}; set OPENAI_BASE_URL "
        "for an OpenAI-compatible server), or 'offline' for the local claim splitter and judge. Default: "
        f"{DEFAULT_MODEL} when OPENAI_API_KEY is set, else offline.",
        Flag(short="-m", metavar="PROVIDER:MODEL", everywhere=True),
    ))
    extract_model: str | None = field(default=None, metadata=setting(
        "models",
        "Model for claim extraction only ('provider:model', or 'offline' for the local splitter). Default: the "
        "model above.",
        Flag(metavar="PROVIDER:MODEL", everywhere=True),
    ))
    judge_model: str | None = field(default=None, metadata=setting(
        "models",
        "Model for the judge only, revise rounds included ('provider:model', or 'offline' for the local judge). "
        "Default: the model above.",
        Flag(metavar="PROVIDER:MODEL", everywhere=True),
    ))
    temperature: float = field(default=0.0, metadata=setting("models", "Sampling temperature for both steps."))
    structured_output: StructuredOutput = field(default="auto", metadata=setting(
        "models",
        "How the model is asked for JSON: 'json_schema' (the server enforces the schema: OpenAI, llama.cpp, "
        "vLLM), 'tools' (tool calling), 'prompt' (instructions only). 'auto': json_schema for OpenAI-compatible "
        "models, the provider's own structured output for others. A server that refuses it is asked through "
        "the prompt; the gates check every answer either way.",
        Flag(),
    ))

    # -- evidence -------------------------------------------------------------------------------------------------
    search: SearchKind = field(default="auto", metadata=setting(
        "evidence",
        "Evidence: 'web' (Tavily), 'kb' (local knowledge base) or 'source' (only source_text). 'auto': "
        "source when source_text is set, else web when TAVILY_API_KEY is set, else kb. "
        "Ignored when a backend object is bound. 'web' or 'kb' with source_text is refused.",
        Flag(short="-s", everywhere=True, help=(
            "Evidence: web (Tavily), kb (local knowledge base), source (the source text only). auto: the "
            "source when there is one, else web when TAVILY_API_KEY is set, else kb."
        )),
    ))
    source_text: str | None = field(default=None, metadata=setting(
        "evidence",
        "A text (e.g. a policy) the answer must stay within; used as the only evidence (search must be "
        "'auto' or 'source', and no backend object bound).",
    ))
    source_title: str = field(default="source", metadata=setting("evidence", "Name shown for the source text."))
    kb_path: str | None = field(default=None, metadata=setting(
        "evidence",
        "Knowledge base folder. Default: $VERACITY_KB, else the per-user data folder.",
        Flag(name="--kb", metavar="DIR", kind="folder", everywhere=True),
    ))
    tavily_base_url: str | None = field(default=None, metadata=setting(
        "evidence",
        "Tavily endpoint (a proxy or local fake). Default: $TAVILY_API_BASE_URL, else Tavily's own.",
        Flag(name="--tavily-url", metavar="URL"),
    ))
    max_results: int = field(default=5, metadata=setting(
        "evidence", "Evidence items fetched per claim.", Flag(low=1, high=20)
    ))
    counter_search: bool = field(default=True, metadata=setting(
        "evidence",
        "Web evidence: also search for evidence against each claim (a second query, run alongside the first); "
        "the judge sees both.",
    ))
    today: str | None = field(default=None, metadata=setting(
        "evidence",
        "Today's date (YYYY-MM-DD), which ages and 'N years ago' are computed to; recorded on each computed "
        "verdict. Default: the system clock.",
        Flag(metavar="YYYY-MM-DD", kind="date"),
    ))

    # -- pages ----------------------------------------------------------------------------------------------------
    verify_pages: bool = field(default=True, metadata=setting(
        "pages",
        "Fetch the cited page of every supported/refuted web verdict and look for its quote there. Loopback, "
        "private and link-local addresses are not fetched unless page_allowed_networks opens them.",
        Flag(name="--page-check/--no-page-check"),
    ))
    allow_snippet_citations: bool = field(default=False, metadata=setting(
        "pages",
        "Let a verdict whose quote was not found on its page pass (it is still marked 'citation not verified on "
        "the page').",
        Flag(),
    ))
    page_timeout: float = field(default=10.0, metadata=setting("pages", "Seconds one page fetch may take."))
    page_max_bytes: int = field(default=5_000_000, metadata=setting(
        "pages", "Bytes of a page read at most; a longer page is cut there."
    ))
    page_allowed_networks: str | None = field(default=None, metadata=setting(
        "pages",
        "Comma-separated networks a page fetch may reach besides public addresses (e.g. '10.0.0.0/8'); "
        "loopback, private and link-local addresses are refused otherwise.",
    ))
    page_archive_url: str | None = field(default=None, metadata=setting(
        "pages",
        "When a cited page cannot be fetched live, read this archive's copy instead: a URL template where "
        "{url} is replaced by the cited URL, e.g. 'https://web.archive.org/web/2024/{url}'.",
        Flag(name="--archive-url", metavar="TEMPLATE"),
    ))
    page_snapshots: str | None = field(default=None, metadata=setting(
        "pages",
        "Folder where each fetched page is kept as read, named by its SHA-256 (recorded on the verdict), so a "
        "report can be verified offline later.",
        Flag(name="--snapshots", metavar="DIR", kind="folder"),
    ))

    # -- limits and retries ---------------------------------------------------------------------------------------
    max_extraction_attempts: int = field(default=3, metadata=setting(
        "limits", "Extraction attempts before a GateFailure ends the run."
    ))
    max_judge_attempts: int = field(default=3, metadata=setting(
        "limits", "Judge attempts per claim per round before a downgrade."
    ))
    max_revisions: int = field(default=2, metadata=setting(
        "limits", "Revise rounds that re-judge failing claims.", Flag(low=0, high=10, everywhere=True)
    ))
    min_precision: float = field(default=DEFAULT_MIN_PRECISION, metadata=setting(
        "limits",
        "Decisive precision the offline judge and the calculator must reach: a supported or refuted verdict "
        "is kept only when its calibrated confidence clears the threshold certified for this precision on "
        "held-out data; below it the verdict is unverifiable and shows its lean ('unverifiable, leans refuted, "
        "0.62'). A lower precision says more and is wrong more often; 0 turns the rule off.",
        Flag(metavar="P", low=0, high=1, high_open=True, everywhere=True),
    ))
    check_deadline: float = field(default=600.0, metadata=setting(
        "limits",
        "Seconds a whole check may take; past it, claims not judged yet are unverifiable and the report carries "
        "a DeadlineFailure.",
        Flag(name="--deadline", metavar="SECONDS", low=0, low_open=True, help=(
            "Stop the whole check after this many seconds; claims not judged by then are unverifiable and the "
            "report says so (exit 3)."
        )),
    ))
    model_timeout: float = field(default=120.0, metadata=setting(
        "limits", "Seconds before one chat-model call times out (a failed attempt)."
    ))
    search_attempts: int = field(default=3, metadata=setting("limits", "Evidence search attempts per claim."))
    search_timeout: float = field(default=20.0, metadata=setting(
        "limits", "Seconds before one search attempt times out."
    ))
    search_backoff: float = field(default=0.5, metadata=setting(
        "limits", "Initial back-off in seconds between search attempts (exponential)."
    ))
    extraction_max_tokens: int | None = field(default=None, metadata=setting(
        "limits",
        "Most tokens the extraction answer may take; a longer answer is cut off, rejected by the gate and "
        "asked again. Default: sized from the text (256 + 0.75 per character).",
    ))
    judge_max_tokens: int = field(default=JUDGE_ANSWER_TOKENS, metadata=setting(
        "limits", "Most tokens one judge answer may take (as above)."
    ))
    revise_max_tokens: int = field(default=JUDGE_ANSWER_TOKENS, metadata=setting(
        "limits", "Most tokens one judge answer may take in a revise round (as above)."
    ))
    max_text_chars: int = field(default=20_000, metadata=setting(
        "limits", "Longest input text accepted, in characters.", Flag(name="--max-chars", low=1)
    ))

    # -- cache ----------------------------------------------------------------------------------------------------
    cache: bool = field(default=True, metadata=setting(
        "cache",
        "Keep model answers and web searches in the cache file and reuse them: an identical call is answered "
        "from there.",
        Flag(name="--no-cache", everywhere=True, help=(
            "Neither read nor fill the cache of model answers and web searches: ask and search afresh."
        )),
    ))
    cache_path: str | None = field(default=None, metadata=setting(
        "cache",
        "The cache file of model answers and web searches. Default: $VERACITY_CACHE, else cache.sqlite in the "
        "per-user data folder.",
        Flag(name="--cache", metavar="FILE", kind="file", everywhere=True),
    ))
    search_cache_ttl: int = field(default=7 * 24 * 3600, metadata=setting(
        "cache",
        "Seconds a cached web search is reused; 0 searches afresh every time.",
        Flag(metavar="SECONDS", low=0, shown_default="604800, 7 days"),
    ))

    # -- prompts --------------------------------------------------------------------------------------------------
    extraction_prompt: str = field(default=EXTRACT_PROMPT, metadata=setting(
        "prompts", "System prompt for claim extraction."
    ))
    judge_prompt: str = field(default=JUDGE_PROMPT, metadata=setting("prompts", "System prompt for the judge."))
    revise_feedback: str = field(default=REVISE_FEEDBACK, metadata=setting(
        "prompts", "Template that turns evaluation issues into judge feedback."
    ))

    def __post_init__(self) -> None:
        """Reject a `today` that is not a YYYY-MM-DD date, or a deadline that is not positive, before any work."""
        if self.page_archive_url is not None and "{url}" not in self.page_archive_url:
            raise ValueError(f"page_archive_url must hold {{url}} where the cited URL goes, got "
                             f"{self.page_archive_url!r}")
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


SETTINGS = {item.name: item for item in fields(Context)}
"""Every Context field by name, with its metadata (`setting`)."""
