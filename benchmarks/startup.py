"""Start-up time: `veracity --help` and `import veracity` as whole processes, this tree against another.

    python benchmarks/startup.py [--baseline SRC_DIR] [--runs N]

SRC_DIR is the `src` folder of the code to compare against (for today's code:
`git archive HEAD src | tar -x -C /tmp/head` and `--baseline /tmp/head/src`). Each command runs
alternately with this tree's `src` and the baseline's on PYTHONPATH, so a drift in the machine's
speed touches both; the figure quoted is the median wall time of N runs (after one warm-up).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"

COMMANDS = {
    "veracity --help": "import sys; sys.argv = ['veracity', '--help']; from veracity.cli import main; main()",
    "import veracity": "import veracity",
}


def wall_seconds(code: str, src: Path) -> float:
    env = {**os.environ, "PYTHONPATH": str(src)}
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", type=Path, default=None, help="the src folder of the code to compare against")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    trees = {"this tree": SRC} | ({"baseline": args.baseline} if args.baseline else {})
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, median of {args.runs} whole-process runs")
    for label, code in COMMANDS.items():
        times: dict[str, list[float]] = {name: [] for name in trees}
        for _ in range(args.runs + 1):  # the first round warms the file cache and is dropped
            for name, src in trees.items():
                times[name].append(wall_seconds(code, src))
        medians = {name: statistics.median(runs[1:]) for name, runs in times.items()}
        line = ", ".join(f"{name} {m:.3f} s" for name, m in medians.items())
        if args.baseline:
            line += f" ({medians['baseline'] / medians['this tree']:.1f}x faster)"
        print(f"{label:17} {line}")


if __name__ == "__main__":
    main()
