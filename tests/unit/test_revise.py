"""Revise rounds re-judge only the failing claims."""

from __future__ import annotations

import veracity
from tests.fakes import FakeWorld, claims_reply, hit, verdict_reply

CLAIMS = [
    ("Canberra is the capital of Australia.", "Canberra is the capital city of Australia."),
    ("The Sydney Opera House opened in 1973.", "The Sydney Opera House opened in October 1973."),
    ("Australia has six states.", "Australia is a federation of six states."),
]
TEXT = " ".join(c for c, _ in CLAIMS)


def test_revise_rejudges_only_failing_claims(world: FakeWorld) -> None:
    world.extract(claims_reply(*[(c, c) for c, _ in CLAIMS]))
    for number, (claim, note) in enumerate(CLAIMS, start=1):
        world.evidence(claim, [hit(note)])
        world.judge(claim, verdict_reply("supported", f"c{number}-e1", note))
    bad = verdict_reply("supported", "c2-e1", "opened in the spring of 1973")
    world.judge(CLAIMS[1][0], bad, bad, verdict_reply("supported", "c2-e1", CLAIMS[1][1]))

    report = veracity.check(TEXT, model=world.model(), backend=world.backend(), max_judge_attempts=2)

    assert report.ok and report.revisions == 1
    assert world.judge_calls == {CLAIMS[0][0]: 1, CLAIMS[1][0]: 3, CLAIMS[2][0]: 1}
    assert world.search_calls == {claim: 1 for claim, _ in CLAIMS}
    assert [v.revision for v in report.verdicts] == [0, 1, 0]
    revise_steps = [r for r in report.trace if r.step == "revise"]
    assert len(revise_steps) == 1 and revise_steps[0].reason == "re-judging c2"


def test_no_revise_when_the_cap_is_zero(world: FakeWorld) -> None:
    claim, note = CLAIMS[0]
    world.extract(claims_reply((claim, claim))).evidence(claim, [hit(note)])
    world.judge(claim, verdict_reply("supported", "c1-e1", "a quote from nowhere"))
    report = veracity.check(claim, model=world.model(), backend=world.backend(), max_revisions=0, max_judge_attempts=2)
    assert not report.ok and report.revisions == 0
    assert world.judge_calls[claim] == 2


def test_tool_failures_are_not_revised(world: FakeWorld) -> None:
    claim = CLAIMS[0][0]
    world.extract(claims_reply((claim, claim))).evidence(claim, veracity.ToolError("timeout", "slow"))
    report = veracity.check(claim, model=world.model(), backend=world.backend(), search_attempts=1)
    assert not report.ok and report.revisions == 0
    assert world.search_calls[claim] == 1 and world.judge_calls[claim] == 0
