"""The message a gated step (extract, judge) gets when its gate sent the last answer back for another attempt."""

from __future__ import annotations

from langchain_core.messages import BaseMessage, HumanMessage

RETRY_FEEDBACK = """\
Your previous answer was rejected (attempt {attempt} of {max_attempts}) for this reason:
{error}
Answer again, fixing exactly this problem."""
"""Template of the retry message: the attempt just rejected, the attempts allowed, and the gate's error."""


def retry_feedback(errors: list[str], max_attempts: int) -> list[BaseMessage]:
    """The gate's last rejection as a message for the next attempt (nothing on a first attempt)."""
    if not errors:
        return []
    return [HumanMessage(RETRY_FEEDBACK.format(attempt=len(errors), max_attempts=max_attempts, error=errors[-1]))]
