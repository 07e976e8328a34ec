"""The graph's steps, one module each: the node, its request schema, its output cap.

extract (`extract_claims`), extraction_gate, evidence (`gather_evidence`), calculate (`calculate_claim`),
judge (`judge_claim`), verdict_gate, page (`verify_page`), evaluate (`evaluate_report`), revise and
finalize (`finalize_report`). What the steps share lives in `veracity.step_support`.
"""
