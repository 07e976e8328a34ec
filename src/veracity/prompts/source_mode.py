"""Additions to the extraction and judge prompts when an answer is checked against a source text."""

SOURCE_EXTRACT_ADDENDUM = """

The text is an answer (for example from a support agent) that must stay within a source
document. Courtesy with no factual content ("I understand", "happy to help", apologies) is not
a claim. Promises and commitments ("we'll refund you", "we'll find a solution") ARE claims."""

SOURCE_JUDGE_ADDENDUM = """

The evidence is the source document the answer must stay within. "supported" means the source
states it; "refuted" means the source contradicts it; "unverifiable" means the source does not
support it (for example a promise or exception the source does not make)."""
