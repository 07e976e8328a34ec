"""Claims are searched and judged in parallel branches."""

from __future__ import annotations

import time

import veracity
from tests.fakes import FakeWorld, claims_reply, hit, verdict_reply

SEARCH_DELAY = 0.25
JUDGE_DELAY = 0.25


def test_wall_time_is_well_under_the_sum_of_latencies(world: FakeWorld) -> None:
    claims = [f"Fact number {n} is true." for n in range(1, 9)]
    world.extract(claims_reply(*[(c, c) for c in claims]))
    for number, claim in enumerate(claims, start=1):
        world.evidence(claim, [hit(claim)])
        world.judge(claim, verdict_reply("supported", f"c{number}-e1", claim))
    model = world.model(first_token_delay=JUDGE_DELAY)
    backend = world.backend(delay=SEARCH_DELAY)

    started = time.perf_counter()
    report = veracity.check(" ".join(claims), model=model, backend=backend)
    wall = time.perf_counter() - started

    assert report.ok and report.summary.supported == 8
    sequential = JUDGE_DELAY + len(claims) * (SEARCH_DELAY + JUDGE_DELAY)  # extraction, then each claim in turn
    assert wall < sequential / 2, f"{wall:.2f}s is not well under the sequential {sequential:.2f}s"
