"""Every relative link in the README, BENCHMARKS.md and docs/ leads to a file that exists, and to a heading in it.

The docs are split over many pages; a page renamed or a heading reworded would otherwise leave dead links.
Headings are turned into anchors as GitHub does (lower case, punctuation dropped, spaces to hyphens).
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from markdown_it import MarkdownIt

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted([ROOT / "README.md", ROOT / "BENCHMARKS.md", *(ROOT / "docs").glob("*.md")])
PARSER = MarkdownIt("commonmark").enable("table")


def anchor(heading: str) -> str:
    """GitHub's anchor for a heading's text."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


@functools.cache
def anchors(page: Path) -> frozenset[str]:
    """Every anchor of `page`'s headings; a repeated heading gets -1, -2 ... as on GitHub."""
    tokens = PARSER.parse(page.read_text())
    found: set[str] = set()
    seen: Counter[str] = Counter()
    for opening, inline in zip(tokens, tokens[1:], strict=False):
        if opening.type == "heading_open":
            text = "".join(child.content for child in inline.children or [])
            name = anchor(text)
            found.add(name if not seen[name] else f"{name}-{seen[name]}")
            seen[name] += 1
    return frozenset(found)


def links(page: Path) -> Iterator[str]:
    """The targets of `page`'s links and images."""
    for token in PARSER.parse(page.read_text()):
        for child in token.children or []:
            target = child.attrGet("href") if child.type == "link_open" else child.attrGet("src")
            if child.type in ("link_open", "image") and isinstance(target, str):
                yield target


def test_the_pages_are_found() -> None:
    assert {"README.md", "BENCHMARKS.md", "settings.md", "cli.md", "benchmarks-history.md"} <= {
        page.name for page in PAGES}


def test_the_anchor_rule_matches_github() -> None:
    assert anchor("In a chat agent: `as_tool` and `Guard`") == "in-a-chat-agent-as_tool-and-guard"
    assert anchor("`veracity kb warm`") == "veracity-kb-warm"
    assert anchor("Access, limits and errors") == "access-limits-and-errors"


def dead_links(page: Path) -> list[str]:
    """The relative links of `page` that lead to no file, or to no heading of a Markdown file."""
    dead = []
    for target in links(page):
        parts = urlsplit(target)
        if parts.scheme or target.startswith("//"):
            continue
        destination = (page.parent / unquote(parts.path)).resolve() if parts.path else page
        if not destination.exists():
            dead.append(f"{target}: no such file")
        elif parts.fragment and destination.suffix == ".md" and parts.fragment not in anchors(destination):
            dead.append(f"{target}: no heading #{parts.fragment} in {destination.name}")
    return dead


def test_a_dead_link_is_caught(tmp_path: Path) -> None:
    (tmp_path / "other.md").write_text("# Other\n\n## A `code` heading\n\n## A `code` heading\n")
    page = tmp_path / "page.md"
    page.write_text("[ok](other.md#a-code-heading-1) [gone](missing.md) [moved](other.md#nowhere) "
                    "[here](#page) [web](https://example.org/x.md)\n\n# Page\n")
    assert dead_links(page) == ["missing.md: no such file", "other.md#nowhere: no heading #nowhere in other.md"]


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_relative_links_lead_somewhere(page: Path) -> None:
    dead = dead_links(page)
    assert not dead, f"dead links in {page.relative_to(ROOT)}: " + "; ".join(dead)
