"""The garbage collector in a command's process: paused around the heavy imports, left out of the clean-up at exit."""

from __future__ import annotations

import gc
import subprocess
import sys

from veracity.cli.collector import paused


def test_paused_holds_the_collector_off_and_then_leaves_it_as_it_was() -> None:
    assert gc.isenabled()
    with paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()
    try:
        with paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_the_objects_are_frozen_at_exit_after_the_other_exit_handlers_ran() -> None:
    code = (
        "import atexit, gc\n"
        "atexit.register(lambda: print('at exit, frozen:', gc.get_freeze_count() > 0))\n"
        "from veracity.cli.collector import skip_collection_at_exit\n"
        "skip_collection_at_exit()\n"
        "skip_collection_at_exit()\n"
        "atexit.register(lambda: print('exit handler ran'))\n"
        "print('before exit, frozen:', gc.get_freeze_count() > 0)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert done.stdout.splitlines() == ["before exit, frozen: False", "exit handler ran", "at exit, frozen: True"]
