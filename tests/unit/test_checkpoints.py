"""Durable checks: an interrupted check resumes from its SQLite checkpoint without redoing finished steps."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fakes import FakeWorld, claims_reply, verdict_reply
from veracity.api import check
from veracity.contracts import SearchHit
from veracity.errors import InputError
from veracity.progress import ProgressEvent

TEXT = "The Sydney Opera House opened in 1973. It has 1,000 rooms."
OPENED, ROOMS = "The Sydney Opera House opened in 1973.", "The Sydney Opera House has 1,000 rooms."
NOTE = "The Sydney Opera House opened in 1973 and has about 1,000 rooms."


class Interrupted(Exception):
    """Stands for a crash or Ctrl-C in the middle of a check."""


def world() -> FakeWorld:
    hit = [SearchHit(title="Opera House", url="https://example.org/opera", text=NOTE)]
    return (FakeWorld()
            .extract(claims_reply((OPENED, "The Sydney Opera House opened in 1973."), (ROOMS, "It has 1,000 rooms.")))
            .evidence(OPENED, hit).evidence(ROOMS, hit)
            .judge(OPENED, verdict_reply("supported", "c1-e1", "opened in 1973"))
            .judge(ROOMS, verdict_reply("supported", "c2-e1", "about 1,000 rooms")))


def interrupt_at(kind: str):
    def on_progress(event: ProgressEvent) -> None:
        if event.kind == kind:
            raise Interrupted(kind)
    return on_progress


def test_an_interrupted_check_resumes_without_redoing_extraction(tmp_path: Path) -> None:
    scripted = world()
    model, backend = scripted.model(), scripted.backend()
    store = tmp_path / "state" / "checks.sqlite"
    with pytest.raises(Interrupted):
        check(TEXT, model=model, backend=backend, checkpoint=store, thread_id="t1",
              on_progress=interrupt_at("claims"))
    assert len(scripted.extraction_prompts) == 1 and not scripted.judge_calls

    report = check(TEXT, model=model, backend=backend, checkpoint=store, thread_id="t1")
    assert [v.label for v in report.verdicts] == ["supported", "supported"]
    assert len(scripted.extraction_prompts) == 1  # resumed after the saved extraction step
    assert scripted.judge_calls == {OPENED: 1, ROOMS: 1}


def test_a_finished_thread_gives_back_its_report(tmp_path: Path) -> None:
    scripted = world()
    store = tmp_path / "checks.sqlite"
    first = check(TEXT, model=scripted.model(), backend=scripted.backend(), checkpoint=store, thread_id="t2")
    again = check(TEXT, model=scripted.model(), backend=scripted.backend(), checkpoint=store, thread_id="t2")
    assert again.model_dump() == first.model_dump()
    assert len(scripted.extraction_prompts) == 1  # nothing ran the second time


def test_another_text_on_a_used_thread_is_refused(tmp_path: Path) -> None:
    scripted = world()
    store = tmp_path / "checks.sqlite"
    check(TEXT, model=scripted.model(), backend=scripted.backend(), checkpoint=store, thread_id="t3")
    with pytest.raises(InputError, match="holds the check of another text"):
        check("The Nile is long.", model=scripted.model(), backend=scripted.backend(), checkpoint=store, thread_id="t3")


def test_cli_saves_and_reads_back_a_thread(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from veracity.cli import main

    policy = tmp_path / "policy.txt"
    policy.write_text("Returns within 14 days.")
    store = tmp_path / "checks.sqlite"
    args = ["check", "You can return it within 30 days.", "--source", str(policy), "--json", "--checkpoint", str(store)]
    first = CliRunner().invoke(main, args)
    assert first.exit_code == 1, first.output
    thread = first.stderr.split("resume with --thread ")[1].split(")")[0]
    again = CliRunner().invoke(main, [*args, "--thread", thread])
    assert again.exit_code == 1 and again.stdout == first.stdout  # the saved report, read back
    lonely = CliRunner().invoke(main, ["check", "x is y.", "--thread", "abc"])
    assert lonely.exit_code == 2 and "--thread needs --checkpoint" in lonely.stderr


@pytest.mark.parametrize("make", ["garbage", "folder"])
def test_a_checkpoint_that_is_not_an_sqlite_file_is_bad_input(tmp_path: Path, make: str) -> None:
    from click.testing import CliRunner

    from veracity.cli import main

    store = tmp_path / "checks.sqlite"
    if make == "garbage":
        store.write_bytes(b"this is not a database, just some words " * 100)
    else:
        store.mkdir()
    found = world()
    with pytest.raises(InputError, match="checkpoint .* not a"):
        check(TEXT, model=found.model(), backend=found.backend(), checkpoint=store)
    policy = tmp_path / "policy.txt"
    policy.write_text("Returns within 14 days.")
    result = CliRunner().invoke(main, ["check", "Returns within 14 days.", "--source", str(policy),
                                       "--checkpoint", str(store)])
    assert result.exit_code == 2 and "Traceback" not in result.output  # before: a raw sqlite3 traceback, exit 1
    assert str(store) in " ".join(result.stderr.split())
