"""Risk-controlled decisions: the confidence a verdict needs to stay supported or refuted.

``training/fit_confidence.py`` chooses, for each decisive label and each target precision on a grid,
the lowest confidence threshold that Learn-then-Test risk control (MAPIE's
``BinaryClassificationController``) certifies on the calibration rows: verdicts of that label at or
above it are right at least the target share of the time, with probability ``1 - delta`` on data
like the calibration data. The grid and thresholds ship in ``confidence.json``; a target between
grid points uses the next stricter one. Where no threshold is certified at a target, that label is
never decisive at it (the entry is null).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from veracity.offline.calibration.confidence import shipped_calibration

DecisiveLabel = Literal["supported", "refuted"]
DECISIVE: tuple[DecisiveLabel, ...] = ("supported", "refuted")

DEFAULT_MIN_PRECISION = 0.90
"""Decisive precision a verdict must reach by default (`Context.min_precision`, ``--min-precision``)."""


def check_min_precision(value: float) -> float:
    """`value` as a target precision: a number from 0 (no risk control) up to, not including, 1."""
    if not isinstance(value, int | float) or isinstance(value, bool) or not 0 <= value < 1:
        raise ValueError(f"min_precision must be a number from 0 to below 1 (e.g. 0.9), got {value!r}")
    return float(value)


@dataclass(frozen=True)
class RiskControl:
    """Certified confidence thresholds per decisive label, at each target precision of a grid."""

    levels: tuple[float, ...]
    thresholds: Mapping[DecisiveLabel, tuple[float | None, ...]]
    delta: float
    """The allowed probability that a certified threshold misses its target (1 - confidence level)."""

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RiskControl:
        """Read the ``risk`` section of ``confidence.json``."""
        levels = tuple(float(level) for level in data["levels"])
        if list(levels) != sorted(levels):
            raise ValueError("risk levels must be in increasing order")
        thresholds: dict[DecisiveLabel, tuple[float | None, ...]] = {}
        for label in DECISIVE:
            values: Sequence[float | None] = data["thresholds"][label]
            if len(values) != len(levels):
                raise ValueError(f"{label}: one threshold (or null) per level is needed")
            thresholds[label] = tuple(None if v is None else float(v) for v in values)
        return cls(levels=levels, thresholds=thresholds, delta=float(data["delta"]))

    def threshold(self, label: DecisiveLabel, min_precision: float) -> float | None:
        """The confidence a `label` verdict needs for `min_precision`; None when none is certified.

        A target of 0 needs nothing (0.0). A target between grid levels takes the next level up; a
        target above the grid has no certified threshold.
        """
        if check_min_precision(min_precision) == 0:
            return 0.0
        for level, threshold in zip(self.levels, self.thresholds[label], strict=True):
            if level >= min_precision - 1e-9:
                return threshold
        return None


@functools.cache
def default_risk_control() -> RiskControl:
    """The shipped thresholds."""
    return RiskControl.from_dict(shipped_calibration()["risk"])
