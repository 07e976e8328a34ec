"""CPU the offline judge spends per five-claim source-mode check, in-process, and the model calls behind it.

Runs ``veracity.check(answer, model="offline", source_text=POLICY)`` on the answer and policy of
``benchmarks/serve.py``, `--checks` times after `--warmup` untimed checks, and reports per check:

* judge CPU: the CPU time of the threads inside the offline judge (`PassageJudge.assess`, summed
  over the claims; each thread's own CPU time, so claims running side by side on two cores are
  not counted twice or inflated by waiting), and the part of it inside the entailment model's
  onnxruntime session (``InferenceSession.run`` on the model's session);
* the entailment model's onnxruntime runs and the passages it was asked to score;
* the whole check's process CPU and wall time.

By default every check's answer is new (`varied_answer`: no claim repeats, so nothing is answered
from memory); ``--repeat`` sends the same answer every time. The script reads only what every
version of the judge has, so it measures an older checkout too: put that checkout's ``src`` first
on ``PYTHONPATH``::

    .venv/bin/python benchmarks/judge_cpu.py --checks 30
    git worktree add /tmp/before e3c4e9b
    PYTHONPATH=/tmp/before/src .venv/bin/python benchmarks/judge_cpu.py --checks 30

The first line printed names the `veracity` package measured.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
os.environ.setdefault("LANGSMITH_TRACING", "false")

from serve import ANSWER, POLICY, varied_answer  # noqa: E402


class Meter:
    """Thread CPU time and call counts of wrapped functions."""

    def __init__(self) -> None:
        self.cpu: dict[str, float] = {}
        self.calls: dict[str, int] = {}
        self._lock = threading.Lock()

    def add(self, key: str, seconds: float, calls: int = 1) -> None:
        with self._lock:
            self.cpu[key] = self.cpu.get(key, 0.0) + seconds
            self.calls[key] = self.calls.get(key, 0) + calls

    def timed(self, key: str, function: Callable[..., Any], only: Callable[..., bool] | None = None) -> Callable:
        """`function`, timing each call under `key` (when `only(*args)` holds, if given)."""

        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if only is not None and not only(*args):
                return function(*args, **kwargs)
            started = time.thread_time()
            try:
                return function(*args, **kwargs)
            finally:
                self.add(key, time.thread_time() - started)

        return wrapper


def main(argv: list[str] | None = None) -> int:
    """Measure, print a short Markdown report."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checks", type=int, default=30, help="timed checks")
    parser.add_argument("--warmup", type=int, default=3, help="untimed checks first (models load here)")
    parser.add_argument("--repeat", action="store_true", help="the same answer every check (memories help)")
    parser.add_argument("--runs-at-once", type=int, default=None,
                        help="entailment-model calls under way together, as in one of `veracity serve --workers N` "
                             "(cores / N); default: the usable cores. Only for versions that share calls.")
    args = parser.parse_args(argv)

    import onnxruntime

    import veracity
    from veracity.offline.judge.base import PassageJudge
    from veracity.offline.model.entailment import EntailmentModel, default_entailment_model

    meter = Meter()
    if args.runs_at_once is not None:
        from veracity.offline.model.entailment import limit_default_runs

        limit_default_runs(args.runs_at_once)
    model = default_entailment_model()
    session = model._session  # the entailment model's own session (the embedder has another)
    onnxruntime.InferenceSession.run = meter.timed(  # type: ignore[method-assign]
        "entailment runs", onnxruntime.InferenceSession.run, only=lambda self, *rest: self is session)
    PassageJudge.assess = meter.timed("judge", PassageJudge.assess)  # type: ignore[method-assign]
    original_predict = EntailmentModel.predict

    def predict(self: EntailmentModel, pairs: Any, *rest: Any, **kwargs: Any) -> Any:
        meter.add("passages asked", 0.0, len(pairs))
        return original_predict(self, pairs, *rest, **kwargs)

    EntailmentModel.predict = predict  # type: ignore[method-assign]

    texts = [ANSWER if args.repeat else varied_answer(n) for n in range(args.warmup + args.checks)]
    for text in texts[:args.warmup]:
        veracity.check(text, model="offline", source_text=POLICY)
    meter.cpu.clear()
    meter.calls.clear()
    walls, cpus = [], []
    for text in texts[args.warmup:]:
        wall, cpu = time.perf_counter(), time.process_time()
        veracity.check(text, model="offline", source_text=POLICY)
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)

    n = args.checks
    print(f"veracity measured: {Path(veracity.__file__).parent}")
    print(f"Command: `{' '.join(['python benchmarks/judge_cpu.py', *(argv if argv is not None else sys.argv[1:])])}`"
          f"{' with PYTHONPATH=' + os.environ['PYTHONPATH'] if os.environ.get('PYTHONPATH') else ''}")
    print(f"Python {platform.python_version()}, onnxruntime {onnxruntime.__version__}, {os.cpu_count()} CPUs; "
          f"{n} checks of a 5-claim answer against its policy (source mode), "
          f"{'the same answer each time' if args.repeat else 'a new answer each time'}; "
          f"entailment calls at once: {getattr(model, 'runs_at_once', 'one per claim branch')}.")
    print()
    print("| per check | value |")
    print("|:---|---:|")
    print(f"| judge CPU (ms, threads inside the judge) | {meter.cpu.get('judge', 0.0) * 1000 / n:.0f} |")
    print(f"| of which entailment model runs (ms) | {meter.cpu.get('entailment runs', 0.0) * 1000 / n:.0f} |")
    print(f"| entailment model runs | {meter.calls.get('entailment runs', 0) / n:.1f} |")
    print(f"| passages asked of the model | {meter.calls.get('passages asked', 0) / n:.1f} |")
    print(f"| process CPU (ms, median) | {statistics.median(cpus) * 1000:.0f} |")
    print(f"| wall (ms, median) | {statistics.median(walls) * 1000:.0f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
