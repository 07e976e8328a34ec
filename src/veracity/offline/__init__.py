"""Offline components: local embeddings, sentence splitting, the claim splitter and the judges.

The shipped judge (`entailment_judge`) runs a bundled entailment model (`entailment`); the first
judge (`judge`, embeddings plus lexical signals) stays for comparison. Nothing here needs a
network connection or an API key.
"""
