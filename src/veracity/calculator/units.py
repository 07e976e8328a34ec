"""Units: which words name which unit, and conversion between them (by `pint`).

Length (m, km, ft, mi, ...), mass (kg, lb, ...), temperature (°C, °F, K), time (seconds to
centuries), area and speed ("km per hour", "m/s"), and money ("£500", "20 dollars": never converted
between currencies). Anything else after a number is a count noun.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pint

_LENGTH = {
    "kilometres|kilometers|kilometre|kilometer|km": "kilometer",
    "centimetres|centimeters|centimetre|centimeter|cm": "centimeter",
    "millimetres|millimeters|millimetre|millimeter|mm": "millimeter",
    "metres|meters|metre|meter|m": "meter",
    "feet|foot|ft": "foot",
    "miles|mile|mi": "mile",
    "inches|inch": "inch",
    "yards|yard|yd": "yard",
}
_MASS = {
    "kilograms|kilogrammes|kilogram|kilogramme|kilos|kg": "kilogram",
    "grams|grammes|gram|gramme": "gram",
    "tonnes|tonne|metric tons": "metric_ton",
    "pounds|pound|lbs|lb": "pound",
    "ounces|ounce|oz": "ounce",
}
_TEMPERATURE = {
    r"degrees celsius|degree celsius|degrees centigrade|°\s?c|celsius": "degC",
    r"degrees fahrenheit|degree fahrenheit|°\s?f|fahrenheit": "degF",
    "kelvins|kelvin": "kelvin",
}
_TIME = {
    "centuries|century": "century",
    "decades|decade": "calendar_decade",
    "years|year|yrs": "year",
    "months|month": "month",
    "weeks|week": "week",
    "days|day": "day",
    "hours|hour|hrs|h": "hour",
    "minutes|minute|mins|min": "minute",
    "seconds|second|secs|s": "second",
}
_MONEY = {
    "us dollars|dollars|dollar|usd": "money:USD",
    "euros|euro|eur": "money:EUR",
    "pounds sterling|gbp": "money:GBP",
}
DIMENSIONS = {"length": _LENGTH, "mass": _MASS, "temperature": _TEMPERATURE, "time": _TIME, "money": _MONEY}

CURRENCY_SYMBOLS = {"£": "money:GBP", "$": "money:USD", "€": "money:EUR"}
"""Currency signs written before an amount ("£500"); a sum of money is compared only with the same currency."""

COMPARATIVES = {
    "longer": ("length", 1), "shorter": ("length", -1), "taller": ("length", 1), "higher": ("length", 1),
    "deeper": ("length", 1), "wider": ("length", 1), "narrower": ("length", -1), "heavier": ("mass", 1),
    "lighter": ("mass", -1), "hotter": ("temperature", 1), "warmer": ("temperature", 1),
    "colder": ("temperature", -1), "cooler": ("temperature", -1), "faster": ("speed", 1),
    "slower": ("speed", -1), "older": ("age", 1), "younger": ("age", -1), "newer": ("age", -1),
}
"""Comparative adjectives: what they compare and in which direction ("shorter": length, less)."""


@dataclass(frozen=True)
class Unit:
    """A unit as pint names it ("kilometer", "kilometer / hour"), with its dimension."""

    name: str
    dimension: str

    def __str__(self) -> str:
        if self.dimension == "count":
            return self.name.removeprefix("count:") + "(s)"
        if self.dimension == "money":
            return self.name.removeprefix("money:")
        return " per ".join(_SHOWN.get(part, part) for part in self.name.split(" / "))


_SHOWN = {
    "meter": "metres", "kilometer": "km", "centimeter": "cm", "millimeter": "mm", "foot": "feet", "mile": "miles",
    "inch": "inches", "yard": "yards", "kilogram": "kg", "gram": "grams", "metric_ton": "tonnes", "pound": "lb",
    "ounce": "oz", "degC": "°C", "degF": "°F", "kelvin": "K", "century": "centuries", "calendar_decade": "decades",
    "year": "years", "month": "months", "week": "weeks", "day": "days", "hour": "hours", "minute": "minutes",
    "second": "seconds", "kilometer ** 2": "km²", "mile ** 2": "square miles", "meter ** 2": "m²",
}


def _alternatives(table: dict[str, str]) -> list[str]:
    return [word for words in table for word in words.split("|")]


_SIMPLE = sorted(
    (word for table in DIMENSIONS.values() for word in _alternatives(table)), key=len, reverse=True
)
_DISTANCE = "|".join(sorted(_alternatives(_LENGTH), key=len, reverse=True))
_DURATION = "|".join(sorted(_alternatives(_TIME), key=len, reverse=True))
_SQUARE = rf"(?:square|sq\.?)\s+(?:{_DISTANCE})|(?:{_DISTANCE})(?:²|2\b)"
_SPEED = rf"(?:{_DISTANCE})\s*(?:per\s+|/\s*|an\s+|a\s+)(?:{_DURATION})|mph|km/h|kph"
UNIT_PATTERN = rf"(?:{_SPEED}|{_SQUARE}|{'|'.join(_SIMPLE)})(?![\w°])"
"""Any unit word or phrase this module knows (used after a number)."""


def _lookup(word: str) -> tuple[str, str] | None:
    word = " ".join(word.lower().split())
    for dimension, table in DIMENSIONS.items():
        for words, name in table.items():
            if re.fullmatch(words, word):
                return name, dimension
    return None


def unit_named(phrase: str) -> Unit | None:
    """The unit a phrase names ("metres", "km per hour", "square miles", "°F"), or None."""
    phrase = " ".join(phrase.strip(" -").lower().split())
    if phrase == "mph":
        return Unit("mile / hour", "speed")
    if phrase in ("km/h", "kph"):
        return Unit("kilometer / hour", "speed")
    speed = re.fullmatch(r"(.+?)\s*(?:per\s+|/\s*|an\s+|a\s+)(.+)", phrase)
    if speed:
        distance, duration = _lookup(speed.group(1)), _lookup(speed.group(2))
        if distance and duration and distance[1] == "length" and duration[1] == "time":
            return Unit(f"{distance[0]} / {duration[0]}", "speed")
    square = re.fullmatch(r"(?:square|sq\.?)\s+(.+)|(.+?)(?:²|2)", phrase)
    if square:
        found = _lookup(square.group(1) or square.group(2))
        if found and found[1] == "length":
            return Unit(f"{found[0]} ** 2", "area")
    found = _lookup(phrase)
    return Unit(found[0], found[1]) if found else None


@functools.cache
def _registry() -> pint.UnitRegistry[float]:
    import pint

    registry: pint.UnitRegistry[float] = pint.UnitRegistry()
    # pint's own "decade" is a logarithmic ratio (a factor of ten), not ten years.
    registry.define("calendar_decade = 10 * year")
    return registry


def convert(value: float, source: Unit, target: Unit) -> float:
    """`value` in `source` units, expressed in `target` units (same dimension; counts and currencies must match)."""
    if source.dimension != target.dimension:
        raise ValueError(f"cannot convert {source.dimension} ({source}) to {target.dimension} ({target})")
    if source.dimension in ("count", "money"):
        if source.name != target.name:
            kind = "counts of " if source.dimension == "count" else ""
            raise ValueError(f"cannot compare {kind}{source} with {kind}{target}")
        return value
    registry = _registry()
    magnitude: float = registry.Quantity(value, source.name).to(target.name).magnitude
    return float(magnitude)
