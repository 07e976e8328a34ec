"""Prompts, one module per step: `extract`, `judge` and `revise` each hold that step's whole prompt.

`retry` holds the wording both gated steps (extract, judge) get when their gate rejects an answer.
"""
