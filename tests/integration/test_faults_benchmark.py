"""The fault benchmark still runs, and a short seeded run of it still meets its targets."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "faults.py"


def test_a_short_fault_run_has_no_crash_hang_or_silent_pass() -> None:
    done = subprocess.run([sys.executable, str(SCRIPT), "--checks", "16", "--fault-rate", "0.5", "--seed", "3",
                           "--json"], capture_output=True, text=True, timeout=300)
    figures = json.loads(done.stdout)
    assert done.returncode == 0, done.stderr[-2000:]
    assert figures["faults_injected"] > 10 and figures["claims"] > 10
    assert (figures["crashes"], figures["hangs"], figures["claims_without_outcome"],
            figures["ok_despite_failed_evidence"]) == (0, 0, 0, 0)
