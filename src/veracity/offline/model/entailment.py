"""The bundled entailment cross-encoder: (evidence, claim) -> P(supported), P(refuted), P(unverifiable).

A MiniLM-L6 classifier fine-tuned by ``training/train_entailment.py``, shipped as an int8 ONNX
file in ``veracity/offline/assets/entailment/`` with its ``config.json`` (labels, sequence
length and the judge's calibrated thresholds) and a model card. It runs with onnxruntime and
the bundled MiniLM tokenizer; torch is never imported.
"""

from __future__ import annotations

import functools
import json
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from typing import Any

import numpy as np
from numpy.typing import NDArray

ASSETS = "assets/entailment"
"""Folder of the model, its config and card, inside the `veracity.offline` package."""
LABEL_ORDER = ("supported", "refuted", "unverifiable")


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
    """Scores (premise, hypothesis) pairs with the int8 ONNX cross-encoder."""

    def __init__(self, *, folder: Traversable | None = None, threads: int = 1) -> None:
        """`threads` is onnxruntime's intra-op thread count; one suits concurrent claim branches."""
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
        self._tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")

    def _run(self, pairs: Sequence[tuple[str, str]]) -> NDArray[np.float32]:
        encodings = self._tokenizer.encode_batch(list(pairs))
        feeds = {
            "input_ids": np.array([e.ids for e in encodings], dtype=np.int64),
            "attention_mask": np.array([e.attention_mask for e in encodings], dtype=np.int64),
            "token_type_ids": np.array([e.type_ids for e in encodings], dtype=np.int64),
        }
        (logits,) = self._session.run(None, feeds)
        shifted = np.exp(logits - logits.max(axis=1, keepdims=True))
        probabilities: NDArray[np.float32] = shifted / shifted.sum(axis=1, keepdims=True)
        return probabilities

    def predict(self, pairs: Sequence[tuple[str, str]], *, batch_size: int = 32) -> NDArray[np.float32]:
        """Probabilities, shape (len(pairs), 3) in `LABEL_ORDER`, for (premise, hypothesis) pairs.

        Pairs are run in batches of similar length, so padding stays small.
        """
        result = np.zeros((len(pairs), len(LABEL_ORDER)), dtype=np.float32)
        order = sorted(range(len(pairs)), key=lambda i: len(pairs[i][0]) + len(pairs[i][1]))
        for start in range(0, len(order), batch_size):
            chosen = order[start:start + batch_size]
            result[chosen] = self._run([pairs[i] for i in chosen])
        return result

    def probabilities(self, premises: Sequence[str], hypothesis: str) -> list[Probabilities]:
        """`Probabilities` of each premise against one hypothesis (one batched call)."""
        scores = self.predict([(premise, hypothesis) for premise in premises])
        return [Probabilities(*map(float, row)) for row in scores]


_default_lock = threading.Lock()


def default_entailment_model() -> EntailmentModel:
    """The process-wide model, loaded on first use and shared by every claim branch."""
    with _default_lock:
        return _load_default_model()


@functools.lru_cache(maxsize=1)
def _load_default_model() -> EntailmentModel:
    return EntailmentModel()
