"""The wiring: what a check runs with, and the one place where the core meets its plug-ins.

The graph's steps know only protocols (`veracity.protocols`); `Resources` is what they are given.
It holds the objects bound at build time and creates the rest from the run's `Context`: the chat
models, the evidence backend a `search` setting names (`BUILT_IN_BACKENDS`), the offline claim
splitter and judge, the calculator, the page checker and the support scorer (each read from
`veracity.plugins`, so it is imported when first used). The mode (which model, which evidence) is
resolved from the context, the bound objects and the environment once per run, and kept in the
run's `RunScope`.
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypeGuard

from veracity import plugins
from veracity.context import CALIBRATION_OFF, DEFAULT_MODEL, Context
from veracity.contracts import CalibrationOrigin
from veracity.errors import ConfigurationError
from veracity.evidence.base import EvidenceBackend
from veracity.evidence.capabilities import Capabilities
from veracity.evidence.source import SourceTextBackend
from veracity.evidence.web import TavilyBackend
from veracity.llm.caps import with_output_cap
from veracity.llm.stalls import StalledModels
from veracity.mode import (
    MODEL_STEPS,
    OFFLINE,
    Mode,
    ModelStep,
    describe_models,
    judged_offline,
    models_used,
    step_model,
    step_models,
)
from veracity.run_scope import RunKey, RunScope
from veracity.source_mode import SOURCE, missing_source, source_search

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel
    from langchain_core.retrievers import BaseRetriever

    from veracity.cache import CacheStore
    from veracity.calculator.plugin import ShippedCalculator
    from veracity.calibration.file import CalibrationFile
    from veracity.calibration.plugin import ChatCalibration
    from veracity.offline.plugin import EmbeddingSupport, OfflineJudge, OfflineSplitter
    from veracity.pages.plugin import PageFetcher

__all__ = [
    "BUILT_IN_BACKENDS", "OFFLINE", "BuiltInBackend", "Mode", "ModelStep", "Resources", "capabilities_of",
    "declared", "describe_mode", "models_used", "preload_steps", "resolve_mode", "step_model",
]


def describe_mode(mode: Mode, context: Context) -> str:
    """One line for people: each step's model, the evidence and the cache as a run uses them, and how to change them.

    E.g. "extract: offline · judge: openai:my-judge · evidence: only the source text 'policy.txt' · cache: ...".
    The models are `describe_models`'s (each step's own setting, else the run's model), so the line names
    what runs also when the steps differ.
    """
    models = describe_models(context, mode)
    offline = all(model == OFFLINE for model in step_models(context, mode).values())
    if offline:
        models += " (the local claim splitter and judge; set OPENAI_API_KEY or --model for an LLM)"
    evidence = {
        "web": "the web (Tavily)",
        "kb": f"the knowledge base{' at ' + context.kb_path if context.kb_path else ''}"
              " (set TAVILY_API_KEY or --search web for web search)",
        SOURCE: f"only the source text '{context.source_title}'",
    }.get(mode.search, f"the {mode.search} backend")
    return " · ".join([models, f"evidence: {evidence}", *_cache_note(mode, context, offline=offline)])


def _cache_note(mode: Mode, context: Context, *, offline: bool) -> list[str]:
    """Where model answers and web searches are kept, when this run keeps any (`offline`: no step asks a model)."""
    if offline and not mode.evidence.pages_to_fetch:  # no model answers, and no web searches
        return []
    if not context.cache:
        return ["cache: off"]
    return [f"cache: {context.cache_path or plugins.default_cache_path()} (--no-cache to bypass)"]


def resolve_mode(context: Context, *, bound_model: object = None, bound_backend: object = None) -> Mode:
    """Decide the model and evidence backend for a run.

    Model: a bound object or string wins; then `context.model`; then the default OpenAI model
    when OPENAI_API_KEY is set; else offline. Evidence: a source text, when given, is the only
    evidence (`source_search`, which refuses another search or a bound backend with it); otherwise a
    bound backend wins, then an explicit `context.search`; in 'auto', the web when TAVILY_API_KEY is
    set, else the local knowledge base.
    """
    if bound_model is not None and not isinstance(bound_model, str):
        model = f"custom:{type(bound_model).__name__}"
    else:
        model = bound_model or context.model or (DEFAULT_MODEL if os.environ.get("OPENAI_API_KEY") else OFFLINE)

    search = source_search(context.search, context.source_text, bound_backend=bound_backend) or _search(
        context, bound_backend)
    missing = missing_source(search, context.source_text, bound_backend=bound_backend)
    if missing is not None:
        raise ConfigurationError(missing)
    evidence = declared(bound_backend) if bound_backend is not None else capabilities_of(search)
    return Mode(model=model, search=search, evidence=evidence)


def _search(context: Context, bound_backend: object) -> str:
    """The evidence of a check without a source text: the bound backend, the search named, else by the keys set."""
    if bound_backend is not None:
        return str(getattr(bound_backend, "name", "custom"))
    if context.search != "auto":
        return context.search
    return "web" if os.environ.get("TAVILY_API_KEY") else "kb"


# -- the built-in evidence backends ----------------------------------------------------------------------------------

def _knowledge_base(path: str | None) -> EvidenceBackend:
    """The knowledge base at `path`, else at the default location as it is now (e.g. $VERACITY_KB)."""
    return _open_knowledge_base(str(Path(path).expanduser().resolve() if path else plugins.default_kb_path()),
                                default=not path)


_opening_knowledge_base = threading.Lock()
"""A run's steps and its warm-up (`veracity.run.warmup`) open knowledge bases from different threads."""


def _open_knowledge_base(path: str, *, default: bool) -> EvidenceBackend:
    with _opening_knowledge_base:
        return _open_knowledge_base_once(path, default=default)


@functools.lru_cache(maxsize=4)
def _open_knowledge_base_once(path: str, *, default: bool) -> EvidenceBackend:
    # The default location is seeded with the demo corpus on first use; an explicit one is not.
    return plugins.KnowledgeBaseBackend(None if default else Path(path))


def _cache_store(context: Context) -> CacheStore | None:
    """The cache this run reads and fills, or None (turned off, or the file cannot be opened)."""
    return plugins.open_store(context.cache_path) if context.cache else None


@asynccontextmanager
async def _open_web(context: Context) -> AsyncIterator[EvidenceBackend]:
    """Tavily, answering from the cache when the run keeps web searches; its connections closed afterwards."""
    backend = TavilyBackend(base_url=context.tavily_base_url, timeout=context.search_timeout)
    store = _cache_store(context) if context.search_cache_ttl > 0 else None
    try:
        if store is None:
            yield backend
        else:
            identity = f"tavily {backend.base_url or 'default'} {backend.search_depth}"
            yield plugins.CachedSearch(backend, store, identity=identity, ttl=context.search_cache_ttl)
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
    """A built-in evidence backend: what it declares, how a run opens it, and how to check before that it can."""

    capabilities: Capabilities
    """What the backend declares (its class's `capabilities`), known without importing it."""
    open: Callable[[Context], AbstractAsyncContextManager[EvidenceBackend]]
    """Opens the backend for the run's searches, and closes what it opened afterwards."""
    check: Callable[[Context], None]
    """Raises `ConfigurationError` when the backend cannot be set up (no key, no knowledge base)."""


BUILT_IN_BACKENDS: dict[str, BuiltInBackend] = {
    TavilyBackend.name: BuiltInBackend(TavilyBackend.capabilities, _open_web, _require_tavily_key),
    "kb": BuiltInBackend(Capabilities(), _open_kb, _check_kb),  # `KnowledgeBaseBackend`: plain passages
    SourceTextBackend.name: BuiltInBackend(SourceTextBackend.capabilities, _open_source, _source_is_checked),
}
"""The backends a `search` setting names ('web', 'kb', 'source': the name their evidence carries)."""


def declared(backend: object) -> Capabilities:
    """What `backend` declares as its `capabilities`.

    A backend written before backends declared anything is read by its name, as `capabilities_of`
    reads an evidence item's: named like a built-in backend, it is taken for one.
    """
    own = getattr(backend, "capabilities", None)
    return own if isinstance(own, Capabilities) else capabilities_of(str(getattr(backend, "name", "")))


def capabilities_of(backend: str, bound: object = None) -> Capabilities:
    """What the backend that found evidence recorded as from `backend` declares.

    The run's bound backend (`bound`) when that is its name, else the built-in backend of that
    name; a name neither has declares nothing.
    """
    if bound is not None and getattr(bound, "name", None) == backend:
        return declared(bound)
    built_in = BUILT_IN_BACKENDS.get(backend)
    return built_in.capabilities if built_in is not None else Capabilities()


# -- loads a check can start early -----------------------------------------------------------------------------------

def preload_steps(context: Context, mode: Mode) -> list[Callable[[], object]]:
    """The loads a check of `context` in `mode` will need, in the order its steps need them.

    They call the loaders the steps call, so a step finds each part loaded (or waits for the load
    under way) instead of loading it again: the index of a knowledge base that exists already (a
    new default one is seeded by the check itself, as before), the sentence embedder (the report's
    reliability scores use it in every mode), and for an offline judge its entailment model and
    version (for a chat model too when a calibration may apply: its signals read that model). For a run
    with no bound model or backend; `veracity.run.warmup` runs them on another
    thread while the check starts. A load that fails is left for its step to do again and report.
    """
    steps: list[Callable[[], object]] = []
    if mode.search == "kb":
        steps.append(functools.partial(_load_existing_knowledge_base, context.kb_path))
    steps.append(_default_embedder)
    if step_model(context, mode, "judge") == OFFLINE or _may_calibrate_chat(context):
        steps += [_entailment_model, _offline_judge_version]
    return steps


def _may_calibrate_chat(context: Context) -> bool:
    """Whether a chat model's verdicts may be calibrated (a file named, or kept): its signals read the offline model."""
    if context.calibration is not None:
        return context.calibration != CALIBRATION_OFF
    return _holds_files(plugins.calibration_folder())


def _load_existing_knowledge_base(path: str | None) -> None:
    if plugins.KnowledgeBase(path).exists():
        backend = _knowledge_base(path)
        if isinstance(backend, plugins.KnowledgeBaseBackend):
            backend.knowledge_base.load()


def _default_embedder() -> object:
    return plugins.default_embedder()


def _entailment_model() -> object:
    return _offline_judge().load()


def _offline_judge_version() -> str:
    return _offline_judge().version()


@functools.cache
def _offline_judge() -> OfflineJudge:
    return plugins.OfflineJudge()


# -- the resources of a graph -----------------------------------------------------------------------------------------

def _provider_settings() -> tuple[tuple[str, str], ...]:
    """The environment a chat model reads when it is created: API keys and endpoints."""
    return tuple(sorted((name, value) for name, value in os.environ.items()
                        if name.endswith(("_API_KEY", "_BASE_URL", "_API_BASE"))))


def _holds_files(folder: Path) -> bool:
    """Whether `folder` exists and holds at least one calibration file."""
    return folder.is_dir() and any(folder.glob("*.json"))


def _is_retriever(backend: object) -> TypeGuard[BaseRetriever]:
    """Whether `backend` is a LangChain retriever (LangChain is imported only to ask about a bound object)."""
    return isinstance(backend, plugins.BaseRetriever)


class Resources:
    """Holds objects bound at build time and creates the rest from the run's `Context` (`veracity.protocols`)."""

    def __init__(
        self,
        *,
        model: BaseChatModel | str | None = None,
        backend: EvidenceBackend | BaseRetriever | None = None,
    ) -> None:
        if backend is not None and _is_retriever(backend):
            backend = plugins.RetrieverBackend(backend)
        if backend is not None and not isinstance(backend, EvidenceBackend):
            raise TypeError(
                "backend must implement veracity.evidence.EvidenceBackend or be a LangChain BaseRetriever"
            )
        self._bound_model = model
        self._bound_backend = backend
        self._models: dict[tuple[object, ...], BaseChatModel] = {}
        self._models_lock = threading.Lock()  # preflights run in worker threads (`Checker.acheck`)
        self._mode: RunKey[Mode] = RunKey("mode")
        """Per run: its mode, resolved once (`mode`)."""
        self._calibration: RunKey[CalibrationFile | None] = RunKey("calibration")
        """Per run: the judge's calibration file, found and read once (`calibration`)."""
        self._unreachable: RunKey[dict[int, BaseChatModel]] = RunKey("unreachable models")
        """Per run: the created models whose endpoint did not answer the preflight probe, by id, each with the
        copy that fails at once in its place (see `veracity.llm.probe`)."""
        self._stalls = StalledModels()
        """Per run: the models whose call stalled, not asked again in that run (see `veracity.llm.stalls`)."""

    # -- plug-ins ----------------------------------------------------------------------------------------------------

    @functools.cached_property
    def splitter(self) -> OfflineSplitter:
        """The offline claim splitter, and the rule of check-worthiness every extraction is held to."""
        return plugins.OfflineSplitter()

    @functools.cached_property
    def calculator(self) -> ShippedCalculator:
        """The calculator."""
        return plugins.ShippedCalculator()

    @functools.cached_property
    def pages(self) -> PageFetcher:
        """The page checker."""
        return plugins.PageFetcher()

    @functools.cached_property
    def support(self) -> EmbeddingSupport:
        """The support scorer (the local sentence embedder)."""
        return plugins.EmbeddingSupport()

    def offline_judge(self, context: Context | None = None, run: RunScope | None = None) -> OfflineJudge:
        """The offline judge (the bundled entailment model, loaded once per process).

        Given a run's `context`, it rules by the calibration file the run found for it (read once, at
        the run's start: the file the report names), when there is one.
        """
        judge = _offline_judge()
        found = None if context is None else self._calibration_file(context, run)
        return judge if found is None else judge.measured_by(found)

    def judge_version(self, model: str) -> str | None:
        """The offline judge's version when a report's `model` says it ruled, else None."""
        return self.offline_judge().version() if judged_offline(model) else None

    def _calibration_file(self, context: Context, run: RunScope | None) -> CalibrationFile | None:
        """The calibration file the run's judge uses, found once per run; None when there is none.

        `Context.calibration` names one (checked to be measured for this judge: `ConfigurationError`
        otherwise), or 'off' (none); unset, the file `veracity calibrate` kept for this judge in the data folder
        is used when there is one (and refused when it is not the user's own).
        """
        mode = self.mode(context, run)  # before the run's lock is taken for the calibration
        find = functools.partial(self._find_calibration, context, mode)
        return find() if run is None else run.setdefault(self._calibration, find)

    def _find_calibration(self, context: Context, mode: Mode) -> CalibrationFile | None:
        if context.calibration is None and not _holds_files(plugins.calibration_folder()):
            return None  # nothing kept: no need to name the judge (which reads the offline model's files)
        judge = plugins.judge_identity(context, step_model(context, mode, "judge"))
        return plugins.calibration_for(judge, context.calibration)

    def chat_calibration(self, context: Context, run: RunScope | None = None) -> ChatCalibration | None:
        """The calibration of the run's chat-model judge (the file read for the run), or None when none was measured."""
        found = self._calibration_file(context, run)
        return None if found is None else plugins.ChatCalibration(found)

    def calibration_origin(self, context: Context, run: RunScope | None = None) -> CalibrationOrigin | None:
        """The calibration that rules the run's verdicts, as its report names it (`contracts.CalibrationOrigin`).

        The file the run's judge uses; for the offline judge without one, or in source mode (which
        keeps its own), the shipped calibration; None for a chat judge with none (uncalibrated).
        """
        found = self._calibration_file(context, run)
        offline = self.offline(context, "judge", run)
        if found is not None and not (offline and self.mode(context, run).source):
            return found.origin()
        return plugins.shipped_origin() if offline else None

    # -- the run's mode and models -----------------------------------------------------------------------------------

    def mode(self, context: Context, run: RunScope | None = None) -> Mode:
        """The model and evidence the run of `context` uses, resolved once per run.

        The first ask in `run` resolves it (`resolve_mode`: the `Checker` asks before the run starts, a
        bare `graph.invoke` at its first step); later asks, from any step of the run, get the same
        `Mode` without reading the environment again. Without a run, it is resolved afresh.
        """
        resolve = functools.partial(resolve_mode, context, bound_model=self._bound_model,
                                    bound_backend=self._bound_backend)
        return resolve() if run is None else run.setdefault(self._mode, resolve)

    def offline(self, context: Context, step: ModelStep, run: RunScope | None = None) -> bool:
        """True when `step` runs offline (the local splitter or judge) instead of a chat model."""
        return step_model(context, self.mode(context, run), step) == OFFLINE

    def chat_model(self, context: Context, *, max_tokens: int, step: ModelStep | None = None,
                   run: RunScope | None = None) -> BaseChatModel:
        """The chat model (of `step`, when given), limited to `max_tokens` output tokens per answer.

        Every model request goes out with its cap (see `veracity.llm.caps`): the cap is set here, on
        the model the step uses (a bound model already limited to fewer tokens keeps its own limit).
        A step with a model of its own (`extract_model`, `judge_model`) gets that one. A model whose
        endpoint did not answer the run's preflight probe fails each call at once (`ModelUnreachable`).
        """
        model = self._model(context, step, run)
        stand_ins = run.get(self._unreachable) if run is not None else None
        model = (stand_ins or {}).get(id(model), model)
        model, _ = with_output_cap(model, max_tokens)
        return model

    def model_call(self, context: Context, step: ModelStep, run: RunScope) -> AbstractAsyncContextManager[None]:
        """The limits of one call of `step`'s chat model: `model_timeout`, and once per run for a model that stalls.

        The call is cut off after `model_timeout` (`ModelTimeout`); a model that stalled earlier in
        this run is not asked again (`ModelStalled` at once, see `veracity.llm.stalls`). Messages
        name the model's endpoint, or its 'provider:model' name when it has none.
        """
        model = self._model(context, step, run)
        endpoint = plugins.model_endpoint(model)
        subject = (f"the model endpoint {endpoint}" if endpoint is not None
                   else f"the model {step_model(context, self.mode(context, run), step)}")
        return self._stalls.call(run, id(model), subject=subject, seconds=context.model_timeout)

    def _model(self, context: Context, step: ModelStep | None = None, run: RunScope | None = None) -> BaseChatModel:
        """The bound chat model, else one created from the resolved model name (of `step`, when given).

        A step whose own model differs from the run's gets that model created by name. A created
        model is reused while its name, temperature, cache and the provider settings
        in the environment (API keys, endpoints) stay the same. A created model keeps its answers
        in the cache file (`Context.cache`); a bound object keeps its own `cache` setting.
        """
        mode = self.mode(context, run)
        spec = mode.model if step is None else step_model(context, mode, step)
        if isinstance(self._bound_model, plugins.BaseChatModel) and spec == mode.model:
            return self._bound_model
        store = _cache_store(context)
        key = (spec, context.temperature, _provider_settings(), store)
        with self._models_lock:  # one model per key: the probe's stand-in is found by the model's id
            if key not in self._models:
                self._models[key] = plugins.init_model(spec, temperature=context.temperature,
                                                       cache=plugins.ModelCallCache(store) if store else False)
            return self._models[key]

    # -- evidence ----------------------------------------------------------------------------------------------------

    def declared(self, backend: EvidenceBackend) -> Capabilities:
        """What `backend` (the run's, as opened) declares it is."""
        return declared(backend)

    def capabilities_of(self, backend: str) -> Capabilities:
        """What the backend that found evidence recorded as from `backend` declares (the bound one's own)."""
        return capabilities_of(backend, self._bound_backend)

    @asynccontextmanager
    async def evidence_backend(self, context: Context, run: RunScope | None = None) -> AsyncIterator[EvidenceBackend]:
        """Yield the backend to search with; backends created here are closed afterwards."""
        if self._bound_backend is not None:
            yield self._bound_backend
            return
        search = self.mode(context, run).search
        built_in = BUILT_IN_BACKENDS.get(search)
        if built_in is None:
            raise ConfigurationError(f"unknown evidence backend {search!r}; available: {', '.join(BUILT_IN_BACKENDS)}")
        async with built_in.open(context) as backend:
            yield backend

    # -- before a run --------------------------------------------------------------------------------------------------

    def preflight(self, context: Context, run: RunScope | None = None) -> Mode:
        """Resolve the mode and raise `ConfigurationError` now if its parts cannot be set up.

        Then the endpoint of each chat model created here is probed (`veracity.llm.probe`): one that
        does not answer makes the calls of `run` to that model fail at once, so the gate reports it
        within seconds instead of after `model_timeout` per attempt.
        """
        mode = self.mode(context, run)
        models = [self._model(context, step, run) for step in MODEL_STEPS if not self.offline(context, step, run)]
        built_in = BUILT_IN_BACKENDS.get(mode.search) if self._bound_backend is None else None
        if built_in is not None:
            built_in.check(context)
        self._calibration_file(context, run)  # a calibration file that cannot be used is refused before the run
        stand_ins = self._probe([model for model in models if model is not self._bound_model])
        if stand_ins and run is not None:
            run.set(self._unreachable, stand_ins)
        return mode

    def _probe(self, models: list[BaseChatModel]) -> dict[int, BaseChatModel]:
        """Probe the endpoints of `models` (created here): failing copies of the silent ones, by the model's id."""
        stand_ins: dict[int, BaseChatModel] = {}
        for model in models:
            endpoint = plugins.model_endpoint(model)
            problem = plugins.endpoint_problem(endpoint) if endpoint is not None else None
            if problem is not None:
                stand_ins[id(model)] = plugins.unreachable(model, problem)
        return stand_ins
