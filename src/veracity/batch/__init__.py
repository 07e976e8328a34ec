"""Check many texts in one run: `veracity batch IN --out OUT`, or `veracity.abatch` in Python.

IN is JSONL or CSV (`rows.py`); OUT is JSONL with a line per row, appended as rows finish and
skipped on a rerun (`output.py`); `run.py` runs the checks a few at a time.
"""

from veracity.batch.rows import BatchRow, read_rows
from veracity.batch.run import BatchSummary, abatch

__all__ = ["BatchRow", "BatchSummary", "abatch", "read_rows"]
