"""Durable checks: a SQLite checkpointer, so an interrupted check resumes.

Every finished step is saved under the thread id before the next one starts (synchronous
durability), so a crash or Ctrl-C loses at most the step in flight. `Checker` runs the same text
on the same thread again from the last saved step, or reads back a finished check's report.

A file the checkpointer cannot use (not SQLite, damaged, tables of another schema, one of its two
tables dropped, tables of another program and none of its own, rows that do not read back) raises
`CheckpointError` naming the file, whether found on opening it or on reading a saved step; a file
refused is left as it was.
"""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import AbstractContextManager, asynccontextmanager, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from veracity.errors import InputError

if TYPE_CHECKING:
    import aiosqlite
    from langchain_core.runnables import RunnableConfig
    from langgraph.checkpoint.base import ChannelVersions, Checkpoint, CheckpointMetadata, CheckpointTuple
    from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

_ADVICE = "delete it or give a new file (it is created), or run without --checkpoint"

_COLUMNS = {
    "checkpoints": {"thread_id", "checkpoint_ns", "checkpoint_id", "parent_checkpoint_id", "type", "checkpoint",
                    "metadata"},
    "writes": {"thread_id", "checkpoint_ns", "checkpoint_id", "task_id", "idx", "channel", "type", "value"},
}
"""The columns the checkpointer reads, by table; a table it finds without them was not written by it."""

_SQLITE_OWN_TABLES = frozenset({"sqlite_sequence", "sqlite_stat1", "sqlite_stat2", "sqlite_stat3", "sqlite_stat4"})
"""Tables SQLite itself may add to any file: they say nothing about who wrote it."""

_UNREADABLE = (sqlite3.DatabaseError, ValueError, TypeError, KeyError, IndexError, NotImplementedError)
"""What reading a damaged saved step raises: SQLite errors, and the decoders' errors (e.g. 'unexpected end of
file', 'Unknown serialization type: pickle', broken metadata JSON)."""


class CheckpointError(InputError):
    """The checkpoint file cannot be used: not SQLite, damaged, busy, or not written by veracity's checkpointer."""


def damaged(path: Path, problem: str) -> CheckpointError:
    """The error for a checkpoint file at `path` that cannot be used because of `problem`."""
    return CheckpointError(f"checkpoint {path} is damaged or was not written by veracity ({problem}); {_ADVICE}")


def reading_checkpoint(path: Path) -> AbstractContextManager[None]:
    """A block that reads saved state from the checkpoint file `path`: what damage raises there is a `CheckpointError`.

    Covers the checks made on a saved step after it is decoded, e.g. a step that decodes to a
    value of another shape.
    """
    return _typed_damage(path, _UNREADABLE)


def _sqlite_problem(path: Path, exc: sqlite3.DatabaseError) -> CheckpointError:
    if isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc):
        return CheckpointError(f"checkpoint {path} is in use by another process ({exc}); try again when it is "
                               "done, or give another file")
    return damaged(path, str(exc))


@contextmanager
def _typed_damage(path: Path, kinds: tuple[type[Exception], ...]) -> Iterator[None]:
    """Raise `kinds` of errors from the block as `CheckpointError` naming `path`."""
    try:
        yield
    except CheckpointError:
        raise
    except sqlite3.DatabaseError as exc:
        raise _sqlite_problem(path, exc) from exc
    except kinds as exc:
        raise damaged(path, f"a saved step does not read back: {type(exc).__name__}: {exc}") from exc


async def _check_tables(connection: aiosqlite.Connection, path: Path) -> None:
    """Refuse a file the checkpointer did not leave as it is (before anything writes to it).

    The checkpointer makes both its tables at once, with its columns: a file holding one of them
    alone, or tables of its own name without its columns, or other tables and none of its own, is
    refused. A file with no table at all is new.
    """
    async with connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'") as cursor:
        tables = {str(name) for (name,) in await cursor.fetchall()}
    own = sorted(tables & _COLUMNS.keys())
    if len(own) == 1:  # the checkpointer makes both at once: the other one was dropped
        lost = next(iter(_COLUMNS.keys() - tables))
        raise damaged(path, f"it holds a {own[0]!r} table but no {lost!r} table")
    if not own and tables - _SQLITE_OWN_TABLES:
        raise damaged(path, f"it holds neither checkpoint table, but other tables "
                            f"({', '.join(sorted(tables - _SQLITE_OWN_TABLES))})")
    for table, needed in _COLUMNS.items():
        if table in tables:
            async with connection.execute(f"PRAGMA table_info({table})") as cursor:
                found = {str(row[1]) for row in await cursor.fetchall()}
            if needed - found:
                raise damaged(path, f"its {table!r} table has no {', '.join(sorted(needed - found))} column")


def _guarded_saver(connection: aiosqlite.Connection, path: Path) -> AsyncSqliteSaver:
    """An `AsyncSqliteSaver` on `connection` whose reads and writes raise damage as `CheckpointError`."""
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

    class GuardedSqliteSaver(AsyncSqliteSaver):
        """The SQLite checkpointer; a saved step that cannot be read or written raises `CheckpointError`."""

        async def aget_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
            """The saved step for `config`, or None; a damaged one raises `CheckpointError`."""
            with _typed_damage(path, _UNREADABLE):
                return await super().aget_tuple(config)

        async def aput(
            self, config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata,
            new_versions: ChannelVersions,
        ) -> RunnableConfig:
            """Save a step; an SQLite error raises `CheckpointError`."""
            with _typed_damage(path, ()):
                return await super().aput(config, checkpoint, metadata, new_versions)

        async def aput_writes(
            self, config: RunnableConfig, writes: Sequence[tuple[str, Any]], task_id: str, task_path: str = "",
        ) -> None:
            """Save a task's writes; an SQLite error raises `CheckpointError`."""
            with _typed_damage(path, ()):
                await super().aput_writes(config, writes, task_id, task_path)

    return GuardedSqliteSaver(connection, serde=serializer())


@asynccontextmanager
async def open_checkpointer(path: Path) -> AsyncIterator[AsyncSqliteSaver]:
    """A checkpointer saving into the SQLite file `path` (created, with its folder, when missing).

    Raises `CheckpointError` when the file is not SQLite or holds checkpoint tables of another
    schema; a saved step that later fails to read back raises it too.
    """
    import aiosqlite

    path.parent.mkdir(parents=True, exist_ok=True)
    connection = aiosqlite.connect(str(path))
    try:
        await connection
        async with connection.execute("SELECT count(*) FROM sqlite_master") as cursor:
            await cursor.fetchone()
    except sqlite3.DatabaseError as exc:
        await connection.close()
        raise CheckpointError(f"checkpoint {path} is not a usable SQLite file ({exc}); {_ADVICE}") from None
    try:
        with _typed_damage(path, ()):
            await _check_tables(connection, path)
        yield _guarded_saver(connection, path)
    finally:
        await connection.close()


def serializer() -> JsonPlusSerializer:
    """The checkpoint serializer, allowed to read back veracity's own state types and no others."""
    from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
    from pydantic import BaseModel

    from veracity import contracts

    own = [kind for kind in vars(contracts).values()
           if isinstance(kind, type) and issubclass(kind, BaseModel) and kind.__module__ == contracts.__name__]
    return JsonPlusSerializer(allowed_msgpack_modules=own)
