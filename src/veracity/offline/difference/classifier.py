"""The difference classifier: P(a difference changes the meaning), a logistic model over its features.

Its weights and the thresholds the judge rules with are data (``assets/difference/classifier.json``),
written by `training/train_difference.py`, which trains it in seconds on labelled pairs; nothing here
needs scikit-learn.
"""

from __future__ import annotations

import functools
import json
import math
import threading
from dataclasses import dataclass
from importlib import resources
from typing import Any

from veracity.offline.difference.features import FEATURES, vector


@dataclass(frozen=True)
class Thresholds:
    """Where the judge draws its lines on P(changing)."""

    refute: float
    """A slot difference at or above this refutes the claim."""
    addition: float
    """An addition at or above this makes the claim unverifiable."""
    support: float
    """Supported needs every difference below this."""


@dataclass(frozen=True)
class DifferenceClassifier:
    """A logistic model over standardised features (`FEATURES`, some families possibly off)."""

    weights: tuple[float, ...]
    bias: float
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    families: tuple[str, ...]
    thresholds: Thresholds

    def probability(self, values: dict[str, float]) -> float:
        """P(the difference with these feature values changes the meaning)."""
        x = vector(values, self.families)
        z = self.bias + sum(w * (v - m) / s for w, v, m, s in zip(self.weights, x, self.mean, self.scale, strict=True))
        return 1.0 / (1.0 + math.exp(-max(min(z, 40.0), -40.0)))

    def to_dict(self) -> dict[str, Any]:
        """The classifier as JSON-ready data."""
        return {
            "features": list(FEATURES), "families": list(self.families), "weights": list(self.weights),
            "bias": self.bias, "mean": list(self.mean), "scale": list(self.scale),
            "thresholds": {"refute": self.thresholds.refute, "addition": self.thresholds.addition,
                           "support": self.thresholds.support},
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DifferenceClassifier:
        """Read `to_dict`'s shape; refuses weights stored for another feature list."""
        if list(data["features"]) != list(FEATURES):
            raise ValueError("the classifier was trained on another feature list; retrain it "
                             "(training/train_difference.py)")
        thresholds = data["thresholds"]
        return cls(
            weights=tuple(float(w) for w in data["weights"]), bias=float(data["bias"]),
            mean=tuple(float(m) for m in data["mean"]), scale=tuple(float(s) for s in data["scale"]),
            families=tuple(data["families"]),
            thresholds=Thresholds(float(thresholds["refute"]), float(thresholds["addition"]),
                                  float(thresholds["support"])),
        )


_lock = threading.Lock()


def shipped_classifier() -> DifferenceClassifier:
    """The classifier shipped with the package, loaded on first use."""
    with _lock:
        return _load()


@functools.lru_cache(maxsize=1)
def _load() -> DifferenceClassifier:
    path = resources.files("veracity.offline").joinpath("assets/difference/classifier.json")
    return DifferenceClassifier.from_dict(json.loads(path.read_text(encoding="utf-8")))
