"""Plain arithmetic claims ("2 + 2 = 5", "Seven times six is 42"), decided without evidence.

The claim is rewritten into symbols, both sides are parsed with Python's `ast` (only numbers,
+ - * / ^ and brackets are accepted, so nothing is executed), and evaluated exactly with
`fractions.Fraction`, so that "0.1 + 0.2 = 0.3" holds.
"""

from __future__ import annotations

import ast
import operator
import re
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

from veracity.calculator.values import NUMBER_WORDS

_FRACTION_WORDS = (
    (r"(\d+(?:\.\d+)?)\s*(?:%|per\s*cent|percent)\s+of\b", r"(\1 / 100) *"), (r"^(?:the\s+)?half\s+of\b", "(1 / 2) *"),
    (r"^(?:a|one)\s+third\s+of\b", "(1 / 3) *"), (r"^(?:a|one)\s+quarter\s+of\b", "(1 / 4) *"),
    (r"^(?:twice|double)\b", "2 *"), (r"^(?:triple|thrice)\b", "3 *"),
)
"""Fractions and multiples said in words: "15% of 200", "half of 10", "twice 7"."""
_OPERATOR_WORDS = (
    (r"\bmultiplied\s+by\b", "*"), (r"\bdivided\s+by\b", "/"), (r"\btimes\b", "*"), (r"\bplus\b", "+"),
    (r"\bminus\b", "-"), (r"\bsquared\b", "^2"), (r"\bcubed\b", "^3"), (r"\bto\s+the\s+power\s+of\b", "^"),
    (r"[×✕]|(?<=\d)\s*x\s*(?=\d)", "*"), (r"[÷:]", "/"), (r"[−–]", "-"),
)
_RELATIONS: tuple[tuple[str, str], ...] = (
    (r"\bis\s+not\s+equal\s+to\b|\bdoes\s+not\s+equal\b|\bisn't\b|\bis\s+not\b|≠|!=", "!="),
    (r"\bis\s+(?:greater|more|larger|bigger)\s+than\b|>", ">"),
    (r"\bis\s+(?:less|smaller|fewer)\s+than\b|<", "<"),
    (r"\bis\s+equal\s+to\b|\bequals?\b|\bmakes?\b|\bgives?\b|\bis\b|==|=", "="),
)
_SUM_OF = re.compile(r"^(?:the\s+)?(sum|product|difference)\s+of\s+(.+?)\s+and\s+(.+?)(?=\s*(?:is|equals?|=))", re.I)
_EXPRESSION = re.compile(r"^[\d\s.+\-*/^()]+$")
_BINARY: dict[type[ast.operator], Callable[[Fraction, Fraction], Fraction]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
}
MAX_EXPONENT = 64
"""Largest exponent evaluated (a bigger one is not a sum anyone states as a fact)."""


@dataclass(frozen=True)
class ArithmeticResult:
    """The verdict on an arithmetic claim: true, false, or None with why it cannot be decided."""

    holds: bool | None
    text: str


def _numbers_in_digits(text: str) -> str:
    names = sorted(NUMBER_WORDS, key=len, reverse=True)
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, names)) + r")(?:[\s-](one|two|three|four|five|six|seven|"
                         r"eight|nine))?\b", re.I)

    def digits(match: re.Match[str]) -> str:
        value = NUMBER_WORDS[match.group(1).lower()] + (NUMBER_WORDS[match.group(2).lower()] if match.group(2) else 0)
        return str(value)

    return pattern.sub(digits, text)


def _normalise(claim: str) -> str:
    text = claim.strip().rstrip(".!").strip()
    text = _numbers_in_digits(text)
    text = re.sub(r"(?<=\d),(?=\d{3}\b)", "", text)
    summed = _SUM_OF.match(text)
    if summed:
        symbol = {"sum": "+", "product": "*", "difference": "-"}[summed.group(1).lower()]
        text = f"({summed.group(2)}) {symbol} ({summed.group(3)})" + text[summed.end():]
    for pattern, replacement in _FRACTION_WORDS:
        text = re.sub(pattern, replacement, text, flags=re.I)
    for pattern, symbol in _OPERATOR_WORDS:
        text = re.sub(pattern, f" {symbol} ", text, flags=re.I)
    return text


def parse_arithmetic(claim: str) -> tuple[str, str, str] | None:
    """(left, relation, right) when the claim is plain arithmetic with an operator, else None."""
    text = _normalise(claim)
    for pattern, relation in _RELATIONS:
        parts = re.split(pattern, text, maxsplit=1, flags=re.I)
        if len(parts) != 2:
            continue
        left, right = (" ".join(part.split()) for part in parts)
        if not left or not right or not _EXPRESSION.match(left) or not _EXPRESSION.match(right):
            return None
        if not re.search(r"\d\s*[+\-*/^]\s*[\d(]|\)\s*[+\-*/^]", left + " " + right):
            return None
        return left, relation, right
    return None


def is_arithmetic(claim: str) -> bool:
    """Whether the claim is plain arithmetic (decided by computation alone)."""
    return parse_arithmetic(claim) is not None


def _evaluate(node: ast.AST) -> Fraction:
    if isinstance(node, ast.Expression):
        return _evaluate(node.body)
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float) and not isinstance(node.value, bool):
        return Fraction(str(node.value))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        value = _evaluate(node.operand)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.BinOp):
        left, right = _evaluate(node.left), _evaluate(node.right)
        if isinstance(node.op, ast.Pow):
            if right.denominator != 1 or abs(right) > MAX_EXPONENT:
                raise ValueError("only whole exponents up to 64 are computed")
            return left ** int(right)
        binary = _BINARY.get(type(node.op))
        if binary is not None:
            return binary(left, right)
    raise ValueError("not plain arithmetic")


def value_of(expression: str) -> Fraction:
    """The exact value of an expression of numbers, + - * / ^ and brackets."""
    tree = ast.parse(expression.replace("^", "**"), mode="eval")
    return _evaluate(tree)


def _show(value: Fraction) -> str:
    if value.denominator == 1:
        return str(value.numerator)
    return f"{float(value):.10g}"


def decide_arithmetic(claim: str) -> ArithmeticResult | None:
    """Compute an arithmetic claim; None when it is not one."""
    parsed = parse_arithmetic(claim)
    if parsed is None:
        return None
    left, relation, right = parsed
    try:
        left_value, right_value = value_of(left), value_of(right)
    except ZeroDivisionError:
        return ArithmeticResult(None, f"{left} {relation} {right}: division by zero has no value")
    except (ValueError, SyntaxError, OverflowError) as exc:
        return ArithmeticResult(None, f"{left} {relation} {right} cannot be computed: {exc}")
    holds = {
        "=": left_value == right_value, "!=": left_value != right_value,
        ">": left_value > right_value, "<": left_value < right_value,
    }[relation]
    shown = f"{left} = {_show(left_value)}"
    if re.search(r"[+\-*/^]", right.lstrip("-")):
        shown += f"; {right} = {_show(right_value)}"
    symbol = {"=": "=", "!=": "≠", ">": ">", "<": "<"}[relation]
    truth = "holds" if holds else "does not hold"
    return ArithmeticResult(holds, f"{shown}; so {_show(left_value)} {symbol} {_show(right_value)} {truth}")
