"""Every message derived from a report agrees with it: the counts it states, its outcome, the evidence it names.

A few real reports (all supported, mixed, with a failure, stopped at the deadline before and after
every claim had a verdict, and offline checks against the knowledge base and a source text) are
rendered by everything that writes about a report: the command line, the Markdown artefacts, the
agent tool and `Guard`'s notes, its rewrite request and its blocked answer, and the report's own
message and problems. Each number in that text is read back and compared with the report.
"""

from __future__ import annotations

import asyncio
import functools
import re
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

import veracity
from tests.fakes import FakeWorld, claims_reply, hit, verdict_reply
from veracity.agents import annotation, blocked_answer, describe, rewrite_request
from veracity.audit import audit_markdown, report_markdown
from veracity.cli.tables import print_report
from veracity.context import Context
from veracity.contracts import FINDING_CODES, DeadlineFailure, Report
from veracity.errors import ToolError
from veracity.graph import build_graph
from veracity.report_text import EVIDENCE_NAMES, OTHER_EVIDENCE, evidence_name, without_verdict
from veracity.testing import ScriptedChatModel, prompt_text

CANBERRA = "Canberra is the capital of Australia."
SYDNEY = "Sydney is the capital of Australia."
MOON = "The moon has a library."
NILE = "The Nile flows through Egypt."
SCRIPTED = Context(verify_pages=False, search_attempts=1)


def run(world: FakeWorld, text: str, context: Context = SCRIPTED, *, model: Any = None,
        backend_name: str = "web") -> Report:
    graph = build_graph(model=model or world.model(), backend=world.backend(name=backend_name))
    report = graph.invoke({"text": text}, context=context)["report"]
    assert isinstance(report, Report)
    return report


def all_supported() -> Report:
    world = FakeWorld().extract(claims_reply((CANBERRA, CANBERRA), (NILE, NILE)))
    for number, claim in enumerate((CANBERRA, NILE), start=1):
        world.evidence(claim, [hit(claim, url=f"notes:{number}")]).judge(claim, verdict_reply(
            "supported", f"c{number}-e1", claim))
    return run(world, f"{CANBERRA} {NILE}")


def mixed() -> Report:
    world = FakeWorld().extract(claims_reply((CANBERRA, CANBERRA), (SYDNEY, SYDNEY), (MOON, MOON)))
    world.evidence(CANBERRA, [hit(CANBERRA, url="notes:canberra")])
    world.evidence(SYDNEY, [hit(f"Not Sydney: {CANBERRA}", url="notes:sydney")])
    world.judge(CANBERRA, verdict_reply("supported", "c1-e1", CANBERRA))
    world.judge(SYDNEY, verdict_reply("refuted", "c2-e1", CANBERRA))
    return run(world, f"{CANBERRA} {SYDNEY} {MOON}")


def with_a_search_failure() -> Report:
    world = FakeWorld().extract(claims_reply((CANBERRA, CANBERRA), (NILE, NILE)))
    world.evidence(CANBERRA, [hit(CANBERRA)]).judge(CANBERRA, verdict_reply("supported", "c1-e1", CANBERRA))
    world.evidence(NILE, ToolError("auth", "the search key was refused"))
    return run(world, f"{CANBERRA} {NILE}", backend_name="notes")


class Stalls(ScriptedChatModel):
    """A scripted model that never answers the judge about `stall_on` once it has been asked `after` times."""

    world: Any = None
    stall_on: str = MOON
    after: int = 0

    async def _agenerate(self, messages: Any, *args: Any, **kwargs: Any) -> Any:
        if f"Claim: {self.stall_on}" in prompt_text(messages) and self.world.judge_calls[self.stall_on] >= self.after:
            await asyncio.sleep(3600)
        return await super()._agenerate(messages, *args, **kwargs)


def deadline_before_a_verdict() -> Report:
    """One claim supported, one with no evidence (unverifiable), one never judged: cut off by the deadline."""
    world = FakeWorld().extract(claims_reply((CANBERRA, CANBERRA), (SYDNEY, SYDNEY), (MOON, MOON)))
    world.evidence(CANBERRA, [hit(CANBERRA)]).judge(CANBERRA, verdict_reply("supported", "c1-e1", CANBERRA))
    world.evidence(MOON, [hit(MOON)]).judge(MOON, verdict_reply("supported", "c3-e1", MOON))
    model = Stalls(responder=world.respond, world=world)
    return run(world, f"{CANBERRA} {SYDNEY} {MOON}", Context(check_deadline=2.0, model_timeout=3600,
                                                               verify_pages=False), model=model)


def deadline_in_a_revise_round() -> Report:
    """Every claim has a verdict when the deadline cuts off the revise round re-judging one of them."""
    world = FakeWorld().extract(claims_reply((CANBERRA, CANBERRA), (MOON, MOON)))
    world.evidence(CANBERRA, [hit(CANBERRA)]).judge(CANBERRA, verdict_reply("supported", "c1-e1", CANBERRA))
    world.evidence(MOON, [hit("The moon has craters.")])
    world.judge(MOON, verdict_reply("supported", "c2-e1", "The moon has a library."))  # a quote the evidence lacks
    model = Stalls(responder=world.respond, world=world, after=1)  # the revise round's judge call never returns
    context = Context(check_deadline=2.0, model_timeout=3600, verify_pages=False, max_judge_attempts=1)
    report = run(world, f"{CANBERRA} {MOON}", context, model=model)
    assert report.verdict_for("c2").label == "unverifiable"  # type: ignore[union-attr]  # the first round's
    return report


def offline_knowledge_base() -> Report:
    return veracity.check(f"{SYDNEY} The Eiffel Tower is in Paris.", model="offline", search="kb")


def offline_source() -> Report:
    return veracity.check("You can return it within 30 days. Return shipping costs 5 dollars.", model="offline",
                          source_text="Returns within 14 days. Return shipping costs 5 dollars.")


REPORTS = {
    "all supported": all_supported, "mixed": mixed, "with a search failure": with_a_search_failure,
    "deadline before a verdict": deadline_before_a_verdict, "deadline in a revise round": deadline_in_a_revise_round,
    "offline knowledge base": offline_knowledge_base, "offline source": offline_source,
}


@functools.cache
def report(name: str) -> Report:
    return REPORTS[name]()


def messages(report: Report) -> dict[str, str]:
    """Every text veracity writes about `report`, by where it appears."""
    console = Console(record=True, width=400, file=open(Path("/dev/null"), "w"))  # noqa: SIM115
    print_report(console, report, show_trace=False, seconds=1.0)
    return {
        "command line": console.export_text(), "report.md": report_markdown(report),
        "audit.md": audit_markdown(report, written_at="now"), "tool": describe(report),
        "guard annotation": annotation(report), "guard rewrite request": rewrite_request(report),
        "guard blocked answer": blocked_answer(report), "report message": report.message or "",
        "problems": "\n".join(report.problems()),
    }


COUNT = re.compile(r"(\d+) (?:claim\(s\) )?(?:left )?(supported|refuted|unverifiable|without a verdict)\b")
TOTAL = re.compile(r"(\d+) claim\(s\):")
NOT_JUDGED = re.compile(r"(\d+) of (\d+) claim\(s\) not judged")


def stated_counts_agree(report: Report, where: str, text: str) -> None:
    summary = report.summary
    expected = {"supported": summary.supported, "refuted": summary.refuted, "unverifiable": summary.unverifiable,
                "without a verdict": without_verdict(summary)}
    for number, label in COUNT.findall(text):
        assert int(number) == expected[label], f"{where} says {number} {label}; the report has {expected[label]}"
    for number in TOTAL.findall(text):
        assert int(number) == summary.claims, f"{where} says {number} claim(s); the report has {summary.claims}"
    unjudged = [failure.claims_not_judged for failure in report.failures if isinstance(failure, DeadlineFailure)]
    for number, total in NOT_JUDGED.findall(text):
        assert (int(number), int(total)) == (len(unjudged[0]), summary.claims), f"{where}: {text}"


@pytest.mark.parametrize("name", list(REPORTS))
def test_every_message_states_the_counts_the_report_holds(name: str) -> None:
    found = report(name)
    for where, text in messages(found).items():
        stated_counts_agree(found, where, text)
    summary_line = f"{found.summary.claims} claim(s): {found.summary.supported} supported, "
    assert summary_line in messages(found)["command line"] and summary_line in messages(found)["report.md"]


@pytest.mark.parametrize("name", list(REPORTS))
def test_the_tool_lists_each_claim_once_under_its_label(name: str) -> None:
    found = report(name)
    lines = describe(found).splitlines()
    for label in ("supported", "refuted", "unverifiable", "without a verdict"):
        listed = sum(line.startswith(f"- {label}") for line in lines)
        expected = without_verdict(found.summary) if label == "without a verdict" else getattr(found.summary, label)
        assert listed == expected, f"{label}: {lines}"
    whole = lines[-1]
    assert (whole == "All claims are supported.") == (found.outcome == "pass" and bool(found.claims))
    assert ("incomplete" in whole) == (found.outcome == "incomplete")


@pytest.mark.parametrize("name", list(REPORTS))
def test_the_guard_lists_every_claim_not_supported_and_names_the_evidence_used(name: str) -> None:
    found = report(name)
    not_supported = found.summary.refuted + found.summary.unverifiable + without_verdict(found.summary)
    named = evidence_name(found)
    others = [other for other in (*EVIDENCE_NAMES.values(), OTHER_EVIDENCE) if other != named]
    for where in ("guard annotation", "guard rewrite request", "guard blocked answer"):
        text = messages(found)[where]
        assert named in text, f"{where} does not name {named}: {text}"
        assert not any(other in text for other in others), f"{where} names other evidence: {text}"
        assert "sources" not in text, text
    listed = [line for line in annotation(found).splitlines() if line.startswith('- "')]
    assert len(listed) == not_supported
    if not_supported:
        assert "not supported by" in blocked_answer(found)
    elif found.outcome == "incomplete":
        assert "could not be fully checked" in blocked_answer(found) and "could not" in annotation(found)
    else:
        assert annotation(found).startswith("Note: every statement is supported by")


def test_each_report_names_its_own_evidence() -> None:
    assert evidence_name(report("offline knowledge base")) == "the knowledge base"
    assert evidence_name(report("offline source")) == "the source text"
    assert evidence_name(report("mixed")) == "the web search results"
    assert evidence_name(report("with a search failure")) == "the evidence found"  # a backend of the caller's


def test_the_deadline_message_counts_only_the_claims_it_left_without_a_verdict() -> None:
    before = report("deadline before a verdict")
    assert before.summary.unverifiable == 2  # the claim without evidence, and the one the deadline cut off
    [failure] = [f for f in before.failures if isinstance(f, DeadlineFailure)]
    assert failure.claims_not_judged == ["c3"]
    assert "1 of 3 claim(s) not judged in time, so marked unverifiable" in failure.message
    assert before.message == failure.message
    during = report("deadline in a revise round")
    [failure] = [f for f in during.failures if isinstance(f, DeadlineFailure)]
    assert failure.claims_not_judged == [] and during.summary.unverifiable == 1
    assert "every claim keeps the verdict it had by then" in failure.message
    assert "0 claim(s)" not in failure.message


def test_the_web_page_reads_the_outcome_as_the_report_does() -> None:
    page = (Path(veracity.__file__).parent / "server" / "static" / "index.html").read_text()
    assert FINDING_CODES == {"unsupported_by_source"} and all(f'"{code}"' in page for code in FINDING_CODES)
    assert "without a verdict" in page
