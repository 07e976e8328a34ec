"""Dates and years in text ("28 October 1886", "July 16, 1969", "in 1973", "between 1887 and 1889").

Each `DateMention` keeps the words before it in its sentence, so that a caller can tell a birth
("born ... on 14 March 1879") from a death, and a start from an end.
"""

from __future__ import annotations

import calendar
import datetime
import re
from dataclasses import dataclass

from veracity.offline.judge.words import stem, words

_MONTHS = {name.lower(): number for number, name in enumerate(calendar.month_name) if name}
_MONTHS |= {name.lower(): number for number, name in enumerate(calendar.month_abbr) if name}
_MONTHS["sept"] = 9
_MONTH = "|".join(sorted(_MONTHS, key=len, reverse=True))
_YEAR = r"(?:1\d{3}|20\d{2})"
_ERA = r"(?:\s*(?P<era>BCE|BC|CE|AD)\b)?"
_DATE = re.compile(
    rf"\b(?:(?P<d1>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<m1>{_MONTH})\.?,?\s+(?P<y1>{_YEAR})"
    rf"|(?P<m2>{_MONTH})\.?\s+(?P<d2>\d{{1,2}})(?:st|nd|rd|th)?,?\s+(?P<y2>{_YEAR})"
    rf"|(?P<m3>{_MONTH})\.?\s+(?P<y3>{_YEAR})"
    rf"|(?P<y4>\d{{3,4}}){_ERA})(?![\d,.]\d|\s*(?:km|m|metres|meters|feet|ft|kg|°))",
    re.IGNORECASE,
)
_RANGE = re.compile(rf"\b(?:between\s+)?(?P<a>{_YEAR})\s*(?:and|to|until|till|through|[-–—])\s*(?P<b>{_YEAR})\b")
BEFORE_WORDS = 10
"""Words before a date kept as its context."""


@dataclass(frozen=True)
class DateMention:
    """A date as written: its year (negative BC), month and day when given, span, and preceding words."""

    year: int
    month: int | None
    day: int | None
    text: str
    start: int
    end: int
    before: tuple[str, ...]

    @property
    def exact(self) -> datetime.date | None:
        """The calendar date, when day, month and year are all given (and the year is AD)."""
        if self.day is None or self.month is None or self.year < 1:
            return None
        try:
            return datetime.date(self.year, self.month, self.day)
        except ValueError:
            return None

    def follows(self, stems: frozenset[str]) -> bool:
        """Whether one of `stems` is among the words before this date."""
        return any(stem(word) in stems for word in self.before)


def find_dates(sentence: str) -> list[DateMention]:
    """The dates and years in one sentence, in order."""
    found: list[DateMention] = []
    for match in _DATE.finditer(sentence):
        groups = match.groupdict()
        year_text = groups["y1"] or groups["y2"] or groups["y3"] or groups["y4"]
        year = int(year_text)
        if groups["y4"] and not groups["era"] and not 1000 <= year <= 2100:
            continue
        if (groups["era"] or "").upper() in ("BC", "BCE"):
            year = -year
        month_name = groups["m1"] or groups["m2"] or groups["m3"]
        day_text = groups["d1"] or groups["d2"]
        before = tuple(words(sentence[:match.start()])[-BEFORE_WORDS:])
        found.append(DateMention(
            year=year, month=_MONTHS[month_name.lower().rstrip(".")] if month_name else None,
            day=int(day_text) if day_text else None, text=match.group(0), start=match.start(), end=match.end(),
            before=before,
        ))
    return found


def year_ranges(sentence: str) -> list[tuple[int, int, str]]:
    """Spans of years written as a range ("between 1887 and 1889", "1368 to 1644"): (first, last, text)."""
    ranges = []
    for match in _RANGE.finditer(sentence):
        first, last = int(match.group("a")), int(match.group("b"))
        if first <= last:
            ranges.append((first, last, match.group(0)))
    return ranges


def whole_years_between(earlier: DateMention, later: DateMention | datetime.date) -> tuple[int, int]:
    """Completed years from `earlier` to `later`, as (fewest, most): one value when both dates are exact."""
    later_exact = later if isinstance(later, datetime.date) else later.exact
    later_year = later.year
    span = later_year - earlier.year - (1 if earlier.year < 0 < later_year else 0)
    start = earlier.exact
    if start is not None and later_exact is not None:
        before_anniversary = (later_exact.month, later_exact.day) < (start.month, start.day)
        return (span - 1, span - 1) if before_anniversary else (span, span)
    return span - 1, span
