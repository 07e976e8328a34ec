"""What a check runs with: its mode, and the chat model, offline judge and evidence backend it uses.

The mode (which model, which evidence) is resolved from the run's `Context`, the objects bound at
build time and the environment, once per run: `Resources` keeps it with the run's `Context` object,
which every step of the run shares. `Resources` holds the bound objects and creates the rest.
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal, TypeGuard

from veracity.context import DEFAULT_MODEL, Context
from veracity.errors import ConfigurationError, SourceConflictError
from veracity.evidence.base import EvidenceBackend
from veracity.evidence.capabilities import Capabilities
from veracity.evidence.declared import capabilities_of, declared
from veracity.evidence.kb import KnowledgeBaseBackend
from veracity.evidence.source import SourceTextBackend
from veracity.evidence.web import TavilyBackend
from veracity.llm.caps import with_output_cap
from veracity.llm.stalls import StalledModels
from veracity.per_run import PerRun
from veracity.validation import missing_source, source_conflict

if TYPE_CHECKING:
    # Imported where used: an offline run needs no chat model, retriever or cache.
    from langchain_core.language_models import BaseChatModel
    from langchain_core.retrievers import BaseRetriever

    from veracity.cache import CacheStore
    from veracity.offline.judge.entailment_judge import EntailmentJudge


OFFLINE = "offline"
"""The model setting that selects the local claim splitter and judge."""

ModelStep = Literal["extract", "judge"]
"""A step that runs a model: claim extraction (the splitter) or the judge."""


def step_model(context: Context, mode: Mode, step: ModelStep) -> str:
    """The model `step` runs with: its own setting (`extract_model`, `judge_model`), else the run's model."""
    own = context.extract_model if step == "extract" else context.judge_model
    return own or mode.model


def models_used(context: Context, mode: Mode) -> tuple[str, str]:
    """The report's `mode` and `model`: as `Mode` says, or per step ('extract/judge') when the steps differ.

    E.g. ('offline/llm+kb', 'extract=offline, judge=openai:gpt-4.1-mini') for a local splitter and an LLM judge.
    """
    extract, judge = step_model(context, mode, "extract"), step_model(context, mode, "judge")
    if extract == judge == mode.model:
        return mode.label, mode.model
    kinds = "/".join("offline" if model == OFFLINE else "llm" for model in (extract, judge))
    return f"{kinds}+{mode.search}", f"extract={extract}, judge={judge}"


@dataclass(frozen=True)
class Mode:
    """A resolved mode: `model` is 'offline' or a model name; `search` names the evidence backend.

    `evidence` is what that backend declares (see `veracity.evidence.capabilities`).
    """

    model: str
    search: str
    evidence: Capabilities = field(default_factory=Capabilities)

    @property
    def offline(self) -> bool:
        """True when the local claim splitter and judge run instead of a chat model."""
        return self.model == OFFLINE

    @property
    def source(self) -> bool:
        """True when the only evidence is a source text supplied by the user."""
        return self.evidence.source_text

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
        if self.offline and not self.evidence.pages_to_fetch:  # no model answers, and no web searches
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
    missing = missing_source(search, context.source_text, bound_backend=bound_backend)
    if missing is not None:
        raise ConfigurationError(missing)
    evidence = declared(bound_backend) if bound_backend is not None else capabilities_of(search)
    return Mode(model=model, search=search, evidence=evidence)


def _knowledge_base(path: str | None) -> EvidenceBackend:
    """The knowledge base at `path`, else at the default location as it is now (e.g. $VERACITY_KB)."""
    from veracity.kb.paths import default_kb_path

    return _open_knowledge_base(str(Path(path).expanduser().resolve() if path else default_kb_path()),
                                default=not path)


# A run's steps and its warm-up (`veracity.run.warmup`) ask for these from different threads; the
# locks make sure each is created once.
_opening_knowledge_base = threading.Lock()
_creating_judge = threading.Lock()


def _open_knowledge_base(path: str, *, default: bool) -> EvidenceBackend:
    with _opening_knowledge_base:
        return _open_knowledge_base_once(path, default=default)


@functools.lru_cache(maxsize=4)
def _open_knowledge_base_once(path: str, *, default: bool) -> EvidenceBackend:
    # The default location is seeded with the demo corpus on first use; an explicit one is not.
    return KnowledgeBaseBackend(None if default else Path(path))


def _offline_judge() -> EntailmentJudge:
    with _creating_judge:
        return _offline_judge_once()


@functools.cache
def _offline_judge_once() -> EntailmentJudge:
    from veracity.offline.judge.entailment_judge import EntailmentJudge

    return EntailmentJudge()


def preload_steps(context: Context, mode: Mode) -> list[Callable[[], object]]:
    """The loads a check of `context` in `mode` will need, in the order its steps need them.

    They call the loaders the steps call, so a step finds each part loaded (or waits for the load
    under way) instead of loading it again: the index of a knowledge base that exists already (a
    new default one is seeded by the check itself, as before), the sentence embedder (the report's
    reliability scores use it in every mode), and for an offline judge its entailment model and
    version. For a run with no bound model or backend; `veracity.run.warmup` runs them on another
    thread while the check starts. A load that fails is left for its step to do again and report.
    """
    steps: list[Callable[[], object]] = []
    if mode.search == "kb":
        steps.append(functools.partial(_load_existing_knowledge_base, context.kb_path))
    steps.append(_default_embedder)
    if step_model(context, mode, "judge") == OFFLINE:
        steps += [_entailment_model, _offline_judge_version]
    return steps


def _load_existing_knowledge_base(path: str | None) -> None:
    from veracity.kb import KnowledgeBase

    if KnowledgeBase(path).exists():
        backend = _knowledge_base(path)
        if isinstance(backend, KnowledgeBaseBackend):
            backend.knowledge_base.load()


def _default_embedder() -> object:
    from veracity.offline.model.embedder import default_embedder

    return default_embedder()


def _entailment_model() -> object:
    return _offline_judge().model


def _offline_judge_version() -> str:
    from veracity.offline.judge.version import offline_judge_version

    return offline_judge_version()


def _cache_store(context: Context) -> CacheStore | None:
    """The cache this run reads and fills, or None (turned off, or the file cannot be opened)."""
    from veracity.cache import open_store

    return open_store(context.cache_path) if context.cache else None


def _provider_settings() -> tuple[tuple[str, str], ...]:
    """The environment a chat model reads when it is created: API keys and endpoints."""
    return tuple(sorted((name, value) for name, value in os.environ.items()
                        if name.endswith(("_API_KEY", "_BASE_URL", "_API_BASE"))))


@asynccontextmanager
async def _open_web(context: Context) -> AsyncIterator[EvidenceBackend]:
    """Tavily, answering from the cache when the run keeps web searches; its connections closed afterwards."""
    from veracity.cache import CachedSearch

    backend = TavilyBackend(base_url=context.tavily_base_url, timeout=context.search_timeout)
    store = _cache_store(context) if context.search_cache_ttl > 0 else None
    try:
        if store is None:
            yield backend
        else:
            identity = f"tavily {backend.base_url or 'default'} {backend.search_depth}"
            yield CachedSearch(backend, store, identity=identity, ttl=context.search_cache_ttl)
    finally:
        await backend.aclose()


def _require_tavily_key(context: Context) -> None:
    TavilyBackend.require_key()


@asynccontextmanager
async def _open_kb(context: Context) -> AsyncIterator[EvidenceBackend]:
    yield _knowledge_base(context.kb_path)


def _check_kb(context: Context) -> None:
    _knowledge_base(context.kb_path)


@asynccontextmanager
async def _open_source(context: Context) -> AsyncIterator[EvidenceBackend]:
    yield SourceTextBackend(context.source_text or "", title=context.source_title)


def _source_is_checked(context: Context) -> None:
    """Nothing to set up: `resolve_mode` already refused a missing or empty source text."""


@dataclass(frozen=True)
class BuiltInBackend:
    """How a run opens one of the built-in evidence backends, and checks before it starts that it can."""

    open: Callable[[Context], AbstractAsyncContextManager[EvidenceBackend]]
    """Opens the backend for the run's searches, and closes what it opened afterwards."""
    check: Callable[[Context], None]
    """Raises `ConfigurationError` when the backend cannot be set up (no key, no knowledge base)."""


BUILT_IN_BACKENDS: dict[str, BuiltInBackend] = {
    TavilyBackend.name: BuiltInBackend(_open_web, _require_tavily_key),
    KnowledgeBaseBackend.name: BuiltInBackend(_open_kb, _check_kb),
    SourceTextBackend.name: BuiltInBackend(_open_source, _source_is_checked),
}
"""The backends a `search` setting names ('web', 'kb', 'source': the name their evidence carries)."""


def _is_retriever(backend: object) -> TypeGuard[BaseRetriever]:
    """Whether `backend` is a LangChain retriever (LangChain is imported only to ask about a bound object)."""
    from langchain_core.retrievers import BaseRetriever

    return isinstance(backend, BaseRetriever)


class Resources:
    """Holds objects bound at build time and creates the rest from the run's `Context`."""

    def __init__(
        self,
        *,
        model: BaseChatModel | str | None = None,
        backend: EvidenceBackend | BaseRetriever | None = None,
    ) -> None:
        if backend is not None and _is_retriever(backend):
            from veracity.evidence.retriever import RetrieverBackend

            backend = RetrieverBackend(backend)
        if backend is not None and not isinstance(backend, EvidenceBackend):
            raise TypeError(
                "backend must implement veracity.evidence.EvidenceBackend or be a LangChain BaseRetriever"
            )
        self._bound_model = model
        self._bound_backend = backend
        self._models: dict[tuple[object, ...], BaseChatModel] = {}
        self._models_lock = threading.Lock()  # preflights run in worker threads (`Checker.acheck`)
        self._modes: PerRun[Mode] = PerRun()
        self._unreachable: PerRun[dict[int, BaseChatModel]] = PerRun()
        """Per run: the created models whose endpoint did not answer the preflight
        probe, by id, each with the copy that fails at once in its place (see `veracity.llm.probe`)."""
        self._stalls = StalledModels()
        """Per run: the models whose call stalled, not asked again in that run (see `veracity.llm.stalls`)."""

    def mode(self, context: Context) -> Mode:
        """The model and evidence the run of `context` uses, resolved once per run.

        The first ask resolves it (`resolve_mode`: the `Checker` asks before the run starts, a
        bare `graph.invoke` at its first step); later asks, from any step of the run, get the same
        `Mode` without reading the environment again. It is kept with the run's `Context` object,
        which LangGraph hands to every node and subgraph of the run (each check gets its own).
        """
        mode = self._modes.get(context)
        if mode is None:
            mode = self._modes.set(context, resolve_mode(context, bound_model=self._bound_model,
                                                         bound_backend=self._bound_backend))
        return mode

    def chat_model(self, context: Context, *, max_tokens: int, step: ModelStep | None = None) -> BaseChatModel:
        """The chat model (of `step`, when given), limited to `max_tokens` output tokens per answer.

        Every model request goes out with its cap (see `veracity.llm.caps`): the cap is set here, on
        the model the step uses (a bound model already limited to fewer tokens keeps its own limit).
        A step with a model of its own (`extract_model`, `judge_model`) gets that one. A model whose
        endpoint did not answer the run's preflight probe fails each call at once (`ModelUnreachable`).
        """
        model = self._model(context, step)
        model = (self._unreachable.get(context) or {}).get(id(model), model)
        model, _ = with_output_cap(model, max_tokens)
        return model

    def model_call(self, context: Context, step: ModelStep) -> AbstractAsyncContextManager[None]:
        """The limits of one call of `step`'s chat model: `model_timeout`, and once per run for a model that stalls.

        The call is cut off after `model_timeout` (`ModelTimeout`); a model that stalled earlier in
        this run is not asked again (`ModelStalled` at once, see `veracity.llm.stalls`). Messages
        name the model's endpoint, or its 'provider:model' name when it has none.
        """
        from veracity.llm.probe import model_endpoint

        model = self._model(context, step)
        endpoint = model_endpoint(model)
        subject = (f"the model endpoint {endpoint}" if endpoint is not None
                   else f"the model {step_model(context, self.mode(context), step)}")
        return self._stalls.call(context, id(model), subject=subject, seconds=context.model_timeout)

    def offline(self, context: Context, step: ModelStep) -> bool:
        """True when `step` runs offline (the local splitter or judge) instead of a chat model."""
        return step_model(context, self.mode(context), step) == OFFLINE

    def _model(self, context: Context, step: ModelStep | None = None) -> BaseChatModel:
        """The bound chat model, else one created from the resolved model name (of `step`, when given).

        A step whose own model differs from the run's gets that model created by name. A created
        model is reused while its name, temperature, cache and the provider settings
        in the environment (API keys, endpoints) stay the same. A created model keeps its answers
        in the cache file (`Context.cache`); a bound object keeps its own `cache` setting.
        """
        from langchain_core.language_models import BaseChatModel

        from veracity.cache import ModelCallCache
        from veracity.llm.models import init_model

        run_model = self.mode(context).model
        spec = run_model if step is None else step_model(context, self.mode(context), step)
        if isinstance(self._bound_model, BaseChatModel) and spec == run_model:
            return self._bound_model
        store = _cache_store(context)
        key = (spec, context.temperature, _provider_settings(), store)
        with self._models_lock:  # one model per key: the probe's stand-in is found by the model's id
            if key not in self._models:
                self._models[key] = init_model(spec, temperature=context.temperature,
                                               cache=ModelCallCache(store) if store else False)
            return self._models[key]

    def offline_judge(self) -> EntailmentJudge:
        """The offline judge (the bundled entailment model), loaded once per process."""
        return _offline_judge()

    def capabilities_of(self, backend: str) -> Capabilities:
        """What the backend that found evidence recorded as from `backend` declares (the bound one's own)."""
        return capabilities_of(backend, self._bound_backend)

    @asynccontextmanager
    async def evidence_backend(self, context: Context) -> AsyncIterator[EvidenceBackend]:
        """Yield the backend to search with; backends created here are closed afterwards."""
        if self._bound_backend is not None:
            yield self._bound_backend
            return
        search = self.mode(context).search
        built_in = BUILT_IN_BACKENDS.get(search)
        if built_in is None:
            raise ConfigurationError(f"unknown evidence backend {search!r}; available: {', '.join(BUILT_IN_BACKENDS)}")
        async with built_in.open(context) as backend:
            yield backend

    def preflight(self, context: Context) -> Mode:
        """Resolve the mode and raise `ConfigurationError` now if its parts cannot be set up.

        Then the endpoint of each chat model created here is probed (`veracity.llm.probe`): one that
        does not answer makes this run's calls to that model fail at once, so the gate reports it
        within seconds instead of after `model_timeout` per attempt.
        """
        mode = self.mode(context)
        steps: tuple[ModelStep, ...] = ("extract", "judge")
        models = [self._model(context, step) for step in steps if not self.offline(context, step)]
        built_in = BUILT_IN_BACKENDS.get(mode.search) if self._bound_backend is None else None
        if built_in is not None:
            built_in.check(context)
        self._probe(context, [model for model in models if model is not self._bound_model])
        return mode

    def _probe(self, context: Context, models: list[BaseChatModel]) -> None:
        """Probe the endpoints of `models` (created here); keep, for this run, failing copies of the silent ones."""
        from veracity.llm.probe import ENDPOINT_PROBES, model_endpoint, unreachable

        stand_ins: dict[int, BaseChatModel] = {}
        for model in models:
            endpoint = model_endpoint(model)
            problem = ENDPOINT_PROBES.problem(endpoint) if endpoint is not None else None
            if problem is not None:
                stand_ins[id(model)] = unreachable(model, problem)
        if stand_ins:
            self._unreachable.set(context, stand_ins)
