"""One quick probe of a chat model's endpoint before a run: one that does not answer fails the run at once.

An endpoint that accepts connections and never answers would otherwise hold the run's first model
call until `model_timeout` (45 s by default; see `stalls` for one that answers this probe and then
holds its chat requests). Before the run's first model call, `Resources.preflight` asks
`GET {base_url}/models`, which OpenAI-compatible servers answer, with a short timeout. Any HTTP answer,
an error status included (401 without a key, 404 from a server without that route), counts as alive:
the probe only asks whether anything answers. A model whose endpoint is silent is replaced, for that
run, by a copy whose requests raise `ModelUnreachable` at once (answers kept in the cache are still
served), so each gate attempt fails at once and the gate records its typed failure with the address
in its message.

Only models on the OpenAI client (OpenAI, Azure and the servers that speak its API) created from
a 'provider:model' setting are probed; offline models and chat model objects bound by the caller
are not.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NoReturn

import httpx

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

PROBE_SECONDS = 5.0
"""How long the probe waits to connect, and then for the answer's first bytes."""

PROBE_MEMORY_SECONDS = 30.0
"""How long a probe's result is reused for the same base URL within a process (a batch, a server)."""


class ModelUnreachable(ConnectionError):  # noqa: N818 (names what happened, like ConnectionError)
    """The model's endpoint did not answer its probe, so no request is sent to it during this run."""


def probe_endpoint(base_url: str, *, timeout: float = PROBE_SECONDS, transport: httpx.BaseTransport | None = None,
                   proxy: str | None = None) -> str | None:
    """Ask `GET {base_url}/models` whether anything answers: None when it does, else the problem for people.

    Any HTTP status counts as an answer. A timeout, a refused connection, a name that does not
    resolve or a dropped connection is a problem, and the message names the address.
    """
    url = base_url.rstrip("/") + "/models"
    try:
        with (httpx.Client(timeout=timeout, transport=transport, proxy=proxy) as client,
              client.stream("GET", url)):
            return None  # the status line and headers arrived: something answers
    except httpx.TimeoutException as exc:
        reason = f"it did not answer within {timeout:g} s ({type(exc).__name__})"
    except (httpx.TransportError, httpx.InvalidURL) as exc:
        reason = f"it cannot be reached ({type(exc).__name__}: {exc})"
    return (f"the model endpoint {base_url.rstrip('/')} is not answering: {reason}. Is the server running, "
            "and is OPENAI_BASE_URL (or the provider's endpoint setting) right?")


class EndpointProbes:
    """Probe results per base URL, reused for `memory` seconds, so a batch or a server does not probe every check."""

    def __init__(self, probe: Callable[[str], str | None] = probe_endpoint, *,
                 memory: float = PROBE_MEMORY_SECONDS, clock: Callable[[], float] = time.monotonic) -> None:
        self._probe = probe
        self._memory = memory
        self._clock = clock
        self._results: dict[str, tuple[float, str | None]] = {}
        self._lock = threading.Lock()

    def problem(self, base_url: str) -> str | None:
        """The problem with `base_url` (None: it answers), probed now unless a recent result is remembered."""
        with self._lock:  # checks started together wait for one probe instead of sending one each
            remembered = self._results.get(base_url)
            if remembered is not None and self._clock() - remembered[0] < self._memory:
                return remembered[1]
            problem = self._probe(base_url)
            self._results[base_url] = (self._clock(), problem)
            return problem

    def forget(self) -> None:
        """Drop every remembered result."""
        with self._lock:
            self._results.clear()


ENDPOINT_PROBES = EndpointProbes(lambda base_url: probe_endpoint(base_url, proxy=os.environ.get("OPENAI_PROXY")))
"""The process's probe results (the proxy is the one the OpenAI client is given, `OPENAI_PROXY`)."""


def endpoint_problem(endpoint: str) -> str | None:
    """Why `endpoint` does not answer (asked of `ENDPOINT_PROBES` as it is now), or None when it does."""
    return ENDPOINT_PROBES.problem(endpoint)


def model_endpoint(model: BaseChatModel) -> str | None:
    """The base URL the probe asks for `model`: its OpenAI client's, or None for a model on another client."""
    from langchain_openai.chat_models.base import BaseChatOpenAI

    if not isinstance(model, BaseChatOpenAI) or model.root_async_client is None:
        return None
    return str(model.root_async_client.base_url).rstrip("/")


class _SilentEndpointClient:
    """Stands in for an OpenAI client (and any of its parts): every request raises `ModelUnreachable` at once."""

    def __init__(self, problem: str) -> None:
        self._problem = problem

    def __getattr__(self, name: str) -> _SilentEndpointClient:
        return self

    def __call__(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise ModelUnreachable(self._problem)


def unreachable(model: BaseChatModel, problem: str) -> BaseChatModel:
    """A copy of `model` (on the OpenAI client) whose requests raise `ModelUnreachable(problem)` without being sent.

    Its settings, and so its cache key, are the model's own: answers kept in the cache are still served.
    """
    silent = _SilentEndpointClient(problem)
    return model.model_copy(update={"client": silent, "async_client": silent,
                                    "root_client": silent, "root_async_client": silent})
