"""What a setting's value must be: its type, and the rule a `Context` field's metadata gives it.

`value_problem` is the one check: `Context` runs it on every field it is built with, and every surface
that takes a setting (the CLI's options and `--set`, the server's request fields, Python) gets
its answer, so the same value is refused everywhere with the same words.
"""

from __future__ import annotations

import datetime
import ipaddress
import math
import string
import types
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, Union, get_args, get_origin
from urllib.parse import urlsplit


@dataclass(frozen=True)
class Bounds:
    """The range a number must fall in (`low` to `high`; an `_open` end is excluded), counted in `unit`."""

    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    unit: str = ""
    """What the number counts ('seconds'), for the words that say the rule."""

    def admits(self, value: float) -> bool:
        """Whether `value` is within the range."""
        if self.low is not None and (value <= self.low if self.low_open else value < self.low):
            return False
        return self.high is None or (value < self.high if self.high_open else value <= self.high)

    def says(self, *, whole: bool) -> str:
        """The rule in words, after 'must': 'be a positive number of seconds'."""
        number = ("whole number" if whole else "number") + (f" of {self.unit}" if self.unit else "")
        low, high = self.low, self.high
        if low is not None and high is not None:
            if self.low_open:
                return f"be a {number} above {low:g} and {'below' if self.high_open else 'at most'} {high:g}"
            return f"be a {number} from {low:g} to {'below ' if self.high_open else ''}{high:g}"
        if low is not None:
            if low == 0:
                return f"be a positive {number}" if self.low_open else f"be a {number}, 0 or more"
            return f"be a {number} above {low:g}" if self.low_open else f"be a {number}, at least {low:g}"
        if high is not None:
            return f"be a {number} below {high:g}" if self.high_open else f"be a {number}, at most {high:g}"
        return f"be a {number}"


@dataclass(frozen=True)
class Requirement:
    """A rule other than a range: `passes` tells whether a value keeps it, `says` it in words after 'must'."""

    says: str
    passes: Callable[[Any], bool]


Rule = Bounds | Requirement
"""What a setting's metadata may add to its type."""


def value_problem(name: str, value: Any, hint: Any, rule: Rule | None = None) -> str | None:
    """Why `value` cannot be the setting `name` (typed `hint`, with `rule`), or None when it can."""
    allowed = get_args(hint) if get_origin(hint) in (Union, types.UnionType) else (hint,)
    if value is None:
        return None if type(None) in allowed else f"{name} must be set, got None"
    [kind] = [option for option in allowed if option is not type(None)]
    if get_origin(kind) is Literal:
        choices = get_args(kind)
        return None if value in choices else f"{name} must be one of {', '.join(map(str, choices))}, got {value!r}"
    if kind is bool:
        return None if isinstance(value, bool) else f"{name} must be true or false, got {value!r}"
    if kind in (int, float):
        return _number_problem(name, value, whole=kind is int, bounds=rule if isinstance(rule, Bounds) else Bounds())
    if not isinstance(value, str):
        return f"{name} must be text, got {value!r}"
    if isinstance(rule, Requirement) and not rule.passes(value):
        return f"{name} must {rule.says}, got {value!r}"
    return None


def _number_problem(name: str, value: Any, *, whole: bool, bounds: Bounds) -> str | None:
    typed = isinstance(value, int) if whole else isinstance(value, int | float)
    if typed and not isinstance(value, bool) and math.isfinite(value) and bounds.admits(value):
        return None
    finite = "" if not typed or isinstance(value, bool) or math.isfinite(value) else " (not a finite number)"
    return f"{name} must {bounds.says(whole=whole)}, got {value!r}{finite}"


def is_date(text: str) -> bool:
    """Whether `text` is a date as YYYY-MM-DD."""
    try:
        datetime.date.fromisoformat(text)
    except ValueError:
        return False
    return True


def is_web_address(text: str) -> bool:
    """Whether `text` is an http(s) URL with a host."""
    try:
        parts = urlsplit(text)
        return parts.scheme in ("http", "https") and bool(parts.hostname)
    except ValueError:  # a malformed port or bracketed host
        return False


def parse_networks(text: str | None) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
    """Comma-separated addresses or networks (``"127.0.0.1,10.0.0.0/8"``); ValueError names a part that is neither."""
    networks = []
    for part in (text or "").split(","):
        if part.strip():
            try:
                networks.append(ipaddress.ip_network(part.strip(), strict=False))
            except ValueError as exc:
                raise ValueError(f"not an address or network: {part.strip()!r}") from exc
    return tuple(networks)


def are_networks(text: str) -> bool:
    """Whether `text` is comma-separated addresses or networks."""
    try:
        parse_networks(text)
    except ValueError:
        return False
    return True


def fills(*names: str) -> Callable[[str], bool]:
    """A test that a template holds each of `names` as `{name}`, and no other field (other braces doubled)."""

    def test(template: str) -> bool:
        try:
            fields = {field for _, field, _, _ in string.Formatter().parse(template) if field is not None}
        except ValueError:  # an unpaired brace
            return False
        return fields == set(names)

    return test


def is_named(text: str) -> bool:
    """Whether `text` names something: not empty or blank."""
    return bool(text.strip())
