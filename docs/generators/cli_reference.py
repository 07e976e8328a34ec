"""The command-line reference: every command's `--help`, read from the click group `veracity.cli:main`."""

from __future__ import annotations

from collections.abc import Iterator

import click

HELP_WIDTH = 100
"""Columns the help is wrapped to, fixed so that the page does not depend on the terminal that made it."""

MACHINE_DEFAULTS = {("serve", "workers"): "one per usable CPU core"}
"""Defaults computed from the machine the help runs on, with the words the page shows instead of the number."""


def cli_reference() -> str:
    """A section per command and subcommand, in the order `--help` lists them, each holding that command's help."""
    from veracity.cli import main

    sections = []
    root = click.Context(main, info_name="veracity", **main.context_settings, **_width())
    for context in _commands(main, root):
        level = "#" * (3 + context.command_path.count(" "))
        help_text = _help(context).rstrip()
        sections.append(f"{level} `{context.command_path}`\n\n```text\n{help_text}\n```\n")
    return "\n".join(sections)


def _width() -> dict[str, int]:
    return {"terminal_width": HELP_WIDTH, "max_content_width": HELP_WIDTH}


def _commands(command: click.Command, context: click.Context) -> Iterator[click.Context]:
    """`context`, then the context of each subcommand under it, depth first."""
    yield context
    if isinstance(command, click.Group):
        for name in command.list_commands(context):
            sub = command.get_command(context, name)
            if sub is not None and not sub.hidden:
                yield from _commands(sub, click.Context(sub, info_name=name, parent=context, **_width()))


def _help(context: click.Context) -> str:
    """The command's help as `--help` prints it, with each machine-dependent default said in words."""
    command = context.command
    path = tuple(context.command_path.split()[1:])
    originals = {}
    for param in command.params:
        words = MACHINE_DEFAULTS.get((*path, param.name or ""))
        if isinstance(param, click.Option) and words is not None:
            originals[param] = param.show_default
            param.show_default = words
    missing = {key for key in MACHINE_DEFAULTS if key[:-1] == path} - {(*path, p.name) for p in command.params}
    if missing:
        raise LookupError(f"no such option for MACHINE_DEFAULTS: {sorted(missing)}")
    try:
        return command.get_help(context)
    finally:
        for param, shown in originals.items():
            param.show_default = shown
