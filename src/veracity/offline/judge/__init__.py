"""The offline judges: the shipped entailment judge, its decision rules and lexical contradiction signals.

`entailment_judge` is the judge veracity runs offline; `reference_judge` (embeddings plus lexical
signals) stays for comparison in the benchmarks. Both extend `base.PassageJudge`.
"""
