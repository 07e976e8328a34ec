"""The warm-up of `veracity check`: what it loads, in which order, and that it never cuts a load off at exit."""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from veracity.context import Context
from veracity.kb import KnowledgeBase
from veracity.resources import _knowledge_base, preload_steps, resolve_mode
from veracity.run.warmup import WarmUp


def names(steps: list[Callable[[], object]]) -> list[str]:
    return [getattr(step, "func", step).__name__ for step in steps]


@pytest.mark.parametrize(("settings", "expected"), [
    ({"model": "offline", "search": "kb"},
     ["_load_existing_knowledge_base", "_default_embedder", "_entailment_model", "_offline_judge_version"]),
    ({"model": "offline", "source_text": "Returns are accepted within 30 days."},
     ["_default_embedder", "_entailment_model", "_offline_judge_version"]),
    ({"model": "openai:gpt-4.1-mini", "search": "web"}, ["_default_embedder"]),
    ({"model": "offline", "judge_model": "openai:gpt-4.1-mini", "search": "web"}, ["_default_embedder"]),
    ({"model": "openai:gpt-4.1-mini", "judge_model": "offline", "search": "kb"},
     ["_load_existing_knowledge_base", "_default_embedder", "_entailment_model", "_offline_judge_version"]),
])
def test_the_loads_are_what_the_mode_uses_in_the_order_the_check_needs_them(
    settings: dict[str, object], expected: list[str]
) -> None:
    context = Context.from_settings(**settings)
    assert names(preload_steps(context, resolve_mode(context))) == expected


def test_the_knowledge_base_load_never_creates_or_seeds_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VERACITY_KB", str(tmp_path / "default"))
    for kb_path in (None, str(tmp_path / "explicit")):
        context = Context.from_settings(model="offline", search="kb", kb_path=kb_path)
        preload_steps(context, resolve_mode(context))[0]()
    assert list(tmp_path.iterdir()) == []


def test_the_knowledge_base_load_opens_the_index_the_search_then_uses(demo_kb: KnowledgeBase) -> None:
    context = Context.from_settings(model="offline", search="kb", kb_path=str(demo_kb.path))
    preload_steps(context, resolve_mode(context))[0]()
    backend = _knowledge_base(str(demo_kb.path))
    assert backend.knowledge_base._reader is not None  # type: ignore[attr-defined]


def test_threads_that_open_one_knowledge_base_together_get_one_object(demo_kb: KnowledgeBase) -> None:
    start = threading.Barrier(4)
    opened: list[object] = []

    def open_it() -> None:
        start.wait()
        opened.append(_knowledge_base(str(demo_kb.path)))

    threads = [threading.Thread(target=open_it) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(opened) == 4 and all(backend is opened[0] for backend in opened)


def test_loads_run_in_order_and_one_that_fails_does_not_stop_the_next() -> None:
    done: list[str] = []
    finished = threading.Event()

    def failing() -> None:
        done.append("failing")
        raise RuntimeError("no model here")

    def last() -> None:
        done.append("last")
        finished.set()

    WarmUp([lambda: done.append("first"), failing, last]).start()
    assert finished.wait(10)
    assert done == ["first", "failing", "last"]


def test_stop_waits_for_the_load_under_way_and_skips_the_rest() -> None:
    started, release = threading.Event(), threading.Event()
    done: list[str] = []

    def slow() -> None:
        started.set()
        release.wait(10)
        done.append("slow")

    warm = WarmUp([slow, lambda: done.append("next")]).start()
    assert started.wait(10)
    threading.Timer(0.2, release.set).start()
    warm.stop()
    assert done == ["slow"]


def test_a_process_that_exits_during_a_load_lets_it_finish_first(tmp_path: Path) -> None:
    # onnxruntime aborts a process that exits while another thread creates a session: the exit must wait
    code = (
        "import pathlib, sys, threading, time\n"
        "from veracity.run.warmup import WarmUp\n"
        "out, started = pathlib.Path(sys.argv[1]), threading.Event()\n"
        "def slow():\n"
        "    started.set()\n"
        "    time.sleep(0.5)\n"
        "    (out / 'first').write_text('done')\n"
        "WarmUp([slow, lambda: (out / 'second').write_text('done')]).start()\n"
        "started.wait(10)\n"
        "sys.exit(3)\n"
    )
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 3, done.stderr
    assert sorted(path.name for path in tmp_path.iterdir()) == ["first"]
