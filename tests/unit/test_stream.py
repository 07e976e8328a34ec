"""`veracity check --stream`: verdicts shown as each claim is judged (real offline graph, source mode)."""

from __future__ import annotations

import asyncio
import io
import json
import re
from pathlib import Path

from click.testing import CliRunner
from rich.console import Console

from tests.fakes import FakeWorld, claims_reply, hit, verdict_reply
from veracity.cli import main
from veracity.cli.check import streamed
from veracity.cli.live import LiveVerdicts
from veracity.contracts import Claim, Verdict
from veracity.graph import graph
from veracity.progress import ProgressEvent

FOUND = "Canberra is the capital of Australia."
NOTE = "Canberra is the capital city of Australia."
NOWHERE = "The moon has a library."
POLICY = "Returns within 14 days. Return shipping costs 5 dollars."
ANSWER = "You can return it within 30 days. Return shipping costs 5 dollars."


def policy_file(tmp_path: Path) -> Path:
    path = tmp_path / "policy.txt"
    path.write_text(POLICY)
    return path


def test_lines_arrive_before_the_final_table(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["check", ANSWER, "--source", str(policy_file(tmp_path)), "--stream"])
    assert result.exit_code == 1, result.output
    first_two = result.stdout.split("┏")[0]  # the lines, in the order the claims finish, before the table
    # the 30-day promise leans refuted, held back by risk control; the shipping cost is supported
    assert re.search(r"^unverifiable, leans refuted, 0\.\d\d: You can return it within 30 days\.$", first_two, re.M)
    assert re.search(r'^supported, 0\.\d\d: Return shipping costs 5 dollars\. — "Return shipping costs 5',
                     first_two, re.M)  # the quote follows (wrapped at the runner's 80 columns)
    assert "2 claim(s): 1 supported, 0 refuted, 1 unverifiable" in result.stdout  # then the usual report


def test_with_json_the_lines_go_to_stderr(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["check", ANSWER, "--source", str(policy_file(tmp_path)), "--stream", "--json"])
    report = json.loads(result.stdout)
    verdicts = [(v["label"], v["leaning"]) for v in report["verdicts"]]
    assert verdicts == [("unverifiable", "refuted"), ("supported", None)]
    assert "leans refuted" in result.stderr and "You can return it within 30 days." in result.stderr


def test_a_terminal_gets_a_live_table() -> None:
    screen = io.StringIO()
    console = Console(file=screen, force_terminal=True, width=120)
    report = asyncio.run(streamed(ANSWER, console, {"model": "offline", "source_text": POLICY}))
    assert [(v.label, v.leaning) for v in report.verdicts] == [("unverifiable", "refuted"), ("supported", None)]
    drawn = screen.getvalue()
    assert "claims judged" in drawn and "You can return it within 30 days." in drawn


def test_live_verdicts_track_claims_and_revisions() -> None:
    heard = []
    view = LiveVerdicts(on_verdict=lambda claim, verdict: heard.append((claim.id, verdict.label)))
    claims = [Claim(id="c1", text="A is B.", source="A is B.", span=(0, 7)),
              Claim(id="c2", text="C is D.", source="C is D.", span=(8, 15))]
    assert view(ProgressEvent(kind="claims", claims=claims)) is True
    assert view(ProgressEvent(kind="extracting")) is False
    first = Verdict(claim_id="c1", label="unverifiable", reason="nothing found")
    view(ProgressEvent(kind="verdict", claim=claims[0], verdict=first))
    table = view.table()
    assert table.title == "1/2 claims judged" and table.row_count == 2
    revised = Verdict(claim_id="c1", label="refuted", reason="r", evidence_id="c1-e1", quote="A is not B.")
    view(ProgressEvent(kind="verdict", claim=claims[0], verdict=revised, revision=1))
    assert view.verdicts["c1"] is revised and heard == [("c1", "unverifiable"), ("c1", "refuted")]


def world_with_a_claim_nobody_has_evidence_for() -> tuple[FakeWorld, str]:
    world = FakeWorld().extract(claims_reply((FOUND, FOUND), (NOWHERE, NOWHERE)))
    world.evidence(FOUND, [hit(NOTE)]).evidence(NOWHERE, [])
    world.judge(FOUND, verdict_reply("supported", "c1-e1", NOTE))
    return world, f"{FOUND} {NOWHERE}"


def test_claims_without_evidence_get_their_line_too() -> None:
    """A claim with no evidence gets its verdict from the evidence step, not the verdict gate: it is still shown."""
    world, text = world_with_a_claim_nobody_has_evidence_for()
    screen = io.StringIO()
    report = asyncio.run(streamed(text, Console(file=screen, width=200), {"model": world.model(),
                                                                          "backend": world.backend()}))
    assert [v.label for v in report.verdicts] == ["supported", "unverifiable"]
    # a scripted chat model, with no calibration measured for it
    assert sorted(screen.getvalue().splitlines()) == [f'supported, uncalibrated: {FOUND} — "{NOTE}"',
                                                      f"unverifiable: {NOWHERE}"]


def test_the_live_table_counts_claims_without_evidence() -> None:
    world, text = world_with_a_claim_nobody_has_evidence_for()
    screen = io.StringIO()
    console = Console(file=screen, force_terminal=True, width=120)
    asyncio.run(streamed(text, console, {"model": world.model(), "backend": world.backend()}))
    assert "2/2 claims judged" in screen.getvalue()


async def progress_of_a_graph_run(*, subgraphs: bool) -> list[ProgressEvent]:
    """The custom events a caller of the compiled graph hears, streaming updates and custom (as Studio does)."""
    stream = graph.astream({"text": ANSWER}, context={"model": "offline", "source_text": POLICY},
                           stream_mode=["updates", "custom"], subgraphs=subgraphs)
    return [part[-1] async for part in stream if part[-2] == "custom"]


def test_each_verdict_reaches_the_callers_custom_stream_once_with_or_without_subgraphs() -> None:
    for subgraphs in (False, True):
        events = asyncio.run(progress_of_a_graph_run(subgraphs=subgraphs))
        assert [event.kind for event in events] == ["extracting", "claims", "verdict", "verdict"], subgraphs
        verdicts = {event.claim.id: (event.verdict.label, event.verdict.leaning)
                    for event in events if event.claim is not None and event.verdict is not None}
        assert verdicts == {"c1": ("unverifiable", "refuted"), "c2": ("supported", None)}, subgraphs
