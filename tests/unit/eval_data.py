"""Small labelled datasets shared by the `veracity eval` tests, and a JSONL writer.

Test modules import what they use by name (`from tests.unit.eval_data import OFFLINE_ROWS, write_jsonl`).
"""

from __future__ import annotations

import json
from pathlib import Path

OFFLINE_ROWS = [
    {"id": "paris", "claim": "More people live in Paris than in any other city in France.",
     "evidence": "Paris is the capital and largest city of France.", "label": "supported"},
    {"id": "boil", "claim": "Water boils at 50 degrees Celsius at sea level.",
     "evidence": "At sea level, water boils at 100 degrees Celsius.", "label": "refuted"},
    {"id": "moon", "claim": "The Moon orbits the Earth.",
     "evidence": "The Moon orbits the Earth about once every 27 days.", "label": "supported"},
    {"id": "sushi", "claim": "Tokyo has the best sushi restaurants in the world.",
     "evidence": "Bananas are a good source of potassium.", "label": "unverifiable"},
]
RAW_JUDGE = {"min_precision": 0}
"""The eval tests measure the eval machinery on the offline judge's own labels: risk control off, so
the expected outcomes below do not move with each recalibration. `test_eval_runner` checks once what
the default target (0.90) does to them."""

"""Four judge rows. Measured with the offline entailment judge (risk control off): it calls 'paris' unverifiable
(wrong: a city's being the largest means it has the most inhabitants, a step the model does not
take; it scores the pair entailed at 0.19) and gets the other three right."""

OFFLINE_PREDICTED = {"paris": "unverifiable", "boil": "refuted", "moon": "supported", "sushi": "unverifiable"}

# The offline judge on OFFLINE_ROWS, by hand (labels supported, refuted, unverifiable, failed):
#   gold supported: paris -> unverifiable, moon -> supported    -> [1, 0, 1, 0]
#   gold refuted:   boil -> refuted                             -> [0, 1, 0, 0]
#   gold unverifiable: sushi -> unverifiable                    -> [0, 0, 1, 0]
OFFLINE_MATRIX = [[1, 0, 1, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0]]
OFFLINE_BALANCED_ACCURACY = (1 / 2 + 1 + 1) / 3  # = 5/6 ~ 0.833
OFFLINE_PASS_SCORE = 3 / 4

POLICY = ("The customer may return a package within 14 days of the delivery date. "
          "After that period, returns are not accepted.")
WINDOW = "The customer may return a package within 14 days of the delivery date."


def write_jsonl(path: Path, rows: list) -> Path:
    """Write one JSON value per line; return the path."""
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path
