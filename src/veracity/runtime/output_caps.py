"""How many tokens one model answer may take, per step, sized from what the step's contract holds.

A model that loses its way (small local models do) can generate until its context is full:
thousands of tokens and minutes for one call. Each step's answer is bounded instead, so a
runaway ends early, the gate records why, and the next attempt is asked to be brief.

The caps are generous multiples of a complete answer, not tight fits: a cap that cuts a good
answer short is worse than a slow runaway.
"""

from __future__ import annotations

import math
from typing import Literal

from langchain_core.language_models import BaseChatModel

Step = Literal["extract", "judge", "revise"]

JUDGE_ANSWER_TOKENS = 512
"""A judge answer: a label, a one- or two-sentence reason (~60 tokens), an evidence id and one verbatim
quote (~40-150 tokens), and JSON punctuation: about 250 tokens at most, doubled for margin."""

ANSWER_TOKENS = 1024
"""An answer the model writes to a user's query for auditing (`POST /analyze`): a few paragraphs."""

EXTRACTION_BASE_TOKENS = 256
"""JSON punctuation and a few skipped statements, whatever the text's length."""

EXTRACTION_TOKENS_PER_CHAR = 0.75
"""Every claim restates its sentence twice (`claim` and a verbatim `source`) and adds a short
counter-query: about three times the text's own tokens, at about four characters a token."""

CAP_SETTINGS: dict[Step, str] = {
    "extract": "extraction_max_tokens",
    "judge": "judge_max_tokens",
    "revise": "revise_max_tokens",
}
"""The Context field that sets each step's cap, named in the error a runaway answer gets."""

_OUTPUT_LIMIT_FIELDS = ("max_tokens", "max_output_tokens", "num_predict", "max_new_tokens")
"""What chat-model integrations call their output limit (OpenAI and Anthropic, Google, Ollama, Hugging Face)."""


def extraction_cap(text: str) -> int:
    """The default output cap for extracting the claims of `text`."""
    return EXTRACTION_BASE_TOKENS + math.ceil(EXTRACTION_TOKENS_PER_CHAR * len(text))


def with_output_cap(model: BaseChatModel, tokens: int) -> tuple[BaseChatModel, bool]:
    """A copy of `model` that stops after `tokens` output tokens, and whether the model has such a setting.

    The model's own limit field is set (whichever of the usual names it has), so the cap travels in
    the request as the provider expects it. A model already limited to fewer tokens keeps its limit.
    A model with no such field (a custom or scripted model) is returned as it is.
    """
    names = type(model).model_fields
    for name in _OUTPUT_LIMIT_FIELDS:
        if name in names:
            current = getattr(model, name, None)
            if isinstance(current, int) and 0 < current <= tokens:
                return model, True
            return model.model_copy(update={name: tokens}), True
    return model, False


def truncation_error(step: Step, tokens: int) -> str:
    """The gate error for an answer cut off at its cap: what happened, and what the next attempt should do."""
    return (
        f"the answer reached the {tokens}-token limit of the {step} step ({CAP_SETTINGS[step]}) and was cut off "
        "before it was complete; answer again with the JSON object only, keeping every text field short"
    )
