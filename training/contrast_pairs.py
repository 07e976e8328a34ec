"""Generate labelled minimal pairs that teach the entailment model to read contrast.

A small cross-encoder trained on ordinary NLI data reads "Sale items can be returned" and "Sale
items cannot be returned", or "from Lyon to Turin" and "from Turin to Lyon", as the same
statement. This script makes training pairs where one word or one detail decides the label:

* **refuted**: the evidence sentence with one change that makes it false: a negation or a
  modality flipped (can/cannot, allowed/prohibited, must/need not, open/closed, always/never), an
  opposite swapped in (before/after, increase/decrease, more/less), a number, year, clock time or
  duration changed (a unit too: minutes for hours, per day for per week), two names of the
  passage swapped, who did what to whom reversed ("from A to B", "A defeated B"), a category
  changed (a nationality, a colour, a month, a prize's field);
* **supported**: the same sentence said another way (a clause dropped, a leading phrase moved, a
  synonym, a number written another way, an agreeing unit conversion);
* **unverifiable**: a claim that adds a detail the passage does not give, or another sentence of
  the same document judged against a passage without it.

Each refuted claim is made from a reworded (supported) form where one exists, and both are kept,
so the model cannot learn "a copy is supported, a change is refuted". Evidence sentences come from
the shared training data only: FEVER train (premises, and supported claims with their evidence),
the NLI mix's premises, and the *train* part of the shared claim benchmarks
(`claim_split.ClaimSplit`); calibration and test claims are never read. Everyday rules, opening
hours, timetables and specifications are rare in those sources, so a share of the seeds is
composed from small vocabularies (`everyday_seeds`): policies, schedules, journeys and product
facts, then transformed by the same rules.

Everything is seeded; the output is JSON Lines with ``premise``, ``hypothesis``, ``label``,
``kind`` (the transformation) and ``source`` (where the evidence sentence came from)::

    python3 training/contrast_pairs.py --out training/out/contrast.jsonl --seed 13
"""

from __future__ import annotations

import argparse
import json
import random
import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from claim_split import DEFAULT_DATA_DIR as BENCHMARK_DIR
from claim_split import ClaimSplit

DEFAULT_NLI_DIR = Path(__file__).resolve().parents[2] / "shared" / "nli"

# --------------------------------------------------------------------------- words

AUXILIARIES = ("is", "are", "was", "were", "has", "have", "had", "will", "would", "can", "could", "should",
               "does", "did", "do", "must", "may", "might")
_AUX = re.compile(r"\b(" + "|".join(AUXILIARIES) + r")\b(?! not\b)(?!n't)")
_NEGATED_AUX = re.compile(r"\b(is|are|was|were|has|have|had|will|would|could|should|must|may|might|does|did|do)"
                          r"( not\b|n't\b)")
_ANY_NEGATION = re.compile(r"\b(not|no|never|none|nobody|nothing|neither|nor|cannot|without)\b|n't\b", re.I)

OPPOSITES: tuple[tuple[str, str], ...] = (
    ("before", "after"), ("increase", "decrease"), ("increased", "decreased"), ("increases", "decreases"),
    ("rose", "fell"), ("rise", "fall"), ("rising", "falling"), ("more", "less"), ("higher", "lower"),
    ("larger", "smaller"), ("largest", "smallest"), ("longer", "shorter"), ("longest", "shortest"),
    ("older", "younger"), ("oldest", "youngest"), ("earlier", "later"), ("earliest", "latest"),
    ("above", "below"), ("north", "south"), ("east", "west"), ("northern", "southern"), ("eastern", "western"),
    ("maximum", "minimum"), ("most", "least"), ("open", "closed"), ("opens", "closes"),
    ("always", "never"), ("faster", "slower"), ("fastest", "slowest"), ("heavier", "lighter"),
    ("warmer", "colder"), ("wider", "narrower"), ("cheaper", "more expensive"), ("gained", "lost"),
    ("won", "lost"), ("win", "lose"), ("accepted", "rejected"), ("allowed", "prohibited"),
    ("permitted", "forbidden"), ("required", "optional"), ("mandatory", "optional"), ("included", "excluded"),
    ("enabled", "disabled"), ("free", "paid"), ("inside", "outside"), ("upstream", "downstream"),
    ("entered", "left"), ("arrives", "departs"), ("import", "export"), ("imports", "exports"),
    ("exported", "imported"), ("majority", "minority"), ("expanded", "reduced"), ("strengthened", "weakened"),
    ("success", "failure"), ("successful", "unsuccessful"), ("legal", "illegal"), ("male", "female"),
    ("born", "died"), ("buy", "sell"), ("bought", "sold"), ("start", "end"), ("started", "ended"),
    ("begins", "ends"), ("began", "ended"), ("full", "empty"), ("public", "private"), ("on", "off"),
)
"""Word pairs whose swap turns a true statement false (used both ways, whole words, case kept)."""
_OPPOSITE = {a: b for a, b in OPPOSITES} | {b: a for a, b in OPPOSITES}
_OPPOSITE_RISKY = {"on", "off", "first", "last", "free", "born", "died", "start", "end", "won", "lost", "open",
                   "more", "most", "less", "least", "left", "public", "private", "full"}
"""Opposites that are often used in another sense ("on Monday", "first album", "more famous"): only in
the everyday seeds, whose sentences use them in the sense above."""

MODAL_FLIPS: tuple[tuple[str, str], ...] = (
    (r"\bcannot\b", "can"), (r"\bcan't\b", "can"), (r"\bcan not\b", "can"), (r"\bcan\b", "cannot"),
    (r"\bmust not\b", "may"), (r"\bmustn't\b", "may"), (r"\bmust\b", "need not"), (r"\bneed not\b", "must"),
    (r"\bdo not need to\b", "must"), (r"\bdon't need to\b", "must"),
    (r"\bmay not\b", "may"), (r"\bare not allowed to\b", "are allowed to"), (r"\bis not allowed to\b", "is allowed to"),
    (r"\bare allowed to\b", "are not allowed to"), (r"\bis allowed to\b", "is not allowed to"),
    (r"\bare permitted\b", "are prohibited"), (r"\bis permitted\b", "is prohibited"),
    (r"\bare prohibited\b", "are permitted"), (r"\bis prohibited\b", "is permitted"),
    (r"\bis required\b", "is not required"), (r"\bare required\b", "are not required"),
    (r"\bis not required\b", "is required"), (r"\bare not required\b", "are required"),
    (r"\bis forbidden\b", "is allowed"), (r"\bare forbidden\b", "are allowed"),
    (r"\bwill\b", "will not"), (r"\bwon't\b", "will"), (r"\bwill not\b", "will"),
    (r"\bshould not\b", "should"), (r"\bshould\b", "should not"),
)
"""Permission and obligation flips, tried in this order (the longer forms first)."""

NATIONALITIES = ("American", "British", "English", "French", "German", "Italian", "Spanish", "Canadian",
                 "Australian", "Japanese", "Chinese", "Indian", "Russian", "Mexican", "Brazilian", "Irish",
                 "Scottish", "Swedish", "Dutch", "Norwegian", "Polish", "Greek", "Turkish", "Korean",
                 "South Korean", "Argentine", "Danish", "Finnish", "Austrian", "Swiss", "Belgian", "Portuguese",
                 "Egyptian", "Nigerian", "Welsh", "Israeli", "Iranian", "Filipino", "Pakistani", "New Zealand")
COUNTRIES = ("United States", "United Kingdom", "France", "Germany", "Italy", "Spain", "Canada", "Australia",
             "Japan", "China", "India", "Russia", "Mexico", "Brazil", "Ireland", "Scotland", "Sweden", "Norway",
             "Poland", "Greece", "Turkey", "South Korea", "Argentina", "Denmark", "Finland", "Austria",
             "Switzerland", "Belgium", "Portugal", "Egypt", "Nigeria", "Kenya", "New Zealand", "Chile", "Peru")
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
COLOURS = ("red", "blue", "green", "yellow", "black", "white", "orange", "purple", "grey", "brown", "pink")
FIELDS = ("Physics", "Chemistry", "Medicine", "Literature", "Peace", "Economics")
LANGUAGES = ("English", "French", "German", "Spanish", "Italian", "Portuguese", "Russian", "Japanese", "Mandarin",
             "Arabic", "Hindi", "Dutch", "Swedish", "Korean")
CONTINENTS = ("Africa", "Asia", "Europe", "North America", "South America", "Oceania", "Antarctica")
PLANETS = ("Mercury", "Venus", "Earth", "Mars", "Jupiter", "Saturn", "Uranus", "Neptune")
INSTRUMENTS = ("piano", "guitar", "violin", "drums", "cello", "trumpet", "saxophone", "flute", "bass")
SPORTS = ("football", "basketball", "baseball", "tennis", "cricket", "rugby", "golf", "hockey", "volleyball")
METALS = ("gold", "silver", "copper", "iron", "aluminium", "steel", "bronze", "zinc", "lead", "tin")
CATEGORIES: dict[str, tuple[str, ...]] = {
    "nationality": NATIONALITIES, "country": COUNTRIES, "month": MONTHS, "weekday": WEEKDAYS,
    "colour": COLOURS, "field": FIELDS, "language": LANGUAGES, "continent": CONTINENTS, "planet": PLANETS,
    "instrument": INSTRUMENTS, "sport": SPORTS, "metal": METALS,
}
"""Closed classes whose members exclude each other in a claim's slot ("an American actor" is not a French one)."""

UNITS: dict[str, tuple[str, float]] = {
    "second": ("time", 1), "minute": ("time", 60), "hour": ("time", 3600), "day": ("time", 86400),
    "week": ("time", 604800), "month": ("time", 2629800), "year": ("time", 31557600),
    "millimetre": ("length", 0.001), "centimetre": ("length", 0.01), "metre": ("length", 1),
    "kilometre": ("length", 1000), "millimeter": ("length", 0.001), "centimeter": ("length", 0.01),
    "meter": ("length", 1), "kilometer": ("length", 1000), "mile": ("length", 1609.344),
    "gram": ("mass", 1), "kilogram": ("mass", 1000), "tonne": ("mass", 1e6), "ton": ("mass", 907184.74),
    "millilitre": ("volume", 1), "litre": ("volume", 1000), "milliliter": ("volume", 1), "liter": ("volume", 1000),
    "kb": ("data", 1), "mb": ("data", 1000), "gb": ("data", 1e6), "tb": ("data", 1e9),
}
UNIT_ABBREVIATIONS = {"km": "kilometre", "cm": "centimetre", "mm": "millimetre", "kg": "kilogram", "g": "gram",
                      "m": "metre", "ml": "millilitre", "l": "litre", "min": "minute", "mins": "minute",
                      "hr": "hour", "hrs": "hour", "h": "hour", "s": "second", "sec": "second"}
SWAP_UNITS: dict[str, tuple[str, ...]] = {
    "second": ("minute",), "minute": ("hour", "second"), "hour": ("minute", "day"), "day": ("week", "hour"),
    "week": ("month", "day"), "month": ("year", "week"), "year": ("month", "decade"), "decade": ("year", "century"),
    "century": ("decade",), "metre": ("kilometre", "centimetre"), "meter": ("kilometer", "centimeter"),
    "kilometre": ("metre", "mile"), "kilometer": ("meter", "mile"), "mile": ("kilometre",),
    "centimetre": ("metre", "millimetre"), "millimetre": ("centimetre",), "gram": ("kilogram",),
    "kilogram": ("gram", "tonne"), "tonne": ("kilogram",), "litre": ("millilitre",), "millilitre": ("litre",),
    "kb": ("mb",), "mb": ("gb", "kb"), "gb": ("mb", "tb"), "tb": ("gb",),
}
RATE_SWAPS = (("per day", "per week"), ("a day", "a week"), ("per hour", "per minute"), ("an hour", "a minute"),
              ("per week", "per month"), ("a week", "a month"), ("per year", "per month"), ("a year", "a month"),
              ("per month", "per year"), ("daily", "weekly"), ("weekly", "monthly"), ("monthly", "yearly"),
              ("annually", "monthly"), ("hourly", "daily"))
NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
                "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20, "thirty": 30, "forty": 40,
                "fifty": 50, "hundred": 100}
_WORD_OF = {v: k for k, v in NUMBER_WORDS.items() if v <= 12}
_QUALIFIER_BEFORE = re.compile(
    r"\b(over|more than|less than|fewer than|at least|at most|up to|about|around|approximately|nearly|almost|"
    r"roughly|under|above|below|some|some \w+|top|within|than|by|since|until|till|from|to|between|and|or)\s*$",
    re.I)
"""A number after these words is a bound, a range end or a comparison: changing it may keep the claim true."""

SYNONYMS: tuple[tuple[str, str], ...] = (
    ("approximately", "about"), ("purchase", "buy"), ("purchased", "bought"), ("commence", "begin"),
    ("commenced", "began"), ("obtain", "get"), ("obtained", "got"), ("assist", "help"), ("assisted", "helped"),
    ("sufficient", "enough"), ("numerous", "many"), ("additional", "extra"), ("residence", "home"),
    ("residents", "inhabitants"), ("vehicle", "car"), ("customers", "clients"), ("staff", "employees"),
    ("large", "big"), ("small", "little"), ("began", "started"), ("finish", "end"),
    ("finished", "ended"), ("permitted", "allowed"), ("prohibited", "not allowed"), ("forbidden", "not allowed"),
    ("must not", "may not"), ("cannot", "may not"),
    ("located", "situated"), ("established", "founded"), ("died", "passed away"), ("however", "but"),
    ("film", "movie"), ("nation", "country"), ("city", "town"), ("perhaps", "maybe"), ("rapid", "fast"),
    ("quickly", "fast"), ("entire", "whole"), ("commonly", "often"), ("frequently", "often"),
    ("requires", "needs"), ("reside", "live"), ("resides", "lives"),
    ("resided", "lived"), ("currently", "now"), ("attempt", "try"), ("attempted", "tried"),
)
_ONE_WAY = {"not allowed", "may not", "about", "often", "fast", "home", "get", "got", "help", "helped", "many", "whole",
            "now", "try", "tried", "but", "enough", "extra", "live", "lives", "lived", "end", "ended", "started",
            "needs", "needed", "maybe", "start"}
"""Synonyms not used backwards: "about" may mean "concerning", "home" a house, "end" a noun."""
_SYNONYM = {a: b for a, b in SYNONYMS} | {b: a for a, b in SYNONYMS if b not in _ONE_WAY}
_SYNONYM_RISKY = {"city", "town", "film", "movie", "nation", "country", "small", "little", "large", "big"}

_NAME = re.compile(r"\b(?:[A-Z][a-z'’.-]+|[A-Z]{2,})(?:\s+(?:of|de|van|von|the|da|del|la|le|y)\s+[A-Z][a-z'’.-]+|"
                   r"\s+[A-Z][a-z'’.-]+|\s+[A-Z]\.)*")
_NUMBER = re.compile(r"(?<![\w.,:\[-])(?<![A-Z] )(?<![A-Z]{2} )(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)"
                     r"(?![\w,]*\d)(?![A-Za-z\]:-])"
                     r"(?:\s*(%|percent|per cent))?")
_YEAR = re.compile(r"\b(1[5-9]\d\d|20[0-4]\d)\b")
_CLOCK = re.compile(r"\b(\d{1,2})(?:[:.](\d{2}))?\s*(a\.m\.|p\.m\.|am|pm)\b", re.I)
_SPOKEN_TIME = re.compile(r"\b(half past|quarter past|quarter to) (" + "|".join(
    ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve")) + r")\b")
_DAY_TIME = (("midday", "midnight"), ("noon", "midnight"), ("morning", "evening"), ("afternoon", "morning"))
_QUANTITY = re.compile(r"(?<![\d.,:-])\b(\d+(?:\.\d+)?|" + "|".join(NUMBER_WORDS) + r")(?:-|\s+)(" +
                       "|".join(sorted({*UNITS, *UNIT_ABBREVIATIONS, "decade", "century"}, key=len, reverse=True)) +
                       r")(s|es)?\b", re.I)
_PLACE = r"((?:the )?[A-Z][\w'’.-]*(?: [A-Z][\w'’.-]*)*)"
_FROM_TO = re.compile(rf"\bfrom {_PLACE} to {_PLACE}")
_AGENT_VERBS = ("defeated", "beat", "succeeded", "replaced", "acquired", "bought", "sold", "hired",
                "fired", "sued", "interviewed", "coached", "trained", "mentored", "taught", "employed",
                "overtook", "preceded", "followed", "outsold", "outscored", "reports to", "will tell",
                "told", "owes", "paid", "invited", "managed", "directed",
                "wrote to", "called", "succeeds", "defeats", "beats", "acquires", "pays", "informs", "informed")
_AGENT = re.compile(r"\b((?:the )?[A-Z][\w'’.-]*(?: [A-Z][\w'’.-]*){0,3}) (" + "|".join(_AGENT_VERBS) +
                    r") ((?:the )?[A-Z][\w'’.-]*(?: [A-Z][\w'’.-]*){0,3})")
_AFTER_MONTH = re.compile(r"\b(" + "|".join(MONTHS) + r")\s*$")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"'(])")
_LEADING_PHRASE = re.compile(r"^((?:In|On|By|During|Since|After|Before|From|At) [^,\d]{0,30}\d*[^,\d]{0,10}), "
                             r"(?!\d)(?![a-z]+ \d)([A-Z].{10,200})$")
_PARENTHETICAL = re.compile(r" \([^()]{1,80}\)")
_APPOSITIVE = re.compile(r", (?:who|which|whose|where) [^,]{3,80},")
_TRAILING_CLAUSE = re.compile(r"^(.{25,}?), (?:and|but|while|whereas|which|who) .{10,}$")


@dataclass(frozen=True)
class Pair:
    """One generated training pair."""

    premise: str
    hypothesis: str
    label: str
    kind: str
    source: str

    def row(self) -> dict[str, str]:
        """The pair as a JSON Lines row."""
        return {"premise": self.premise, "hypothesis": self.hypothesis, "label": self.label, "kind": self.kind,
                "source": self.source}


def _case_like(template: str, word: str) -> str:
    """`word` with the capitalisation of `template`."""
    if template.isupper() and len(template) > 1:
        return word.upper()
    if template[:1].isupper():
        return word[:1].upper() + word[1:]
    return word


def _replace_word(text: str, pattern: str, replacement: str, rng: random.Random) -> str | None:
    """`text` with one (random) whole-word match of `pattern` replaced, capitalisation kept; None if none."""
    matches = list(re.finditer(pattern, text, flags=re.I))
    if not matches:
        return None
    m = rng.choice(matches)
    return text[:m.start()] + _case_like(m.group(0), replacement) + text[m.end():]


# --------------------------------------------------------------------------- refuting transformations

Transform = Callable[[str, str, random.Random], str | None]
"""(sentence, the passage it sits in, rng) -> a changed sentence, or None when the change does not apply."""


def negate(sentence: str, passage: str, rng: random.Random) -> str | None:
    """Add or drop a negation: "is" <-> "is not", "never" before a past-tense verb, or the reverse."""
    negated = _NEGATED_AUX.search(sentence)
    if negated is not None:
        return sentence[:negated.start(2)] + sentence[negated.end(2):]
    never = re.search(r"\bnever ", sentence)
    if never is not None:
        return sentence[:never.start()] + sentence[never.end():]
    if _ANY_NEGATION.search(sentence):
        return None
    aux = _AUX.search(sentence)
    if aux is not None and aux.group(1) not in ("can", "must", "may", "might", "will", "should", "do"):
        return f"{sentence[:aux.end()]} not{sentence[aux.end():]}"
    past = re.search(r"(?<=[a-z] )([a-z]{3,}ed|won|wrote|began|became|made|took|gave|went|saw|came|found|built|"
                     r"led|left|held|ran|sang|sold|bought|taught|told)\b", sentence)
    if past is not None:
        return f"{sentence[:past.start()]}never {sentence[past.start():]}"
    return None


def flip_modality(sentence: str, passage: str, rng: random.Random, *, everyday: bool = False) -> str | None:
    """Turn a permission into a prohibition or an obligation into an option, or back.

    A bare "may" is flipped in the everyday seeds only, where it grants a permission; elsewhere it is
    often a possibility ("it may rain" does not contradict "it may not rain").
    """
    flips = (*MODAL_FLIPS, (r"\bmay\b", "must not")) if everyday else MODAL_FLIPS
    for pattern, replacement in flips:
        match = re.search(pattern, sentence, flags=re.I)
        if match is not None:
            return sentence[:match.start()] + _case_like(match.group(0), replacement) + sentence[match.end():]
    return None


def swap_opposite(sentence: str, passage: str, rng: random.Random, *, everyday: bool = False) -> str | None:
    """Replace a word by its opposite (before/after, increase/decrease, open/closed...)."""
    words = [w for w in _OPPOSITE if everyday or w not in _OPPOSITE_RISKY]
    pattern = r"\b(" + "|".join(sorted(words, key=len, reverse=True)) + r")\b"
    matches = list(re.finditer(pattern, sentence, flags=re.I))
    if not matches:
        return None
    m = rng.choice(matches)
    return sentence[:m.start()] + _case_like(m.group(0), _OPPOSITE[m.group(0).lower()]) + sentence[m.end():]


def _other_number(value: float, rng: random.Random) -> float:
    """A clearly different number of the same size class."""
    if value == int(value) and value < 10:
        choices = [v for v in range(1, 13) if abs(v - value) >= 1 and v != value]
        return float(rng.choice(choices))
    factor = rng.choice((0.5, 0.6, 0.7, 1.5, 2.0, 3.0, 0.25, 4.0, 10.0, 0.1))
    other = value * factor
    other = round(other) if value == int(value) else round(other, 1)
    return float(other if other != value else value + 3)


def _format_like(original: str, value: float) -> str:
    if "," in original:
        return f"{int(value):,}"
    if "." in original:
        return f"{value:.{len(original.split('.')[1])}f}"
    return str(int(value)) if value == int(value) else f"{value:g}"


def change_number(sentence: str, passage: str, rng: random.Random) -> str | None:
    """Change one plain number the passage states (not a bound such as "over 500", not a year)."""
    matches = [m for m in _NUMBER.finditer(sentence)
               if not _YEAR.fullmatch(m.group(1)) and not _QUALIFIER_BEFORE.search(sentence[:m.start()])
               and m.group(1) in passage]
    if not matches:
        return None
    m = rng.choice(matches)
    value = float(m.group(1).replace(",", ""))
    return sentence[:m.start(1)] + _format_like(m.group(1), _other_number(value, rng)) + sentence[m.end(1):]


def change_year(sentence: str, passage: str, rng: random.Random) -> str | None:
    """Move one year the passage states by 1 to 30 years (not after "since", "by", "until"...)."""
    matches = [m for m in _YEAR.finditer(sentence) if not _QUALIFIER_BEFORE.search(sentence[:m.start()])
               and m.group(1) in passage]
    if not matches:
        return None
    m = rng.choice(matches)
    shift = rng.choice((-30, -20, -11, -10, -5, -3, -2, -1, 1, 2, 3, 4, 6, 10, 12, 25))
    return f"{sentence[:m.start()]}{int(m.group(1)) + shift}{sentence[m.end():]}"


def change_clock(sentence: str, passage: str, rng: random.Random) -> str | None:
    """Change a clock time ("9 am" -> "11 am", or am <-> pm)."""
    m = _CLOCK.search(sentence)
    spoken = _SPOKEN_TIME.search(sentence)
    if spoken is not None and (m is None or rng.random() < 0.5):
        hours = [w for w in ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
                             "twelve") if w != spoken.group(2)]
        return sentence[:spoken.start(2)] + rng.choice(hours) + sentence[spoken.end(2):]
    if m is None:
        for a, b in _DAY_TIME:
            if re.search(rf"\b{a}\b", sentence):
                return re.sub(rf"\b{a}\b", b, sentence, count=1)
        return None
    hour = int(m.group(1))
    if rng.random() < 0.3:
        suffix = m.group(3)
        flipped = {"am": "pm", "pm": "am", "a.m.": "p.m.", "p.m.": "a.m."}[suffix.lower()]
        return sentence[:m.start(3)] + _case_like(suffix, flipped) + sentence[m.end(3):]
    other = rng.choice([h for h in range(1, 13) if h != hour and abs(h - hour) >= 1])
    return f"{sentence[:m.start(1)]}{other}{sentence[m.end(1):]}"


def _unit_name(raw: str) -> str:
    low = raw.lower()
    return UNIT_ABBREVIATIONS.get(low, low)


def change_unit(sentence: str, passage: str, rng: random.Random) -> str | None:
    """Keep a quantity's number and change its unit (minutes -> hours, per day -> per week, MB -> GB)."""
    quantities = list(_QUANTITY.finditer(sentence))
    rates = [(a, b) for a, b in RATE_SWAPS if re.search(rf"\b{a}\b", sentence, flags=re.I)]
    if rates and (not quantities or rng.random() < 0.4):
        a, b = rng.choice(rates)
        return _replace_word(sentence, rf"\b{a}\b", b, rng)
    if not quantities:
        return None
    m = rng.choice(quantities)
    unit = _unit_name(m.group(2))
    if unit not in SWAP_UNITS:
        return None
    new = rng.choice(SWAP_UNITS[unit])
    if m.group(2).lower() in UNIT_ABBREVIATIONS or len(m.group(2)) <= 2:
        abbreviations = {v: k for k, v in UNIT_ABBREVIATIONS.items() if len(k) <= 3}
        new_text = new.upper() if m.group(2).isupper() else abbreviations.get(new, new)
        return sentence[:m.start(2)] + new_text + sentence[m.end(3) if m.group(3) else m.end(2):]
    plural = (m.group(3) or "") and ("ies" if new == "century" else "s")
    word = "centur" if new == "century" and plural else new
    rest = sentence[m.end(3) if m.group(3) else m.end(2):]
    return sentence[:m.start(2)] + _case_like(m.group(2), word) + plural + rest


def change_duration(sentence: str, passage: str, rng: random.Random) -> str | None:
    """Change the number of a duration or measure ("30 days" -> "14 days"), keeping its unit."""
    quantities = [m for m in _QUANTITY.finditer(sentence) if not _QUALIFIER_BEFORE.search(sentence[:m.start()])]
    if not quantities:
        return None
    m = rng.choice(quantities)
    raw = m.group(1)
    value = float(NUMBER_WORDS.get(raw.lower(), 0) or raw)
    other = _other_number(value, rng)
    text = _WORD_OF.get(int(other), str(int(other))) if raw.lower() in NUMBER_WORDS else _format_like(raw, other)
    if other == 1 and m.group(3):
        return None
    return sentence[:m.start(1)] + _case_like(raw, text) + sentence[m.end(1):]


def swap_names(sentence: str, passage: str, rng: random.Random) -> str | None:
    """Swap two different names within the sentence, or put another name of the passage in one's place."""
    found = [m for m in _NAME.finditer(sentence)
             if m.start() > 0 and m.group(0) not in _SKIP_NAMES and len(m.group(0)) > 2 and "." not in m.group(0)]
    distinct = list(dict.fromkeys(m.group(0) for m in found))
    if len(distinct) >= 2:
        a, b = rng.sample(distinct, 2)
        if a in b or b in a or not _same_shape(a, b) or not _related_by_words(sentence, a, b):
            return None
        placeholder = "\x00"
        swapped = sentence.replace(a, placeholder).replace(b, a).replace(placeholder, b)
        return swapped if swapped != sentence else None
    if not found:
        return None
    target = rng.choice(found)
    others = [m.group(0) for m in _NAME.finditer(passage) if m.start() > 0 and m.group(0) not in sentence
              and m.group(0) not in _SKIP_NAMES and _same_shape(m.group(0), target.group(0))]
    if not others:
        return None
    return sentence[:target.start()] + rng.choice(others) + sentence[target.end():]


def _related_by_words(sentence: str, a: str, b: str) -> bool:
    """Whether words stand between the two names ("A defeated B"), not just a list's commas ("A, B and C")."""
    first, second = sorted((sentence.find(a), sentence.find(b)))
    between = sentence[first:second]
    between = between[len(a) if between.startswith(a) else len(b):]
    words = [w for w in re.findall(r"[a-z]{3,}", between) if w not in {"and", "with", "the", "along"}]
    return bool(words) and "," not in between.strip()[:1]


_SKIP_NAMES = {"The", "A", "An", "He", "She", "It", "They", "In", "On", "At", "His", "Her", "Its", "This", "That",
               "I", "We", "You", "But", "And", "Or", "As", "For", "By", "If", "When", "After", "Before", *MONTHS,
               *WEEKDAYS}


def _same_shape(a: str, b: str) -> bool:
    """Names that could fill the same slot: both one word or both several, neither a month or weekday."""
    return (len(a.split()) > 1) == (len(b.split()) > 1)


def swap_roles(sentence: str, passage: str, rng: random.Random) -> str | None:
    """Reverse a direction or who did what to whom: "from A to B", "A defeated B"."""
    m = _FROM_TO.search(sentence)
    if m is not None and m.group(1) != m.group(2):
        return f"{sentence[:m.start(1)]}{m.group(2)} to {m.group(1)}{sentence[m.end(2):]}"
    m = _AGENT.search(sentence)
    if m is not None and m.group(1) != m.group(3) and m.group(1) not in _SKIP_NAMES and m.group(3) not in _SKIP_NAMES:
        first = m.group(3)[:1].upper() + m.group(3)[1:] if m.start() == 0 else m.group(3)
        second = m.group(1)[:1].lower() + m.group(1)[1:] if m.group(1).startswith("The ") else m.group(1)
        return f"{sentence[:m.start()]}{first} {m.group(2)} {second}{sentence[m.end():]}"
    return None


def swap_category(sentence: str, passage: str, rng: random.Random) -> str | None:
    """Replace a member of a closed class (nationality, country, colour, month, field...) by another one."""
    options = []
    for members in CATEGORIES.values():
        for member in members:
            if re.search(rf"\b{re.escape(member)}\b", sentence) and member in passage:
                options.append((member, members))
    if not options:
        return None
    member, members = rng.choice(options)
    others = [m for m in members if m != member and m not in passage]
    if not others:
        return None
    replacement = rng.choice(others)
    return re.sub(rf"\b{re.escape(member)}\b", replacement, sentence, count=1)


REFUTING: dict[str, Transform] = {
    "negation": negate, "permission": flip_modality, "opposite": swap_opposite, "number": change_number,
    "date": change_year, "time": change_clock, "unit": change_unit, "duration": change_duration,
    "name_swap": swap_names, "role_swap": swap_roles, "category": swap_category,
}
"""Every refuting transformation by the kind it is recorded as."""

# --------------------------------------------------------------------------- supporting transformations


def drop_clause(sentence: str, rng: random.Random) -> str | None:
    """Drop a parenthesis, a non-restrictive relative clause or a trailing coordinated clause."""
    for pattern in (_PARENTHETICAL, _APPOSITIVE):
        m = pattern.search(sentence)
        if m is not None:
            return sentence[:m.start()] + ("," if m.group(0).startswith(",") and False else "") + \
                sentence[m.end() - (1 if m.group(0).endswith(",") else 0):].lstrip(",") if False else \
                (sentence[:m.start()] + sentence[m.end():] if not m.group(0).endswith(",") else
                 sentence[:m.start()] + sentence[m.end() - 1:].replace(",", "", 1))
    m = _TRAILING_CLAUSE.match(sentence)
    if m is not None and not _ANY_NEGATION.search(sentence[m.end(1):]):
        return m.group(1).rstrip(",;") + "."
    return None


def move_leading_phrase(sentence: str, rng: random.Random) -> str | None:
    """ "In 2005, X won Y." -> "X won Y in 2005." """
    m = _LEADING_PHRASE.match(sentence.rstrip())
    if m is None:
        return None
    rest = m.group(2).rstrip(".")
    phrase = m.group(1)
    return f"{rest[:1].upper()}{rest[1:]} {phrase[:1].lower()}{phrase[1:]}."


def use_synonym(sentence: str, rng: random.Random) -> str | None:
    """Replace one word by a synonym from a short, safe table."""
    words = [w for w in _SYNONYM if w not in _SYNONYM_RISKY]
    pattern = r"\b(" + "|".join(sorted(words, key=len, reverse=True)) + r")\b"
    matches = list(re.finditer(pattern, sentence, flags=re.I))
    if not matches:
        return None
    m = rng.choice(matches)
    return sentence[:m.start()] + _case_like(m.group(0), _SYNONYM[m.group(0).lower()]) + sentence[m.end():]


def rewrite_number(sentence: str, rng: random.Random) -> str | None:
    """Write a number another way (1,500 <-> 1500, 3 <-> three) or convert a quantity to an agreeing unit."""
    quantity = _QUANTITY.search(sentence)
    if quantity is not None and rng.random() < 0.6:
        converted = _convert(quantity)
        if converted is not None:
            end = quantity.end(3) if quantity.group(3) else quantity.end(2)
            return sentence[:quantity.start()] + converted + sentence[end:]
    m = _NUMBER.search(sentence)
    if m is not None and not _YEAR.fullmatch(m.group(1)) and not _AFTER_MONTH.search(sentence[:m.start()]):
        raw = m.group(1)
        if "," in raw:
            return sentence[:m.start(1)] + raw.replace(",", "") + sentence[m.end(1):]
        if raw.isdigit() and int(raw) in _WORD_OF:
            return sentence[:m.start(1)] + _case_like(raw, _WORD_OF[int(raw)]) + sentence[m.end(1):]
        if raw.isdigit() and int(raw) >= 10000:
            return sentence[:m.start(1)] + f"{int(raw):,}" + sentence[m.end(1):]
    word = re.search(r"(?<![\w-])(" + "|".join(k for k, v in NUMBER_WORDS.items() if v <= 12) + r")(?![\w-])", sentence)
    if word is not None:
        return sentence[:word.start()] + str(NUMBER_WORDS[word.group(1).lower()]) + sentence[word.end():]
    return None


_CONVERSIONS: dict[str, tuple[tuple[str, float], ...]] = {
    "minute": (("second", 60),), "hour": (("minute", 60),), "day": (("hour", 24),), "week": (("day", 7),),
    "year": (("month", 12),), "decade": (("year", 10),), "century": (("year", 100),),
    "kilometre": (("metre", 1000),), "kilometer": (("meter", 1000),), "metre": (("centimetre", 100),),
    "meter": (("centimeter", 100),), "kilogram": (("gram", 1000),), "litre": (("millilitre", 1000),),
    "gb": (("mb", 1000),), "tb": (("gb", 1000),),
}


def _convert(quantity: re.Match[str]) -> str | None:
    """The quantity in a smaller unit with the same value ("2 hours" -> "120 minutes"), or None."""
    raw = quantity.group(1)
    value = float(NUMBER_WORDS.get(raw.lower(), 0) or raw)
    unit = _unit_name(quantity.group(2))
    if unit not in _CONVERSIONS or value <= 0:
        return None
    target, factor = _CONVERSIONS[unit][0]
    amount = value * factor
    if amount != int(amount) or amount > 100000:
        return None
    amount_text = f"{int(amount):,}" if amount >= 10000 else str(int(amount))
    if unit in ("gb", "tb"):
        return f"{amount_text} {target.upper()}"
    return f"{amount_text} {target}{'s' if amount != 1 else ''}"


COMPLEMENTS: tuple[tuple[str, str], ...] = (
    ("open", "closed"), ("allowed", "prohibited"), ("permitted", "forbidden"), ("required", "optional"),
    ("mandatory", "optional"), ("included", "excluded"), ("enabled", "disabled"), ("legal", "illegal"),
    ("accepted", "refused"), ("available", "unavailable"), ("possible", "impossible"), ("true", "false"),
    ("alive", "dead"), ("present", "absent"), ("visible", "invisible"), ("safe", "unsafe"),
)
"""Word pairs where one is exactly "not" the other: "is open" says the same as "is not closed"."""
_COMPLEMENT = {a: b for a, b in COMPLEMENTS} | {b: a for a, b in COMPLEMENTS}
_BE = re.compile(r"\b(is|are|was|were|will be|remains|remain|stays|stay)( not\b)?")


def double_flip(sentence: str, rng: random.Random) -> str | None:
    """Say the same with the complement and a negation: "The pool is open on Sundays" -> "... is not closed ..."."""
    pattern = r"\b(" + "|".join(sorted(_COMPLEMENT, key=len, reverse=True)) + r")\b"
    for word in re.finditer(pattern, sentence, flags=re.I):
        be = None
        for match in _BE.finditer(sentence, 0, word.start()):
            be = match
        if be is None or sentence[be.end():word.start()].strip(" ,") not in ("", "still", "also", "now", "always"):
            continue
        if re.match(r" (to|from)\b", sentence[word.end():]):  # "required to", "excluded from" have no flip
            continue
        flipped = sentence[:word.start()] + _case_like(word.group(0), _COMPLEMENT[word.group(0).lower()]) + \
            sentence[word.end():]
        if be.group(2):  # "is not open" -> "is closed"
            return flipped[:be.start(2)] + flipped[be.end(2):]
        return f"{flipped[:be.end(1)]} not{flipped[be.end(1):]}"
    return None


MODAL_SAME: tuple[tuple[str, ...], ...] = (
    ("cannot", "may not", "are not allowed to", "are not permitted to", "must not"),
    ("can", "may", "are allowed to", "are permitted to"),
    ("do not need to", "do not have to", "are not required to", "need not"),
    ("must", "have to", "are required to"),
)
"""Ways of saying the same permission, prohibition, option or obligation (plural subjects)."""


def modal_paraphrase(sentence: str, rng: random.Random) -> str | None:
    """The same permission or obligation in other words ("cannot" -> "are not allowed to")."""
    for group in MODAL_SAME:
        for form in sorted(group, key=len, reverse=True):
            match = re.search(rf"(?<=[a-z] )\b{form}\b", sentence)
            if match is None or (form in ("can", "may", "must") and re.match(r" not\b|n't", sentence[match.end():])):
                continue
            subject = sentence[:match.start()].split()
            if not subject or not subject[-1].endswith("s") or subject[-1].endswith("ss"):
                return None  # the forms above agree with a plural subject only
            return sentence[:match.start()] + rng.choice([f for f in group if f != form]) + sentence[match.end():]
    return None


CONTRACTIONS = (("is not", "isn't"), ("are not", "aren't"), ("does not", "doesn't"), ("do not", "don't"),
                ("did not", "didn't"), ("was not", "wasn't"), ("were not", "weren't"), ("cannot", "can't"),
                ("will not", "won't"), ("has not", "hasn't"), ("have not", "haven't"))
_CONTRACTION = {a: b for a, b in CONTRACTIONS} | {b: a for a, b in CONTRACTIONS}


def contract(sentence: str, rng: random.Random) -> str | None:
    """Write a negation contracted or in full ("does not" <-> "doesn't")."""
    pattern = r"\b(" + "|".join(re.escape(k) for k in sorted(_CONTRACTION, key=len, reverse=True)) + r")(?![\w'])"
    return _replace_word(sentence, pattern, "", rng) and re.sub(
        pattern, lambda m: _case_like(m.group(0), _CONTRACTION[m.group(0).lower()]), sentence, count=1, flags=re.I)


IDIOMS: tuple[tuple[str, str], ...] = (
    ("half an hour", "30 minutes"), ("a quarter of an hour", "15 minutes"), ("an hour and a half", "90 minutes"),
    ("a fortnight", "two weeks"), ("two weeks", "14 days"), ("a decade", "ten years"), ("a century", "100 years"),
    ("midday", "12 pm"),
    ("noon", "12 pm"), ("half past", "thirty minutes past"), ("a dozen", "12"), ("half", "50 percent"),
    ("a quarter", "25 percent"), ("twice a week", "two times a week"), ("once a month", "one time a month"),
)
"""Quantities said in words and in figures, the same either way."""
_IDIOM = {a: b for a, b in IDIOMS} | {b: a for a, b in IDIOMS}


def idiom(sentence: str, rng: random.Random) -> str | None:
    """A quantity in words said in figures, or the reverse ("half an hour" <-> "30 minutes")."""
    pattern = r"(?<![\w-])(" + "|".join(re.escape(k) for k in sorted(_IDIOM, key=len, reverse=True)) + r")(?![\w-])"
    match = re.search(pattern, sentence, flags=re.I)
    if match is None:
        return None
    said = _case_like(match.group(0), _IDIOM[match.group(0).lower()])
    return sentence[:match.start()] + said + sentence[match.end():]


SUPPORTING: dict[str, Callable[[str, random.Random], str | None]] = {
    "drop_clause": drop_clause, "move_phrase": move_leading_phrase, "synonym": use_synonym,
    "number_form": rewrite_number, "double_flip": double_flip, "modal": modal_paraphrase, "contraction": contract,
    "idiom": idiom,
}


def reworded(sentence: str, rng: random.Random) -> tuple[str, str] | None:
    """The sentence said another way by one or two supporting transformations: (text, kinds), or None."""
    names = list(SUPPORTING)
    rng.shuffle(names)
    text, used = sentence, []
    for name in names:
        changed = SUPPORTING[name](text, rng)
        if changed and changed != text and len(changed) > 15:
            text, used = changed, [*used, name]
            if len(used) == 2 or rng.random() < 0.5:
                break
    return (text, "+".join(used)) if used else None


# --------------------------------------------------------------------------- unverifiable claims

ADDED_DETAILS = (
    " in {year}", " for the first time", " in {month}", ", according to official figures", " every {weekday}",
    " in {country}", " since {year}", " for {n} years",
)


def add_detail(sentence: str, passage: str, rng: random.Random) -> str | None:
    """The sentence with a detail the passage does not give (a year, a place, a frequency...)."""
    body = sentence.rstrip()
    if not body.endswith("."):
        return None
    template = rng.choice(ADDED_DETAILS)
    detail = template.format(year=rng.randrange(1950, 2024), month=rng.choice(MONTHS),
                             weekday=rng.choice(WEEKDAYS), country=rng.choice(COUNTRIES), n=rng.randrange(2, 40))
    if detail.strip(" ,").split()[-1] in passage:
        return None
    if template in (" in {year}", " since {year}", " for {n} years") and (_YEAR.search(body) or
                                                                         re.search(r"\bsince\b|\bfor \d", body)):
        return None
    return body[:-1] + detail + "."


# --------------------------------------------------------------------------- seeds


@dataclass(frozen=True)
class Seed:
    """An evidence sentence with the passage around it (the passage may be the sentence itself)."""

    sentence: str
    passage: str
    source: str
    everyday: bool = False
    others: tuple[str, ...] = ()
    """Other sentences of the same document: claims the passage does not decide."""


def sentences_of(text: str) -> list[str]:
    """A text cut into sentences (the same cut everywhere in this script)."""
    return [s.strip() for s in _SENTENCE_END.split(text.strip()) if len(s.strip()) > 20]


def read_jsonl(path: Path) -> Iterator[dict]:
    """The rows of a JSON Lines file."""
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                yield json.loads(line)


def evidence_seeds(nli_dir: Path, benchmark_dir: Path, rng: random.Random, per_source: int) -> list[Seed]:
    """Evidence sentences from FEVER train, the NLI mix's premises and the benchmarks' train parts."""
    seeds: list[Seed] = []
    fever = [r for r in read_jsonl(nli_dir / "train" / "fever.jsonl") if r["label"] == "supported"]
    rng.shuffle(fever)
    for row in fever[:per_source]:
        parts = sentences_of(row["premise"])
        if not parts:
            continue
        # The claim FEVER wrote is entailed by its evidence: perturb it against that evidence.
        seeds.append(Seed(row["hypothesis"], row["premise"], "fever claim"))
        sentence = rng.choice(parts)
        seeds.append(Seed(sentence, row["premise"], "fever evidence",
                          others=tuple(p for p in parts if p != sentence and len(p) <= MAX_CLAIM_CHARS)))
    mix = [r for r in read_jsonl(nli_dir / "train" / "nli_mix.jsonl") if len(r["premise"]) > 40]
    rng.shuffle(mix)
    seen: set[str] = set()
    for row in mix:
        if len(seen) >= per_source // 2:
            break
        if row["premise"] in seen:
            continue
        seen.add(row["premise"])
        seeds.append(Seed(row["premise"], row["premise"], f"{row['source']} premise"))
        if row["label"] == "supported" and not _ANY_NEGATION.search(row["hypothesis"]):
            seeds.append(Seed(row["hypothesis"], row["premise"], f"{row['source']} entailed hypothesis"))
    split = ClaimSplit(benchmark_dir)
    for name in ("climatefever_claims.jsonl", "factcheckgpt_pairs.dev.jsonl"):
        for row in split.rows(name, "train"):
            parts = sentences_of(row["evidence"])
            for sentence in rng.sample(parts, min(3, len(parts))):
                index = parts.index(sentence)
                window = " ".join(parts[max(0, index - 1):index + 2])
                seeds.append(Seed(sentence, window if rng.random() < 0.5 else sentence, f"{name} train evidence",
                                  others=tuple(p for p in parts if p != sentence and p not in window
                                               and len(p) <= MAX_CLAIM_CHARS)))
    return seeds


# Everyday seeds: composed from small vocabularies, so the rules, times and specifications of a
# chat answer's sources are present (FEVER and NLI hold few of them).
_GROUPS = ("Customers", "Guests", "Visitors", "Members", "Employees", "Students", "Passengers", "Tenants",
           "Patients", "Residents", "Contractors", "Volunteers", "Children under 12", "Season ticket holders",
           "Staff", "Users on the free plan", "Interns", "Library members", "Hotel guests", "Drivers")
_ACTIONS = ("return unworn items", "bring their own food", "park in the visitor car park", "use the swimming pool",
            "cancel a booking", "change their seat", "bring a dog", "smoke on the balcony", "work from home",
            "borrow up to ten books", "take photographs in the gallery", "share their login details",
            "bring a guest", "store bikes in the hallway", "request a refund", "use the staff kitchen",
            "book a meeting room", "access the archive", "pay in cash", "carry a second bag on board",
            "renew a loan online", "exchange gift cards for cash", "install their own software",
            "leave luggage at reception", "attend the workshop", "charge electric cars overnight",
            "bring glass bottles to the beach", "join the waiting list", "skip the safety briefing",
            "enter the laboratory without goggles")
_CONDITIONS = ("", "", " after 10 pm", " without a receipt", " before check-in", " during exams", " on weekends",
               " at any time", " within 30 days", " with a manager's approval", " in the main building")
_PLACES = ("Lyon", "Turin", "Porto", "Leeds", "Bergen", "Graz", "Utrecht", "Aarhus", "Cork", "Bilbao", "Malmo",
           "Ghent", "Bristol", "Basel", "Krakow", "Verona", "Tampere", "Brno", "Nantes", "Split")
_VENUES = ("The library", "The museum", "The pharmacy", "The ticket office", "The pool", "The visitor centre",
           "The bakery", "The recycling centre", "The clinic", "The town hall", "The gallery shop", "The gym",
           "The post office", "The help desk", "The café")
_PRODUCTS = ("The kettle", "The router", "The e-bike", "The blender", "The drill", "The laptop", "The heater",
             "The camera", "The speaker", "The vacuum cleaner", "The tablet", "The projector")
_PEOPLE = ("Maria Lopez", "Tom Becker", "Aisha Khan", "Lukas Novak", "Emma Schmidt", "Kenji Sato", "Olivia Brown",
           "Pavel Horak", "Sofia Rossi", "Daniel Kim", "Grace Okafor", "Jonas Berg", "Lea Dubois", "Omar Haddad")
_TEAMS = ("the finance team", "the design team", "the board", "the support desk", "the sales team", "legal")


def everyday_seeds(count: int, rng: random.Random) -> list[Seed]:
    """Composed everyday statements (rules, hours, journeys, specifications, meeting notes) as seeds."""
    makers = (_rule, _hours, _journey, _spec, _meeting, _price, _deadline)
    seeds = []
    for _ in range(count):
        sentences = [rng.choice(makers)(rng) for _ in range(rng.randrange(2, 5))]
        target = rng.randrange(len(sentences))
        passage = " ".join(sentences)
        premise = passage if rng.random() < 0.6 else sentences[target]
        seeds.append(Seed(sentences[target], premise, "everyday (composed)", everyday=True,
                          others=tuple(s for i, s in enumerate(sentences) if i != target and s not in premise)))
    return seeds


def _rule(rng: random.Random) -> str:
    modal = rng.choice(("may", "can", "cannot", "must not", "are allowed to", "are not allowed to", "must",
                        "are required to", "do not need to", "are permitted to", "are prohibited from"))
    action = rng.choice(_ACTIONS)
    if modal == "are prohibited from":
        action = re.sub(r"^(\w+)", lambda m: m.group(1) + ("ing" if not m.group(1).endswith("e") else "")
                        if not m.group(1).endswith("e") else m.group(1)[:-1] + "ing", action)
    return f"{rng.choice(_GROUPS)} {modal} {action}{rng.choice(_CONDITIONS)}."


def _hours(rng: random.Random) -> str:
    opening, closing = rng.randrange(6, 11), rng.randrange(4, 10)
    days = rng.choice(("Monday to Friday", "on weekdays", "on Saturdays", "every day", "on Sundays",
                       "from Tuesday to Saturday"))
    if rng.random() < 0.25:
        return f"{rng.choice(_VENUES)} is closed {rng.choice(('on Mondays', 'on Sundays', 'on public holidays'))}."
    return f"{rng.choice(_VENUES)} opens at {opening} am and closes at {closing} pm {days}."


def _journey(rng: random.Random) -> str:
    a, b = rng.sample(_PLACES, 2)
    minutes = rng.choice((15, 20, 25, 40, 45, 50, 90))
    shape = rng.randrange(4)
    if shape == 0:
        return f"The train from {a} to {b} takes {minutes} minutes."
    if shape == 1:
        return f"The last bus from {a} to {b} leaves at {rng.randrange(8, 12)} pm."
    if shape == 2:
        return f"Ferries from {a} to {b} run {rng.choice(('every hour', 'twice a day', 'three times a week'))}."
    return f"{rng.choice(_PEOPLE)} moved from {a} to {b} in {rng.randrange(1990, 2024)}."


def _spec(rng: random.Random) -> str:
    product = rng.choice(_PRODUCTS)
    shape = rng.randrange(5)
    if shape == 0:
        return f"{product} weighs {rng.randrange(2, 30) / 2:g} kilograms."
    if shape == 1:
        return f"{product}'s battery lasts up to {rng.randrange(2, 13)} hours on a single charge."
    if shape == 2:
        return f"{product} comes with a {rng.choice((1, 2, 3, 5))}-year warranty."
    if shape == 3:
        return f"{product} is available in {rng.choice(COLOURS)} and {rng.choice(COLOURS)}."
    return f"{product} charges fully in {rng.choice((30, 45, 90, 120))} minutes."


def _meeting(rng: random.Random) -> str:
    a, b = rng.sample(_PEOPLE, 2)
    shape = rng.randrange(4)
    if shape == 0:
        return f"{a} will tell {b} about the decision by {rng.choice(WEEKDAYS)}."
    if shape == 1:
        return f"{a} reports to {b} from {rng.choice(MONTHS)}."
    if shape == 2:
        return f"The budget was increased by {rng.randrange(5, 40)} percent after {a} presented the figures."
    return f"{a} replaced {b} as head of {rng.choice(_TEAMS)} in {rng.choice(MONTHS)} {rng.randrange(2015, 2026)}."


def _price(rng: random.Random) -> str:
    thing = rng.choice(("A day ticket", "Entry", "Delivery", "A monthly pass", "Parking", "The guided tour",
                        "Express shipping", "A replacement card"))
    price = rng.choice((2, 3, 4.5, 5, 7, 9, 12, 15, 20, 25, 40))
    if rng.random() < 0.2:
        return f"{thing} is free for {rng.choice(_GROUPS).lower()}."
    per = rng.choice(("per day", "per person", "per week", "per month", "per hour"))
    return f"{thing} costs {price:g} euros {per}."


def _deadline(rng: random.Random) -> str:
    shape = rng.randrange(3)
    if shape == 0:
        return (f"Refunds are issued within {rng.choice((3, 5, 7, 10, 14))} business days "
                f"{rng.choice(('before', 'after'))} the return is received.")
    if shape == 1:
        return f"Applications must be submitted before {rng.randrange(1, 29)} {rng.choice(MONTHS)}."
    return f"Bookings can be changed up to {rng.choice((2, 12, 24, 48))} hours before departure."


# --------------------------------------------------------------------------- assembling pairs


NEGATION_LAST = 0.75
"""Share of seeds on which a negation is tried only after every other refuting change."""
MAX_CLAIM_CHARS = 300
"""Longer sentences (tables, lists, web boilerplate) make poor claims; they are not used as seeds."""


def pairs_for(seed: Seed, rng: random.Random) -> list[Pair]:
    """The pairs one seed gives: a supported twin, usually one refuted change of it, maybe an unverifiable claim."""
    out: list[Pair] = []
    base = seed.sentence
    if base.rstrip().endswith("?") or len(base) > MAX_CLAIM_CHARS:
        return out
    rewrite = reworded(base, rng)
    claim = base
    if rewrite is not None:
        claim = rewrite[0]
        out.append(Pair(seed.passage, claim, "supported", f"reworded:{rewrite[1]}", seed.source))
    elif rng.random() < (0.6 if seed.passage != base else 0.25):  # a bare copy teaches little
        out.append(Pair(seed.passage, base, "supported", "sentence of the passage", seed.source))
    kinds = list(REFUTING)
    rng.shuffle(kinds)
    if rng.random() < NEGATION_LAST:  # a negation fits almost any sentence: give the rarer changes their turn
        kinds.remove("negation")
        kinds.append("negation")
    for kind in kinds:
        transform = REFUTING[kind]
        if seed.everyday and kind in ("opposite", "permission"):
            changed = (swap_opposite if kind == "opposite" else flip_modality)(claim, seed.passage, rng, everyday=True)
        else:
            changed = transform(claim, seed.passage, rng)
        if changed is None or changed == claim or _normalised(changed) == _normalised(claim):
            continue
        out.append(Pair(seed.passage, changed, "refuted", kind, seed.source))
        break
    if seed.others and rng.random() < 0.6:
        out.append(Pair(seed.passage, rng.choice(seed.others), "unverifiable", "other sentence of the document",
                        seed.source))
    elif rng.random() < 0.4:
        added = add_detail(claim, seed.passage, rng)
        if added is not None:
            out.append(Pair(seed.passage, added, "unverifiable", "added detail", seed.source))
    return out


def _normalised(text: str) -> str:
    return re.sub(r"\W+", " ", text.lower()).strip()


def generate(nli_dir: Path, benchmark_dir: Path, seed: int, per_source: int, everyday: int) -> list[Pair]:
    """All pairs, shuffled, with exact duplicates and pairs whose claim equals the premise removed."""
    rng = random.Random(seed)
    seeds = evidence_seeds(nli_dir, benchmark_dir, rng, per_source) + everyday_seeds(everyday, rng)
    pairs: dict[tuple[str, str], Pair] = {}
    for item in seeds:
        for pair in pairs_for(item, rng):
            if pair.label != "supported" and _normalised(pair.hypothesis) in _normalised(pair.premise):
                continue
            pairs.setdefault((pair.premise, pair.hypothesis), pair)
    out = list(pairs.values())
    rng.shuffle(out)
    return out


def main(argv: list[str] | None = None) -> int:
    """Write the pairs and print their counts by label, kind and source."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nli-dir", type=Path, default=DEFAULT_NLI_DIR, help="the shared nli folder")
    parser.add_argument("--benchmark-dir", type=Path, default=BENCHMARK_DIR, help="the shared benchmarks folder")
    parser.add_argument("--out", type=Path, required=True, help="output JSON Lines file")
    parser.add_argument("--per-source", type=int, default=12000,
                        help="FEVER rows (and half as many NLI premises) to draw seeds from")
    parser.add_argument("--everyday", type=int, default=8000, help="composed everyday seeds")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--show", type=int, default=0, help="print this many pairs of each kind")
    args = parser.parse_args(argv)
    pairs = generate(args.nli_dir, args.benchmark_dir, args.seed, args.per_source, args.everyday)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", encoding="utf-8") as handle:
        for pair in pairs:
            handle.write(json.dumps(pair.row(), ensure_ascii=False) + "\n")
    print(f"{len(pairs)} pairs -> {args.out}")
    print("labels:", dict(Counter(p.label for p in pairs)))
    print("kinds:", dict(Counter(p.kind.split(":")[0] for p in pairs).most_common()))
    print("sources:", dict(Counter(p.source for p in pairs).most_common()))
    if args.show:
        by_kind: dict[str, list[Pair]] = {}
        for pair in pairs:
            by_kind.setdefault(pair.kind, []).append(pair)
        for kind, group in sorted(by_kind.items()):
            for pair in group[: args.show]:
                print(f"[{kind} -> {pair.label}] P: {pair.premise[:160]!r}\n    H: {pair.hypothesis!r}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
