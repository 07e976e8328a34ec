"""The cache reads back only what it wrote: a rewritten entry is a logged miss, never run, never a crash."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import sqlite3
from pathlib import Path

import ormsgpack
import pytest

from tests.fakes import FakeWorld, claims_reply, hit, verdict_reply
from veracity.api import check
from veracity.cache import CachedSearch, CacheStore, ModelCallCache
from veracity.cache.entries import SEARCH_ANSWER
from veracity.contracts import Report, SearchHit

TEXT = "The Sydney Opera House opened in 1973."
NOTE = "The Sydney Opera House opened in 1973 after fourteen years of building."
CACHED_STEPS = ("extract_claims", "gather_evidence", "judge_claim")


def leave_marker(path: str) -> None:
    """A harmless callable a poisoned entry names: it leaves a file behind if it is ever called."""
    Path(path).write_text("ran", encoding="utf-8")


def scripted() -> FakeWorld:
    return (FakeWorld()
            .extract(claims_reply((TEXT, TEXT)))
            .evidence(TEXT, [hit(NOTE, url="https://example.org/opera")])
            .judge(TEXT, verdict_reply("supported", "c1-e1", "opened in 1973")))


def cached_check(world: FakeWorld, store: CacheStore) -> Report:
    """A check whose model answers and searches go through the cache file."""
    return check(TEXT, model=world.model(cache=ModelCallCache(store)),
                 backend=CachedSearch(world.backend(), store, identity="fake", ttl=3600))


def outcomes(report: Report) -> set[str | None]:
    return {record.cache for record in report.trace if record.step in CACHED_STEPS and record.outcome == "ok"}


def rewrite_every_entry(path: Path, encoding: str, value: bytes) -> list[str]:
    """Overwrite each entry of the cache file with `value`; return the keys."""
    with sqlite3.connect(path) as connection:
        keys = [key for (key,) in connection.execute("SELECT key FROM cache")]
        connection.execute("UPDATE cache SET encoding = ?, val = ?", (encoding, value))
    return keys


def msgpack_call(code: int, module: str, name: str, argument: object) -> bytes:
    """A msgpack value whose extension asks the reader to import `module.name` and call it."""
    return ormsgpack.packb([ormsgpack.Ext(code, ormsgpack.packb([module, name, argument]))])


def poisoned_payloads(marker: Path) -> dict[str, tuple[str, bytes]]:
    touch = f"touch {marker}"
    return {
        "os.system": ("msgpack", msgpack_call(0, "os", "system", touch)),
        "callable, one argument": ("msgpack", msgpack_call(0, __name__, "leave_marker", str(marker))),
        "callable, positional arguments": ("msgpack", msgpack_call(1, __name__, "leave_marker", [str(marker)])),
        "constructor envelope in JSON": ("json", json.dumps(
            [{"lc": 2, "type": "constructor", "id": [__name__, "leave_marker"], "args": [str(marker)]}]).encode()),
        "pickle": ("pickle", b"cos\nsystem\n(S'" + touch.encode() + b"'\ntR."),
    }


@pytest.mark.parametrize("form", ["os.system", "callable, one argument", "callable, positional arguments",
                                  "constructor envelope in JSON", "pickle"])
def test_a_poisoned_entry_is_never_run_and_the_step_is_computed_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, form: str
) -> None:
    shell_commands: list[str] = []

    def record(command: str) -> int:
        shell_commands.append(command)
        return 0

    monkeypatch.setattr(os, "system", record)
    marker = tmp_path / "marker"
    world, store = scripted(), CacheStore(tmp_path / "cache.sqlite")
    first = cached_check(world, store)
    assert outcomes(first) == {"miss"}
    encoding, value = poisoned_payloads(marker)[form]
    keys = rewrite_every_entry(store.path, encoding, value)
    assert len(keys) == 3  # the extraction, the search and the verdict

    with caplog.at_level(logging.WARNING, logger="veracity.cache"):
        second = cached_check(world, store)

    assert not marker.exists() and shell_commands == []
    assert outcomes(second) == {"miss"}  # every cached step asked afresh
    assert len(world.extraction_prompts) == 2 and world.judge_calls[TEXT] == 2 and world.search_calls[TEXT] == 2
    assert [v.label for v in second.verdicts] == [v.label for v in first.verdicts] == ["supported"]
    warnings = " ".join(record.getMessage() for record in caplog.records if record.levelno == logging.WARNING)
    assert all(key in warnings for key in keys)
    # The answers computed again replaced the poisoned entries: the next identical check is answered from the file.
    third = cached_check(world, store)
    assert outcomes(third) == {"hit"} and world.judge_calls[TEXT] == 2


@pytest.mark.parametrize("value", [
    b"[{\"unexpected\": 1}]", b"{\"a\": \"mapping\"}", b"\"text\"", b"[1, 2]", b"not json at all", b"\xff\xfe",
    b"[{\"message\": {\"type\": \"os.system\", \"data\": {\"content\": \"x\"}}}]",
    b"[{\"message\": {\"type\": \"ai\", \"data\": {\"content\": \"x\"}}, \"text\": \"\"}]",
])
def test_an_entry_of_another_shape_is_a_logged_miss(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, value: bytes
) -> None:
    world, store = scripted(), CacheStore(tmp_path / "cache.sqlite")
    cached_check(world, store)
    keys = rewrite_every_entry(store.path, "json", value)

    with caplog.at_level(logging.WARNING, logger="veracity.cache"):
        again = cached_check(world, store)

    assert outcomes(again) == {"miss"} and world.search_calls[TEXT] == 2
    warnings = " ".join(record.getMessage() for record in caplog.records if record.levelno == logging.WARNING)
    assert all(key in warnings for key in keys)


def test_entries_are_written_as_plain_json(tmp_path: Path) -> None:
    world, store = scripted(), CacheStore(tmp_path / "cache.sqlite")
    cached_check(world, store)

    with sqlite3.connect(store.path) as connection:
        rows = connection.execute("SELECT ns, encoding, val FROM cache").fetchall()

    assert {encoding for _, encoding, _ in rows} == {"json"}
    searches = [json.loads(value) for namespace, _, value in rows if namespace.startswith("search")]
    assert [entry["value"] for entry in searches] == [
        [{"title": "Note", "url": "https://example.org/opera", "text": NOTE, "score": None}]]
    assert all(set(entry) == {"value", "digest"} for entry in searches)


SEARCHES = ("search", "fake")
"""The namespace of the scripted backend's searches."""


def search_entry(path: Path, key: str | None = None) -> tuple[str, dict]:
    """The key and JSON of the search entry under `key` (default: the only one) in the cache file."""
    with sqlite3.connect(path) as connection:
        rows = connection.execute("SELECT key, val FROM cache WHERE ns = ? AND key LIKE ?",
                                  (",".join(SEARCHES), key or "%")).fetchall()
    [(found, value)] = rows
    return found, json.loads(value)


def write_search_entry(path: Path, key: str, entry: object) -> None:
    with sqlite3.connect(path) as connection:
        connection.execute("UPDATE cache SET val = ? WHERE key = ?", (json.dumps(entry).encode(), key))


POISON = "The Sydney Opera House opened in 1850 and never opened again."


def poisoned_hits(entry: dict) -> list[dict]:
    return [{**hit, "text": POISON} for hit in entry["value"]]


def poisoned_entry(store: CacheStore, key: str, entry: dict, form: str) -> object:
    """The search entry under `key` rewritten by someone who can write the cache file, in one of several forms."""
    if form == "a genuine entry of another question":
        store.set(SEARCHES, "another-question", [SearchHit(text=POISON)], SEARCH_ANSWER, None)
        return search_entry(store.path, "another-question")[1]
    hits = poisoned_hits(entry)
    plain_digest = hashlib.sha256(json.dumps([list(SEARCHES), key, hits]).encode()).hexdigest()
    return {"hits rewritten, digest kept": {"value": hits, "digest": entry["digest"]},
            "hits rewritten, no digest (a plain list)": hits,
            "hits rewritten, a digest anyone could compute": {"value": hits, "digest": plain_digest}}[form]


@pytest.mark.parametrize("form", ["hits rewritten, digest kept", "hits rewritten, no digest (a plain list)",
                                  "hits rewritten, a digest anyone could compute",
                                  "a genuine entry of another question"])
def test_a_poisoned_plain_json_search_entry_of_the_right_shape_is_dropped_and_searched_again(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, form: str
) -> None:
    world, store = scripted(), CacheStore(tmp_path / "cache.sqlite")
    first = cached_check(world, store)
    key, entry = search_entry(store.path)
    write_search_entry(store.path, key, poisoned_entry(store, key, entry, form))

    with caplog.at_level(logging.WARNING, logger="veracity.cache"):
        again = cached_check(world, store)

    assert world.search_calls[TEXT] == 2  # the search ran again
    assert POISON not in again.model_dump_json()
    assert [v.label for v in again.verdicts] == [v.label for v in first.verdicts] == ["supported"]
    warnings = " ".join(record.getMessage() for record in caplog.records if record.levelno == logging.WARNING)
    assert key in warnings and "dropped" in warnings
    assert search_entry(store.path, key)[1] == entry  # the answer searched again replaced the poisoned entry


def test_a_bad_entry_is_dropped_even_when_nothing_replaces_it(tmp_path: Path) -> None:
    world, store = scripted(), CacheStore(tmp_path / "cache.sqlite")
    cached_check(world, store)
    key, entry = search_entry(store.path)
    write_search_entry(store.path, key, poisoned_hits(entry))

    assert store.get(("search", "fake"), key, SEARCH_ANSWER) is None

    with sqlite3.connect(store.path) as connection:
        assert connection.execute("SELECT count(*) FROM cache WHERE key = ?", (key,)).fetchone() == (0,)
