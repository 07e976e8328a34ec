"""`--min-precision`: the decisive precision the offline judge and the calculator must reach, shared by the commands."""

from __future__ import annotations

import click

from veracity.offline.calibration.risk import DEFAULT_MIN_PRECISION

min_precision_option = click.option(
    "--min-precision", "min_precision", type=click.FloatRange(0, 1, max_open=True), default=None, metavar="P",
    help=f"Decisive precision the offline judge and the calculator must reach (default: {DEFAULT_MIN_PRECISION}): "
         "a supported or refuted verdict is kept only when its calibrated confidence clears the threshold "
         "certified for P on held-out data; otherwise it is unverifiable and shows its lean ('unverifiable, "
         "leans refuted, 0.62'). Lower P says more and is wrong more often; 0 turns the rule off.",
)
"""`--min-precision P`, shared by the commands that run checks."""
