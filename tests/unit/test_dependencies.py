"""What the knowledge base imports at run time is declared, not left to another package's extra."""

from __future__ import annotations

import re
from importlib.metadata import requires


def declared() -> set[str]:
    names = (re.split(r"[<>=!~;\[ ]", line, maxsplit=1)[0] for line in requires("veracity") or [])
    return {name.lower().replace("-", "_") for name in names}


def test_the_html_cleaner_trafilatura_needs_is_a_declared_dependency() -> None:
    import lxml.html.clean  # noqa: F401  (justext, under trafilatura, imports it for every HTML page)

    assert "lxml_html_clean" in declared()
