"""Mode selection: which model and evidence a run uses, from settings and the environment."""

from __future__ import annotations

import pytest

from veracity.context import DEFAULT_MODEL, Context
from veracity.errors import ConfigurationError, SourceConflictError
from veracity.resources import describe_mode, resolve_mode
from veracity.testing import ScriptedBackend


def test_no_keys_runs_offline_on_the_knowledge_base() -> None:
    mode = resolve_mode(Context())
    assert (mode.model, mode.search, mode.offline, mode.label) == ("offline", "kb", True, "offline+kb")


def test_keys_switch_to_llm_and_web(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("TAVILY_API_KEY", "tvly-test")
    mode = resolve_mode(Context())
    assert (mode.model, mode.search, mode.label) == (DEFAULT_MODEL, "web", "llm+web")


def test_explicit_settings_win(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("TAVILY_API_KEY", "tvly-test")
    assert resolve_mode(Context(model="offline", search="kb")).label == "offline+kb"
    assert resolve_mode(Context(model="anthropic:claude-x")).model == "anthropic:claude-x"


def test_source_text_selects_source_mode() -> None:
    mode = resolve_mode(Context(source_text="Returns within 14 days."))
    assert mode.search == "source" and mode.source


def test_source_mode_without_text_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError, match="source text"):
        resolve_mode(Context(search="source"))


def test_bound_objects_win() -> None:
    backend = ScriptedBackend(lambda q: [], name="notes")
    mode = resolve_mode(Context(), bound_model=object(), bound_backend=backend)
    assert mode.model == "custom:object" and mode.search == "notes" and not mode.offline


def test_describe_says_how_to_change_the_mode() -> None:
    line = describe_mode(resolve_mode(Context()), Context())
    assert "offline" in line and "OPENAI_API_KEY" in line and "TAVILY_API_KEY" in line


def test_describe_names_each_steps_model_as_it_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")  # the run's model is then the default one, which no step runs
    context = Context(extract_model="offline", judge_model="openai:my-judge", source_text=POLICY, cache=False)
    line = describe_mode(resolve_mode(context), context)
    assert line == ("extract: offline · judge: openai:my-judge · evidence: only the source text 'source' · "
                    "cache: off")
    assert DEFAULT_MODEL not in line


# --------------------------------------------------------------------------- a source text is always the evidence

POLICY = "Returns within 14 days."


@pytest.mark.parametrize("search", ["web", "kb"])
def test_a_source_text_is_the_evidence_and_another_search_with_it_is_a_usage_error(
    search: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TAVILY_API_KEY", "tvly-test")
    for agreeing in ("auto", "source"):
        assert resolve_mode(Context(source_text=POLICY, search=agreeing)).search == "source"
    # before: the explicit search won and the source text was dropped without a word
    with pytest.raises(SourceConflictError, match=f"search '{search}' cannot be combined with source_text"):
        resolve_mode(Context(source_text=POLICY, search=search))
    assert issubclass(SourceConflictError, ConfigurationError)


def test_a_bound_backend_with_a_source_text_is_a_usage_error() -> None:
    backend = ScriptedBackend(lambda q: [], name="notes")
    with pytest.raises(SourceConflictError, match="the bound backend 'notes' cannot be combined with source_text"):
        resolve_mode(Context(source_text=POLICY), bound_backend=backend)


def test_an_empty_source_text_is_still_refused() -> None:
    with pytest.raises(ConfigurationError, match="non-empty source text"):
        resolve_mode(Context(source_text="  \n"))
    with pytest.raises(SourceConflictError):  # not dropped in favour of the knowledge base either
        resolve_mode(Context(source_text="  \n", search="kb"))
