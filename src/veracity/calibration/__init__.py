"""Risk control for any judge: `veracity calibrate` on the user's labelled data, and its use in checks.

* `fitting`: the calibrator (a logistic model per label over a judge's signals) and Learn-then-Test
  thresholds, fitted and certified on judged rows; the shipped offline calibration is made with it too.
* `signals`: what a check knows of a chat model's verdict without asking the model again.
* `judging`: the configured judge's label and signals on labelled rows.
* `identity`, `file`: the judge a calibration measured, and the file named for it.
* `runner`, `card`: the command's work, and the card written beside the file.
* `plugin`: a chat-model judge's answers ruled by its calibration in a check.

Nothing is imported from here until a calibration is fitted or used.
"""
