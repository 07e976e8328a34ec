"""The revise step's prompt: the feedback a claim carries back to the judge when the report evaluation rejected it.

The judge's own prompt (`veracity.prompts.judge`) is sent again, and this feedback follows its user message.
The template is `Context.revise_feedback` (this module's `REVISE_FEEDBACK` by default).
"""

from __future__ import annotations

REVISE_FEEDBACK = """\
Your previous verdict on this claim was rejected by the report evaluation:
{issues}
Judge the claim again from the evidence, and cite a quote that appears verbatim in the item you cite."""
"""Template of the revise feedback; `{issues}` is filled by `revise_feedback`."""


def revise_feedback(issues: list[str], template: str = REVISE_FEEDBACK) -> str:
    """The feedback for one claim: `template` (`Context.revise_feedback`) filled with its issues, one "- " line each."""
    return template.format(issues="\n".join(f"- {issue}" for issue in issues))
