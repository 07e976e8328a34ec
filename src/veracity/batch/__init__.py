"""Check many texts in one run: `veracity batch IN --out OUT`, or `veracity.abatch` in Python.

IN is JSONL or CSV (`rows.py`); OUT is JSONL with a line per row, appended as rows finish and
skipped on a rerun (`output.py`). `ledger.py` hands out the rows still to do and records the
lines; `run.py` runs the checks a few at a time in this process, `distributed.py` on Ray
workers (`--ray`, `batch_on_ray`; Ray is an optional dependency, imported only then).
"""

from veracity.batch.distributed import batch_on_ray
from veracity.batch.ledger import BatchSummary
from veracity.batch.rows import BatchRow, read_rows
from veracity.batch.run import abatch

__all__ = ["BatchRow", "BatchSummary", "abatch", "batch_on_ray", "read_rows"]
