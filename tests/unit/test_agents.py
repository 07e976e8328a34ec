"""veracity in chat agents: the fact-check tool and the answer guard, with scripted agents and the offline judge."""

from __future__ import annotations

import asyncio
import re

import pytest
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.tools import BaseTool
from langgraph.graph import START, MessagesState, StateGraph

from veracity.agents import Guard, as_tool
from veracity.errors import SourceConflictError
from veracity.testing import ScriptedBackend, ScriptedChatModel

POLICY = ("The customer may return a package within 14 days of the delivery date. "
          "After that period, returns are not accepted.")
QUESTION = "My package arrived 20 days ago. Can I still send it back?"
WARM_PROMISE = ("I'm so sorry to hear that! Even though it has been more than 14 days since delivery, "
                "don't worry, we'll find some solution for you.")
FAITHFUL = "I'm sorry for the trouble. You can return the package within 14 days of the delivery date."
SETTINGS = {"model": "offline", "source_text": POLICY}
BLOCKED_BY_SOURCE = "I can't give that answer: parts of it are not supported by the source text."


def scripted_agent(*replies: str) -> ScriptedChatModel:
    """A chat 'agent' that gives `replies` in turn."""
    queue = list(replies)
    return ScriptedChatModel(responder=lambda messages: queue.pop(0))


# --------------------------------------------------------------------------- the tool


def test_tool_reports_each_claim_with_its_quote() -> None:
    tool = as_tool(**SETTINGS)
    assert isinstance(tool, BaseTool) and tool.name == "fact_check" and set(tool.args) == {"statement"}
    text = tool.invoke({"statement": "You can return the package within 30 days of the delivery date."})
    # a refutation the offline judge is not sure enough of is held back, and the line says which way it leans
    assert re.match(r"- unverifiable, leans refuted, 0\.\d\d: You can return the package within 30 days",
                    text.splitlines()[0])
    assert '"The customer may return a package within 14 days of the delivery date."' in text
    assert text.endswith("Not every claim is supported.")


def test_tool_runs_inside_an_event_loop() -> None:
    tool = as_tool(name="check_policy", **SETTINGS)
    text = asyncio.run(tool.ainvoke({"statement": "You can return the package within 14 days of the delivery date."}))
    assert re.match(r"- supported, 0\.\d\d: ", text) and text.endswith("All claims are supported.")


# --------------------------------------------------------------------------- the guard


def test_a_supported_answer_passes_untouched() -> None:
    agent = scripted_agent(FAITHFUL)
    result = Guard(agent, policy="rewrite", **SETTINGS).invoke(QUESTION)
    assert (result.action, result.answer) == ("passed", FAITHFUL)
    assert len(agent.calls) == 1 and result.report.ok


def test_annotate_adds_a_note_quoting_the_unsupported_promise() -> None:
    result = Guard(scripted_agent(WARM_PROMISE), policy="annotate", **SETTINGS).invoke(QUESTION)
    assert result.action == "annotated" and result.answer.startswith(WARM_PROMISE)
    assert "we'll find some solution for you" in result.answer.split("Note:")[1].lower()


def test_block_replaces_the_answer_and_keeps_the_original() -> None:
    result = Guard(scripted_agent(WARM_PROMISE), policy="block", **SETTINGS).invoke(QUESTION)
    assert (result.action, result.answer, result.original) == ("blocked", BLOCKED_BY_SOURCE, WARM_PROMISE)
    assert not result.report.ok


def test_rewrite_sends_the_quoted_phrase_back_once() -> None:
    agent = scripted_agent(WARM_PROMISE, FAITHFUL)
    result = Guard(agent, policy="rewrite", **SETTINGS).invoke(QUESTION)
    assert (result.action, result.answer, result.original) == ("rewritten", FAITHFUL, WARM_PROMISE)
    assert len(result.reports) == 2 and not result.reports[0].ok and result.reports[1].ok
    retry = agent.calls[1]
    assert [type(m) for m in retry] == [HumanMessage, AIMessage, HumanMessage]
    assert retry[0].content == QUESTION and retry[1].content == WARM_PROMISE
    assert "we'll find some solution for you" in retry[2].content.lower()


def test_a_rewrite_that_still_fails_is_blocked() -> None:
    agent = scripted_agent(WARM_PROMISE, WARM_PROMISE)
    result = Guard(agent, policy="rewrite", **SETTINGS).invoke(QUESTION)
    assert result.action == "blocked" and result.answer == BLOCKED_BY_SOURCE and len(agent.calls) == 2


def test_guard_wraps_a_langgraph_agent_with_message_state() -> None:
    model = scripted_agent(WARM_PROMISE, FAITHFUL)

    def respond(state: MessagesState) -> dict:
        return {"messages": [model.invoke(state["messages"])]}

    graph = StateGraph(MessagesState)
    graph.add_node("respond", respond)
    graph.add_edge(START, "respond")
    agent = graph.compile()
    result = asyncio.run(Guard(agent, policy="rewrite", **SETTINGS).ainvoke({"messages": [HumanMessage(QUESTION)]}))
    assert (result.action, result.answer) == ("rewritten", FAITHFUL)
    assert "we'll find some solution for you" in model.calls[1][-1].content.lower()


def test_unknown_policy_is_rejected() -> None:
    with pytest.raises(ValueError, match="policy must be one of"):
        Guard(scripted_agent(FAITHFUL), policy="ignore", **SETTINGS)


def test_an_output_without_text_is_a_clear_error() -> None:
    class NumberAgent:
        async def ainvoke(self, _input):
            return 42

    with pytest.raises(TypeError, match="cannot read an answer"):
        Guard(NumberAgent(), **SETTINGS).invoke(QUESTION)


def test_guard_passes_on_the_progress_of_its_checks() -> None:
    heard = []
    guard = Guard(scripted_agent(FAITHFUL), policy="block", on_progress=heard.append, **SETTINGS)
    result = guard.invoke(QUESTION)
    verdicts = [event.verdict for event in heard if event.kind == "verdict"]
    assert result.action == "passed"
    assert [event.kind for event in heard][:2] == ["extracting", "claims"]
    assert [v.label for v in verdicts] == [v.label for v in result.report.verdicts] == ["supported"]


# --------------------------------------------------------------------------- "passed" means true, outside source mode

REFUTED_ANSWER = "Sydney is the capital of Australia."  # the demo knowledge base says Canberra


def test_guard_outside_source_mode_does_not_pass_a_refuted_answer() -> None:
    guard = Guard(scripted_agent(REFUTED_ANSWER), policy="block", model="offline", search="kb")
    result = guard.invoke("What is the capital of Australia?")
    report = result.report
    assert [(v.label, v.leaning) for v in report.verdicts] == [("unverifiable", "refuted")]  # held back, leaning
    assert report.ok and not report.passed  # a sound check of a false text: a lean never passes it
    assert result.action == "blocked"
    assert result.answer == "I can't give that answer: parts of it are not supported by the knowledge base."


def test_the_tool_never_says_all_claims_are_supported_under_a_refuted_line() -> None:
    text = as_tool(model="offline", search="kb").invoke({"statement": REFUTED_ANSWER})
    assert re.match(r"- unverifiable, leans refuted, 0\.\d\d: Sydney is the capital of Australia\.",
                    text.splitlines()[0])
    assert "All claims are supported" not in text and text.endswith("Not every claim is supported.")


# --------------------------------------------------------------------------- a source text is always the evidence

BROCHURE = "Exhibition brochure: the Eiffel Tower was completed in 1887."
COMPLETED = "The Eiffel Tower was completed in 1889."  # the demo knowledge base supports it; the brochure does not


def test_a_guard_checks_against_its_source_and_refuses_another_evidence_kind_with_it() -> None:
    guard = Guard(scripted_agent(COMPLETED), policy="block", model="offline", source_text=BROCHURE)
    result = guard.invoke("When was the Eiffel Tower completed?")
    assert result.report.mode == "offline+source" and not result.report.passed
    assert result.action == "blocked" and [item.backend for item in result.report.evidence] == ["source"]
    # before: the guard checked against the knowledge base, passed the answer and never read the brochure
    with pytest.raises(SourceConflictError, match="search 'kb' cannot be combined with source_text"):
        Guard(scripted_agent(COMPLETED), policy="block", model="offline", source_text=BROCHURE, search="kb")
    with pytest.raises(SourceConflictError, match="the bound backend 'notes' cannot be combined with source_text"):
        Guard(scripted_agent(COMPLETED), model="offline", source_text=BROCHURE,
              backend=ScriptedBackend(lambda query: [], name="notes"))
    with pytest.raises(SourceConflictError, match="search 'web' cannot be combined with source_text"):
        as_tool(model="offline", source_text=BROCHURE, search="web")
