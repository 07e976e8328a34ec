"""The whole graph end to end on golden paragraphs, with a scripted model and backend."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import veracity
from tests.fakes import FakeWorld, claims_reply, hit, verdict_reply
from veracity.citations import normalize

GOLDEN = json.loads((Path(__file__).parents[1] / "golden" / "paragraphs.json").read_text())


def script(world: FakeWorld, case: dict) -> None:
    world.extract(claims_reply(*[(c["claim"], c["source"]) for c in case["claims"]]))
    for number, claim in enumerate(case["claims"], start=1):
        world.evidence(claim["claim"], [hit(**item) for item in claim["evidence"]])
        v = claim["verdict"]
        world.judge(claim["claim"], verdict_reply(v["label"], f"c{number}-e{v['evidence']}", v["quote"]))


@pytest.mark.parametrize("case", GOLDEN, ids=[c["name"] for c in GOLDEN])
def test_golden_paragraph(world: FakeWorld, case: dict) -> None:
    script(world, case)
    report = veracity.check(case["text"], model=world.model(), backend=world.backend())

    assert report.ok, report.evaluation.issues
    assert [c.text for c in report.claims] == [c["claim"] for c in case["claims"]]
    for claim in report.claims:  # each span points at the passage the claim came from
        start, end = claim.span
        assert case["text"][start:end] == claim.source
    expected = [c["verdict"]["label"] for c in case["claims"]]
    assert [v.label for v in report.verdicts] == expected
    for verdict in report.verdicts:
        assert verdict.citation_verified
        cited = report.evidence_by_id(verdict.evidence_id)
        assert cited is not None and cited.claim_id == verdict.claim_id
        assert normalize(verdict.quote) in normalize(cited.text)
    assert report.summary.claims == len(case["claims"])
    assert report.summary.supported == expected.count("supported")
    assert report.summary.refuted == expected.count("refuted")
    assert report.tokens_in > 0 and report.tokens_out > 0
    assert report.tokens_in == sum(r.tokens_in for r in report.trace)


def test_sydney_false_claims_are_not_supported(world: FakeWorld) -> None:
    case = GOLDEN[0]
    script(world, case)
    report = veracity.check(case["text"], model=world.model(), backend=world.backend())
    by_text = {c.text: report.verdict_for(c.id).label for c in report.claims}
    assert by_text["The Sydney Opera House has over 2,000 rooms."] != "supported"
    assert by_text["The Sydney Opera House was funded entirely by the federal government."] != "supported"
    assert by_text["The Sydney Opera House opened in 1973."] == "supported"


def test_report_json_has_documented_fields(world: FakeWorld) -> None:
    case = GOLDEN[1]
    script(world, case)
    data = json.loads(veracity.check(case["text"], model=world.model(), backend=world.backend()).model_dump_json())
    assert {"claims", "verdicts", "evidence", "failures", "evaluation", "trace", "ok", "summary",
            "tokens_in", "tokens_out"} <= set(data)
    assert data["ok"] is True and data["evaluation"] == {"issues": []}
    assert {"label", "quote", "reason", "evidence_id"} <= set(data["verdicts"][0])
    fields = {"step", "claim_id", "attempt", "outcome", "reason", "tokens_in", "tokens_out", "seconds"}
    assert fields <= set(data["trace"][0])
