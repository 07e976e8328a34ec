"""Claims are searched and judged in parallel branches."""

from __future__ import annotations

import veracity
from tests.fakes import FakeWorld, Rendezvous, claims_reply, hit, verdict_reply


def test_every_claim_is_searched_and_judged_side_by_side(world: FakeWorld) -> None:
    claims = [f"Fact number {n} is true." for n in range(1, 9)]
    world.extract(claims_reply(*[(c, c) for c in claims]))
    for number, claim in enumerate(claims, start=1):
        world.evidence(claim, [hit(claim)])
        world.judge(claim, verdict_reply("supported", f"c{number}-e1", claim))
    searches, judgements = Rendezvous(len(claims)), Rendezvous(len(claims))

    report = veracity.check(" ".join(claims), model=world.model(meeting=judgements),
                            backend=world.backend(meeting=searches))

    assert report.ok and report.summary.supported == 8
    assert searches.most_in_flight == len(claims), "the claims' searches did not run side by side"
    assert judgements.most_in_flight == len(claims), "the claims' judgements did not run side by side"
