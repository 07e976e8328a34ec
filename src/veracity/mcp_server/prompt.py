"""The prompt, for clients that offer prompts to their users: check this answer against this source."""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.fastmcp import FastMCP
from pydantic import Field

CHECK_AGAINST_SOURCE = """\
Fact-check the answer below against the source below, with the veracity tool `check_text`: pass the answer as \
`text` and the source as `source_text`, so that the source is the only evidence.

Then say whether the answer passed. For each claim that is not supported, quote the claim, give its label as \
`shown_label` words it, and the passage of the source the verdict quotes; where the judge proposes a corrected \
claim, give it. Do not add facts that are in neither text.

<answer>
{answer}
</answer>

<source>
{source}
</source>
"""


def add_prompt(server: FastMCP[Any]) -> None:
    """Register the prompt on `server`."""

    @server.prompt(name="check_answer_against_source", title="Check an answer against a source")
    def check_answer_against_source(
        answer: Annotated[str, Field(description="The answer to check, e.g. a chat model's reply.")],
        source: Annotated[str, Field(description="The text the answer must stay within, e.g. a policy.")],
    ) -> str:
        """Check an answer against a source text: every claim of the answer must be supported by the source."""
        return CHECK_AGAINST_SOURCE.format(answer=answer, source=source)
