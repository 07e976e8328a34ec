"""The settings reference: every field of `veracity.Context`, read from its type, default and metadata.

Each field's metadata (`veracity.context.setting`) holds its section, description and rule; which command
offers it as an option, and under which name, is read from the click commands themselves, so the page
says what `veracity --help` says.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Mapping
from typing import Any

import click

SECTION_TITLES = {
    "models": "Models",
    "evidence": "Evidence",
    "pages": "Page checks",
    "limits": "Limits and retries",
    "cache": "Cache",
    "prompts": "Prompts",
}
"""The heading of each section of settings; a section not named here is titled by its name."""

LONG_TEXT = 80
"""A text default longer than this (or of several lines) is shown whole below its setting, not inline."""


def settings_reference() -> str:
    """An overview table of every setting, then a section per group with each setting's full entry."""
    from veracity import Context

    fields = dataclasses.fields(Context)
    hints = typing.get_type_hints(Context)
    offered = _options_by_command()
    sections: dict[str, list[dataclasses.Field[Any]]] = {}
    for field in fields:
        sections.setdefault(str(field.metadata["section"]), []).append(field)

    lines = ["| setting | section | default | option |", "|---|---|---|---|"]
    for field in fields:
        lines.append(f"| [`{field.name}`](#{field.name}) | {_title(str(field.metadata['section']))} | "
                     f"{_inline_default(field)} | {_option_names(field.name, offered)} |")
    parts = ["\n".join(lines) + "\n"]
    for section, members in sections.items():
        parts.append(f"## {_title(section)}\n")
        parts.extend(_entry(field, hints[field.name], offered) for field in members)
    return "\n".join(parts)


def _title(section: str) -> str:
    return SECTION_TITLES.get(section, section.capitalize())


def _entry(field: dataclasses.Field[Any], hint: Any,
           offered: Mapping[str, Mapping[str, tuple[click.Option, str]]]) -> str:
    """One setting: its heading, description, type, default, rule and how each command takes it."""
    lines = [f"### `{field.name}`", "", str(field.metadata["description"]), "",
             f"- Type: {_type_words(hint)}.", f"- Default: {_inline_default(field)}."]
    rule = field.metadata.get("rule")
    if rule is not None:
        lines.append(f"- Must {_rule_words(rule, hint)}.")
    lines.append(f"- Command line: {_command_line(field.name, offered)}.")
    text = field.default if isinstance(field.default, str) and _is_long(field.default) else None
    if text is not None:
        fence = "`" * max(3, _longest_backtick_run(text) + 1)
        lines += ["", "<details><summary>The default text</summary>", "", f"{fence}text", text.rstrip(), fence, "",
                  "</details>"]
    return "\n".join(lines) + "\n"


def _type_words(hint: Any) -> str:
    """The type in words: 'one of `auto`, `web`', 'a whole number', 'text, or none'."""
    args = typing.get_args(hint)
    optional = typing.get_origin(hint) in (typing.Union, types.UnionType) and type(None) in args
    if optional:
        [hint] = [arg for arg in args if arg is not type(None)]
    if typing.get_origin(hint) is typing.Literal:
        words = "one of " + ", ".join(f"`{choice}`" for choice in typing.get_args(hint))
    else:
        words = {bool: "true or false", int: "a whole number", float: "a number", str: "text"}.get(hint, str(hint))
    return words + (", or none (unset)" if optional else "")


def _inline_default(field: dataclasses.Field[Any]) -> str:
    value = field.default
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "`true`" if value else "`false`"
    if isinstance(value, float):
        return f"`{value:g}`"
    if isinstance(value, str):
        return "the built-in text (below)" if _is_long(value) else f"`{value!r}`"
    return f"`{value!r}`"


def _is_long(text: str) -> bool:
    return "\n" in text or len(text) > LONG_TEXT


def _longest_backtick_run(text: str) -> int:
    longest = run = 0
    for character in text:
        run = run + 1 if character == "`" else 0
        longest = max(longest, run)
    return longest


def _rule_words(rule: Any, hint: Any) -> str:
    """What the rule says after 'must': a range says it for whole numbers or not, a requirement says it as it is."""
    says = rule.says
    if callable(says):
        number = next((arg for arg in (hint, *typing.get_args(hint)) if arg in (int, float)), float)
        return str(says(whole=number is int))
    return str(says)


def _options_by_command() -> dict[str, dict[str, tuple[click.Option, str]]]:
    """For each command that takes `--set`: each of its options by parameter name, with its help's first column."""
    from veracity.cli import main

    root = click.Context(main, info_name="veracity", **main.context_settings)
    found: dict[str, dict[str, tuple[click.Option, str]]] = {}
    for name in main.list_commands(root):
        command = main.get_command(root, name)
        if command is None or isinstance(command, click.Group):
            continue
        context = click.Context(command, info_name=name, parent=root)
        options = {param.name: (param, record[0]) for param in command.params
                   if isinstance(param, click.Option) and param.name
                   and (record := param.get_help_record(context)) is not None}
        if any("--set" in option.opts for option, _ in options.values()):
            found[name] = options
    return found


def _option_names(setting: str, offered: Mapping[str, Mapping[str, tuple[click.Option, str]]]) -> str:
    """The option `setting` has on any command ('`--page-check/--no-page-check`'), else '`--set`'."""
    names = {"/".join(long for long in (*option.opts, *option.secondary_opts) if long.startswith("--"))
             for options in offered.values() if setting in options for option, _ in [options[setting]]}
    return ", ".join(f"`{name}`" for name in sorted(names)) or "`--set`"


def _command_line(setting: str, offered: Mapping[str, Mapping[str, tuple[click.Option, str]]]) -> str:
    """How each command that runs checks takes `setting`: its own option, or `--set`."""
    by_option: dict[str, list[str]] = {}
    for command, options in offered.items():
        option = options[setting][1] if setting in options else f"--set {setting}=VALUE"
        by_option.setdefault(option, []).append(command)
    ordered = sorted(by_option.items(), key=lambda item: item[0].startswith("--set "))  # own options first
    return "; ".join(f"`{option}` ({', '.join(f'`{command}`' for command in commands)})"
                     for option, commands in ordered)
