"""Start-up time, as whole processes, this tree against another: `veracity --help`, `import veracity`, a check.

`import langgraph.graph` is timed too, as the floor a check stands on (the framework's import,
the same for both trees): a two-claim check's excess over it is veracity's own share.

    python benchmarks/startup.py [--baseline SRC_DIR] [--runs N] [--only NAME]

SRC_DIR is the `src` folder of the code to compare against (for the code of a commit:
`git worktree add /tmp/startup-before COMMIT` and `--baseline /tmp/startup-before/src`). Each
command runs alternately with this tree's `src` and the baseline's first on PYTHONPATH (the same
Python, the same installed libraries), so a drift in the machine's speed touches both; the figure
quoted is the median wall time of N runs, after one warm-up round that is not counted. The median
CPU time (user + system, all threads) is printed beside it: on a busy machine it moves less.

The check is `veracity check TEXT --model offline --search kb` on the two claims of `CHECK_TEXT`,
against the default knowledge base (the demo notes). Each tree gets a knowledge base of its own in
a temporary folder (`$VERACITY_KB`), seeded before any run is timed, so seeding is never timed:
what is timed is the process from its start to its exit, imports, models, index and the check
itself. Compiled bytecode is kept in a temporary folder (`PYTHONPYCACHEPREFIX`) and written by the
warm-up round, as an installed package has it, even where PYTHONDONTWRITEBYTECODE is set.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"

CHECK_TEXT = "The Eiffel Tower is in Paris. It was completed in 1889."

RUN_CLI = "import sys; from veracity.cli import main; sys.argv = ['veracity', *sys.argv[1:]]; main()"

COMMANDS: dict[str, list[str]] = {
    "veracity --help": ["-c", RUN_CLI, "--help"],
    "import veracity": ["-c", "import veracity"],
    "import langgraph.graph": ["-c", "import langgraph.graph"],
    "check, 2 claims": ["-c", RUN_CLI, "check", CHECK_TEXT, "--model", "offline", "--search", "kb"],
}
"""Each command as Python's arguments; the check exits 0 (all supported) or 1 (some not)."""


def tree_environment(src: Path, kb: Path, pycache: Path) -> dict[str, str]:
    """The environment a run of the tree at `src` gets: its code first on the path, its own knowledge base."""
    env = {name: value for name, value in os.environ.items()
           if name not in ("PYTHONDONTWRITEBYTECODE", "OPENAI_API_KEY", "TAVILY_API_KEY")}
    return env | {"PYTHONPATH": str(src), "VERACITY_KB": str(kb), "PYTHONPYCACHEPREFIX": str(pycache),
                  "LANGSMITH_TRACING": "false"}


def timed(arguments: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds (user + system, the child's own accounting) of one whole process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, *arguments], env=env, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(arguments[2:])!r} exited {done.returncode}:\n{done.stderr}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def seed(env: dict[str, str]) -> None:
    """Create the tree's default knowledge base (the demo notes) before anything is timed."""
    timed(COMMANDS["check, 2 claims"], env)
    if not (Path(env["VERACITY_KB"]) / "manifest.json").is_file():
        raise SystemExit(f"the knowledge base at {env['VERACITY_KB']} was not seeded")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", type=Path, default=None, help="the src folder of the code to compare against")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--only", choices=sorted(COMMANDS), action="append", help="time only this command")
    args = parser.parse_args()
    trees = {"this tree": SRC} | ({"baseline": args.baseline.resolve()} if args.baseline else {})
    commands = {name: COMMANDS[name] for name in args.only or COMMANDS}
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, median of {args.runs} whole-process runs "
          "(wall; cpu = user + system)")
    with tempfile.TemporaryDirectory(prefix="veracity-startup-") as scratch:
        envs = {name: tree_environment(src, Path(scratch) / f"kb-{index}", Path(scratch) / "pycache")
                for index, (name, src) in enumerate(trees.items())}
        if "check, 2 claims" in commands:
            for env in envs.values():
                seed(env)
        for label, arguments in commands.items():
            walls: dict[str, list[float]] = {name: [] for name in trees}
            cpus: dict[str, list[float]] = {name: [] for name in trees}
            for _ in range(args.runs + 1):  # the first round warms the file and bytecode caches and is dropped
                for name in reversed(trees):  # the baseline first, then this tree
                    wall, cpu = timed(arguments, envs[name])
                    walls[name].append(wall)
                    cpus[name].append(cpu)
            medians = {name: statistics.median(runs[1:]) for name, runs in walls.items()}
            line = ", ".join(f"{name} {medians[name]:.3f} s (cpu {statistics.median(cpus[name][1:]):.3f} s)"
                             for name in trees)
            if args.baseline:
                line += f" ({medians['baseline'] / medians['this tree']:.1f}x faster)"
            print(f"{label:22} {line}", flush=True)


if __name__ == "__main__":
    main()
