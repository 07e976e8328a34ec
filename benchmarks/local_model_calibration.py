"""`veracity calibrate` against a real local chat model: SmolLM2-135M on llama.cpp, end to end.

The model is served by llama.cpp's OpenAI-compatible server (the `xllamacpp` wheel, as in the test
suite) and reached through the real `langchain-openai` client. The labelled rows are the museum
rows of the tests (`tests/unit/calibration_data.py`: a claimed opening year, its evidence, half of
the claims 13 years off). The script:

1. asks `veracity calibrate` (the command, in a child process) for a calibration from 20 rows, which
   it must refuse;
2. runs `veracity calibrate ROWS --mode llm --model openai:smollm2 --out FILE` on 240 rows and
   prints its summary, the card's tables and the time it took;
3. checks six claims it was not calibrated on (three true, three 13 years off) with that file and
   without it, and prints each verdict as a report shows it.

Usage (after `make test-llm`, which installs xllamacpp and SmolLM2-135M)::

    .venv/bin/python benchmarks/local_model_calibration.py
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.integration.local_model import SMOLLM2, LlamaServer  # noqa: E402
from tests.unit.calibration_data import claim, museum_backend, write_rows  # noqa: E402

MODEL = "openai:smollm2"
CHECK = {"extract_model": "offline", "counter_search": False, "verify_pages": False}


def veracity_command(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """Run the `veracity` command of this environment."""
    return subprocess.run([str(Path(sys.executable).with_name("veracity")), *args], env=env, capture_output=True,
                          text=True, check=False)


def main() -> int:
    """Serve the model, calibrate it, check with it."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=240, help="labelled rows to calibrate on")
    args = parser.parse_args()
    gguf = SMOLLM2.path()
    if gguf is None:
        print("SmolLM2-135M is not installed: run `make test-llm` first")
        return 2
    folder = Path(tempfile.mkdtemp(prefix="veracity-local-calibration-"))
    with LlamaServer(gguf, log=folder / "server.log") as server:
        env = {**os.environ, "OPENAI_BASE_URL": server.base_url, "OPENAI_API_KEY": "local",
               "VERACITY_CALIBRATIONS": str(folder / "kept"), "VERACITY_CACHE": str(folder / "cache.sqlite"),
               "LANGSMITH_TRACING": "false"}
        few = veracity_command("calibrate", str(write_rows(folder / "few.jsonl", 20)), "--mode", "llm",
                               "--model", MODEL, env=env)
        print(f"20 rows: exit {few.returncode}: {few.stderr.strip()}")
        started = time.perf_counter()
        out = folder / "smollm2.json"
        made = veracity_command("calibrate", str(write_rows(folder / "rows.jsonl", args.rows)), "--mode", "llm",
                                "--model", MODEL, "--out", str(out), "-j", "2", env=env)
        print(f"{args.rows} rows: exit {made.returncode} in {time.perf_counter() - started:.0f} s")
        print(made.stdout.strip())
        if made.returncode != 0:
            print(made.stderr[-2000:])
            return 1
        card = out.with_suffix(".md").read_text(encoding="utf-8")
        print(card[card.index("## Data"):card.index("## Reliability diagram")])
        os.environ.update(env)
        from veracity.run.checker import Checker

        checker = Checker(model=MODEL, backend=museum_backend())
        for number in range(400, 406):
            calibrated = checker.check(claim(number), calibration=str(out), **CHECK).verdicts[0]
            plain = checker.check(claim(number), **CHECK).verdicts[0]
            truth = "false" if number % 2 else "true"
            print(f"{truth:5} {claim(number)!r}: with the file: {calibrated.shown_label}; "
                  f"without: {plain.shown_label}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
