"""The `Checker`'s backstop for a check's total deadline: what the graph had finished, as an honest report.

The graph keeps the deadline itself (`veracity.step_support.deadline`); this catches a run stuck in a step
the graph cannot cut off, a few seconds later, and reports it the same way.
`PartialRun` follows the top-level stream (full state after each step, and each node's update
as it lands, merged by the state's own reducers, so a claim judged in a step that never
finished still counts). When the deadline passes, `deadline_report` turns what was collected
into a `Report`: every claim without a verdict is unverifiable with the reason, a
`DeadlineFailure` says what was still running, and the report does not pass.
"""

from __future__ import annotations

from typing import Any

from veracity.contracts import Report
from veracity.protocols import StepResources
from veracity.state import FactCheckState, reducers
from veracity.step_support.deadline import deadline_report as report_at_deadline
from veracity.step_support.deadline import past_deadline

_REDUCERS = reducers(FactCheckState)


class PartialRun:
    """The state a graph run has reached, assembled from its top-level stream."""

    def __init__(self, graph_input: dict[str, Any] | None) -> None:
        """`graph_input` seeds the state (None when resuming: the first values event brings it)."""
        self.state: dict[str, Any] = dict(graph_input or {})
        self._running: dict[str, str] = {}

    def values(self, state: dict[str, Any]) -> None:
        """The full state after a step."""
        self.state = dict(state)

    def updates(self, chunk: dict[str, Any]) -> None:
        """One or more nodes' updates, merged by the reducers `FactCheckState` declares (others replace)."""
        for update in chunk.values():
            if not isinstance(update, dict):
                continue  # a node that returned nothing, or a command
            for key, value in update.items():
                reducer = _REDUCERS.get(key)
                self.state[key] = value if reducer is None else reducer(self.state.get(key), value)

    def task(self, event: dict[str, Any]) -> None:
        """A task started or finished (the ``tasks`` stream), so a failure can say what was still running."""
        if "result" in event or "error" in event:
            self._running.pop(str(event.get("id")), None)
        else:
            self._running[str(event.get("id"))] = str(event.get("name"))

    @property
    def running(self) -> list[str]:
        """The nodes started and not finished, by name (a node once, however many claims it runs for)."""
        return sorted(set(self._running.values()))


def deadline_report(run: PartialRun, seconds: float, resources: StepResources) -> Report:
    """The report of a check stopped at its deadline of `seconds`, from what `run` collected."""
    state: FactCheckState = dict(run.state)  # type: ignore[assignment]
    return report_at_deadline(state, seconds, [*run.running, *past_deadline(state)],
                              capabilities=resources.capabilities_of, judge_version=resources.judge_version)
