"""Graph nodes, one module per step."""
