"""Durable checks: a SQLite checkpointer, so an interrupted check resumes.

Every finished step is saved under the thread id before the next one starts (synchronous
durability), so a crash or Ctrl-C loses at most the step in flight. `Checker` runs the same text
on the same thread again from the last saved step, or reads back a finished check's report.
"""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from veracity.errors import InputError

if TYPE_CHECKING:
    from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver


@asynccontextmanager
async def open_checkpointer(path: Path) -> AsyncIterator[AsyncSqliteSaver]:
    """A checkpointer saving into the SQLite file `path` (created, with its folder, when missing)."""
    import aiosqlite
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

    path.parent.mkdir(parents=True, exist_ok=True)
    connection = aiosqlite.connect(str(path))
    try:
        await connection
        async with connection.execute("SELECT count(*) FROM sqlite_master") as cursor:
            await cursor.fetchone()
    except sqlite3.DatabaseError as exc:
        await connection.close()
        raise InputError(f"checkpoint {path} is not a usable SQLite file ({exc}); give a new file "
                         "(it is created) or one an earlier check wrote") from None
    try:
        yield AsyncSqliteSaver(connection, serde=serializer())
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
