"""A click group that imports each command's module only when that command is used."""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any, NamedTuple

import click


class LazyCommand(NamedTuple):
    """Where a command is defined, and the line `veracity --help` lists for it without importing it."""

    module: str
    attribute: str
    summary: str
    """The command's `short_help` if it sets one, else the first paragraph of its help (click shortens that)."""
    summary_is_short_help: bool = False


class LazyCommands(dict[str, click.Command]):
    """A group's commands, each imported the first time it is looked up by name."""

    def __init__(self, lazy: Mapping[str, LazyCommand], loaded: Mapping[str, click.Command]) -> None:
        super().__init__(loaded)
        self.lazy = lazy

    def __missing__(self, name: str) -> click.Command:
        entry = self.lazy.get(name)
        if entry is None:
            raise KeyError(name)
        command = getattr(importlib.import_module(entry.module), entry.attribute)
        if not isinstance(command, click.Command):
            raise TypeError(f"{entry.module}.{entry.attribute} is not a click command")
        self[name] = command
        return command


class LazyGroup(click.Group):
    """A `click.Group` whose commands are named in a table and imported on demand.

    The group's own `--help` lists the commands from the table's summaries, so it imports none of them.
    """

    def __init__(self, *args: Any, lazy_commands: Mapping[str, LazyCommand], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy_commands = dict(lazy_commands)
        self.commands = LazyCommands(self.lazy_commands, self.commands)

    def list_commands(self, ctx: click.Context) -> list[str]:
        """Every command's name, the table's and any added directly, in order."""
        return sorted({*self.commands, *self.lazy_commands})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        """The named command, importing its module the first time."""
        if cmd_name in self.lazy_commands:
            return self.commands[cmd_name]
        return super().get_command(ctx, cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """List the commands as `click.Group` does, taking each unimported one's line from the table."""
        listed: list[tuple[str, click.Command]] = []
        for name in self.list_commands(ctx):
            command = self.commands.get(name) or self.stand_in(name)  # `get` imports nothing
            if command is not None and not command.hidden:
                listed.append((name, command))
        if not listed:
            return
        limit = formatter.width - 6 - max(len(name) for name, _ in listed)
        rows = [(name, command.get_short_help_str(limit)) for name, command in listed]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def stand_in(self, name: str) -> click.Command | None:
        """A bare command carrying the table's summary for `name`, so its help line is shortened like the real one's."""
        entry = self.lazy_commands.get(name)
        if entry is None:
            return None
        if entry.summary_is_short_help:
            return click.Command(name, short_help=entry.summary)
        return click.Command(name, help=entry.summary)
