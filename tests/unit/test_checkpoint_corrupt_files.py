"""A damaged or foreign checkpoint file is a clear error naming the file, never a traceback."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path

import ormsgpack
import pytest
from click.testing import CliRunner, Result

from veracity.api import check
from veracity.cli import main
from veracity.errors import InputError
from veracity.progress import ProgressEvent
from veracity.run.checkpoints import CheckpointError

TEXT = "You can return it within 30 days."
POLICY = "Returns within 14 days."
THREAD = "t1"


class Interrupted(Exception):
    """Stands for a crash or Ctrl-C in the middle of a check."""


def stop_after_claims(event: ProgressEvent) -> None:
    if event.kind == "claims":
        raise Interrupted


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Checkpoint files written by real checks: a finished thread, and one stopped after extraction."""
    folder = tmp_path_factory.mktemp("saved")
    finished, stopped = folder / "finished.sqlite", folder / "stopped.sqlite"
    check(TEXT, source_text=POLICY, checkpoint=finished, thread_id=THREAD)
    with pytest.raises(Interrupted):
        check(TEXT, source_text=POLICY, checkpoint=stopped, thread_id=THREAD, on_progress=stop_after_claims)
    return {"finished": finished, "stopped": stopped}


def new_database(sql: str) -> Callable[[Path, dict[str, Path]], None]:
    def make(store: Path, saved: dict[str, Path]) -> None:
        with sqlite3.connect(store) as connection:
            connection.executescript(sql)
    return make


def edited(source: str, sql: str) -> Callable[[Path, dict[str, Path]], None]:
    def make(store: Path, saved: dict[str, Path]) -> None:
        shutil.copy(saved[source], store)
        with sqlite3.connect(store) as connection:
            assert connection.execute(sql).rowcount > 0
    return make


def dropped(table: str) -> Callable[[Path, dict[str, Path]], None]:
    """A finished checkpoint file with one of its tables dropped."""
    def make(store: Path, saved: dict[str, Path]) -> None:
        shutil.copy(saved["finished"], store)
        with sqlite3.connect(store) as connection:
            connection.execute(f"DROP TABLE {table}")
    return make


def pending_write(kind: str, value: str) -> str:
    """SQL adding a write of `kind` and bytes `value` to the thread's latest checkpoint (read back on resume)."""
    return ("INSERT INTO writes (thread_id, checkpoint_ns, checkpoint_id, task_id, task_path, idx, channel, type, "
            f"value) SELECT thread_id, checkpoint_ns, max(checkpoint_id), 'task', '', 0, 'trace', '{kind}', {value} "
            "FROM checkpoints GROUP BY thread_id, checkpoint_ns")


def cut(fraction: float) -> Callable[[Path, dict[str, Path]], None]:
    def make(store: Path, saved: dict[str, Path]) -> None:
        data = saved["finished"].read_bytes()
        store.write_bytes(data[: int(len(data) * fraction)])
    return make


def written(data: bytes) -> Callable[[Path, dict[str, Path]], None]:
    def make(store: Path, saved: dict[str, Path]) -> None:
        store.write_bytes(data)
    return make


CORRUPT_FORMS: dict[str, Callable[[Path, dict[str, Path]], None]] = {
    "checkpoints table of another schema": new_database("CREATE TABLE checkpoints (x TEXT); INSERT INTO checkpoints "
                                                        "VALUES ('a');"),
    "writes table of another schema": new_database("CREATE TABLE writes (x TEXT);"),
    "checkpoints table missing a column": new_database(
        "CREATE TABLE checkpoints (thread_id TEXT, checkpoint_ns TEXT, checkpoint_id TEXT, type TEXT, "
        "checkpoint BLOB, metadata BLOB);"),
    "a checkpoint row of type pickle": edited("finished", "UPDATE checkpoints SET type = 'pickle'"),
    "a pending write of type pickle": edited("finished", pending_write("pickle", "x'80049500'")),
    "a checkpoint of an unknown type": edited("finished", "UPDATE checkpoints SET type = 'yaml'"),
    "checkpoint bytes that are not msgpack": edited("finished", "UPDATE checkpoints SET checkpoint = x'c1c1c1'"),
    "checkpoint bytes cut short": edited("finished", "UPDATE checkpoints SET checkpoint = substr(checkpoint, 1, 20)"),
    "pending write bytes cut short": edited("finished", pending_write("msgpack", "x'92a3'")),
    "metadata that is not JSON": edited("finished", "UPDATE checkpoints SET metadata = '{'"),
    "the checkpoints table dropped": dropped("checkpoints"),
    "the writes table dropped": dropped("writes"),
    "tables of another program, none of the checkpointer's": new_database("CREATE TABLE notes (x TEXT);"),
    "a truncated file": cut(0.5),
    "a file cut to its first page": cut(4096 / 94208),
    "random bytes": written(os.urandom(20_000)),
    "an SQLite header, then random bytes": written(b"SQLite format 3\x00" + os.urandom(20_000)),
}


def run_cli(store: Path) -> Result:
    policy = store.parent / "policy.txt"
    policy.write_text(POLICY, encoding="utf-8")
    return CliRunner().invoke(main, ["check", TEXT, "--source", str(policy), "--json",
                                     "--checkpoint", str(store), "--thread", THREAD])


def flat(text: str) -> str:
    return "".join(text.split())


@pytest.mark.parametrize("form", list(CORRUPT_FORMS))
def test_resuming_from_a_corrupt_checkpoint_is_a_clear_usage_error(
    tmp_path: Path, saved: dict[str, Path], form: str
) -> None:
    store = tmp_path / "checks.sqlite"
    CORRUPT_FORMS[form](store, saved)

    result = run_cli(store)

    assert result.exit_code == 2, (result.output, result.exception)
    assert isinstance(result.exception, SystemExit) and "Traceback" not in result.output
    assert flat(str(store)) in flat(result.stderr)
    assert "delete" in result.stderr and "without --checkpoint" in " ".join(result.stderr.split())


@pytest.mark.parametrize("form", ["checkpoints table of another schema", "a checkpoint row of type pickle",
                                  "checkpoint bytes cut short", "a pending write of type pickle"])
def test_the_api_raises_a_typed_error_naming_the_file(tmp_path: Path, saved: dict[str, Path], form: str) -> None:
    store = tmp_path / "checks.sqlite"
    CORRUPT_FORMS[form](store, saved)

    with pytest.raises(CheckpointError, match="checkpoint .*checks.sqlite") as raised:
        check(TEXT, source_text=POLICY, checkpoint=store, thread_id=THREAD)

    assert isinstance(raised.value, InputError)


def leave_marker(path: str) -> None:
    """A harmless callable a poisoned checkpoint names: it leaves a file behind if it is ever called."""
    Path(path).write_text("ran", encoding="utf-8")


def call(code: int, *parts: object) -> ormsgpack.Ext:
    """A msgpack extension asking the reader to import and call what `parts` name."""
    return ormsgpack.Ext(code, ormsgpack.packb(list(parts)))


def poisoned_checkpoints(marker: Path) -> dict[str, object]:
    return {
        "a call as the whole step": call(0, __name__, "leave_marker", str(marker)),
        "a call as the text": {"v": 4, "id": "x", "ts": "t", "channel_values": {
            "text": call(1, __name__, "leave_marker", [str(marker)])}, "channel_versions": {}, "versions_seen": {}},
        "a method call": call(3, __name__, "leave_marker", str(marker), "__call__"),
        "a list": [1, 2, 3],
        "a string": "hello",
    }


@pytest.mark.parametrize("form", ["a call as the whole step", "a call as the text", "a method call", "a list",
                                  "a string"])
def test_a_saved_step_rewritten_as_another_value_is_never_run_and_is_a_clear_error(
    tmp_path: Path, saved: dict[str, Path], form: str
) -> None:
    store, marker = tmp_path / "checks.sqlite", tmp_path / "marker"
    shutil.copy(saved["finished"], store)
    with sqlite3.connect(store) as connection:
        connection.execute("UPDATE checkpoints SET type = 'msgpack', checkpoint = ?",
                           (ormsgpack.packb(poisoned_checkpoints(marker)[form]),))

    result = run_cli(store)

    assert not marker.exists()
    assert result.exit_code == 2 and isinstance(result.exception, SystemExit), (result.output, result.exception)
    assert flat(str(store)) in flat(result.stderr) and "delete" in result.stderr


def test_a_foreign_table_is_left_as_it_was(tmp_path: Path, saved: dict[str, Path]) -> None:
    store = tmp_path / "checks.sqlite"
    CORRUPT_FORMS["writes table of another schema"](store, saved)

    run_cli(store)

    with sqlite3.connect(store) as connection:
        columns = [row[1] for row in connection.execute("PRAGMA table_info(writes)")]
    assert columns == ["x"]


def test_intact_files_still_resume_and_read_back(tmp_path: Path, saved: dict[str, Path]) -> None:
    for name in ("finished", "stopped"):
        store = tmp_path / f"{name}.sqlite"
        shutil.copy(saved[name], store)
        result = run_cli(store)
        assert result.exit_code == 1, result.output  # the claim is not supported by the policy
        assert [verdict["claim_id"] for verdict in json.loads(result.stdout)["verdicts"]] == ["c1"]
