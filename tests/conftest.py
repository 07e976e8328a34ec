"""Shared test set-up: tracing off, no real keys, and scripted models and backends."""

from __future__ import annotations

import pytest

from tests.fakes import FakeWorld

pytest_plugins = ["tests.unit.kb_fixtures"]


@pytest.fixture(autouse=True)
def _isolated_environment(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """Force tracing off, hide real keys and endpoints, and keep the user's data out of reach.

    The knowledge base, the cache, the report-signing keys and the calibration files each live in a
    temporary folder.

    Each test gets its own empty cache file, so no test is answered from another's model calls.
    """
    for name in ("LANGSMITH_TRACING", "LANGCHAIN_TRACING_V2", "LANGCHAIN_TRACING"):
        monkeypatch.setenv(name, "false")
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "TAVILY_API_KEY", "TAVILY_API_BASE_URL", "LANGSMITH_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("VERACITY_KB", str(tmp_path_factory.mktemp("default-kb") / "kb"))
    monkeypatch.setenv("VERACITY_CACHE", str(tmp_path_factory.mktemp("cache") / "cache.sqlite"))
    monkeypatch.setenv("VERACITY_KEYS", str(tmp_path_factory.mktemp("keys") / "keys"))
    monkeypatch.setenv("VERACITY_CALIBRATIONS", str(tmp_path_factory.mktemp("calibrations") / "calibration"))


@pytest.fixture
def world() -> FakeWorld:
    """A fresh scripted world: extraction replies, judge replies per claim, evidence per claim."""
    return FakeWorld()
