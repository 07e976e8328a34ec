"""`veracity calibrate`: risk control for any judge, measured on the user's labelled data.

It sits above the run and the evaluation (it judges rows through the claim graph a check runs)
and writes the file a check uses (`veracity.calibration`, a plug-in below them):

* `judging`: the configured judge's label and signals on labelled rows;
* `fitting`: the calibrator (a logistic model per label over a judge's signals) and Learn-then-Test
  thresholds, fitted and certified on judged rows; the shipped offline calibration is made with it too;
* `runner`: the command's work (`calibrate`, `acalibrate`), and `card`: the card written beside the file.

Nothing is imported from here until a calibration is fitted.
"""
