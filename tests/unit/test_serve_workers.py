"""What `veracity serve --workers N` hands its worker processes: a config and an app factory that pickle."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest
from uvicorn.config import STARTUP_FAILURE

from veracity.offline.model import entailment
from veracity.server.connections import GuardedConfig, GuardedH11Protocol
from veracity.server.serving import ServeSettings, uvicorn_config
from veracity.server.shared_limits import SharedRateLimiter, create_bucket_file
from veracity.server.workers import AppFactory


def test_the_config_reaches_each_worker_with_a_connection_table_of_its_own(tmp_path: Path) -> None:
    settings = ServeSettings(header_timeout=2.0, body_timeout=3.0, max_connections=50)
    config = uvicorn_config(AppFactory({"model": "offline"}), host="127.0.0.1", port=0, settings=settings, workers=2)
    first, second = pickle.loads(pickle.dumps(config)), pickle.loads(pickle.dumps(config))
    assert isinstance(first, GuardedConfig) and first.http is GuardedH11Protocol and first.factory
    assert (first.connection_policy.header_timeout, first.connection_policy.body_timeout) == (2.0, 3.0)
    assert first.connection_policy.max_connections <= 50
    assert first.connection_policy.open is not second.connection_policy.open


def test_the_factory_builds_the_app_with_the_shared_rate_limit(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    buckets = tmp_path / "buckets.sqlite"
    create_bucket_file(buckets)
    factory = pickle.loads(pickle.dumps(AppFactory({"model": "offline", "rate_limit": "3/minute"},
                                                   rate_limit_file=buckets, runs_at_once=1)))
    runs, limiters = [], []
    monkeypatch.setattr(entailment, "limit_default_runs", runs.append)
    original = SharedRateLimiter.__init__

    def recorded(self, *args, **kwargs) -> None:
        original(self, *args, **kwargs)
        limiters.append((self.requests, self.path))

    monkeypatch.setattr(SharedRateLimiter, "__init__", recorded)
    app = factory()
    assert app.title == "veracity" and limiters == [(3, buckets)] and runs == [1]


def test_a_setting_the_app_refuses_stops_the_worker_as_a_failed_start(caplog: pytest.LogCaptureFixture) -> None:
    factory = AppFactory({"model": "offline", "no_such_setting": 1})
    with pytest.raises(SystemExit) as stopped:
        factory()
    assert stopped.value.code == STARTUP_FAILURE
    assert "the app cannot start" in caplog.text and "no_such_setting" in caplog.text
