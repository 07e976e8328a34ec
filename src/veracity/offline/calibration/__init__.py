"""Calibration of the offline judge: how likely a verdict is to be right, and when it may be decisive.

* `features`: the signals of one judgement as numbers (entailment scores and margins, agreement
  between passages, how plainly the passage is about the claim's subject, which override fired).
* `confidence`: the shipped calibrator, a logistic model per label fitted by
  ``training/fit_confidence.py``, that turns those signals into the probability that the label is right.
* `risk`: the shipped thresholds, chosen by Learn-then-Test risk control, that a confidence must
  clear for a verdict to stay supported or refuted at a target precision; below it the verdict
  is unverifiable and carries its lean.
* `ruling`: the three put together for one judgement.

Nothing here fits anything at check time: the calibrator and thresholds are data files in
``veracity/offline/assets/calibration/``.
"""
