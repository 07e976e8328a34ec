"""Feedback template used when a revise round sends a claim back to the judge."""

REVISE_FEEDBACK = """\
Your previous verdict on this claim was rejected by the report evaluation:
{issues}
Judge the claim again from the evidence, and cite a quote that appears verbatim in the item you cite."""
