"""The bundled entailment cross-encoder: (evidence, claim) -> P(supported), P(refuted), P(unverifiable).

A MiniLM-L6 classifier fine-tuned by ``training/train_entailment.py``, shipped as an int8 ONNX
file in ``veracity/offline/assets/entailment/`` with its ``config.json`` (labels, sequence
length and the judge's calibrated thresholds) and a model card. It runs with onnxruntime and
the bundled MiniLM tokenizer; torch is never imported.

A pair's scores do not depend on the other pairs of its batch (padding is masked), so the model
is free to batch as it likes: the claims of a check, judged in parallel branches, share model
calls (`Coalescer`), each call's pairs are cut into batches of similar token length where the
padding costs less than another call would, and recent scores are remembered (`ScoreMemo`).
"""

from __future__ import annotations

import functools
import json
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from veracity.cores import usable_cores
from veracity.offline.model.coalescing import Coalescer
from veracity.offline.model.score_memo import DEFAULT_SCORES_REMEMBERED, ScoreMemo, pair_key

if TYPE_CHECKING:
    from tokenizers import Encoding

ASSETS = "assets/entailment"
"""Folder of the model, its config and card, inside the `veracity.offline` package."""
LABEL_ORDER = ("supported", "refuted", "unverifiable")
CALL_OVERHEAD_TOKENS = 64
"""What one more onnxruntime run costs, in padded tokens: on CPU each run of the int8 model spends about as
long unpacking its weights as on 64 tokens of text, so a short pair is padded into a longer batch rather
than given a run of its own."""
MAX_BATCH = 32
"""Pairs in one onnxruntime run at most."""


@dataclass(frozen=True)
class Probabilities:
    """The model's three class probabilities for one (evidence passage, claim) pair."""

    supported: float
    refuted: float
    unverifiable: float

    def describe(self) -> str:
        """Short form for verdict reasons: 'entails 0.93, contradicts 0.02'."""
        return f"entails {self.supported:.2f}, contradicts {self.refuted:.2f}"


def assets_folder() -> Traversable:
    """The installed folder holding the model, ``config.json`` and ``MODEL_CARD.md``."""
    return resources.files("veracity.offline").joinpath(ASSETS)


def load_config(folder: Traversable | None = None) -> dict[str, Any]:
    """The model's ``config.json``: labels, max_length, model file name, thresholds, calibration record."""
    folder = folder or assets_folder()
    config: dict[str, Any] = json.loads(folder.joinpath("config.json").read_text(encoding="utf-8"))
    return config


class EntailmentModel:
    """Scores (premise, hypothesis) pairs with the int8 ONNX cross-encoder; safe to call from many threads."""

    def __init__(self, *, folder: Traversable | None = None, threads: int = 1, runs_at_once: int | None = None,
                 remembered: int = DEFAULT_SCORES_REMEMBERED) -> None:
        """Load the model.

        `threads` is onnxruntime's intra-op thread count; one suits concurrent claim branches.
        `runs_at_once` bounds the calls under way together (default: the usable cores); callers
        arriving while all are busy share the next call. The scores of the last `remembered`
        pairs are kept (0: none).
        """
        import onnxruntime
        from tokenizers import Tokenizer

        folder = folder or assets_folder()
        self.config = load_config(folder)
        if tuple(self.config["labels"]) != LABEL_ORDER:
            raise ValueError(f"entailment model labels {self.config['labels']} are not {list(LABEL_ORDER)}")
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.log_severity_level = 3
        model_bytes = folder.joinpath(self.config["model_file"]).read_bytes()
        self._session = onnxruntime.InferenceSession(
            model_bytes, sess_options=options, providers=["CPUExecutionProvider"]
        )
        tokenizer_file = resources.files("veracity.offline").joinpath(self.config["tokenizer_file"])
        self._tokenizer = Tokenizer.from_str(tokenizer_file.read_text(encoding="utf-8"))
        # The training side cut the premise first; longest-first does the same whenever the
        # premise is the longer part, and never fails on a claim longer than the limit.
        self._tokenizer.enable_truncation(max_length=int(self.config["max_length"]), strategy="longest_first")
        self._tokenizer.no_padding()  # each batch is padded to its own longest pair (`_padded`)
        self._calls: Coalescer[tuple[str, str], NDArray[np.float32]] = Coalescer(
            self._score, runs_at_once=runs_at_once or usable_cores())
        self.memo = ScoreMemo(remembered)
        self._counts_lock = threading.Lock()
        self.runs = 0
        """onnxruntime runs (batches) made so far."""
        self.pairs_scored = 0
        """Pairs the model has scored so far (remembered ones not counted)."""

    @property
    def calls(self) -> int:
        """Shared calls made so far: each serves every caller waiting at the time, in one or more `runs`."""
        return self._calls.calls

    @property
    def runs_at_once(self) -> int:
        """Shared calls that may be under way together."""
        return self._calls.runs_at_once

    @runs_at_once.setter
    def runs_at_once(self, runs: int) -> None:
        self._calls.runs_at_once = max(1, runs)

    def predict(self, pairs: Sequence[tuple[str, str]]) -> NDArray[np.float32]:
        """Probabilities, shape (len(pairs), 3) in `LABEL_ORDER`, for (premise, hypothesis) pairs.

        Remembered pairs are answered from memory; the rest are scored together with the pairs
        other threads ask for at the same time.
        """
        result = np.zeros((len(pairs), len(LABEL_ORDER)), dtype=np.float32)
        keys = [pair_key(premise, hypothesis) for premise, hypothesis in pairs]
        missing: dict[bytes, list[int]] = {}
        for index, (key, row) in enumerate(zip(keys, self.memo.recall(keys, len(LABEL_ORDER)), strict=True)):
            if row is None:
                missing.setdefault(key, []).append(index)
            else:
                result[index] = row
        if missing:
            wanted = [pairs[indexes[0]] for indexes in missing.values()]
            scored = np.stack(self._calls(wanted))
            for indexes, row in zip(missing.values(), scored, strict=True):
                result[indexes] = row
            self.memo.keep(list(missing), scored)
        return result

    def probabilities(self, premises: Sequence[str], hypothesis: str) -> list[Probabilities]:
        """`Probabilities` of each premise against one hypothesis (one request, as `predict`)."""
        scores = self.predict([(premise, hypothesis) for premise in premises])
        return [Probabilities(*map(float, row)) for row in scores]

    def _score(self, pairs: list[tuple[str, str]]) -> list[NDArray[np.float32]]:
        """Each pair's row of probabilities, the model run in batches of similar token length (`cheapest_batches`)."""
        encodings = self._tokenizer.encode_batch(pairs)
        result = np.zeros((len(pairs), len(LABEL_ORDER)), dtype=np.float32)
        batches = cheapest_batches([len(encoding.ids) for encoding in encodings], max_size=MAX_BATCH,
                                   call_overhead=CALL_OVERHEAD_TOKENS)
        for batch in batches:
            (logits,) = self._session.run(None, _padded([encodings[i] for i in batch]))
            shifted = np.exp(logits - logits.max(axis=1, keepdims=True))
            result[batch] = shifted / shifted.sum(axis=1, keepdims=True)
        with self._counts_lock:
            self.runs += len(batches)
            self.pairs_scored += len(pairs)
        return list(result)


def _padded(encodings: Sequence[Encoding]) -> dict[str, NDArray[np.int64]]:
    """The model's inputs for `encodings`, padded with zeros ([PAD], masked out) to the longest."""
    width = max(len(encoding.ids) for encoding in encodings)
    feeds = {name: np.zeros((len(encodings), width), dtype=np.int64)
             for name in ("input_ids", "attention_mask", "token_type_ids")}
    for row, encoding in enumerate(encodings):
        size = len(encoding.ids)
        feeds["input_ids"][row, :size] = encoding.ids
        feeds["attention_mask"][row, :size] = encoding.attention_mask
        feeds["token_type_ids"][row, :size] = encoding.type_ids
    return feeds


def cheapest_batches(lengths: Sequence[int], *, max_size: int, call_overhead: int) -> list[list[int]]:
    """Indexes of `lengths` cut into batches, shortest first, that cost the least to run.

    A batch costs `call_overhead` plus its padded size (its length times its longest); batches
    hold at most `max_size` items and are stretches of the length-sorted order (some cheapest
    cut always is), found by dynamic programming over the cut points.
    """
    order = sorted(range(len(lengths)), key=lambda i: (lengths[i], i))
    best = [0] + [0] * len(order)
    cut = [0] * (len(order) + 1)
    for end in range(1, len(order) + 1):
        longest = lengths[order[end - 1]]
        best[end], cut[end] = min(
            (best[start] + call_overhead + (end - start) * longest, start)
            for start in range(max(0, end - max_size), end)
        )
    batches: list[list[int]] = []
    end = len(order)
    while end > 0:
        batches.append(order[cut[end]:end])
        end = cut[end]
    return batches[::-1]


_default_lock = threading.Lock()
_default_runs: int | None = None


def default_entailment_model() -> EntailmentModel:
    """The process-wide model, loaded on first use and shared by every claim branch."""
    with _default_lock:
        return _load_default_model()


def limit_default_runs(runs_at_once: int) -> None:
    """Let the process-wide model make at most `runs_at_once` calls together (default: the usable cores).

    A server with several worker processes gives each its share of the cores, so that the
    workers' model calls together do not outnumber them.
    """
    global _default_runs
    with _default_lock:
        _default_runs = max(1, runs_at_once)
        if _load_default_model.cache_info().currsize:
            _load_default_model().runs_at_once = _default_runs


@functools.lru_cache(maxsize=1)
def _load_default_model() -> EntailmentModel:
    return EntailmentModel(runs_at_once=_default_runs)
