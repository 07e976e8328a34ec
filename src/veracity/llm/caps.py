"""Output caps: how many tokens one model answer may take, set on the model and named when it is hit.

A model that loses its way (small local models do) can generate until its context is full:
thousands of tokens and minutes for one call. Each step's answer is bounded instead, so a
runaway ends early, the gate records why, and the next attempt is asked to be brief.

The caps are generous multiples of a complete answer, not tight fits: a cap that cuts a good
answer short is worse than a slow runaway. Each step sizes its own (`nodes/extract.py` from the
text; the judge's default is `Context.judge_max_tokens`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

Step = Literal["extract", "judge", "revise"]

CAP_SETTINGS: dict[Step, str] = {
    "extract": "extraction_max_tokens",
    "judge": "judge_max_tokens",
    "revise": "revise_max_tokens",
}
"""The Context field that sets each step's cap, named in the error a runaway answer gets."""

_OUTPUT_LIMIT_FIELDS = ("max_tokens", "max_output_tokens", "num_predict", "max_new_tokens")
"""What chat-model integrations call their output limit (OpenAI and Anthropic, Google, Ollama, Hugging Face)."""


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
