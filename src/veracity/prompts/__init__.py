"""Prompt texts, one module per step. Each is a plain string constant."""
