"""The check's total deadline (`Context.check_deadline`), kept inside the graph.

The clock starts when a run's first step starts (a fresh check's first extraction, or the first
step a resumed run takes). The slow steps (`extract_claims`, each `check_claim` branch) run within
the time left; one still running when it ends is cut off and names itself in the state's
`deadline_unfinished`. From then on the graph goes straight to its end: the extraction gate gives up
without a retry, the evaluation fails with `deadline_exceeded` (nothing to revise), and
`finalize_report` writes the deadline report (`deadline_report`). So `graph.invoke`, Studio and the
`Checker` all end the same way.

The clock belongs to the run: it is kept in the run's `RunScope` (carried in its config), which
every node and subgraph of one run shares and each run (a resumed one too) gets anew, so a resumed
check has the whole deadline again.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import time
from collections.abc import Awaitable, Callable
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.config import get_config
from langgraph.runtime import Runtime, get_runtime

from veracity.context import Context
from veracity.contracts import DeadlineFailure, Evaluation, EvaluationIssue, Report, Verdict
from veracity.evidence.capabilities import Declarations
from veracity.protocols import StepResources
from veracity.run_scope import RunKey, RunScope
from veracity.state import FactCheckState
from veracity.step_support.assembly import JudgeVersions, build_report

DEADLINE_KEY = "deadline_unfinished"
"""The state key that names the steps the deadline cut off (empty or missing: not reached)."""

Node = Callable[..., Awaitable[Any]]
"""An async graph node taking the state and, by name, `config` and/or `runtime`."""

DEADLINE: RunKey[float] = RunKey("deadline")
"""When the run's deadline passes (`time.monotonic()`), in its `RunScope`."""


def start_clock(run: RunScope, context: Context) -> float:
    """Start (or restart) the deadline of `run`, `context.check_deadline` from now; return when it passes."""
    return run.set(DEADLINE, time.monotonic() + context.check_deadline)


def seconds_left(run: RunScope, context: Context) -> float:
    """Seconds until the deadline of `run` passes (the clock starts here if it has not yet)."""
    end = run.setdefault(DEADLINE, lambda: time.monotonic() + context.check_deadline)
    return end - time.monotonic()


def past_deadline(state: FactCheckState) -> list[str]:
    """The steps the deadline cut off, or [] while it has not passed."""
    return list(state.get("deadline_unfinished") or [])


def within_deadline(name: str, node: Node, *, starts_run: bool = False) -> Node:
    """`node` run within the time the check has left; cut off, it writes only `{DEADLINE_KEY: [name]}`.

    With `starts_run`, a run's first call (no extraction attempt yet) starts the clock afresh.
    """

    @functools.wraps(node)  # LangGraph reads the node's signature, and finds a subgraph it holds, through it
    async def bounded(state: Any, config: RunnableConfig | None = None,
                      runtime: Runtime[Context] | None = None) -> Any:
        context = (runtime or get_runtime(Context)).context
        run = RunScope.of(config or get_config())
        if starts_run and not state.get("extraction_attempts"):
            start_clock(run, context)
        left = seconds_left(run, context)
        if left > 0:
            try:
                async with asyncio.timeout(left):
                    return await node(state, **_passed(config, runtime))
            except TimeoutError:
                if seconds_left(run, context) > 0:
                    raise  # a timeout of the node's own
        return {DEADLINE_KEY: [name]}

    return bounded


def unless_cut_off(node: Callable[..., Any], instead: Callable[[FactCheckState, Context], Any]) -> Node:
    """`node`, except once the deadline has cut a step off: then `instead(state, context)`'s update."""

    @functools.wraps(node)
    async def guarded(state: FactCheckState, config: RunnableConfig | None = None,
                      runtime: Runtime[Context] | None = None) -> Any:
        if past_deadline(state):
            return instead(state, (runtime or get_runtime(Context)).context)
        result = node(state, **_passed(config, runtime))
        return await result if inspect.isawaitable(result) else result

    return guarded


def _passed(config: RunnableConfig | None, runtime: Runtime[Context] | None) -> dict[str, Any]:
    """The `config` and `runtime` LangGraph injected for `node` (it reads `node`'s signature)."""
    given = {"config": config, "runtime": runtime}
    return {key: value for key, value in given.items() if value is not None}


def deadline_message(seconds: float, unfinished: list[str], unjudged: int, claims: int) -> str:
    """What a check stopped at its deadline says about itself: `unjudged` of its `claims` got no verdict in time."""
    still = ", ".join(unfinished) or "the graph"
    if not claims:
        outcome = "no claim was found in time"
    elif unjudged:
        outcome = f"{unjudged} of {claims} claim(s) not judged in time, so marked unverifiable"
    else:
        outcome = "every claim keeps the verdict it had by then"
    return f"the check did not finish within {seconds:g} s (check_deadline); still running: {still}; {outcome}"


def deadline_evaluation(state: FactCheckState, context: Context) -> FactCheckState:
    """The evaluation of a run the deadline cut off: failed, with nothing a revise round could fix."""
    unjudged = _unjudged(state)
    message = deadline_message(context.check_deadline, past_deadline(state), len(unjudged),
                               len(state.get("claims", [])))
    issue = EvaluationIssue(code="deadline_exceeded", message=message, revisable=False)
    return {"evaluation": Evaluation(issues=[issue]), "message": message}


def deadline_final(state: FactCheckState, context: Context, *, resources: StepResources) -> FactCheckState:
    """`finalize_report`'s update for a run the deadline cut off."""
    report = deadline_report(state, context.check_deadline, past_deadline(state),
                             capabilities=resources.capabilities_of, judge_version=resources.judge_version)
    return {"report": report}


def give_up_extraction(_state: FactCheckState, _context: Context) -> FactCheckState:
    """The extraction gate's update once the deadline has cut extraction off: no retry, no claims."""
    return {"extraction_attempts": {"decision": "give_up"}}


def _unjudged(state: FactCheckState) -> list[str]:
    verdicts = state.get("verdicts", {})
    return [claim.id for claim in state.get("claims", []) if claim.id not in verdicts]


def deadline_report(state: FactCheckState, seconds: float, unfinished: list[str], *, capabilities: Declarations,
                    judge_version: JudgeVersions) -> Report:
    """The report of a check stopped at its deadline of `seconds`, with `unfinished` steps still running.

    Every claim without a verdict is unverifiable with the reason, a `DeadlineFailure` says what was
    still running, and the report does not pass. `capabilities` and `judge_version` are `build_report`'s.
    """
    reason = f"not judged: the check reached its deadline of {seconds:g} s before this claim's verdict"
    verdicts = dict(state.get("verdicts", {}))
    unjudged = _unjudged(state)
    for claim_id in unjudged:
        verdicts[claim_id] = Verdict(claim_id=claim_id, label="unverifiable", reason=reason)
    unfinished = sorted(set(unfinished))
    message = deadline_message(seconds, unfinished, len(unjudged), len(state.get("claims", [])))
    failure = DeadlineFailure(seconds=seconds, unfinished=unfinished, claims_not_judged=unjudged, message=message)
    issue = EvaluationIssue(code="deadline_exceeded", message=message, revisable=False)
    state = {**state, "verdicts": verdicts, "evaluation": Evaluation(issues=[issue]), "message": message}
    report = build_report(state, capabilities=capabilities, judge_version=judge_version)
    failures = [*report.failures, failure]
    summary = report.summary.model_copy(update={"failures": len(failures)})
    return report.model_copy(update={"failures": failures, "summary": summary})

