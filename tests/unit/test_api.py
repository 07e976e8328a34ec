"""The Python API: check, acheck, settings, bad input, and model/backend plumbing."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys

import pytest
from langchain_core.documents import Document
from langchain_core.language_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.retrievers import BaseRetriever

import veracity
from tests.fakes import FakeWorld, claims_reply, hit, verdict_reply
from veracity.context import Context
from veracity.errors import SourceConflictError

CLAIM = "Canberra is the capital of Australia."
NOTE = "Canberra is the capital city of Australia."


def test_empty_and_oversized_text_raise_input_error() -> None:
    with pytest.raises(veracity.InputError, match="empty"):
        veracity.check("  ")
    with pytest.raises(veracity.InputError, match="limit is 10"):
        veracity.check("x" * 11, max_text_chars=10)


def test_unknown_setting_is_rejected() -> None:
    with pytest.raises(TypeError, match="max_revison"):
        veracity.check(CLAIM, max_revison=1)


def test_model_string_without_key_is_a_configuration_error() -> None:
    with pytest.raises(veracity.ConfigurationError, match="OPENAI_API_KEY"):
        veracity.check(CLAIM, model="openai:gpt-4.1-mini")


def test_openai_compatible_server_via_base_url(monkeypatch: pytest.MonkeyPatch) -> None:
    from veracity.llm.models import init_model

    monkeypatch.setenv("OPENAI_API_KEY", "local")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:11434/v1")
    model = init_model("openai:llama3")
    assert str(model.openai_api_base or model.root_client.base_url).startswith("http://127.0.0.1:11434/v1")


async def test_acheck_and_check_inside_a_running_loop(world: FakeWorld) -> None:
    world.extract(claims_reply((CLAIM, CLAIM))).evidence(CLAIM, [hit(NOTE)])
    world.judge(CLAIM, verdict_reply("supported", "c1-e1", NOTE))
    report = await veracity.acheck(CLAIM, model=world.model(), backend=world.backend())
    assert report.ok
    report = veracity.check(CLAIM, model=world.model(), backend=world.backend())  # from inside a loop
    assert report.ok


def test_on_progress_hears_claims_then_each_verdict(world: FakeWorld) -> None:
    world.extract(claims_reply((CLAIM, CLAIM))).evidence(CLAIM, [hit(NOTE)])
    world.judge(CLAIM, verdict_reply("supported", "c1-e1", NOTE))
    seen: list[veracity.ProgressEvent] = []
    report = veracity.check(CLAIM, model=world.model(), backend=world.backend(), on_progress=seen.append)
    assert [event.kind for event in seen] == ["extracting", "claims", "verdict"]
    assert seen[1].claims == report.claims
    verdict = seen[2]
    assert verdict.claim == report.claims[0] and verdict.verdict == report.verdicts[0].model_copy(
        update={"support_score": None})
    assert verdict.evidence is not None and verdict.evidence.id == "c1-e1"


def test_a_claim_without_evidence_still_reports_its_verdict(world: FakeWorld) -> None:
    other = "Sydney has a harbour."
    world.extract(claims_reply((CLAIM, CLAIM), (other, other))).evidence(CLAIM, [hit(NOTE)]).evidence(other, [])
    world.judge(CLAIM, verdict_reply("supported", "c1-e1", NOTE))
    heard: dict[str, str] = {}

    def on_progress(event: veracity.ProgressEvent) -> None:
        if event.kind == "verdict" and event.claim and event.verdict:
            heard[event.claim.text] = event.verdict.label

    veracity.check(f"{CLAIM} {other}", model=world.model(), backend=world.backend(), on_progress=on_progress)
    assert heard == {CLAIM: "supported", other: "unverifiable"}


def test_a_checker_compiles_once_and_checks_many_texts(world: FakeWorld) -> None:
    world.extract(claims_reply((CLAIM, CLAIM))).evidence(CLAIM, [hit(NOTE)])
    world.judge(CLAIM, verdict_reply("supported", "c1-e1", NOTE))
    checker = veracity.Checker(model=world.model(), backend=world.backend(), max_revisions=0)
    graph = checker.graph
    first, second = checker.check(CLAIM), checker.check(CLAIM)
    assert checker.graph is graph and first.ok and second.ok
    assert veracity.api.shared_checker() is veracity.api.shared_checker()


def test_models_without_tool_calling_answer_in_json_text() -> None:
    replies = iter([
        AIMessage(content=f'{{"claims": [{{"claim": "{CLAIM}", "source": "{CLAIM}"}}]}}'),
        AIMessage(content='```json\n{"label": "supported", "reason": "stated", "evidence_id": "c1-e1", '
                          f'"quote": "{NOTE}"}}\n```'),
    ])
    model = GenericFakeChatModel(messages=replies)
    backend = FakeWorld().evidence(CLAIM, [hit(NOTE)]).backend()
    report = veracity.check(CLAIM, model=model, backend=backend)
    assert report.ok and report.verdicts[0].citation_verified


class NotesRetriever(BaseRetriever):
    """A tiny retriever over fixed notes."""

    notes: list[str]

    def _get_relevant_documents(self, query: str, *, run_manager) -> list[Document]:
        words = set(query.lower().split())
        return [Document(page_content=n, metadata={"title": "notes.txt", "source": "/tmp/notes.txt"})
                for n in self.notes if words & set(n.lower().split())]


def test_any_langchain_retriever_is_an_evidence_backend(world: FakeWorld) -> None:
    world.extract(claims_reply((CLAIM, CLAIM)))
    world.judge(CLAIM, verdict_reply("supported", "c1-e1", NOTE))
    retriever = NotesRetriever(notes=[NOTE, "Bananas are yellow."])
    report = veracity.check(CLAIM, model=world.model(), backend=retriever)
    assert report.ok
    [evidence] = report.evidence
    assert evidence.text == NOTE and evidence.title == "notes.txt" and evidence.backend == "retriever"


def test_bad_backend_is_rejected() -> None:
    with pytest.raises(TypeError, match="EvidenceBackend"):
        veracity.build_graph(backend=object())


def test_context_fields_are_plain_data_for_studio() -> None:
    schema = veracity.build_graph().get_context_jsonschema()
    props = schema["properties"]
    assert {"model", "max_revisions", "max_judge_attempts", "judge_prompt", "extraction_prompt"} <= set(props)
    assert Context().max_revisions == 2 and Context().max_extraction_attempts == 3


def test_import_has_no_side_effects(tmp_path) -> None:
    """Importing compiles the default graph (in-memory wiring) but creates no model, index or file."""
    code = (
        "import veracity, sys, os; "
        "print(sorted(m for m in ('langchain_openai', 'onnxruntime', 'faiss', 'tavily') if m in sys.modules), "
        "os.listdir(os.environ['HOME']))"
    )
    env = {**os.environ, "HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "data")}
    env.pop("VERACITY_KB", None)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env).stdout
    assert out.split() == ["[]", "[]"]


def test_compiled_graph_is_named_and_lazy() -> None:
    assert veracity.graph.name == "factcheck"
    assert asyncio.iscoroutinefunction(veracity.acheck)


# --------------------------------------------------------------------------- a source text is always the evidence

BROCHURE = "Exhibition brochure: the Eiffel Tower was completed in 1887."
COMPLETED = "The Eiffel Tower was completed in 1889."  # true, and in the demo knowledge base, but not in the brochure


def script_contradiction(world: FakeWorld) -> FakeWorld:
    return world.extract(claims_reply((COMPLETED, COMPLETED))).judge(
        COMPLETED, verdict_reply("refuted", "c1-e1", BROCHURE))


def test_check_with_a_source_text_is_checked_against_it_and_refuses_another_search(world: FakeWorld) -> None:
    script_contradiction(world)
    for search in ("auto", "source"):
        report = veracity.check(COMPLETED, model=world.model(), source_text=BROCHURE, search=search)
        assert report.mode == "llm+source" and not report.passed
        assert [(item.backend, item.text) for item in report.evidence] == [("source", BROCHURE)]
    for search in ("kb", "web"):  # before: the source was dropped and the knowledge base (or web) used instead
        with pytest.raises(veracity.ConfigurationError, match=f"search '{search}' cannot be combined with source_text"):
            veracity.check(COMPLETED, model=world.model(), source_text=BROCHURE, search=search)
        with pytest.raises(SourceConflictError, match="a source text was given, so the evidence is that source"):
            asyncio.run(veracity.acheck(COMPLETED, model="offline", source_text=BROCHURE, search=search))
    with pytest.raises(SourceConflictError, match="the bound backend 'fake' cannot be combined with source_text"):
        veracity.check(COMPLETED, model=world.model(), backend=world.backend(), source_text=BROCHURE)


def test_a_checkers_default_search_gives_way_to_a_checks_own_source_text(world: FakeWorld) -> None:
    script_contradiction(world)
    checker = veracity.Checker(model=world.model(), search="kb")
    assert checker.context().search == "kb"
    report = checker.check(COMPLETED, source_text=BROCHURE)  # before: checked on the knowledge base
    assert report.mode == "llm+source" and not report.passed
    assert [item.backend for item in report.evidence] == ["source"]
    with pytest.raises(SourceConflictError, match="search 'kb' cannot be combined"):  # the check's own choice
        checker.check(COMPLETED, source_text=BROCHURE, search="kb")
    with pytest.raises(SourceConflictError, match="search 'web' cannot be combined"):
        veracity.Checker(model="offline", search="web", source_text=BROCHURE)
    with pytest.raises(SourceConflictError, match="the bound backend 'fake' cannot be combined"):
        veracity.Checker(backend=world.backend(), source_text=BROCHURE)
    with pytest.raises(SourceConflictError, match="the bound backend 'fake' cannot be combined"):
        veracity.Checker(model="offline", backend=world.backend()).check(COMPLETED, source_text=BROCHURE)
