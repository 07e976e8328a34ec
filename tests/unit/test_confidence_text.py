"""A verdict's confidence reads the same everywhere: one helper writes it (rounded down), and the page shows its text.

Before, the command line rounded a held-back verdict's confidence down (0.9388: "0.93") and the page
rounded it to the nearest ("0.94"); decisive verdicts were rounded to the nearest on both.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

import veracity.api
import veracity.server.app
from veracity.audit.structure import structure_findings
from veracity.cli import main
from veracity.contracts import Claim, Evaluation, Report, Summary, Verdict, confidence_text, rounded_down
from veracity.progress import ProgressEvent

TEXT = "The bridge opened in 1932. It has eight lanes. It is painted red."
CONFIDENCES = {"c1": 0.9388, "c2": 0.935, "c3": 0.925}
SHOWN = {"c1": "unverifiable, leans refuted, 0.93", "c2": "supported, 0.93", "c3": "refuted, 0.92"}
"""What every surface shows for the verdicts of `report()`."""


@pytest.mark.parametrize(("value", "text"), [
    (0.9388, "0.93"), (0.935, "0.93"), (0.925, "0.92"), (0.999, "0.99"), (1.0, "1.00"), (0.0, "0.00"),
    (0.29, "0.29"), (0.57, "0.57"),  # exact in decimal: float error must not cut them to 0.28 and 0.56
])
def test_a_confidence_is_written_with_two_decimals_rounded_down(value: float, text: str) -> None:
    assert confidence_text(value) == text


def test_more_decimals_are_cut_the_same_way() -> None:
    assert rounded_down(0.9449, 3) == "0.944" and rounded_down(0.29, 4) == "0.2900"


def report() -> Report:
    """A report with a held-back verdict (0.9388), a supported one (0.935) and a refuted one (0.925)."""
    sentences = ["The bridge opened in 1932.", "It has eight lanes.", "It is painted red."]
    claims = [Claim(id=f"c{n}", text=text, source=text, span=(TEXT.index(text), TEXT.index(text) + len(text)))
              for n, text in enumerate(sentences, 1)]
    verdicts = [
        Verdict(claim_id="c1", label="unverifiable", leaning="refuted", confidence=CONFIDENCES["c1"],
                reason="Leans refuted (confidence 0.93), but a refuted verdict needs 0.95."),
        Verdict(claim_id="c2", label="supported", confidence=CONFIDENCES["c2"], reason="Said so."),
        Verdict(claim_id="c3", label="refuted", confidence=CONFIDENCES["c3"], reason="Said otherwise."),
    ]
    return Report(text=TEXT, claims=claims, verdicts=verdicts, evaluation=Evaluation(), ok=True,
                  summary=Summary(claims=3, supported=1, refuted=1, unverifiable=1), mode="offline+kb",
                  model="offline")


def test_the_verdict_says_its_label_with_the_helpers_text_and_carries_it_in_json() -> None:
    written = report()
    assert {v.claim_id: v.shown_label for v in written.verdicts} == SHOWN
    dumped = json.loads(written.model_dump_json())
    assert {v["claim_id"]: v["shown_label"] for v in dumped["verdicts"]} == SHOWN
    assert Report.model_validate(dumped).verdicts[0].shown_label == SHOWN["c1"]  # read back: derived again


def test_a_saved_reports_shown_label_is_not_held_against_it() -> None:
    """The wording is derived text: a report saved by a version that worded it otherwise still verifies."""
    written = report()
    saved = json.loads(written.model_dump_json())
    saved["verdicts"][0]["shown_label"] = "unverifiable, leans refuted, 0.94"  # as an earlier rounding wrote it
    findings = structure_findings(written, saved, scores=False)
    assert not [finding for finding in findings if "shown_label" in finding.what]


@pytest.fixture
def answered(monkeypatch: pytest.MonkeyPatch) -> Callable[..., Any]:
    """Every check, from the command line or the server, returns `report()` (its verdicts told as progress)."""

    async def fixed(*_args: Any, on_progress: Callable[[ProgressEvent], object] | None = None,
                    **_settings: Any) -> Report:
        written = report()
        if on_progress is not None:
            on_progress(ProgressEvent(kind="claims", claims=written.claims))
            for claim, verdict in zip(written.claims, written.verdicts, strict=True):
                on_progress(ProgressEvent(kind="verdict", claim=claim, verdict=verdict))
        return written

    monkeypatch.setattr(veracity.api, "acheck", fixed)
    monkeypatch.setattr(veracity.server.app.Checker, "acheck", lambda _self, *args, **kwargs: fixed(*args, **kwargs))
    return fixed


def test_the_command_line_shows_the_helpers_text(answered: Callable[..., Any],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from veracity.audit import report_markdown

    monkeypatch.setenv("COLUMNS", "220")
    lines = CliRunner().invoke(main, ["check", TEXT, "--model", "offline", "--stream"]).stdout.splitlines()
    assert [line.split(": ", 1)[0] for line in lines[:3]] == list(SHOWN.values())  # a line per verdict
    table = CliRunner().invoke(main, ["check", TEXT, "--model", "offline"]).stdout
    assert SHOWN["c2"] in table and SHOWN["c3"] in table and "0.94" not in table
    markdown = report_markdown(report())
    assert all(f"| {shown} |" in markdown for shown in SHOWN.values()), markdown


def test_the_server_sends_the_same_text_in_its_stream_and_the_page_shows_it_unchanged(
    answered: Callable[..., Any],
) -> None:
    client = TestClient(veracity.server.app.create_app(model="offline", api_key="", rate_limit="1000/minute"))
    response = client.post("/factcheck/stream", json={"input": {"text": TEXT}})
    assert response.status_code == 200, response.text
    events = [(block.split("\n", 1)[0].removeprefix("event: "), json.loads(block.split("\n", 1)[1][6:]))
              for block in response.text.split("\n\n") if block.strip()]
    progress = {data["claim"]["id"]: data["verdict"]["shown_label"] for kind, data in events
                if kind == "progress" and data["kind"] == "verdict"}
    [final] = [data["report"] for kind, data in events if kind == "data"]
    assert progress == SHOWN
    assert {v["claim_id"]: v["shown_label"] for v in final["verdicts"]} == SHOWN
    invoked = client.post("/factcheck/invoke", json={"input": {"text": TEXT}}).json()
    assert {v["claim_id"]: v["shown_label"] for v in invoked["output"]["verdicts"]} == SHOWN
    analysed = client.post("/analyze", json={"query": "Tell me about the bridge.", "answer": TEXT}).json()
    assert [claim["shown_label"] for claim in analysed["claims_analysis"]] == list(SHOWN.values())
    page = client.get("/").text
    assert "verdict.shown_label" in page and "confidence.toFixed" not in page  # no rounding of its own
