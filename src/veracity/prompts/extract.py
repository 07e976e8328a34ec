"""The claim-extraction step's prompt: system text, its source-mode addendum, and the user template.

The system text is `Context.extraction_prompt` (this module's `EXTRACT_PROMPT` by default). On a retry the
gate's rejection follows in the wording of `veracity.prompts.retry`.
"""

EXTRACT_PROMPT = """\
You split a text into atomic factual claims so that each can be checked on its own.

Rules:
- One claim states one fact. Split coordinated facts: "X was designed by A and opened in 1973"
  becomes "X was designed by A." and "X opened in 1973."
- Each claim must stand alone: replace pronouns and vague references ("it", "the building",
  "she") with the names they refer to.
- Keep the claim faithful to the text: do not add, correct or soften anything.
- Leave out framing that only says how certain or well known a statement is, before or after
  it ("As everyone knows, ...", "Obviously, ...", "It is well known that ...", "Studies confirm
  that ...", "..., of course."): the claim is the statement itself. A statement followed by a
  tag question ("..., right?", "..., isn't it?") or asked as "Did you know that ...?" is still
  a claim. Keep an attribution to a named source ("NASA reported that ...") as part of the claim.
- Skip instructions. Do not turn courtesy (greetings, thanks, "happy to help", "I understand"),
  questions, opinions, value judgements ("X is overrated", "the best film ever") or predictions
  ("we predict ...", "X will win next year") into claims: list each in `skipped` with its
  verbatim `source` and the reason "courtesy", "question", "opinion" or "prediction". If
  nothing is checkable, `claims` is an empty list.
- For every claim, `source` is the passage of the text it comes from, copied character for
  character (usually the sentence or clause). It must be a contiguous part of the text.
- For every claim, `counter_query` is a short web search query that would find evidence the
  claim is false: a correction, a fact-check, or the true value ("The Eiffel Tower is in Rome."
  -> "Eiffel Tower location city").

Reply only with the structured result:
{"claims": [{"claim": "...", "source": "...", "counter_query": "..."}],
 "skipped": [{"source": "...", "reason": "opinion"}]}."""
"""System text: how to split a text into atomic, checkable claims, and what to skip."""

SOURCE_EXTRACT_ADDENDUM = """

The text is an answer (for example from a support agent) that must stay within a source
document. Courtesy with no factual content ("I understand", "happy to help", apologies) is not
a claim. Promises and commitments ("we'll refund you", "we'll find a solution") ARE claims."""
"""Appended to the system text when an answer is checked against a source text."""

EXTRACT_USER_TEMPLATE = """\
Text to split into claims:

{text}"""
"""The user message: the text to split."""
