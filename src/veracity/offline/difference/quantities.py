"""Numbers read with their unit, so that equal amounts written differently align.

"four weeks" and "28 days" are one duration; "half past six", "6.30am" and "06:30" one time of day;
"3 km" and "3,000 metres" one length. `merge_quantities` turns a number and the unit after it (or a
clock phrase) into one number token whose `value` is in the unit's base (seconds, metres, grams, a
time of day in hours) and whose `unit` names the dimension; `same_amount` compares two such tokens.
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


def merge_quantities(text: str, tokens: list[Token]) -> list[Token]:
    """`tokens` of `text` with each number and its unit, and each clock phrase, merged into one number token."""
    merged: list[Token] = []
    index = 0
    while index < len(tokens):
        clock = _clock(text, tokens, index)
        if clock is not None:
            token, index = clock
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
        if token.kind == "number" and token.text.lower().endswith(("am", "pm")) and token.value is not None:
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
