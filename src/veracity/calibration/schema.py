"""A calibration file as a typed, bounded document: every field a check rules by, checked before it is used.

`CalibrationDocument` is the JSON `veracity calibrate` writes. Probabilities, target precisions and
thresholds are finite numbers within [0, 1] (never strings, never NaN); ``delta`` is within (0, 1);
model weights, means and biases are finite and scales positive; each of the three labels has its
model, reading only the signals its kind of judge gives. The levels strictly increase, and each
decisive label has one threshold (or null: none certified) per level, in the order risk control
certifies them: a higher target precision never needs a lower threshold, and once none is certified,
none is at a higher level. `problems` words a refusal with each field's place, e.g.
``risk.thresholds.refuted: must be within [0, 1] (got 1.5)``.
"""

from __future__ import annotations

import math
import re
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator
from pydantic_core import PydanticCustomError

FORMAT = "veracity-calibration"
"""The ``format`` every calibration file declares."""
VERSION = 1
"""The ``version`` of the file this veracity reads and writes."""
MAX_ITEMS = 10_000
"""The most levels, or features of one model, a file may hold (`veracity calibrate` writes 50 and a few dozen)."""
SHOWN_PROBLEMS = 3
"""How many of a refused file's problems its message lists."""


def _finite(value: float) -> float:
    if not math.isfinite(value):
        raise PydanticCustomError("finite", "must be a finite number")
    return value


def _probability(value: float) -> float:
    if not (math.isfinite(value) and 0 <= value <= 1):
        raise PydanticCustomError("probability", "must be within [0, 1]")
    return value


def _open_probability(value: float) -> float:
    if not (math.isfinite(value) and 0 < value < 1):
        raise PydanticCustomError("open_probability", "must be within (0, 1)")
    return value


def _positive(value: float) -> float:
    if not (math.isfinite(value) and value > 0):
        raise PydanticCustomError("positive", "must be a positive finite number")
    return value


Finite = Annotated[float, AfterValidator(_finite)]
"""A number, neither NaN nor infinite (a model's weight, mean or bias)."""
Probability = Annotated[float, AfterValidator(_probability)]
"""A finite number within [0, 1] (a threshold, a target precision)."""
OpenProbability = Annotated[float, AfterValidator(_open_probability)]
"""A finite number within (0, 1) (``delta``: 0 would promise certainty, 1 nothing)."""
Positive = Annotated[float, AfterValidator(_positive)]
"""A finite number above 0 (a model's scale, which divides)."""
FeatureName = Annotated[str, Field(min_length=1, max_length=100)]
"""The name of a signal a model reads."""


class Section(BaseModel):
    """A part of the file: strict types (no number as a string), and no field it does not define."""

    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)


class JudgeSection(Section):
    """The judge the calibration was measured for (`veracity.calibration.identity.JudgeIdentity`)."""

    kind: Literal["offline", "chat"]
    model: str = Field(min_length=1, max_length=500)
    prompt_version: str = Field(max_length=64)
    judge_version: str = Field(min_length=1, max_length=500)

    @field_validator("prompt_version")
    @classmethod
    def _prompt_version_fits_the_kind(cls, value: str, info: ValidationInfo) -> str:
        kind = info.data.get("kind")
        if kind == "offline" and value:
            raise PydanticCustomError("judge", "must be empty for the offline judge, which has no prompt")
        if kind == "chat" and not re.fullmatch(r"[0-9a-f]{12}", value):
            raise PydanticCustomError("judge", "must be the 12 hex digits of the chat judge's prompt digest")
        return value

    @field_validator("model")
    @classmethod
    def _offline_is_named_offline(cls, value: str, info: ValidationInfo) -> str:
        if info.data.get("kind") == "offline" and value != "offline":
            raise PydanticCustomError("judge", "must be 'offline' for the offline judge")
        return value


class ModelSection(Section):
    """One label's logistic model (`veracity.offline.calibration.confidence.LogisticModel`)."""

    features: list[FeatureName] = Field(min_length=1, max_length=MAX_ITEMS)
    mean: list[Finite] = Field(max_length=MAX_ITEMS)
    scale: list[Positive] = Field(max_length=MAX_ITEMS)
    weights: list[Finite] = Field(max_length=MAX_ITEMS)
    bias: Finite

    @field_validator("features")
    @classmethod
    def _each_feature_once(cls, value: list[str]) -> list[str]:
        repeated = sorted({name for name in value if value.count(name) > 1})
        if repeated:
            raise PydanticCustomError("features", "names {repeated} more than once", {"repeated": repeated})
        return value

    @field_validator("mean", "scale", "weights")
    @classmethod
    def _one_per_feature(cls, value: list[float], info: ValidationInfo) -> list[float]:
        features = info.data.get("features")
        if features is not None and len(value) != len(features):
            raise PydanticCustomError("per_feature", "has {got} values for {features} features: one per feature",
                                      {"got": len(value), "features": len(features)})
        return value


class ModelsSection(Section):
    """A model for every label the judge can give: the calibrator gives each verdict its confidence."""

    supported: ModelSection
    refuted: ModelSection
    unverifiable: ModelSection


def _certified_in_order(values: list[float | None]) -> list[float | None]:
    """Thresholds over increasing levels as risk control certifies them: never lower, and null only at the end."""
    first_none: int | None = None
    previous: float | None = None
    for index, value in enumerate(values):
        if value is None:
            first_none = index if first_none is None else first_none
        elif first_none is not None:
            raise PydanticCustomError(
                "certified_order", "certifies {value} at index {index}, above index {none} that certifies none "
                "(null): once no threshold is certified, none is at a higher level",
                {"value": value, "index": index, "none": first_none})
        elif previous is not None and value < previous:
            raise PydanticCustomError(
                "certified_order", "needs {value} at index {index}, less than the {previous} of the level below: a "
                "higher target precision never needs a lower threshold",
                {"value": value, "index": index, "previous": previous})
        else:
            previous = value
    return values


CertifiedThresholds = Annotated[list[Probability | None], Field(max_length=MAX_ITEMS),
                                AfterValidator(_certified_in_order)]


class ThresholdsSection(Section):
    """Per decisive label, the confidence it needs at each level (null: none certified there)."""

    supported: CertifiedThresholds
    refuted: CertifiedThresholds


class RiskSection(Section):
    """The certified thresholds (`veracity.offline.calibration.risk.RiskControl`)."""

    delta: OpenProbability
    levels: list[Probability] = Field(min_length=1, max_length=MAX_ITEMS)
    thresholds: ThresholdsSection

    @field_validator("levels")
    @classmethod
    def _strictly_increasing(cls, value: list[float]) -> list[float]:
        for index, (low, high) in enumerate(zip(value, value[1:], strict=False), start=1):
            if high <= low:
                raise PydanticCustomError("levels", "must strictly increase: {high} at index {index} follows {low}",
                                          {"high": high, "index": index, "low": low})
        return value

    @field_validator("thresholds")
    @classmethod
    def _one_per_level(cls, value: ThresholdsSection, info: ValidationInfo) -> ThresholdsSection:
        levels = info.data.get("levels")
        if levels is None:
            return value
        for label in ("supported", "refuted"):
            count = len(getattr(value, label))
            if count != len(levels):
                raise PydanticCustomError("per_level", "{label} has {count} thresholds for {levels} levels: one (or "
                                          "null) per level", {"label": label, "count": count, "levels": len(levels)})
        return value


class CalibrationDocument(Section):
    """The whole file: format and version, the judge, the calibrator's models, the thresholds, and their record."""

    format: Literal["veracity-calibration"]
    version: Literal[1]
    judge: JudgeSection
    models: ModelsSection
    risk: RiskSection
    record: dict[str, Any] = Field(default_factory=dict)

    @field_validator("models")
    @classmethod
    def _known_signals(cls, value: ModelsSection, info: ValidationInfo) -> ModelsSection:
        judge = info.data.get("judge")
        if judge is None:
            return value
        known = set(signal_names(judge.kind))
        for label in ("supported", "refuted", "unverifiable"):
            unknown = sorted(set(getattr(value, label).features) - known)
            if unknown:
                raise PydanticCustomError("signals", "{label} reads {unknown}, signals that {kind} judges do not give "
                                          "(a signal a check does not have would silently count as 0)",
                                          {"label": label, "unknown": unknown, "kind": judge.kind})
        return value


def signal_names(kind: str) -> tuple[str, ...]:
    """The signals a calibration of this kind of judge ('offline' or 'chat') reads, and `veracity calibrate` fits."""
    if kind == "offline":
        from veracity.offline.calibration.features import FEATURES

        return FEATURES
    from veracity.calibration.signals import SIGNALS

    return SIGNALS


def problems(error: ValidationError) -> str:
    """The first few problems of a refused document, each as 'its.place: what is wrong (got value)'."""
    described = [_problem(detail) for detail in error.errors(include_url=False)]
    more = len(described) - SHOWN_PROBLEMS
    return "; ".join(described[:SHOWN_PROBLEMS]) + (f"; and {more} more" if more > 0 else "")


def _problem(detail: Any) -> str:
    place = ".".join(str(part) for part in detail["loc"]) or "the file"
    kind = detail["type"]
    if kind == "missing":
        return f"{place}: is missing"
    if kind == "extra_forbidden":
        return f"{place}: is not a field of a calibration file"
    if kind in ("model_type", "model_attributes_type", "dict_type"):
        return f"{place}: must be a JSON object"
    message = str(detail["msg"])
    for said, meant in (("Input should be", "must be"), ("String should have", "must have"),
                        ("List should have", "must have")):
        message = message.replace(said, meant)
    value = detail.get("input")
    shown = f" (got {value!r:.60})" if isinstance(value, str | int | float | bool) or value is None else ""
    return f"{place}: {message}{shown}"
