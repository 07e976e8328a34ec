"""Node names, defined once: the wiring, the routers and the trace all use these.

The routers (`veracity.routes`) spell their destinations as `Literal` types, defined here too,
next to the names they list.
"""

from __future__ import annotations

from typing import Final, Literal

EXTRACT_CLAIMS: Final = "extract_claims"
EXTRACTION_GATE: Final = "extraction_gate"
CHECK_CLAIM: Final = "check_claim"
GATHER_EVIDENCE: Final = "gather_evidence"
CALCULATE_CLAIM: Final = "calculate_claim"
JUDGE_CLAIM: Final = "judge_claim"
VERDICT_GATE: Final = "verdict_gate"
VERIFY_PAGE: Final = "verify_page"
EVALUATE_REPORT: Final = "evaluate_report"
REVISE: Final = "revise"
FINALIZE_REPORT: Final = "finalize_report"
END: Final = "__end__"
"""`langgraph.graph.END`, spelled as a literal so that routers returning it keep their `Literal` type."""

AfterExtraction = Literal["extract_claims", "evaluate_report"]
"""Where `extraction_gate` goes unless it fans out (one `Send` to `check_claim` per claim): retry, or evaluate."""
ClaimStart = Literal["gather_evidence", "calculate_claim"]
"""Where a claim branch starts: search, or the calculator (plain arithmetic, or a revise round with evidence)."""
AfterEvidence = Literal["calculate_claim", "__end__"]
"""After the search: the calculator, or end the branch (no evidence, or the search failed)."""
AfterCalculation = Literal["verdict_gate", "judge_claim"]
"""After the calculator: its computed verdict to the gate, or (not a computed claim) the judge."""
AfterVerdict = Literal["judge_claim", "verify_page", "__end__"]
"""After `verdict_gate`: judge again with the gate's reason, check a web verdict's page, or end the branch."""
AfterEvaluation = Literal["revise", "finalize_report"]
"""After `evaluate_report`: a revise round, or the final report."""
