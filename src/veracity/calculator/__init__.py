"""The calculator: claims whose truth is a computation are decided by code, not by a text model.

A text model cannot do arithmetic: it reads "over 100 years old" against "dedicated in 1886" as
a mismatch of numbers. The calculator recognises claims about ages, durations, lifespans,
measures with "more/less than", unit conversions, comparisons of two things, amounts against
stated limits ("no more than 8 tablets in 24 hours"), and plain arithmetic; reads every input
value from a quoted evidence sentence (never from a model); computes the answer; and says how, as
text a person can redo by hand.

* `questions` turns a claim into a formal question (what is compared with what);
* `values`, `units` and `dates` read numbers, measures and dates from text;
* `inputs` finds the evidence sentence that gives a question's value for its subject;
* `limits` reads a figure as a rule does (a limit, an allowed or forbidden amount, its period), and
  `bounds` compares a claim's figure with the evidence's limits;
* `solve` computes the answer and words it (an `answer.Answer`); `arithmetic` decides sums without evidence.
"""

from veracity.calculator.answer import Answer
from veracity.calculator.questions import Question, parse_question
from veracity.calculator.solve import calculate

__all__ = ["Answer", "Question", "calculate", "parse_question"]
