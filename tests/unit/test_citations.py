"""The mechanical quote check."""

from __future__ import annotations

import pytest

from veracity.citations import normalize, quote_problem

EVIDENCE = ("<p>The Opera House\u2014designed by J\u00f8rn Utzon\u2014opened on 20&nbsp;October 1973.</p> "
            "It\u2019s \u201cbeautiful\u201d.")


@pytest.mark.parametrize("quote", [
    "The Opera House-designed by Jørn Utzon-opened",        # Unicode dashes
    "opened on 20 October 1973.",                            # &nbsp; entity and HTML tags
    "it's \"beautiful\"",                                    # curly quotes and case
    "THE   opera\nhouse",                                    # whitespace and case
    "1973. It’s",                                            # across a closing tag
])
def test_quotes_match_after_normalisation(quote: str) -> None:
    assert quote_problem(quote, EVIDENCE) is None


@pytest.mark.parametrize(("quote", "why"), [
    ("The Opera House opened in 1974", "does not appear verbatim"),
    ("opened on 20 October 1973. It was cheap", "does not appear verbatim"),  # opening words alone are not enough
    ("", "empty"),
    (None, "empty"),
    ("the", "too short"),
])
def test_quotes_that_do_not_match(quote, why: str) -> None:
    assert why in quote_problem(quote, EVIDENCE)


def test_normalize_folds_nbsp_and_zero_width() -> None:
    assert normalize("a\u00a0b\u200bc  D") == "a bc d"
