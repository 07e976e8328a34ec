"""The offline claim splitter: a deterministic stand-in for the extraction model.

It follows the extraction prompt's rules with explainable heuristics, sentence by sentence:

1. skip questions;
2. cut the sentence at commas, dashes and "and"/"but", skip the courtesy pieces (greetings, thanks,
   apologies, empathy), and keep each remaining run of pieces as a passage;
3. strip hedges ("I think that"), skip opinions, value judgements and predictions;
4. split coordinated verb phrases ("was designed by X and opened in 1973"), carrying the subject over;
5. replace a leading pronoun ("It", "Its", "This building") with the previous sentence's subject.

Claims keep the character span they came from, so every `source` is a verbatim passage of the text.
Precision over recall: when a heuristic is unsure, the sentence stays whole.

Modules, in pipeline order: `tokens` (word tokens and text helpers), `segments` (sentences to
passages), `verbs` (the verb group), `coordination` (coordinated parts), `subjects` (subjects and
pronouns), `splitter` (passages to claims); `lexicon` holds the word lists and `worthiness` the
rule for what is not check-worthy (courtesy, questions, opinions, predictions), which the splitter
lists in ``skipped`` with its reason and which `skip_reason` applies to any one statement.
"""

from veracity.offline.extract.splitter import extract_claims_offline, skip_reason

__all__ = ["extract_claims_offline", "skip_reason"]
