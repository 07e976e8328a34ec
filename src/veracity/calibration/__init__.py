"""A calibration measured for a judge, used in checks: the file `veracity calibrate` writes, and its ruling.

What a check needs to rule with a calibration file, and nothing of the command that makes one
(that is `veracity.calibrate`, above the run and the evaluation):

* `identity`: the judge a calibration measured, and the folder files are kept in;
* `schema`, `file`: the file's strict JSON form, and the file read (bounded, refused with the field's
  place when it breaks a rule), written and named for its judge;
* `trust`: a file found in the calibration folder must be the user's own;
* `signals`: what a check knows of a chat model's verdict without asking the model again;
* `plugin`: a chat-model judge's answers ruled by its calibration in a check.

Nothing is imported from here until a calibration is used.
"""
