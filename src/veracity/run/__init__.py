"""The runner above the graph: it compiles the graph once and runs checks on it.

`checker` holds `Checker`; `deadline` turns a check stopped at its deadline into an honest report;
`checkpoints` makes checks durable; `blocking` runs a check from synchronous code.
"""
