"""The settings options `check`, `batch`, `serve`, `mcp` and `eval` share, built from `Context`'s field metadata.

Each Context field whose metadata holds a `Flag` becomes an option of its own (on every one of
these commands, or on `check` only); its help is the field's description with the default read
from the field; the option's value arrives under the field's name, so `context_settings` maps
the parsed options onto Context with no renaming. Every other field takes `--set NAME=VALUE`,
converted from the field's type.

An option's value and a `--set` value are read the same way (`convert`) and checked by Context's own
check (`veracity.context.setting_problem`), so a refused value is a usage error (exit 2) in the words
Python and the server use too.
"""

from __future__ import annotations

import difflib
import functools
import types
from collections.abc import Callable, Mapping, Sequence
from dataclasses import MISSING
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints

import click

from veracity.context import SETTINGS, Context, Flag, setting_problem, setting_rule
from veracity.evidence.capabilities import SEARCH_KINDS
from veracity.llm.caps import CAP_SETTINGS
from veracity.setting_rules import Bounds

Command = Literal["check", "batch", "serve", "mcp", "eval", "calibrate"]
"""The commands that run checks (or a judge) and so take the settings."""

JUDGE_ONLY = ("model", "judge_model", "cache", "cache_path")
"""The settings `veracity calibrate` offers as options: it runs the judge alone on given evidence."""

SET_PARAM = "set_values"
"""The parameter `--set` fills."""
TOKEN_CAPS_PARAM = "token_caps"
"""The parameter `--max-tokens` fills (`check` only)."""

_TYPES = get_type_hints(Context)
_TRUE = ("true", "yes", "on", "1")
_FALSE = ("false", "no", "off", "0")
_NONE = ("none", "null")


def flag_of(name: str) -> Flag | None:
    """The option the command line gives the Context field `name`, if any."""
    flag = SETTINGS[name].metadata.get("cli")
    return flag if isinstance(flag, Flag) else None


def dedicated(command: Command) -> tuple[str, ...]:
    """The Context fields `command` offers as options of their own, in Context's order."""
    if command == "calibrate":
        return tuple(name for name in SETTINGS if name in JUDGE_ONLY)
    return tuple(name for name in SETTINGS
                 if (flag := flag_of(name)) is not None and (flag.everywhere or command == "check"))


def option_names(name: str) -> tuple[str, ...]:
    """The option strings of the Context field `name` ('--kb'; '--model', '-m')."""
    flag = flag_of(name) or Flag()
    return (flag.name or "--" + name.replace("_", "-"), *((flag.short,) if flag.short else ()))


def settable(command: Command) -> tuple[str, ...]:
    """The Context fields `command` takes through `--set`: all those without an option of their own there."""
    own = set(dedicated(command))
    return tuple(name for name in SETTINGS if name not in own)


def shown_default(name: str) -> str | None:
    """How the help says the default of the Context field `name` (None: the description says it)."""
    field = SETTINGS[name]
    flag = flag_of(name) or Flag()
    if flag.shown_default is not None:
        return flag.shown_default
    if field.default is None or field.default is MISSING:
        return None
    if isinstance(field.default, bool):
        return "on" if field.default else "off"
    if isinstance(field.default, float):
        return f"{field.default:g}"
    return str(field.default)


def option_help(name: str, note: str | None = None) -> str:
    """The help of the option for the Context field `name`: its description, a command's note, its default."""
    field = SETTINGS[name]
    flag = flag_of(name) or Flag()
    parts = [flag.help or str(field.metadata["description"])]
    if note:
        parts.append(note)
    rule = setting_rule(name)
    if isinstance(rule, Bounds):
        parts.append(f"Must {rule.says(whole=_value_type(name) is int)}.")
    default = shown_default(name)
    if default is not None and not _is_switch(name):
        parts.append(f"Default: {default}.")
    return " ".join(parts)


def _is_switch(name: str) -> bool:
    """A bool field offered as one flag that turns it to the other value ('--no-cache')."""
    return _TYPES[name] is bool and "/" not in option_names(name)[0]


def _value_type(name: str) -> Any:
    """The field's type without None: `str | None` is `str`."""
    hint = _TYPES[name]
    if get_origin(hint) in (Union, types.UnionType):
        [hint] = [arg for arg in get_args(hint) if arg is not type(None)]
    return hint


def _optional(name: str) -> bool:
    return type(None) in get_args(_TYPES[name])


class SettingValue(click.ParamType[Any]):
    """An option's value for the Context field `name`: read as `--set` reads it, checked as Context checks it."""

    def __init__(self, name: str) -> None:
        self.setting = name
        kind = _value_type(name)
        self.name = {int: "integer", float: "number"}.get(kind, "text")

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        """The value, or a usage error in Context's words."""
        if not isinstance(value, str):
            value = str(value)
        try:
            return convert(self.setting, value)
        except ValueError as error:
            self.fail(str(error), param, ctx)


class SettingChoice(click.Choice[str]):
    """An option's value for the Literal Context field `name`, among `choices` (help and completion list them)."""

    def __init__(self, name: str, choices: Sequence[str]) -> None:
        super().__init__(list(choices))
        self.setting = name

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        """The choice, or a usage error in Context's words (naming this command's choices where they are fewer)."""
        try:
            chosen = convert(self.setting, str(value))
        except ValueError as error:
            self.fail(str(error), param, ctx)
        if chosen not in self.choices:
            self.fail(f"{self.setting} must be one of {', '.join(map(str, self.choices))} here, got {value!r}",
                      param, ctx)
        return chosen


def _click_type(name: str, flag: Flag, choices: Sequence[str] | None) -> click.ParamType[Any]:
    if flag.kind == "file":
        return click.Path(dir_okay=False)
    if flag.kind == "folder":
        return click.Path(file_okay=False)
    kind = _value_type(name)
    if get_origin(kind) is Literal:
        return SettingChoice(name, choices if choices is not None else [str(choice) for choice in get_args(kind)])
    return SettingValue(name)


def checked(name: str, value: Any) -> Any:
    """`value` for the Context field `name`, as Context itself checks it (ValueError with the reason if not).

    None is an option not given: the field keeps its default.
    """
    problem = None if value is None else setting_problem(name, value)
    if problem is not None:
        raise ValueError(problem)
    return value


def _validate(name: str) -> Callable[[click.Context, click.Parameter, Any], Any]:
    def callback(_context: click.Context, _param: click.Parameter, value: Any) -> Any:
        try:
            return checked(name, value)
        except ValueError as exc:
            raise click.BadParameter(str(exc)) from None

    return callback


def setting_option(name: str, *, choices: Sequence[str] | None = None,
                   note: str | None = None) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """The click option for the Context field `name` (its value arrives under `name`, None when not given)."""
    flag = flag_of(name) or Flag()
    names = option_names(name)
    common: dict[str, Any] = {"default": None, "help": option_help(name, note), "callback": _validate(name)}
    if _TYPES[name] is bool:
        if _is_switch(name):
            return click.option(*names, name, is_flag=True, flag_value=not SETTINGS[name].default, **common)
        return click.option(*names, name, **common)
    return click.option(*names, name, type=_click_type(name, flag, choices), metavar=flag.metavar, **common)


def convert(name: str, raw: str) -> Any:
    """`raw` as a value of the Context field `name`, read as the field's type and checked as Context checks it.

    Text that is not of the field's type is passed on as it is, so Context's check says what the field takes.
    """
    kind = _value_type(name)
    text = raw.strip()
    if _optional(name) and text.lower() in _NONE:
        return None
    if get_origin(kind) is Literal:
        choices = [str(choice) for choice in get_args(kind)]
        if text not in choices:
            close = difflib.get_close_matches(text, choices, n=3)
            hint = f" (did you mean {' or '.join(close)}?)" if close else ""
            raise ValueError(f"{_problem(name, raw)}{hint}")
        return checked(name, text)
    if kind is bool:
        if text.lower() not in _TRUE + _FALSE:
            raise ValueError(f"{_problem(name, raw)} (yes/no, on/off and 1/0 work too)")
        return checked(name, text.lower() in _TRUE)
    if kind in (int, float):
        try:
            value = kind(text)
        except ValueError:
            raise ValueError(_problem(name, raw)) from None
        return checked(name, value)
    return checked(name, raw)


def _problem(name: str, raw: str) -> str:
    """What Context says of `raw`, the text itself, as the field `name`."""
    return setting_problem(name, raw) or f"{name} cannot be {raw!r}"


def parse_set(command: Command, values: Sequence[str]) -> dict[str, Any]:
    """Repeated `--set NAME=VALUE` as Context settings; click.BadParameter names the field and close matches."""
    own = dedicated(command)
    allowed = settable(command)
    settings: dict[str, Any] = {}
    for value in values:
        name, equals, raw = value.partition("=")
        name = name.strip().replace("-", "_")
        if not equals or not name:
            raise click.BadParameter(f"expected NAME=VALUE, got {value!r}")
        if name in own:
            raise click.BadParameter(f"{name} has its own option: use {option_names(name)[0].split('/')[0]}")
        if name not in allowed:
            close = difflib.get_close_matches(name, [*allowed, *own], n=3)
            hint = f"did you mean {' or '.join(close)}?" if close else f"the settings are: {', '.join(allowed)}"
            raise click.BadParameter(f"unknown setting {name!r}; {hint}")
        try:
            settings[name] = convert(name, raw)
        except ValueError as exc:
            raise click.BadParameter(str(exc)) from None
    return settings


def set_option(command: Command) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """`--set NAME=VALUE` (repeatable) for the Context fields `command` has no option of its own for."""
    return click.option(
        "--set", SET_PARAM, multiple=True, metavar="NAME=VALUE",
        callback=lambda _context, _param, values: parse_set(command, values),
        help="Any other setting, by its Context name, e.g. --set max_judge_attempts=5 (repeatable; a value is "
             f"read as the setting's type, 'none' unsets it). Settings: {', '.join(settable(command))}.",
    )


def token_caps(values: Sequence[str]) -> dict[str, int]:
    """Repeated `--max-tokens STEP=N` as Context settings."""
    caps: dict[str, int] = {}
    for value in values:
        step, _, number = value.partition("=")
        if step not in CAP_SETTINGS or not number.isdigit() or int(number) < 1:
            raise click.BadParameter(f"expected STEP=N with STEP one of {', '.join(CAP_SETTINGS)} and N a positive "
                                     f"number of tokens, got {value!r}")
        caps[CAP_SETTINGS[step]] = int(number)
    return caps


def _max_tokens_option() -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    judge, revise = (SETTINGS[name].default for name in ("judge_max_tokens", "revise_max_tokens"))
    return click.option(
        "--max-tokens", TOKEN_CAPS_PARAM, multiple=True, metavar="STEP=N",
        callback=lambda _context, _param, values: token_caps(values),
        help="Most tokens one model answer of STEP (extract, judge, revise) may take; a longer answer is cut "
             "off, rejected by the gate with the reason and asked again. Repeatable. Default: extract 256 + 0.75 "
             f"per character of text, judge {judge}, revise {revise}.",
    )


def context_settings(values: Mapping[str, Any]) -> dict[str, Any]:
    """The parsed settings options as Context settings: the options given, `--set` and `--max-tokens` merged."""
    given = {name: value for name, value in values.items() if name not in (SET_PARAM, TOKEN_CAPS_PARAM)}
    merged = {**given, **values.get(TOKEN_CAPS_PARAM, {}), **values.get(SET_PARAM, {})}
    return {name: value for name, value in merged.items() if value is not None}


def settings_options(
    command: Command, *, searches: Sequence[str] = SEARCH_KINDS, notes: Mapping[str, str] | None = None,
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Add the settings options of `command` to a click command function, which gets them as `settings`.

    `searches` are the search kinds offered; `notes` adds a sentence for this command to a field's help.
    """
    notes = notes or {}
    names = dedicated(command)
    options = [setting_option(name, choices=searches if name == "search" else None, note=notes.get(name))
               for name in names]
    params = [*names, SET_PARAM]
    if command == "check":
        options.append(_max_tokens_option())
        params.append(TOKEN_CAPS_PARAM)
    options.append(set_option(command))

    def decorate(function: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(function)
        def with_settings(*args: Any, **kwargs: Any) -> Any:
            given = {param: kwargs.pop(param) for param in params}
            return function(*args, settings=context_settings(given), **kwargs)

        for option in reversed(options):
            with_settings = option(with_settings)
        return with_settings

    return decorate

