"""Web evidence from Tavily, through the official async client."""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING

from pydantic import BaseModel, ValidationError

from veracity.contracts import SearchHit
from veracity.errors import ConfigurationError, ToolError
from veracity.evidence.capabilities import Capabilities

if TYPE_CHECKING:
    import httpx

TAVILY_BASE_URL_ENV = "TAVILY_API_BASE_URL"
"""Environment variable that points the Tavily client at another endpoint."""


class TavilyResult(BaseModel):
    """One result in a Tavily search response (fields veracity uses)."""

    title: str = ""
    url: str
    content: str
    score: float | None = None


class TavilyResponse(BaseModel):
    """The part of a Tavily search response veracity relies on."""

    results: list[TavilyResult]


def answer_problem(payload: object) -> str | None:
    """Why a Tavily answer is not a search response, or None.

    An error body such as ``{"detail": {"error": ...}}`` served with HTTP 200 must not read as
    "nothing found". A real answer echoes its ``query`` and lists its ``results`` (possibly
    none); an answer without either, or with an error field, is malformed.
    """
    if not isinstance(payload, dict):
        return f"Tavily returned {type(payload).__name__}, not a JSON object"
    error = payload.get("detail") or payload.get("error")
    if error:
        return f"Tavily answered with an error body: {error}"
    if "query" not in payload:
        return f"Tavily's answer is not a search response (no 'query'; keys: {', '.join(sorted(payload)) or 'none'})"
    if not isinstance(payload.get("results"), list):
        return "Tavily's answer has no 'results' list"
    return None


class TavilyBackend:
    """Search the web with Tavily. A missing API key is a `ConfigurationError`, never keyless mode."""

    name = "web"
    capabilities = Capabilities(pages_to_fetch=True, counter_search=True)

    def __init__(
        self,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        search_depth: str = "basic",
        client: httpx.AsyncClient | None = None,
        timeout: float = 20.0,
    ) -> None:
        from tavily import AsyncTavilyClient

        key = self.require_key(api_key)
        self.base_url = base_url or os.environ.get(TAVILY_BASE_URL_ENV) or None
        self.search_depth = search_depth
        self.timeout = timeout
        self._client = AsyncTavilyClient(api_key=key, api_base_url=self.base_url, client=client)
        if client is not None and self.base_url:
            client.base_url = self.base_url

    @staticmethod
    def require_key(api_key: str | None = None) -> str:
        """Return the Tavily key to use, or raise `ConfigurationError` when there is none."""
        key = api_key or os.environ.get("TAVILY_API_KEY")
        if not key:
            raise ConfigurationError(
                "web search needs TAVILY_API_KEY (get a key at tavily.com). From Python, "
                "backend=... binds another evidence backend instead."
            )
        return key

    async def aclose(self) -> None:
        """Release the HTTP connection pool (a client passed in by the caller is left open)."""
        await self._client.close()

    async def search(self, query: str, *, limit: int) -> list[SearchHit]:
        """Search Tavily and validate its payload before turning it into hits."""
        import httpx  # loaded with the Tavily client; not needed to read what this backend declares
        from tavily import errors as tavily_errors

        try:
            # `_search` returns the body as sent; the public `search` fills in a missing
            # 'results' with [], which would turn a broken answer into "nothing found".
            payload = await self._client._search(
                query, max_results=limit, search_depth=self.search_depth, timeout=self.timeout
            )
        except tavily_errors.TimeoutError as exc:
            raise ToolError("timeout", str(exc)) from exc
        except tavily_errors.UsageLimitExceededError as exc:
            raise ToolError("rate_limit", f"Tavily rate limit: {exc}") from exc
        except (tavily_errors.InvalidAPIKeyError, tavily_errors.ForbiddenError) as exc:
            raise ToolError("auth", f"Tavily rejected the key: {exc}", transient=False) from exc
        except tavily_errors.BadRequestError as exc:
            raise ToolError("error", f"Tavily rejected the query: {exc}", transient=False) from exc
        except json.JSONDecodeError as exc:
            raise ToolError("malformed", f"Tavily returned invalid JSON: {exc}") from exc
        except httpx.HTTPStatusError as exc:
            raise ToolError("unavailable", f"Tavily HTTP {exc.response.status_code}") from exc
        except httpx.TimeoutException as exc:
            raise ToolError("timeout", f"Tavily timed out: {exc}") from exc
        except httpx.HTTPError as exc:
            raise ToolError("unavailable", f"cannot reach Tavily: {exc}") from exc
        problem = answer_problem(payload)
        if problem:
            raise ToolError("malformed", problem)
        try:
            response = TavilyResponse.model_validate(payload)
        except ValidationError as exc:
            raise ToolError("malformed", f"Tavily payload failed validation: {exc}") from exc
        hits = [
            SearchHit(title=r.title, url=r.url, text=r.content, score=r.score)
            for r in response.results[:limit]
            if r.content.strip()
        ]
        if response.results and not hits:
            raise ToolError("malformed", f"Tavily returned {len(response.results)} result(s), all with blank content")
        return hits
