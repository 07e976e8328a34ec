"""Ctrl-C in `veracity batch`: the rows done, the rows left, the command that resumes, and exit code 130.

The batch runs as users run it, the `veracity` program in a process of its own, offline against
the knowledge base, and gets a real SIGINT once its first row is in the output file.
"""

from __future__ import annotations

import json
import re
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

VERACITY = str(Path(sys.executable).with_name("veracity"))
TEXTS = [
    "Canberra is the capital of Australia.", "The Eiffel Tower is in Paris.", "Sydney is the capital of Australia.",
    "The Nile is in Africa.", "Paris is in France.", "The moon orbits the Earth.", "Berlin is in Germany.",
    "The Eiffel Tower was completed in 1889.", "Canberra is in Australia.", "Rome is in Italy.",
    "The Sydney Opera House opened in 1973.", "Madrid is in Spain.",
]


def lines_in(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_ctrl_c_says_how_far_the_batch_got_and_how_to_resume(tmp_path: Path) -> None:
    rows = tmp_path / "rows.jsonl"
    rows.write_text("".join(json.dumps({"id": f"r{n}", "text": text}) + "\n" for n, text in enumerate(TEXTS)))
    out = tmp_path / "out.jsonl"
    args = ["batch", "rows.jsonl", "--out", "out.jsonl", "--search", "kb", "--model", "offline", "-c", "1"]
    process = subprocess.Popen([VERACITY, *args], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    try:
        deadline = time.monotonic() + 120
        while not lines_in(out):  # the first row is written: the run is under way
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline, "no row was written in 120 s"
            time.sleep(0.02)
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 130, stderr
    done = len(lines_in(out))
    assert 1 <= done < len(TEXTS), "the run finished before the interrupt; give it more rows"
    match = re.search(r"^interrupted: (\d+) of (\d+) row\(s\) done \(in out\.jsonl\), (\d+) left; "
                      r"to resume, run the same command again:\n  (.+)$", stderr, re.M)
    assert match, stderr
    assert [int(n) for n in match.group(1, 2, 3)] == [done, len(TEXTS), len(TEXTS) - done]
    assert match.group(4) == f"veracity {shlex.join(args)}"
    assert "Aborted!" not in stderr and "Traceback" not in stderr

    resume_args = shlex.split(match.group(4))[1:]
    resumed = subprocess.run([VERACITY, *resume_args], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    assert f"{len(TEXTS) - done} checked (0 failed), {done} already in out.jsonl" in resumed.stderr
    assert sorted(line["id"] for line in lines_in(out)) == sorted(f"r{n}" for n in range(len(TEXTS)))
