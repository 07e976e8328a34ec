"""Text stitched into a prompt when a gate sends an output back for another attempt."""

from __future__ import annotations

from langchain_core.messages import BaseMessage, HumanMessage

GATE_FEEDBACK = """\
Your previous answer was rejected (attempt {attempt} of {max_attempts}) for this reason:
{error}
Answer again, fixing exactly this problem."""


def gate_feedback(errors: list[str], max_attempts: int) -> list[BaseMessage]:
    """The gate's last rejection as a message for the next attempt (nothing on a first attempt)."""
    if not errors:
        return []
    return [HumanMessage(GATE_FEEDBACK.format(attempt=len(errors), max_attempts=max_attempts, error=errors[-1]))]
