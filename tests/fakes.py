"""A scripted world for graph tests: what the extractor says, what the judge says per claim,
and what the search backend returns per claim."""

from __future__ import annotations

import asyncio
import re
from collections import Counter, defaultdict
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun
from langchain_core.messages import BaseMessage
from langchain_core.outputs import ChatResult

from veracity.contracts import SearchHit
from veracity.testing import Reply, ScriptedBackend, ScriptedChatModel, prompt_text

_CLAIM_LINE = re.compile(r"^Claim: (.*)$", re.MULTILINE)


def claims_reply(*pairs: tuple[str, str]) -> dict:
    """An extraction reply from (claim, source) pairs."""
    return {"claims": [{"claim": claim, "source": source} for claim, source in pairs]}


def verdict_reply(
    label: str, evidence_id: str | None = None, quote: str | None = None, reason: str = "scripted"
) -> dict:
    """A judge reply."""
    return {"label": label, "reason": reason, "evidence_id": evidence_id, "quote": quote}


class Rendezvous:
    """Calls that wait for each other, to show they run side by side without timing anything.

    Each call waits until `expected` calls are in flight together (or `patience` seconds pass).
    Branches that run in parallel all arrive, and all go on at once however slow the machine is:
    `most_in_flight` reaches `expected`. Calls made one after another arrive alone and each waits out
    its patience, so `most_in_flight` stays 1 and the test fails (slowly, but not by a clock).
    """

    def __init__(self, expected: int, patience: float = 20.0) -> None:
        self.expected = expected
        self.patience = patience
        self.in_flight = 0
        self.most_in_flight = 0
        self._everyone: asyncio.Event | None = None

    async def meet(self) -> None:
        """Arrive, and wait for the others."""
        if self._everyone is None:
            self._everyone = asyncio.Event()
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        if self.in_flight >= self.expected:
            self._everyone.set()
        try:
            await asyncio.wait_for(self._everyone.wait(), self.patience)
        except TimeoutError:
            pass
        finally:
            self.in_flight -= 1


class MeetingBackend(ScriptedBackend):
    """A scripted backend whose searches meet at a `Rendezvous` before they answer."""

    def __init__(self, *args: Any, meeting: Rendezvous, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.meeting = meeting

    async def search(self, query: str, *, limit: int) -> list[SearchHit]:
        await self.meeting.meet()
        return await super().search(query, limit=limit)


class MeetingChatModel(ScriptedChatModel):
    """A scripted chat model whose judge calls meet at a `Rendezvous` before they answer."""

    meeting: Rendezvous

    async def _agenerate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                         run_manager: AsyncCallbackManagerForLLMRun | None = None, **kwargs: Any) -> ChatResult:
        if _CLAIM_LINE.search(prompt_text(messages)):
            await self.meeting.meet()
        return await super()._agenerate(messages, stop, run_manager, **kwargs)


class FakeWorld:
    """Scripted replies keyed by step and claim; each list is consumed in order, its last item repeating."""

    def __init__(self) -> None:
        self.extractions: list[Reply] = []
        self.verdicts: dict[str, list[Reply]] = {}
        self.hits: dict[str, list[SearchHit] | list[BaseException | list[SearchHit]]] = {}
        self.judge_calls: Counter[str] = Counter()
        self.judge_prompts: dict[str, list[str]] = defaultdict(list)
        self.extraction_prompts: list[str] = []
        self._search_calls: Counter[str] = Counter()

    # -- scripting -------------------------------------------------------------------------
    def extract(self, *replies: Reply) -> FakeWorld:
        """Script the extraction replies, in order."""
        self.extractions = list(replies)
        return self

    def judge(self, claim: str, *replies: Reply) -> FakeWorld:
        """Script the judge's replies for `claim`, in order."""
        self.verdicts[claim] = list(replies)
        return self

    def evidence(self, claim: str, *outcomes: Any) -> FakeWorld:
        """Script search outcomes for `claim`: each a list of SearchHit or an exception."""
        self.hits[claim] = list(outcomes)
        return self

    # -- the model and backend -------------------------------------------------------------
    def respond(self, messages: list[BaseMessage]) -> Reply:
        """The scripted chat model's responder."""
        prompt = prompt_text(messages)
        if "Text to split into claims" in prompt:
            self.extraction_prompts.append(prompt)
            return self._next(self.extractions, len(self.extraction_prompts) - 1)
        match = _CLAIM_LINE.search(prompt)
        assert match, f"unexpected prompt: {prompt[:200]}"
        claim = match.group(1)
        self.judge_calls[claim] += 1
        self.judge_prompts[claim].append(prompt)
        return self._next(self.verdicts[claim], self.judge_calls[claim] - 1)

    def search(self, query: str) -> list[SearchHit] | BaseException:
        """The scripted backend's responder."""
        self._search_calls[query] += 1
        outcomes = self.hits.get(query, [[]])
        return self._next(outcomes, self._search_calls[query] - 1)

    @staticmethod
    def _next(items: list, index: int) -> Any:
        assert items, "nothing scripted for this call"
        return items[min(index, len(items) - 1)]

    def model(self, *, meeting: Rendezvous | None = None, **kwargs: Any) -> ScriptedChatModel:
        """A scripted chat model bound to this world; with `meeting`, its judge calls meet there."""
        if meeting is not None:
            return MeetingChatModel(responder=self.respond, meeting=meeting, **kwargs)
        return ScriptedChatModel(responder=self.respond, **kwargs)

    def backend(self, *, meeting: Rendezvous | None = None, **kwargs: Any) -> ScriptedBackend:
        """A scripted evidence backend bound to this world; with `meeting`, its searches meet there."""
        if meeting is not None:
            return MeetingBackend(self.search, meeting=meeting, **kwargs)
        return ScriptedBackend(self.search, **kwargs)

    @property
    def search_calls(self) -> Counter[str]:
        """Searches made, per query."""
        return self._search_calls


def hit(text: str, title: str = "Note", url: str | None = "https://notes.example/n") -> SearchHit:
    """A search hit."""
    return SearchHit(title=title, url=url, text=text)
