"""A normal run's stderr holds veracity's own output only; known third-party noise is dropped by the CLI alone.

The LangSmith client's "Run compression is not enabled" warning is checked against a live (loopback)
LangSmith in tests/integration/test_langsmith_noise.py; here, the offline runs and the filter itself.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from veracity.cli.quiet import KNOWN_NOISE, DropKnownNoise, quiet_third_party

VERACITY = str(Path(sys.executable).with_name("veracity"))
ANSWER = "You can return it within 30 days. Return shipping costs 5 dollars."


def run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "2000"}  # one line per message, however long
    return subprocess.run([VERACITY, *args], cwd=cwd, capture_output=True, text=True, env=env, timeout=300)


@pytest.mark.parametrize("options", [[], ["--source", "policy.txt", "--json"]])
def test_a_normal_offline_check_prints_only_its_own_lines_on_stderr(tmp_path: Path, options: list[str]) -> None:
    (tmp_path / "policy.txt").write_text("Returns within 14 days. Return shipping costs 5 dollars.")
    done = run_cli("check", ANSWER, "--model", "offline", *options, cwd=tmp_path)
    assert done.returncode in (0, 1), done.stderr
    [mode_line] = done.stderr.splitlines()
    assert mode_line.startswith("veracity: offline (the local claim splitter and judge"), \
        done.stderr


def test_a_normal_batch_prints_only_its_own_lines_on_stderr(tmp_path: Path) -> None:
    (tmp_path / "rows.jsonl").write_text('{"id": "a", "text": "Canberra is the capital of Australia."}\n')
    done = run_cli("batch", "rows.jsonl", "--out", "out.jsonl", "--model", "offline", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    [summary] = done.stderr.splitlines()
    assert summary.startswith("1 row(s): 1 checked (0 failed), 0 already in out.jsonl"), done.stderr


def record(message: str, name: str = "langsmith.client") -> logging.LogRecord:
    return logging.LogRecord(name, logging.WARNING, __file__, 1, message, None, None)


def test_the_filter_drops_only_the_known_messages() -> None:
    drop = DropKnownNoise(KNOWN_NOISE["langsmith.client"])
    assert not drop.filter(record("Run compression is not enabled. Please update to the latest version of LangSmith."))
    assert drop.filter(record("Failed to multipart ingest runs: connection refused"))  # a real problem still shows


def test_the_command_line_installs_the_filter_once_and_the_library_never() -> None:
    code = ("import logging, veracity\n"
            "veracity.check('Canberra is the capital of Australia.', model='offline', search='kb')\n"
            "print(len(logging.getLogger('langsmith.client').filters))")
    library = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=True)
    assert library.stdout.strip() == "0"  # importing and using veracity leaves logging as it was
    logger = logging.getLogger("langsmith.client")
    before = list(logger.filters)
    logger.filters[:] = [f for f in before if not isinstance(f, DropKnownNoise)]  # another test's CLI run may add it
    try:
        quiet_third_party()
        quiet_third_party()
        assert len([f for f in logger.filters if isinstance(f, DropKnownNoise)]) == 1
    finally:
        logger.filters[:] = before
