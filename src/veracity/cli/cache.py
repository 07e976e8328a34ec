"""Command-line interface: `veracity cache stats|clear`, the file of kept model answers and searches."""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path
from typing import NoReturn

import click
from rich.console import Console
from rich.markup import escape

from veracity.context import setting_description

CACHE_EPILOG = """\b
The cache keeps model answers (until cleared) and web searches (7 days by
default, `check --search-cache-ttl`), so an identical call costs nothing the
second time. Offline checks and knowledge-base searches are not kept: they
cost nothing. `check --no-cache` (and `batch --no-cache`) neither reads nor
fills it.
\b
Exit codes:
  0  done
  2  the cache file cannot be read"""

cache_file_option = click.option(
    "--cache", "cache_path", type=click.Path(dir_okay=False, path_type=Path), default=None, metavar="FILE",
    help=setting_description("cache_path"),
)
"""`--cache FILE` of `veracity cache` (the commands that run checks get theirs from `veracity.cli.settings`)."""


def _path(cache_path: Path | None) -> Path:
    from veracity.cache import default_cache_path

    return cache_path.expanduser() if cache_path else default_cache_path()


def _unreadable(path: Path, exc: Exception) -> NoReturn:
    Console(stderr=True).print(f"[bold red]error:[/] cannot read the cache at {escape(str(path))}: "
                               f"{escape(str(exc))}. Delete the file to start afresh.", highlight=False)
    sys.exit(2)


@click.group(epilog=CACHE_EPILOG)
def cache_group() -> None:
    """Inspect and empty the cache of model answers and web searches."""


@cache_group.command("stats", epilog=CACHE_EPILOG, short_help="Show entries by kind, expired entries and size.")
@cache_file_option
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
def stats_command(cache_path: Path | None, as_json: bool) -> None:
    """Show how many model answers and searches the cache keeps, how many have expired, and its size."""
    from veracity.cache.store import KINDS, read_stats

    path = _path(cache_path)
    try:
        stats = read_stats(path)
    except sqlite3.Error as exc:
        _unreadable(path, exc)
    if as_json:
        click.echo(json.dumps({"path": str(stats.path), "exists": stats.exists, "bytes": stats.bytes,
                               "entries": stats.entries, "expired": stats.expired}, indent=2))
        return
    out = Console(highlight=False)
    if not stats.exists:
        out.print(f"no cache yet at {escape(str(path))} (it is made by the first check with a model or web search)")
        return
    size = f"{stats.bytes / 1_048_576:.1f} MiB" if stats.bytes >= 1_048_576 else f"{stats.bytes / 1024:.0f} KiB"
    out.print(f"cache: {escape(str(stats.path))} ({size})")
    for kind, label in KINDS.items():
        out.print(f"  {label}: {stats.entries.get(kind, 0)}")
    out.print(f"  expired (removed when next read, or by `cache clear --expired`): {stats.expired}")


@cache_group.command("clear", epilog=CACHE_EPILOG, short_help="Delete kept entries (all, or of one kind).")
@cache_file_option
@click.option("--kind", "kinds", type=click.Choice(["model", "search"]), multiple=True,
              help="Delete only this kind (repeatable). Default: both.")
@click.option("--expired", "expired_only", is_flag=True, help="Delete only entries past their time to live.")
def clear_command(cache_path: Path | None, kinds: tuple[str, ...], expired_only: bool) -> None:
    """Delete entries from the cache; the next check asks the model and the search again."""
    from veracity.cache.store import clear

    path = _path(cache_path)
    try:
        removed = clear(path, kinds=kinds, expired_only=expired_only)
    except sqlite3.Error as exc:
        _unreadable(path, exc)
    Console(highlight=False).print(f"removed {removed} entr{'y' if removed == 1 else 'ies'} from {escape(str(path))}")
