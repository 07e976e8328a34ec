"""veracity inside chat agents: a fact-checking tool, and a guard around an agent's answers.

* `as_tool()` gives a LangChain tool an agent can call to fact-check a statement.
* `Guard` wraps any chat agent, chat model or LangGraph graph. It checks the final answer
  against a source text or the evidence backend, then, by `policy`, annotates the answer,
  blocks it, or sends it back once with the unsupported phrases quoted for a rewrite. What it
  writes names the evidence the check used (the source text, the knowledge base, the web).

Both take the keyword settings of `veracity.check` (e.g. ``model="offline"``,
``source_text=POLICY``). With a source text, that source is the only evidence: a `search`
other than 'auto' or 'source', or a `backend`, alongside it raises `SourceConflictError`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool, StructuredTool
from pydantic import BaseModel, Field

from veracity.contracts import Report
from veracity.report_text import evidence_name
from veracity.run.blocking import run_blocking
from veracity.run.checker import Checker, OnProgress

Policy = Literal["annotate", "block", "rewrite"]
POLICIES = ("annotate", "block", "rewrite")


class FactCheckInput(BaseModel):
    """Arguments of the fact-check tool."""

    statement: str = Field(description="The text to fact-check: one or more factual sentences.")


def as_tool(*, name: str = "fact_check", description: str | None = None, **settings: Any) -> BaseTool:
    """A LangChain tool that fact-checks a statement with `veracity.check`'s `settings`.

    The tool returns one line per claim: its label, the claim, and the quote and source that
    decided it, then the overall result, so the calling model can cite or correct. Its graph is
    compiled once, when the tool is made.
    """
    checker = Checker(**settings)

    async def fact_check(statement: str) -> str:
        return describe(await checker.acheck(statement))

    def fact_check_sync(statement: str) -> str:
        return run_blocking(fact_check(statement))

    return StructuredTool.from_function(
        func=fact_check_sync, coroutine=fact_check, name=name, args_schema=FactCheckInput,
        description=description or (
            "Fact-check a statement: splits it into claims and says, for each, whether the evidence "
            "supports it, refutes it, or does not say, with a verbatim quote."
        ),
    )


def describe(report: Report) -> str:
    """A report as short text for a model to read: a line per claim, then the verdict on the whole."""
    lines = []
    for claim in report.claims:
        verdict = report.verdict_for(claim.id)
        if verdict is None:
            lines.append(f"- without a verdict: {claim.text}")
            continue
        line = f"- {verdict.shown_label}: {claim.text}"
        evidence = report.cited_evidence(verdict)
        if verdict.quote:
            source = f" ({evidence.title or evidence.url})" if evidence and (evidence.title or evidence.url) else ""
            line += f' Evidence: "{verdict.quote}"{source}'
        lines.append(line)
    if not lines:
        lines.append(f"- no checkable claims{': ' + report.message if report.message else ''}")
    lines.append(verdict_on_the_whole(report))
    return "\n".join(lines)


def verdict_on_the_whole(report: Report) -> str:
    """One sentence on the whole text, true to its verdicts: never "supported" when a claim is not."""
    if report.outcome == "incomplete":
        return "The check is incomplete: not every claim could be checked."
    if not report.claims:
        return "No checkable claim was found."
    return "All claims are supported." if report.passed else "Not every claim is supported."


@dataclass(frozen=True)
class GuardedAnswer:
    """What `Guard` returns: the answer to show, what the guard did, and the reports behind it.

    `action` is "passed" (the first answer was fully supported), "annotated", "blocked" or
    "rewritten" (the second answer passed after one rewrite); a rewrite that still fails is
    "blocked". `reports` holds one report per answer checked, in order.
    """

    answer: str
    action: Literal["passed", "annotated", "blocked", "rewritten"]
    original: str
    reports: tuple[Report, ...]

    @property
    def report(self) -> Report:
        """The report on the last answer checked."""
        return self.reports[-1]


class Guard:
    """Checks a chat agent's final answer before anyone sees it.

    `agent` is anything with `ainvoke`: a chat model, a LangChain agent, or a compiled graph
    whose state has ``messages``. Its input may be a string, a list of messages, or a dict
    with ``messages``; its output an `AIMessage`, a string, or such a dict.
    """

    def __init__(
        self, agent: Runnable[Any, Any], *, policy: Policy = "annotate", blocked_answer: str | None = None,
        on_progress: OnProgress | None = None, **settings: Any,
    ) -> None:
        """`settings` are `veracity.check`'s (e.g. ``source_text=...``, ``model="offline"``).

        `blocked_answer` replaces an answer the guard blocks; left out, the guard says why in words
        that fit the report (`veracity.agents.blocked_answer`).

        `on_progress` hears the `ProgressEvent`s of every check the guard runs (claims found,
        each verdict as it is reached), e.g. to show that an answer is being checked.
        """
        if policy not in POLICIES:
            raise ValueError(f"policy must be one of {POLICIES}, not {policy!r}")
        self.agent = agent
        self.policy = policy
        self.blocked_answer = blocked_answer
        self.on_progress = on_progress
        self.checker = Checker(**settings)

    async def ainvoke(self, agent_input: Any) -> GuardedAnswer:
        """Run the agent, check its answer and apply the policy."""
        answer = answer_text(await self.agent.ainvoke(agent_input))
        report = await self.checker.acheck(answer, on_progress=self.on_progress)
        if report.passed:
            return GuardedAnswer(answer, "passed", answer, (report,))
        if self.policy == "annotate":
            return GuardedAnswer(f"{answer}\n\n{annotation(report)}", "annotated", answer, (report,))
        if self.policy == "block":
            return GuardedAnswer(self._blocked(report), "blocked", answer, (report,))
        retry_input = with_feedback(agent_input, answer, rewrite_request(report))
        second = answer_text(await self.agent.ainvoke(retry_input))
        second_report = await self.checker.acheck(second, on_progress=self.on_progress)
        if second_report.passed:
            return GuardedAnswer(second, "rewritten", answer, (report, second_report))
        return GuardedAnswer(self._blocked(second_report), "blocked", answer, (report, second_report))

    def invoke(self, agent_input: Any) -> GuardedAnswer:
        """Synchronous `ainvoke`."""
        return run_blocking(self.ainvoke(agent_input))

    def _blocked(self, report: Report) -> str:
        return self.blocked_answer if self.blocked_answer is not None else blocked_answer(report)


def unsupported(report: Report) -> list[tuple[str, str]]:
    """(label, claim text) of every claim that is not supported."""
    found: list[tuple[str, str]] = []
    for claim in report.claims:
        verdict = report.verdict_for(claim.id)
        label = verdict.label if verdict is not None else "unverifiable"
        if label != "supported":
            found.append((label, claim.text))
    return found


def blocked_answer(report: Report) -> str:
    """What `Guard` says in place of an answer it blocks: why, naming the evidence the check used."""
    evidence = evidence_name(report)
    if unsupported(report):
        return f"I can't give that answer: parts of it are not supported by {evidence}."
    return f"I can't give that answer: it could not be fully checked against {evidence}."


def annotation(report: Report) -> str:
    """A note for readers listing the answer's unsupported statements, naming the evidence the check used."""
    evidence = evidence_name(report)
    found = unsupported(report)
    if not found:
        if report.passed:
            return f"Note: every statement is supported by {evidence}."
        return f"Note: this answer could not be fully checked against {evidence}."
    lines = [f"Note: these statements are not supported by {evidence}:"]
    lines += [f'- "{text}" ({"contradicted" if label == "refuted" else "not supported"})' for label, text in found]
    if report.outcome == "incomplete":
        lines.append("The check was incomplete, so other statements may not be supported either.")
    return "\n".join(lines)


def rewrite_request(report: Report) -> str:
    """The message that sends an answer back to the agent, quoting what must change."""
    evidence = evidence_name(report)
    quoted = "\n".join(
        f'- "{text}": {evidence} {"contradicts this" if label == "refuted" else "does not say this"}'
        for label, text in unsupported(report)
    )
    return (
        f"Your answer says things {evidence} does not support:\n"
        f"{quoted or '- (the answer could not be checked)'}\n"
        f"Rewrite the answer so that every statement is supported by {evidence}. Leave out what it does "
        "not say; do not promise anything it does not allow."
    )


def answer_text(output: Any) -> str:
    """The final answer's text from an agent's output (message, string, or state with messages)."""
    if isinstance(output, dict) and "messages" in output:
        output = output["messages"][-1]
    if isinstance(output, BaseMessage):
        output = str(output.text)
    if not isinstance(output, str):
        raise TypeError(f"cannot read an answer from the agent's output of type {type(output).__name__}")
    return output


def with_feedback(agent_input: Any, answer: str, feedback: str) -> Any:
    """The agent's input with its answer and the rewrite request appended, in the same shape."""
    turn = [AIMessage(content=answer), HumanMessage(content=feedback)]
    if isinstance(agent_input, str):
        return [HumanMessage(content=agent_input), *turn]
    if isinstance(agent_input, list):
        return [*agent_input, *turn]
    if isinstance(agent_input, dict) and "messages" in agent_input:
        return {**agent_input, "messages": [*agent_input["messages"], *turn]}
    raise TypeError(f"cannot add a rewrite request to an agent input of type {type(agent_input).__name__}")
