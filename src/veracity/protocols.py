"""What a plug-in may touch: the protocols the graph's steps call, and all they know of their plug-ins.

The core (`graph`, `state`, `context`, `contracts`, `nodes`, `step_support`, `prompts`, `llm`, `routes`,
`evidence`) depends on these protocols and on LangGraph and LangChain, never on an implementation.
`veracity.resources` wires the shipped implementations in, and the graph and the `Checker` take
them from there:

* `ClaimSplitter`: claims without a chat model (`veracity.offline.plugin.OfflineSplitter`);
* `Judge`: verdicts without a chat model, with the checks that judge needs (`veracity.offline.plugin.OfflineJudge`);
* `Calculator`: computed claims, decided by code (`veracity.calculator.plugin.ShippedCalculator`);
* `PageChecker`: a web verdict's cited page, fetched and read (`veracity.pages.plugin.PageFetcher`);
* `SupportScorer`: how closely the evidence backs each claim (`veracity.offline.plugin.EmbeddingSupport`);
* an evidence backend is `veracity.evidence.EvidenceBackend` (the web, the knowledge base, a source text);
* a cache notes what it did for each call through `veracity.cache_outcomes` (`veracity.cache` is one).

`StepResources` is what a step asks of the run's wiring: its mode, its chat models and their limits,
its evidence backend, and the plug-ins above.
"""

from __future__ import annotations

import datetime
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol

from veracity.context import Context
from veracity.contracts import CalibrationOrigin, Claim, Computation, Evidence, Label, PageCheck, SkipReason, Verdict
from veracity.evidence.base import EvidenceBackend
from veracity.evidence.capabilities import Capabilities
from veracity.mode import Mode, ModelStep
from veracity.run_scope import RunScope

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel


class Ruled(Protocol):
    """An answer after its judge's (or calculator's) own calibration: what the verdict gate receives."""

    @property
    def answer(self) -> dict[str, Any]:
        """A `JudgeOutput`-shaped dict: label, reason, evidence_id, quote."""
        ...

    @property
    def confidence(self) -> float | None:
        """P(the label is right); for an unverifiable answer that leans, P(the lean is right); None: not calibrated."""
        ...

    @property
    def leaning(self) -> Literal["supported", "refuted"] | None:
        """The label an answer held back as unverifiable would have had."""
        ...

    @property
    def alignment(self) -> dict[str, Any] | None:
        """The claim aligned with the passage the judge relied on (`contracts.Alignment` as data), or None."""
        ...

    @property
    def calibrated(self) -> bool:
        """False for a chat model's answer with no calibration measured for that judge (it says "uncalibrated")."""
        ...


class ClaimSplitter(Protocol):
    """Splits a text into claims without a chat model, and says which statements are not worth checking."""

    def split(self, text: str, *, source_mode: bool) -> dict[str, Any]:
        """An `ExtractionOutput`-shaped answer for `text`; the extraction gate validates it as it does a model's."""
        ...

    def skip_reason(self, statement: str, *, source_mode: bool) -> SkipReason | None:
        """Why `statement` is not check-worthy (courtesy, question, opinion, prediction), or None.

        The extraction gate applies it to every extractor's claims, a chat model's too.
        """
        ...


class Judge(Protocol):
    """A judge that rules without a chat model, and checks its own verdicts as that judge needs."""

    def rule(self, claim: str, evidence: list[Evidence], *, min_precision: float, source_mode: bool) -> Ruled:
        """The ruled answer on `claim`: its label held to `min_precision` by the judge's own calibration.

        For a run with a calibration file measured for this judge on the user's data, that file's
        (`StepResources.offline_judge` given the run); source mode keeps its own.
        """
        ...

    def citation_problem(self, claim: str, cited: Evidence) -> str | None:
        """Why `cited` cannot decide `claim` by this judge's standard (say, it is about something else), or None."""
        ...

    def version(self) -> str:
        """Which judge this is (its code, model and settings), recorded on the reports it judged."""
        ...


@dataclass(frozen=True)
class Uncalibrated:
    """A chat model's answer as it gave it: no calibration was measured for that judge."""

    answer: Any
    confidence: None = None
    leaning: None = None
    calibrated: bool = False
    alignment: None = None


class VerdictCalibration(Protocol):
    """A calibration measured for a chat-model judge (`veracity calibrate`): it rules that judge's answers."""

    def rule(self, claim: str, evidence: list[Evidence], answer: Any, *, min_precision: float,
             logprob: float | None = None) -> Ruled:
        """`answer` (the model's raw payload) with its calibrated confidence, held to `min_precision`.

        `logprob` is the answer's mean token log-probability, where the endpoint returned them.

        An answer that is no valid verdict comes back as it was, with no confidence: the gate refuses it.
        """
        ...


@dataclass(frozen=True)
class Computed:
    """A claim the calculator decided: how (for the report), and the answer its calibration ruled."""

    computation: Computation
    ruling: Ruled


class Calculator(Protocol):
    """Decides claims whose truth is a computation (ages, durations, measures, arithmetic) by code."""

    def is_arithmetic(self, claim: str) -> bool:
        """Whether `claim` is plain arithmetic, decided without evidence (so its branch skips the search)."""
        ...

    def arithmetic_label(self, claim: str) -> Label | None:
        """The label plain arithmetic gets when computed again; None when it is not arithmetic or not decidable."""
        ...

    def compute(self, claim: str, evidence: list[Evidence], today: datetime.date, *,
                min_precision: float) -> Computed | None:
        """The computed answer on `claim` from `evidence`, measured to `today`; None when it is no computed claim.

        A fault of the calculator is an unverifiable answer that says so, never an exception.
        """
        ...


class PageChecker(Protocol):
    """Fetches a web verdict's cited page and looks for the verdict's quote there."""

    async def check(self, claim: str, verdict: Verdict, url: str, context: Context) -> PageCheck:
        """The page check of `verdict` at `url`, within the fetch limits `context` sets."""
        ...


class SupportScorer(Protocol):
    """Scores how closely each claim's evidence backs it (the report's reliability heuristic)."""

    def support_scores(self, claims: list[Claim], evidence: dict[str, list[Evidence]]) -> dict[str, float | None]:
        """Per claim, the closeness of its best evidence sentence (None: it has no evidence)."""
        ...


class StepResources(Protocol):
    """What the graph's steps ask of the run's wiring (`veracity.resources.Resources`)."""

    @property
    def splitter(self) -> ClaimSplitter:
        """The claim splitter that runs without a chat model, and the rule of check-worthiness."""
        ...

    @property
    def calculator(self) -> Calculator:
        """The calculator."""
        ...

    @property
    def pages(self) -> PageChecker:
        """The page checker."""
        ...

    @property
    def support(self) -> SupportScorer:
        """The support scorer of the report's reliability scores."""
        ...

    def mode(self, context: Context, run: RunScope | None = None) -> Mode:
        """The run's mode, decided once per run (`run`)."""
        ...

    def offline(self, context: Context, step: ModelStep, run: RunScope | None = None) -> bool:
        """Whether `step` runs without a chat model (the splitter, or the judge below)."""
        ...

    def offline_judge(self, context: Context | None = None, run: RunScope | None = None) -> Judge:
        """The judge that runs without a chat model; given a run, ruling by the run's calibration file, if any."""
        ...

    def chat_model(self, context: Context, *, max_tokens: int, step: ModelStep | None = None,
                   run: RunScope | None = None) -> BaseChatModel:
        """The chat model (of `step`), its answers capped at `max_tokens`."""
        ...

    def model_call(self, context: Context, step: ModelStep, run: RunScope) -> AbstractAsyncContextManager[None]:
        """The limits of one call of `step`'s chat model in the run."""
        ...

    def evidence_backend(self, context: Context, run: RunScope | None = None,
                         ) -> AbstractAsyncContextManager[EvidenceBackend]:
        """The run's evidence backend, open for its searches."""
        ...

    def declared(self, backend: EvidenceBackend) -> Capabilities:
        """What `backend` declares it is."""
        ...

    def capabilities_of(self, backend: str) -> Capabilities:
        """What the backend that found evidence recorded as from `backend` declares."""
        ...

    def judge_version(self, model: str) -> str | None:
        """The version of the judge a report's `model` names, when that judge has one (the offline judge's)."""
        ...

    def chat_calibration(self, context: Context, run: RunScope | None = None) -> VerdictCalibration | None:
        """The calibration of the run's chat-model judge, or None when none was measured for it (uncalibrated)."""
        ...

    def calibration_origin(self, context: Context, run: RunScope | None = None) -> CalibrationOrigin | None:
        """The calibration that rules the run's verdicts, as its report names it; None: a chat judge uncalibrated."""
        ...
