"""A run's mode: which model extracts and judges, and which evidence backend it searches.

`veracity.resources.resolve_mode` decides it once per run, from the run's `Context`, the objects
bound at build time and the environment; the steps read it from there.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from veracity.context import Context
from veracity.evidence.capabilities import Capabilities

OFFLINE = "offline"
"""The model setting that selects the local claim splitter and judge."""

ModelStep = Literal["extract", "judge"]
"""A step that runs a model: claim extraction (the splitter) or the judge."""

MODEL_STEPS: tuple[ModelStep, ...] = ("extract", "judge")
"""The steps that run a model, in the order a check runs them."""


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
        """True when the only evidence is a source text supplied by the user (source mode)."""
        return self.evidence.source_text

    @property
    def label(self) -> str:
        """Short form for reports, e.g. 'offline+kb' or 'llm+web'."""
        return f"{'offline' if self.offline else 'llm'}+{self.search}"


def step_model(context: Context, mode: Mode, step: ModelStep) -> str:
    """The model `step` runs with: its own setting (`extract_model`, `judge_model`), else the run's model."""
    own = context.extract_model if step == "extract" else context.judge_model
    return own or mode.model


def step_models(context: Context, mode: Mode) -> dict[ModelStep, str]:
    """Each model step's model as the run uses it (`step_model`), in the order the steps run."""
    return {step: step_model(context, mode, step) for step in MODEL_STEPS}


def describe_models(context: Context, mode: Mode) -> str:
    """Each step's model for people, as the run uses it: e.g. 'extract: offline · judge: openai:my-judge'.

    When every step runs the same model it is named once: 'offline', or 'model openai:gpt-4.1-mini'.
    """
    models = step_models(context, mode)
    if len(set(models.values())) == 1:
        model = next(iter(models.values()))
        return model if model == OFFLINE else f"model {model}"
    return " · ".join(f"{step}: {model}" for step, model in models.items())


def models_used(context: Context, mode: Mode) -> tuple[str, str]:
    """The report's `mode` and `model`: as `Mode` says, or per step ('extract/judge') when the steps differ.

    E.g. ('offline/llm+kb', 'extract=offline, judge=openai:gpt-4.1-mini') for a local splitter and an LLM judge.
    """
    extract, judge = step_model(context, mode, "extract"), step_model(context, mode, "judge")
    if extract == judge == mode.model:
        return mode.label, mode.model
    kinds = "/".join("offline" if model == OFFLINE else "llm" for model in (extract, judge))
    return f"{kinds}+{mode.search}", f"extract={extract}, judge={judge}"


def judged_offline(model: str) -> bool:
    """Whether a report's `model` (as `models_used` wrote it) says the offline judge ruled."""
    return model == OFFLINE or model.endswith(f"judge={OFFLINE}")
