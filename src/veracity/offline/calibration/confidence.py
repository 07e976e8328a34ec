"""The calibrator: the probability that an offline verdict's label is right, from its signals.

One logistic model per label the judge can reach (supported, refuted, unverifiable), each fitted
by ``training/fit_confidence.py`` on the calibration rows of several real-world datasets, grouped
by claim, and shipped as ``assets/calibration/confidence.json`` with a card (``CARD.md``) giving its
fold spread and expected calibration error. A model reads the `features.FEATURES` of a judgement,
standardised with the means and scales it was fitted with. A report the shipped calibration ruled
names the file and its SHA-256 (`shipped_origin`).
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from importlib.metadata import PackageNotFoundError, version
from importlib.resources.abc import Traversable
from typing import Any

from veracity.contracts import LABELS, CalibrationOrigin, Label

ASSETS = "assets/calibration"
"""Folder of the calibrator and thresholds, inside the `veracity.offline` package."""
CALIBRATION_FILE = "confidence.json"


def calibration_folder() -> Traversable:
    """The installed folder holding ``confidence.json`` and its card."""
    return resources.files("veracity.offline").joinpath(ASSETS)


SHIPPED_PATH = f"veracity/offline/{ASSETS}/{CALIBRATION_FILE}"
"""How a report names the shipped calibration: its place in the installed package, the same on every machine."""


@functools.cache
def shipped_bytes() -> bytes:
    """The shipped ``confidence.json`` as installed (read once per process)."""
    return calibration_folder().joinpath(CALIBRATION_FILE).read_bytes()


@functools.cache
def shipped_calibration() -> dict[str, Any]:
    """The shipped ``confidence.json`` (read once per process)."""
    data: dict[str, Any] = json.loads(shipped_bytes())
    return data


@functools.cache
def shipped_origin() -> CalibrationOrigin:
    """The shipped calibration as a report names it: origin 'shipped', with the SHA-256 of the installed file."""
    return CalibrationOrigin(path=SHIPPED_PATH, origin="shipped", sha256=hashlib.sha256(shipped_bytes()).hexdigest(),
                             judge=f"the offline judge, as shipped with veracity {_veracity_version()}")


def _veracity_version() -> str:
    try:
        return version("veracity")
    except PackageNotFoundError:
        return "(not installed)"


@dataclass(frozen=True)
class LogisticModel:
    """P(right) = sigmoid(bias + sum(weight * (feature - mean) / scale)) over named features."""

    features: tuple[str, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    weights: tuple[float, ...]
    bias: float

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> LogisticModel:
        """Read one model as ``fit_confidence.py`` writes it."""
        model = cls(
            features=tuple(data["features"]), mean=tuple(float(v) for v in data["mean"]),
            scale=tuple(float(v) for v in data["scale"]), weights=tuple(float(v) for v in data["weights"]),
            bias=float(data["bias"]),
        )
        sizes = {len(model.features), len(model.mean), len(model.scale), len(model.weights)}
        if len(sizes) != 1:
            raise ValueError(f"a calibration model needs one mean, scale and weight per feature, got sizes {sizes}")
        if any(scale <= 0 for scale in model.scale):
            raise ValueError("a calibration model's scales must be positive")
        return model

    def to_dict(self) -> dict[str, Any]:
        """The form `from_dict` reads."""
        return {"features": list(self.features), "mean": list(self.mean), "scale": list(self.scale),
                "weights": list(self.weights), "bias": self.bias}

    def probability(self, features: Mapping[str, float]) -> float:
        """P(right) for one judgement's features (a missing feature counts as 0)."""
        score = self.bias + sum(
            weight * (features.get(name, 0.0) - mean) / scale
            for name, mean, scale, weight in zip(self.features, self.mean, self.scale, self.weights, strict=True)
        )
        return 1.0 / (1.0 + math.exp(-score)) if score >= 0 else math.exp(score) / (1.0 + math.exp(score))


@dataclass(frozen=True)
class Calibrator:
    """One `LogisticModel` per label: how likely a verdict with that label is to be right."""

    models: Mapping[Label, LogisticModel]

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Calibrator:
        """Read the ``models`` section of ``confidence.json``."""
        unknown = set(data) - set(LABELS)
        if unknown:
            raise ValueError(f"calibration models for unknown labels {sorted(unknown)}")
        return cls({label: LogisticModel.from_dict(data[label]) for label in LABELS if label in data})

    def confidence(self, label: Label, features: Mapping[str, float]) -> float | None:
        """The probability that `label` is right given `features`; None when no model covers the label."""
        model = self.models.get(label)
        return model.probability(features) if model is not None else None


@functools.cache
def default_calibrator() -> Calibrator:
    """The shipped calibrator."""
    return Calibrator.from_dict(shipped_calibration()["models"])
