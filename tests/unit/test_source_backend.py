"""Source-text evidence: passages of the given text only."""

from __future__ import annotations

from veracity.evidence.source import SourceTextBackend, source_passages

POLICY = ("The customer may return a package within 14 days of the delivery date. "
          "After that period, returns are not accepted.")


async def test_a_short_source_is_one_passage() -> None:
    hits = await SourceTextBackend(POLICY, title="policy.txt").search("anything", limit=5)
    assert [h.text for h in hits] == [POLICY] and hits[0].title == "policy.txt"


async def test_long_sources_are_cut_and_ranked_by_overlap() -> None:
    filler = " ".join(f"Clause {n} covers topic number {n}." for n in range(1, 120))
    text = f"{filler}\n\nShipping is free for orders over 50 euros.\n\n{POLICY}"
    passages = source_passages(text, max_chars=400)
    assert all(len(p) <= 400 for p in passages) and len(passages) > 3
    assert " ".join(passages).replace(" ", "") == text.replace("\n", "").replace(" ", "")
    hits = await SourceTextBackend(text).search("return the package within 14 days", limit=1)
    assert hits[0].text == POLICY
