"""Text stitched into a prompt when a gate sends an output back for another attempt."""

GATE_FEEDBACK = """\
Your previous answer was rejected (attempt {attempt} of {max_attempts}) for this reason:
{error}
Answer again, fixing exactly this problem."""
