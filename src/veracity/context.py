"""Runtime settings for a check: the graph's `context_schema`, defined once.

Every field is plain data so that LangGraph Studio can show and edit it. Model
objects and custom evidence backends are bound with `build_graph(model=..., backend=...)`
instead.

Each field's metadata says everything else there is to know about it (`setting`): its section
(models, evidence, pages, limits, cache, prompts), its description (which Studio shows too),
the rule its value must keep beyond its type (`veracity.setting_rules`), and, where the command line
gives it an option of its own, that option (`Flag`). The CLI (`veracity.cli.settings`), the server's
request fields and the help texts' defaults are all read from here; the settings without an option
take `--set NAME=VALUE`. A Context checks every field it is built with (`setting_problem`), so a bad
value is refused with the same words whatever surface it came from.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, Literal, get_type_hints

from veracity.errors import SettingError
from veracity.evidence.capabilities import SearchKind
from veracity.prompts.extract import EXTRACT_PROMPT
from veracity.prompts.judge import JUDGE_PROMPT
from veracity.prompts.revise import REVISE_FEEDBACK
from veracity.setting_rules import (
    Bounds,
    Requirement,
    Rule,
    are_networks,
    fills,
    is_date,
    is_named,
    is_web_address,
    value_problem,
)

DEFAULT_MODEL = "openai:gpt-4.1-mini"
"""Chat model used when none is configured."""

StructuredOutput = Literal["auto", "json_schema", "tools", "prompt"]
"""How a step asks for its JSON: a JSON schema the server enforces ('json_schema': OpenAI's, llama.cpp's,
vLLM's `response_format`), tool calling ('tools'), or only the prompt's instructions ('prompt').
'auto' is json_schema for OpenAI-compatible models and the provider's own default for the others.
Whatever comes back is validated by the gates (`veracity.llm.calls` asks)."""

DEFAULT_MIN_PRECISION = 0.90
"""The decisive precision a check asks of its offline judge and calculator by default; the shipped calibration
certifies thresholds at this level (`veracity.offline.calibration.risk` states the same figure)."""

CALIBRATION_OFF = "off"
"""The `calibration` setting that uses no calibration file (the offline judge keeps its shipped calibration)."""

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
    kind: Literal["file", "folder"] | None = None
    """A string that names a file or a folder."""
    shown_default: str | None = None
    """How the help says the default, where the value alone does not say it well."""


def setting(
    section: Section, description: str, flag: Flag | None = None, rule: Rule | None = None
) -> dict[str, Any]:
    """A field's metadata: its section, its description (shown by Studio and the help), its option and its rule.

    The option and the rule (what the value must be beyond its type) are left out where there is none.
    """
    return {"section": section, "description": description, **({"cli": flag} if flag is not None else {}),
            **({"rule": rule} if rule is not None else {})}


def setting_rule(name: str) -> Rule | None:
    """The rule the Context field `name` keeps beyond its type, if any."""
    rule = SETTINGS[name].metadata.get("rule")
    return rule if isinstance(rule, Bounds | Requirement) else None


def setting_problem(name: str, value: Any) -> str | None:
    """Why `value` cannot be the Context field `name`, in the words every surface shows; None when it can."""
    return value_problem(name, value, _HINTS[name], setting_rule(name))


TOKENS = Bounds(0, low_open=True, unit="tokens")
"""The rule of the answer caps: a positive whole number of tokens."""


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
        Requirement("be a model name ('provider:model', or 'offline')", is_named),
    ))
    extract_model: str | None = field(default=None, metadata=setting(
        "models",
        "Model for claim extraction only ('provider:model', or 'offline' for the local splitter). Default: the "
        "model above.",
        Flag(metavar="PROVIDER:MODEL", everywhere=True),
        Requirement("be a model name ('provider:model', or 'offline')", is_named),
    ))
    judge_model: str | None = field(default=None, metadata=setting(
        "models",
        "Model for the judge only, revise rounds included ('provider:model', or 'offline' for the local judge). "
        "Default: the model above.",
        Flag(metavar="PROVIDER:MODEL", everywhere=True),
        Requirement("be a model name ('provider:model', or 'offline')", is_named),
    ))
    temperature: float = field(default=0.0, metadata=setting(
        "models", "Sampling temperature for both steps.", rule=Bounds(low=0)
    ))
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
    source_title: str = field(default="source", metadata=setting(
        "evidence", "Name shown for the source text.", rule=Requirement("be a name (not blank)", is_named)
    ))
    kb_path: str | None = field(default=None, metadata=setting(
        "evidence",
        "Knowledge base folder. Default: $VERACITY_KB, else the per-user data folder.",
        Flag(name="--kb", metavar="DIR", kind="folder", everywhere=True),
        Requirement("be a path (not blank)", is_named),
    ))
    tavily_base_url: str | None = field(default=None, metadata=setting(
        "evidence",
        "Tavily endpoint (a proxy or local fake). Default: $TAVILY_API_BASE_URL, else Tavily's own.",
        Flag(name="--tavily-url", metavar="URL"),
        Requirement("be an http(s) URL", is_web_address),
    ))
    max_results: int = field(default=5, metadata=setting(
        "evidence", "Evidence items fetched per claim.", Flag(), Bounds(1, 20)
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
        Flag(metavar="YYYY-MM-DD"),
        Requirement("be a date as YYYY-MM-DD", is_date),
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
    page_timeout: float = field(default=10.0, metadata=setting(
        "pages", "Seconds one page fetch may take.", rule=Bounds(0, low_open=True, unit="seconds")
    ))
    page_max_bytes: int = field(default=5_000_000, metadata=setting(
        "pages", "Bytes of a page read at most; a longer page is cut there.",
        rule=Bounds(0, low_open=True, unit="bytes"),
    ))
    page_allowed_networks: str | None = field(default=None, metadata=setting(
        "pages",
        "Comma-separated networks a page fetch may reach besides public addresses (e.g. '10.0.0.0/8'); "
        "loopback, private and link-local addresses are refused otherwise.",
        rule=Requirement("be comma-separated IP addresses or networks (e.g. '10.0.0.0/8')", are_networks),
    ))
    page_archive_url: str | None = field(default=None, metadata=setting(
        "pages",
        "When a cited page cannot be fetched live, read this archive's copy instead: a URL template where "
        "{url} is replaced by the cited URL, e.g. 'https://web.archive.org/web/2024/{url}'.",
        Flag(name="--archive-url", metavar="TEMPLATE"),
        Requirement("hold {url} where the cited URL goes", lambda template: "{url}" in template),
    ))
    page_snapshots: str | None = field(default=None, metadata=setting(
        "pages",
        "Folder where each fetched page is kept as read, named by its SHA-256 (recorded on the verdict), so a "
        "report can be verified offline later.",
        Flag(name="--snapshots", metavar="DIR", kind="folder"),
        Requirement("be a path (not blank)", is_named),
    ))

    # -- limits and retries ---------------------------------------------------------------------------------------
    max_extraction_attempts: int = field(default=3, metadata=setting(
        "limits", "Extraction attempts before a GateFailure ends the run.", rule=Bounds(low=1)
    ))
    max_judge_attempts: int = field(default=3, metadata=setting(
        "limits", "Judge attempts per claim per round before a downgrade.", rule=Bounds(low=1)
    ))
    max_revisions: int = field(default=2, metadata=setting(
        "limits", "Revise rounds that re-judge failing claims.", Flag(everywhere=True), Bounds(0, 10)
    ))
    min_precision: float = field(default=DEFAULT_MIN_PRECISION, metadata=setting(
        "limits",
        "Decisive precision a calibrated judge must reach (the offline judge, the calculator, a chat model "
        "measured by `veracity calibrate`): a supported or refuted verdict is kept only when its calibrated "
        "confidence clears the threshold certified for this precision on held-out data; below it the verdict "
        "is unverifiable and shows its lean ('unverifiable, leans refuted, 0.62'). A lower precision says more "
        "and is wrong more often; 0 turns the rule off.",
        Flag(metavar="P", everywhere=True),
        Bounds(0, 1, high_open=True),
    ))
    calibration: str | None = field(default=None, metadata=setting(
        "limits",
        "The judge's calibration file, written by `veracity calibrate` for that judge (model, prompt, version): "
        "its confidences and certified thresholds rule the judge's verdicts at min_precision. Unset: the file "
        "`veracity calibrate` wrote for this judge in the data folder, if there is one; else the offline judge "
        "keeps its shipped calibration and a chat model's verdicts say 'uncalibrated'. 'off': no file.",
        Flag(metavar="FILE", everywhere=True),
        Requirement("be a file's path or 'off' (not blank)", is_named),
    ))
    check_deadline: float = field(default=600.0, metadata=setting(
        "limits",
        "Seconds a whole check may take; past it, claims not judged yet are unverifiable and the report carries "
        "a DeadlineFailure.",
        Flag(name="--deadline", metavar="SECONDS", help=(
            "Stop the whole check after this many seconds; claims not judged by then are unverifiable and the "
            "report says so (exit 3)."
        )),
        Bounds(0, low_open=True, unit="seconds"),
    ))
    model_timeout: float = field(default=45.0, metadata=setting(
        "limits",
        "Seconds before one chat-model call times out (a failed attempt). A model that answered none of the "
        "check's calls meanwhile has stalled: it is not asked again in this check, so a stalled endpoint is "
        "reported after one wait, not one per attempt. Raise it for a slow model or a long text.",
        rule=Bounds(0, low_open=True, unit="seconds"),
    ))
    search_attempts: int = field(default=3, metadata=setting(
        "limits", "Evidence search attempts per claim.", rule=Bounds(low=1)
    ))
    search_timeout: float = field(default=20.0, metadata=setting(
        "limits",
        "Seconds before one search attempt times out. A knowledge base computing the sentence vectors of chunks "
        "it returns for the first time does not count that work: a first check on a new one is slower, not failed.",
        rule=Bounds(0, low_open=True, unit="seconds"),
    ))
    search_backoff: float = field(default=0.5, metadata=setting(
        "limits", "Initial back-off in seconds between search attempts (exponential).",
        rule=Bounds(0, unit="seconds"),
    ))
    extraction_max_tokens: int | None = field(default=None, metadata=setting(
        "limits",
        "Most tokens the extraction answer may take; a longer answer is cut off, rejected by the gate and "
        "asked again. Default: sized from the text (256 + 0.75 per character).",
        rule=TOKENS,
    ))
    judge_max_tokens: int = field(default=JUDGE_ANSWER_TOKENS, metadata=setting(
        "limits", "Most tokens one judge answer may take (as above).", rule=TOKENS
    ))
    revise_max_tokens: int = field(default=JUDGE_ANSWER_TOKENS, metadata=setting(
        "limits", "Most tokens one judge answer may take in a revise round (as above).", rule=TOKENS
    ))
    max_text_chars: int = field(default=20_000, metadata=setting(
        "limits", "Longest input text accepted, in characters.", Flag(name="--max-chars"),
        Bounds(low=1, unit="characters"),
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
        Requirement("be a path (not blank)", is_named),
    ))
    search_cache_ttl: int = field(default=7 * 24 * 3600, metadata=setting(
        "cache",
        "Seconds a cached web search is reused; 0 searches afresh every time.",
        Flag(metavar="SECONDS", shown_default="604800, 7 days"),
        Bounds(0, unit="seconds"),
    ))

    # -- prompts --------------------------------------------------------------------------------------------------
    extraction_prompt: str = field(default=EXTRACT_PROMPT, metadata=setting(
        "prompts", "System prompt for claim extraction.", rule=Requirement("be a prompt (not blank)", is_named)
    ))
    judge_prompt: str = field(default=JUDGE_PROMPT, metadata=setting(
        "prompts", "System prompt for the judge.", rule=Requirement("be a prompt (not blank)", is_named)
    ))
    revise_feedback: str = field(default=REVISE_FEEDBACK, metadata=setting(
        "prompts", "Template that turns evaluation issues into judge feedback.",
        rule=Requirement("hold {issues} where the issues go and no other {field} (double any other brace)",
                         fills("issues")),
    ))

    def __post_init__(self) -> None:
        """Check every field (`setting_problem`) before any work; SettingError names each value refused."""
        problems = [problem for item in fields(self)
                    if (problem := setting_problem(item.name, getattr(self, item.name))) is not None]
        if problems:
            raise SettingError("; ".join(problems))

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
_HINTS = get_type_hints(Context)
