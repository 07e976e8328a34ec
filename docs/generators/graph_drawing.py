"""The README's drawing of the graph, made from the compiled graph itself."""

from __future__ import annotations


def mermaid_block() -> str:
    """The fact-check graph, per-claim subgraph included, as a fenced Mermaid block.

    It is LangGraph's own drawing of `veracity.graph` (the graph `langgraph.json` serves), so it shows every
    node and every route the wiring has; `tests/golden/graph.mmd` snapshots the same drawing.
    """
    import veracity

    drawing = veracity.graph.get_graph(xray=True).draw_mermaid()
    return f"```mermaid\n{drawing.rstrip()}\n```\n"
