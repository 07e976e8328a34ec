"""Snapshot of the graph's mermaid drawing, so wiring changes are deliberate.

Regenerate after an intended change with: VERACITY_UPDATE_SNAPSHOTS=1 pytest tests/unit/test_graph_drawing.py
"""

from __future__ import annotations

import os
from pathlib import Path

from veracity import build_graph

SNAPSHOT = Path(__file__).parents[1] / "golden" / "graph.mmd"


def test_mermaid_drawing_matches_snapshot() -> None:
    drawing = build_graph().get_graph(xray=True).draw_mermaid()
    if os.environ.get("VERACITY_UPDATE_SNAPSHOTS") == "1":
        SNAPSHOT.write_text(drawing)
    assert SNAPSHOT.exists(), "no snapshot yet: run with VERACITY_UPDATE_SNAPSHOTS=1"
    assert drawing == SNAPSHOT.read_text()


def test_gates_are_visible_nodes() -> None:
    graph = build_graph().get_graph(xray=True)
    names = set(graph.nodes)
    assert {"extract_claims", "extraction_gate", "evaluate_report", "revise", "finalize_report"} <= names
    assert {"check_claim:gather_evidence", "check_claim:judge_claim", "check_claim:verdict_gate"} <= names
