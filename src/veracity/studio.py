"""Entry point for `langgraph.json` (LangGraph Studio and `langgraph dev`)."""

from veracity.builder import build_graph

factcheck = build_graph()
"""The fact-check graph with settings taken from the run's context."""
