"""Offline components: local embeddings, sentence splitting, the claim splitter and the judge.

Nothing here needs a network connection or an API key.
"""
