"""Snapshot of the graph's mermaid drawing, so wiring changes are deliberate.

Regenerate after an intended change with: VERACITY_UPDATE_SNAPSHOTS=1 pytest tests/unit/test_graph_drawing.py
"""

from __future__ import annotations

import functools
import importlib
import os
from collections.abc import Callable
from pathlib import Path
from types import UnionType
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints

import pytest
from langgraph.constants import START
from langgraph.types import Send

import veracity
from tests.fakes import FakeWorld, claims_reply, hit, verdict_reply
from veracity import build_graph
from veracity.graph import build_claim_graph
from veracity.resources import Resources
from veracity.step_support.names import CHECK_CLAIM

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


DRAWN_EDGES = 21
"""Every edge a run can take: 6 plain edges and 15 routes out of the 7 forks."""


def drawn_routes() -> set[tuple[str, str]]:
    """The conditional edges of the drawing (the subgraph's nodes spelled `check_claim:<node>`)."""
    return {(edge.source, edge.target) for edge in build_graph().get_graph(xray=True).edges if edge.conditional}


def test_the_drawing_has_every_edge() -> None:
    edges = build_graph().get_graph(xray=True).edges
    assert len(edges) == DRAWN_EDGES
    assert len(drawn_routes()) == 15


def forks() -> dict[str, tuple[str, Any]]:
    """Each router by name: the node it follows, as drawn, and its registration (a LangGraph `BranchSpec`)."""
    found: dict[str, tuple[str, Any]] = {}
    for prefix, builder in (("", build_graph().builder), (f"{CHECK_CLAIM}:", build_claim_graph(Resources()).builder)):
        for source, branches in builder.branches.items():
            for name, spec in branches.items():
                found[name] = (prefix + source, spec)
    return found


def test_each_fork_lists_exactly_what_its_router_returns() -> None:
    """The destinations in graph.py match the router's `Literal`; only a fan-out adds `check_claim`."""
    import veracity.routes

    assert len(forks()) == 7
    for name, (_, spec) in forks().items():
        returns = get_type_hints(getattr(veracity.routes, name))["return"]
        kinds = get_args(returns) if get_origin(returns) in (Union, UnionType) else (returns,)
        names = {value for kind in kinds if get_origin(kind) is Literal for value in get_args(kind)}
        fans_out = any(get_origin(kind) is list for kind in kinds)
        assert spec.ends is not None, name
        assert set(spec.ends) == names | ({CHECK_CLAIM} if fans_out else set()), name


def test_every_route_taken_at_run_time_is_drawn_and_every_drawn_route_is_taken(
    world: FakeWorld, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Record each router's answers over two scripted checks that take every fork each way."""
    wiring = importlib.import_module("veracity.graph")  # `veracity.graph` is also the compiled graph's name
    taken: set[tuple[str, str]] = set()

    def recording(router: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(router)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            result = router(*args, **kwargs)
            for destination in result if isinstance(result, list) else [result]:
                taken.add((router.__name__, destination.node if isinstance(destination, Send) else destination))
            return result
        return wrapper

    sources = forks()
    for name in sources:
        monkeypatch.setattr(wiring, name, recording(getattr(wiring, name)))

    canberra, arithmetic, moon, sydney = CLAIMS = (
        "Canberra is the capital of Australia.", "2 + 2 = 4.", "The moon is made of cheese.",
        "The Sydney Opera House opened in 1973.")
    note1, note2 = "Canberra is the capital city of Australia.", "The Sydney Opera House opened on 20 October 1973."
    world.extract(claims_reply((canberra, "Canberra is a city.")), claims_reply(*[(claim, claim) for claim in CLAIMS]))
    world.evidence(canberra, [hit(note1, url="file:///notes")])  # the page check runs and refuses it, offline
    world.evidence(sydney, [hit(note2, url="file:///notes")])
    world.judge(canberra, verdict_reply("supported", "c1-e9", note1), verdict_reply("supported", "c1-e1", note1))
    world.judge(sydney, verdict_reply("supported", "c4-e1", "invented sentence"))
    report = veracity.check(" ".join(CLAIMS), model=world.model(), backend=world.backend(name="web"),
                            max_judge_attempts=2, max_revisions=1)
    assert report.revisions == 1 and report.verdict_for("c1").page is not None  # type: ignore[union-attr]
    assert veracity.check("Hello there!", model=FakeWorld().extract({"claims": []}).model(),
                          backend=world.backend()).claims == []

    prefix = f"{CHECK_CLAIM}:"
    routes = set()
    for name, destination in taken:
        source = sources[name][0]
        target = f"{prefix}{START}" if destination == CHECK_CLAIM else destination
        routes.add((source, prefix + target if source.startswith(prefix) else target))
    assert routes == drawn_routes()
