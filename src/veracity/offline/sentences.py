"""The sentence splitter, as the offline judge's modules import it (`veracity.sentences` is where it lives)."""

from veracity.sentences import Sentence, settled_end, split_sentences

__all__ = ["Sentence", "settled_end", "split_sentences"]
