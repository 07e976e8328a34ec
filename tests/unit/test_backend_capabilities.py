"""Backends declare what they are: the page check, the counter search and source mode read the declaration.

Before, each of these compared the backend's name with "web" (or "source"), so a backend of web
pages under another name was neither counter-searched nor page-checked, and any backend named
"web" was, whatever it held. The search kinds are one `Literal`, and a run resolves its mode once.
"""

from __future__ import annotations

from typing import Any, get_args, get_type_hints

import pytest
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever

import veracity
import veracity.resources
from tests.fakes import FakeWorld, claims_reply, hit, verdict_reply
from veracity.context import Context
from veracity.evidence import RetrieverBackend, TavilyBackend
from veracity.evidence.capabilities import DEFAULT_SEARCHES, SEARCH_KINDS, Capabilities, SearchKind
from veracity.evidence.counter import counter_query
from veracity.evidence.source import SourceTextBackend
from veracity.graph import build_graph
from veracity.kb.backend import KnowledgeBaseBackend
from veracity.prompts.extract import SOURCE_EXTRACT_ADDENDUM
from veracity.resources import Resources, capabilities_of, declared, resolve_mode
from veracity.run_scope import RunScope
from veracity.source_mode import SOURCE_SEARCHES
from veracity.testing import ScriptedBackend

TEXT = "Canberra is the capital of Australia."
NOTE = "Canberra is the capital city of Australia."
URL = "http://169.254.169.254/canberra"  # refused before any connection: no network in unit tests
WEB_PAGES = Capabilities(pages_to_fetch=True, counter_search=True)


class DeclaringBackend(ScriptedBackend):
    """A scripted backend that declares its capabilities."""

    def __init__(self, world: FakeWorld, *, name: str, capabilities: Capabilities) -> None:
        super().__init__(world.search, name=name)
        self.capabilities = capabilities


def scripted(world: FakeWorld) -> None:
    world.extract(claims_reply((TEXT, TEXT)))
    world.judge(TEXT, verdict_reply("supported", "c1-e1", NOTE))
    world.evidence(TEXT, [hit(NOTE, url=URL)])


def test_a_backend_declaring_web_pages_is_counter_searched_and_page_checked_whatever_its_name(
    world: FakeWorld,
) -> None:
    scripted(world)
    backend = DeclaringBackend(world, name="news", capabilities=WEB_PAGES)
    report = veracity.check(TEXT, model=world.model(), backend=backend)
    assert backend.queries[counter_query(TEXT)] == 1  # the counter search ran
    verdict = report.verdict_for("c1")
    assert verdict is not None and verdict.label == "supported"
    assert verdict.page is not None and verdict.page.outcome == "fetch_failed"  # its page was checked
    assert verdict.single_source == "169.254.169.254"
    assert [item.backend for item in report.evidence] == ["news"]  # the name is recorded as it was
    assert [issue.code for issue in report.evaluation.issues] == ["citation_not_on_page"]


def test_a_backend_named_web_that_declares_nothing_is_neither_counter_searched_nor_page_checked(
    world: FakeWorld,
) -> None:
    scripted(world)
    backend = DeclaringBackend(world, name="web", capabilities=Capabilities())
    report = veracity.check(TEXT, model=world.model(), backend=backend)
    assert list(backend.queries) == [TEXT]
    verdict = report.verdict_for("c1")
    assert verdict is not None and verdict.label == "supported"
    assert verdict.page is None and verdict.single_source is None
    assert report.passed


def test_a_backend_that_declares_source_text_runs_in_source_mode(world: FakeWorld) -> None:
    world.extract(claims_reply((TEXT, TEXT)))
    world.judge(TEXT, verdict_reply("supported", "c1-e1", NOTE))
    world.evidence(TEXT, [hit(NOTE, url=None)])
    backend = DeclaringBackend(world, name="policy", capabilities=Capabilities(source_text=True))
    report = veracity.check(TEXT, model=world.model(), backend=backend)
    assert report.mode == "llm+policy"
    assert SOURCE_EXTRACT_ADDENDUM in world.extraction_prompts[0]  # the source-mode prompt
    plain = FakeWorld()
    plain.extract(claims_reply((TEXT, TEXT)))
    plain.judge(TEXT, verdict_reply("supported", "c1-e1", NOTE))
    plain.evidence(TEXT, [hit(NOTE, url=None)])
    veracity.check(TEXT, model=plain.model(), backend=plain.backend(name="policy"))
    assert SOURCE_EXTRACT_ADDENDUM not in plain.extraction_prompts[0]


def test_the_built_in_backends_declare_what_they_are() -> None:
    assert TavilyBackend.capabilities == WEB_PAGES
    assert KnowledgeBaseBackend.capabilities == Capabilities()
    assert SourceTextBackend.capabilities == Capabilities(source_text=True)
    for backend in (TavilyBackend, KnowledgeBaseBackend, SourceTextBackend):
        assert capabilities_of(backend.name) == backend.capabilities  # an evidence item's name maps back
    assert capabilities_of("anything else") == Capabilities()


def test_a_bound_backend_is_read_by_its_own_declaration_and_an_undeclared_one_by_its_name(world: FakeWorld) -> None:
    news = DeclaringBackend(world, name="news", capabilities=WEB_PAGES)
    assert capabilities_of("news", news) == WEB_PAGES
    assert capabilities_of("news") == Capabilities()  # not this run's backend: declares nothing
    quiet_web = DeclaringBackend(world, name="web", capabilities=Capabilities())
    assert capabilities_of("web", quiet_web) == Capabilities()  # the bound backend wins over the built-in name
    assert Resources(backend=quiet_web).capabilities_of("web") == Capabilities()
    # a backend written before declarations existed keeps the meaning of its name
    assert declared(ScriptedBackend(world.search, name="web")) == WEB_PAGES
    assert declared(ScriptedBackend(world.search, name="notes")) == Capabilities()


def test_a_retriever_can_declare_web_pages() -> None:
    class Pages(BaseRetriever):
        def _get_relevant_documents(self, query: str, **_: Any) -> list[Document]:
            return []

    assert RetrieverBackend(Pages()).capabilities == Capabilities()
    assert RetrieverBackend(Pages(), capabilities=WEB_PAGES).capabilities == WEB_PAGES


def test_the_mode_carries_the_declaration_of_its_backend(world: FakeWorld) -> None:
    assert resolve_mode(Context(source_text="Returns within 14 days.")).evidence.source_text
    assert resolve_mode(Context(search="kb")).evidence == Capabilities()
    news = DeclaringBackend(world, name="news", capabilities=WEB_PAGES)
    mode = resolve_mode(Context(), bound_backend=news)
    assert mode.search == "news" and mode.evidence == WEB_PAGES and not mode.source


# --------------------------------------------------------------------------- the search kinds, defined once

def test_the_search_kinds_are_one_literal_read_everywhere() -> None:
    from veracity.cli import main
    from veracity.server.app import FactcheckInput

    assert SEARCH_KINDS == ("auto", "web", "kb", "source")
    assert get_type_hints(Context)["search"] == SearchKind
    assert get_args(FactcheckInput.model_fields["search"].annotation) == (SearchKind, type(None))
    assert SOURCE_SEARCHES == ("auto", "source")

    def choices(command: str) -> list[str]:
        [option] = [p for p in main.commands[command].params if p.name == "search"]
        return list(option.type.choices)  # type: ignore[attr-defined]

    assert choices("check") == choices("batch") == list(SEARCH_KINDS)
    assert choices("serve") == choices("eval") == list(DEFAULT_SEARCHES) == ["auto", "web", "kb"]


# --------------------------------------------------------------------------- the mode, resolved once per run

@pytest.fixture
def resolutions(monkeypatch: pytest.MonkeyPatch) -> list[Context]:
    """The contexts `resolve_mode` was called with, one per call."""
    calls: list[Context] = []
    original = veracity.resources.resolve_mode

    def counting(context: Context, **kwargs: Any) -> veracity.resources.Mode:
        calls.append(context)
        return original(context, **kwargs)

    monkeypatch.setattr(veracity.resources, "resolve_mode", counting)
    return calls


def three_claims(world: FakeWorld) -> str:
    claims = ["Canberra is the capital of Australia.", "Paris is in France.", "Water boils at 100 C."]
    world.extract(claims_reply(*((claim, claim) for claim in claims)))
    for claim in claims:
        world.judge(claim, verdict_reply("supported", "c1-e1", claim))
        world.evidence(claim, [hit(claim, url=None)])
    return " ".join(claims)


def test_a_check_resolves_its_mode_once(world: FakeWorld, resolutions: list[Context]) -> None:
    text = three_claims(world)
    report = veracity.check(text, model=world.model(), backend=world.backend(name="kb"))
    assert len(report.claims) == 3
    assert len(resolutions) == 1  # before: once before the run, then at extraction and twice per claim (8)
    veracity.check(text, model=world.model(), backend=world.backend(name="kb"))
    assert len(resolutions) == 2  # each check resolves its own


async def test_a_bare_graph_run_resolves_its_mode_once(world: FakeWorld, resolutions: list[Context]) -> None:
    text = three_claims(world)
    graph = build_graph(model=world.model(), backend=world.backend(name="kb"))
    result = await graph.ainvoke({"text": text}, context=Context())
    assert len(result["report"].claims) == 3 and len(resolutions) == 1


async def test_each_run_of_one_context_object_resolves_its_own_mode(
    world: FakeWorld, resolutions: list[Context]
) -> None:
    text = three_claims(world)
    graph = build_graph(model=world.model(), backend=world.backend(name="kb"))
    context = Context()
    await graph.ainvoke({"text": text}, context=context)
    await graph.ainvoke({"text": text}, context=context)
    assert len(resolutions) == 2  # before: the mode was kept with the context object, so the second run reused it


def test_the_mode_stays_what_it_was_for_the_rest_of_the_run(monkeypatch: pytest.MonkeyPatch) -> None:
    resources, context, run = Resources(), Context(), RunScope()
    assert resources.mode(context, run).search == "kb"
    monkeypatch.setenv("TAVILY_API_KEY", "tvly-test")  # the environment changes in the middle of a run
    assert resources.mode(context, run).search == "kb"
    assert resources.mode(context, RunScope()).search == "web"  # the next run sees it, with the same context too
    assert Resources().mode(context, run).search == "web"  # and another graph keeps its own mode in a shared run
