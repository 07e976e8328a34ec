"""Numbers read with their unit, so that equal amounts written differently align.

"four weeks" and "28 days" are one duration; "half past six", "6.30am" and "06:30" one time of day;
"3 km" and "3,000 metres" one length; "£2.99" an amount of money (unit "money:GBP"); "13 August
1961", "August 13, 1961" and "the 13th of August" one date (a year standing alone is a date too).
`merge_quantities` turns a number and the unit after it, a clock phrase or a date into one number
token whose `value` is in the unit's base (seconds, metres, grams, a time of day in hours, a date as
`DATE_BASE`) and whose `unit` names the dimension; `same_amount` compares two such tokens.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from veracity.offline.difference.tokens import Token

UNITS: dict[str, tuple[str, float]] = {
    **dict.fromkeys(("second", "seconds", "sec", "secs", "s"), ("duration", 1.0)),
    **dict.fromkeys(("minute", "minutes", "min", "mins"), ("duration", 60.0)),
    **dict.fromkeys(("hour", "hours", "hr", "hrs", "h"), ("duration", 3600.0)),
    **dict.fromkeys(("day", "days"), ("duration", 86400.0)),
    **dict.fromkeys(("week", "weeks"), ("duration", 7 * 86400.0)),
    **dict.fromkeys(("fortnight", "fortnights"), ("duration", 14 * 86400.0)),
    **dict.fromkeys(("month", "months"), ("duration", 30.44 * 86400.0)),
    **dict.fromkeys(("year", "years"), ("duration", 365.25 * 86400.0)),
    **dict.fromkeys(("decade", "decades"), ("duration", 3652.5 * 86400.0)),
    **dict.fromkeys(("century", "centuries"), ("duration", 36525 * 86400.0)),
    **dict.fromkeys(("mm", "millimetre", "millimetres", "millimeter", "millimeters"), ("length", 0.001)),
    **dict.fromkeys(("cm", "centimetre", "centimetres", "centimeter", "centimeters"), ("length", 0.01)),
    **dict.fromkeys(("m", "metre", "metres", "meter", "meters"), ("length", 1.0)),
    **dict.fromkeys(("km", "kilometre", "kilometres", "kilometer", "kilometers"), ("length", 1000.0)),
    **dict.fromkeys(("mile", "miles"), ("length", 1609.344)),
    **dict.fromkeys(("foot", "feet", "ft"), ("length", 0.3048)),
    **dict.fromkeys(("inch", "inches"), ("length", 0.0254)),
    **dict.fromkeys(("g", "gram", "grams"), ("mass", 1.0)),
    **dict.fromkeys(("kg", "kilogram", "kilograms", "kilo", "kilos"), ("mass", 1000.0)),
    **dict.fromkeys(("tonne", "tonnes", "ton", "tons"), ("mass", 1e6)),
    **dict.fromkeys(("percent",), ("percent", 1.0)),
}
"""Unit words: the dimension each measures and its size in that dimension's base unit."""

SAME_AMOUNT = 0.02
"""Relative difference within which two amounts count as equal ("12 months" and "1 year")."""

_CLOCK_WORDS = {"half": 30, "quarter": 15}

MONTH_NUMBERS: dict[str, int] = {
    name: number
    for number, names in enumerate((
        ("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",), ("june", "jun"),
        ("july", "jul"), ("august", "aug"), ("september", "sep", "sept"), ("october", "oct"),
        ("november", "nov"), ("december", "dec")), start=1)
    for name in names
}
"""Month names and abbreviations, numbered from 1."""
DATE_BASE = (10_000, 100, 1)
"""A date's value is year * 10,000 + month * 100 + day, a part it does not give being 0 ("August 1961": 19610800)."""
YEARS = (1000, 2999)
"""Four-digit numbers in this range, written without a separator and not counting something, are years."""
_ORDINAL_SUFFIXES = frozenset({"st", "nd", "rd", "th"})
_CURRENCIES = {"£": "GBP", "$": "USD", "€": "EUR", "¥": "JPY"}
"""Currency signs written before an amount: "£2.99" is money, never the count "36" of another slot."""


def merge_quantities(text: str, tokens: list[Token]) -> list[Token]:
    """`tokens` of `text` with numbers read as amounts.

    Each number and its unit, each clock phrase and each date become one number token; an amount after
    a currency sign is marked as money.
    """
    merged: list[Token] = []
    index = 0
    while index < len(tokens):
        found = _clock(text, tokens, index) or _date(text, tokens, index)
        if found is not None:
            token, index = found
            merged.append(token)
            continue
        token = tokens[index]
        following = tokens[index + 1] if index + 1 < len(tokens) else None
        if token.kind == "number" and token.value is not None and following is not None \
                and following.lower in UNITS and following.start - token.end <= 1:
            dimension, size = UNITS[following.lower]
            merged.append(replace(token, text=text[token.start:following.end], end=following.end,
                                  value=token.value * size, unit=dimension, raw=token.value))
            index += 2
            continue
        currency = _CURRENCIES.get(text[token.start - 1]) if token.kind == "number" and token.start else None
        if currency is not None and token.value is not None:
            merged.append(replace(token, text=text[token.start - 1:token.end], start=token.start - 1,
                                  unit=f"money:{currency}"))
        elif token.kind == "number" and token.text.lower().endswith(("am", "pm")) and token.value is not None:
            merged.append(replace(token, value=_hours(token.value, token.text.lower()[-2:]), unit="clock"))
        elif token.kind == "number" and ":" in token.text:
            hours, _, minutes = token.text.partition(":")
            merged.append(replace(token, value=int(hours) + int(minutes[:2]) / 60, unit="clock"))
        else:
            merged.append(token)
        index += 1
    return merged


def same_amount(first: Token, second: Token) -> bool | None:
    """Whether two number tokens state the same amount; None when they measure different things."""
    if first.value is None or second.value is None:
        return None
    if first.unit != second.unit:  # another dimension, or a bare number against an amount: equal as written only
        if first.unit is not None and second.unit is not None or "clock" in (first.unit, second.unit):
            return None
        return True if abs(_raw(first) - _raw(second)) < 1e-9 else None
    a, b = first.value, second.value
    if first.unit == "date":
        return _same_date(a, b)
    if first.unit == "clock":
        a, b = a % 12, b % 12
    return abs(a - b) <= SAME_AMOUNT * max(abs(a), abs(b), 1e-9)


def _raw(token: Token) -> float:
    """The number as written, before its unit was applied."""
    return token.raw if token.raw is not None else token.value or 0.0


def _hours(value: float, meridiem: str) -> float:
    """A clock reading in hours of the day ("5.45" pm -> 17.75)."""
    hours = int(value)
    minutes = round((value - hours) * 100)
    hours = hours % 12 + (12 if meridiem == "pm" else 0)
    return hours + minutes / 60


def _clock(text: str, tokens: list[Token], index: int) -> tuple[Token, int] | None:
    """A clock phrase at `index` ("half past six", "quarter to nine", "six o'clock") and the index after it."""
    token = tokens[index]
    if token.lower in _CLOCK_WORDS and index + 2 < len(tokens) and tokens[index + 1].lower in ("past", "to") \
            and tokens[index + 2].kind == "number" and tokens[index + 2].value is not None:
        hour = tokens[index + 2]
        assert hour.value is not None
        minutes = _CLOCK_WORDS[token.lower] * (1 if tokens[index + 1].lower == "past" else -1)
        end = index + 3
        value = hour.value + minutes / 60
        if end < len(tokens) and tokens[end].lower in ("am", "pm"):
            value = value % 12 + (12 if tokens[end].lower == "pm" else 0)
            end += 1
        last = tokens[end - 1]
        return replace(token, text=text[token.start:last.end], end=last.end, kind="number", value=value,
                       unit="clock"), end
    if token.kind == "number" and token.value is not None and index + 1 < len(tokens) \
            and tokens[index + 1].lower in ("o'clock", "oclock"):
        following = tokens[index + 1]
        return replace(token, text=text[token.start:following.end], end=following.end, unit="clock"), index + 2
    if token.lower in ("noon", "midday", "midnight"):
        return replace(token, kind="number", value=0.0 if token.lower == "midnight" else 12.0, unit="clock"), index + 1
    return None


def date_parts(value: float) -> tuple[int, int, int]:
    """(year, month, day) of a date token's value, 0 for a part the date does not give."""
    number = round(value)
    return number // DATE_BASE[0], number // DATE_BASE[1] % 100, number % 100


def _same_date(first: float, second: float) -> bool | None:
    """Equal when every part both dates give agrees; None when they share no part ("1961" and "13 August")."""
    shared = [(a, b) for a, b in zip(date_parts(first), date_parts(second), strict=True) if a and b]
    return all(a == b for a, b in shared) if shared else None


def _date(text: str, tokens: list[Token], index: int) -> tuple[Token, int] | None:
    """A date at `index` and the index after it, or None.

    A day and a month in either order, with or without a year ("13 August 1961", "August 13, 1961",
    "the 2nd of September"), a month and a year, or a year alone (one not followed, in the same
    phrase, by a word it could be counting: "in 1923, ..." and "the 1903 Nobel Prize", but not "1500
    people").
    """
    day, after_day = _day(tokens, index)
    if day is not None and after_day < len(tokens) and tokens[after_day].lower == "of":
        after_day += 1
    if day is not None and (month := _month(tokens, after_day)) is not None:
        year, end = _year(tokens, after_day + 1)
        return _date_token(text, tokens, index, end, year, month, day), end
    month = _month(tokens, index)
    if month is not None:
        day, after_day = _day(tokens, index + 1)
        year, end = _year(tokens, after_day if day is not None else index + 1)
        if day is not None or year:
            return _date_token(text, tokens, index, end, year, month, day or 0), end
        return None
    year, end = _year(tokens, index)
    following = tokens[end] if end < len(tokens) else None
    if year and (following is None or following.kind != "word" or following.lower in MONTH_NUMBERS
                 or text[tokens[end - 1].end:following.start].strip()):
        return _date_token(text, tokens, index, end, year, 0, 0), end
    return None


def _date_token(text: str, tokens: list[Token], first: int, end: int, year: int, month: int, day: int) -> Token:
    start, stop = tokens[first].start, tokens[end - 1].end
    value = float(year * DATE_BASE[0] + month * DATE_BASE[1] + day)
    return replace(tokens[first], text=text[start:stop], start=start, end=stop, kind="number", value=value,
                   unit="date", raw=float(year) if year else None)


def _day(tokens: list[Token], index: int) -> tuple[int | None, int]:
    """A day of the month at `index` (digits, perhaps with "st"/"nd"/"rd"/"th") and the index after it."""
    if index >= len(tokens):
        return None, index
    token = tokens[index]
    if token.kind != "number" or not token.text.isdigit() or not 1 <= int(token.text) <= 31:
        return None, index
    following = tokens[index + 1] if index + 1 < len(tokens) else None
    if following is not None and following.lower in _ORDINAL_SUFFIXES and following.start == token.end:
        return int(token.text), index + 2
    return int(token.text), index + 1


def _month(tokens: list[Token], index: int) -> int | None:
    """The month a token at `index` names ("May" only with a capital, as "may" is a modal)."""
    if index >= len(tokens):
        return None
    token = tokens[index]
    if token.lower == "may" and not token.text[:1].isupper():
        return None
    return MONTH_NUMBERS.get(token.lower.rstrip("."))


def _year(tokens: list[Token], index: int) -> tuple[int, int]:
    """A year at `index` (four digits in `YEARS`) and the index after it; (0, index) when there is none."""
    if index < len(tokens) and tokens[index].kind == "number" and tokens[index].text.isdigit() \
            and len(tokens[index].text) == 4 and YEARS[0] <= int(tokens[index].text) <= YEARS[1]:
        return int(tokens[index].text), index + 1
    return 0, index
