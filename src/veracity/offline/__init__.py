"""Offline components: everything that runs with no network and no API key, by concern.

* `extract/`: the deterministic claim splitter (tokens, segments, verbs, coordination,
  subjects, and the splitter that assembles claims), with its word lists.
* `judge/`: the shipped entailment judge, its decision rules, the lexical contradiction
  signals (numbers, negation, names, hearsay) and the first, reference judge kept for comparison.
* `calibration/`: how likely a verdict is to be right, and when it may be decisive (the
  calibrator and the risk-controlled thresholds, shipped as data in `assets/calibration/`).
* `model/`: the bundled models, run with onnxruntime: sentence embeddings and the entailment
  cross-encoder (their files live in `assets/`).
* `sentences`: sentence segmentation with spans, shared by all of the above and the knowledge base.
"""
