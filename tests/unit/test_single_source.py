"""A supported web verdict whose evidence all comes from one site is marked single-source."""

from __future__ import annotations

from veracity.contracts import Evidence, Verdict
from veracity.resources import capabilities_of
from veracity.step_support.assembly import single_source


def item(url: str | None, backend: str = "web") -> Evidence:
    return Evidence(id="c1-e1", claim_id="c1", text="t", url=url, backend=backend)


def verdict(label: str = "supported") -> Verdict:
    return Verdict(claim_id="c1", label=label, reason="r")


def test_one_site_is_single_source_whatever_its_pages() -> None:
    evidence = [item("https://www.example.org/a"), item("https://example.org/b?x=1")]
    assert single_source(verdict(), evidence, capabilities_of) == "example.org"


def test_two_sites_are_not() -> None:
    evidence = [item("https://example.org/a"), item("https://news.example.net/b")]
    assert single_source(verdict(), evidence, capabilities_of) is None


def test_only_supported_web_verdicts_are_marked() -> None:
    assert single_source(verdict("refuted"), [item("https://example.org/a")], capabilities_of) is None
    assert single_source(verdict(), [item("demo:notes.md", backend="kb")], capabilities_of) is None
    assert single_source(verdict(), [], capabilities_of) is None
