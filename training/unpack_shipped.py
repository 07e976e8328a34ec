"""Turn the shipped int8 ONNX entailment model back into a float PyTorch model to train from.

The float weights of the shipped model were not kept (``training/out`` is not committed), and
retraining from the base MiniLM would throw away both earlier stages. The int8 file holds every
weight: linear layers as ``MatMulNBits`` (8 bits, blocks of 32, symmetric, so the zero point is
128), embedding tables as per-tensor ``DequantizeLinear`` (scale and zero point), and the rest
(biases, layer norms, the pooler and the head) in float32. This script dequantizes them into a
Hugging Face ``BertForSequenceClassification`` with the base model's configuration, checks that it
gives the shipped model's probabilities on a sample of pairs, and saves it::

    .venv-train/bin/python training/unpack_shipped.py --out training/out/shipped-hf

The largest probability difference against onnxruntime is printed (about 1e-3 is expected: the
shipped file runs the same int8 weights, but its kernels round differently).
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

import numpy as np
import onnx
import torch
from onnx import numpy_helper
from train_entailment import DEFAULT_NLI_DIR, LABELS, base_model_dir, encode, read_rows

SHIPPED = Path(__file__).resolve().parents[1] / "src" / "veracity" / "offline" / "assets" / "entailment"
NBITS_ZERO_POINT = 128
"""The implied zero point of symmetric 8-bit ``MatMulNBits`` weights."""


def dequantized_state(onnx_path: Path) -> dict[str, torch.Tensor]:
    """Every weight of the shipped model under its Hugging Face parameter name, as float32."""
    model = onnx.load(str(onnx_path))
    initializers = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    state: dict[str, np.ndarray] = {}
    for name, value in initializers.items():
        if value.dtype == np.float32 and (name.endswith(".bias") or name.endswith(".weight")):
            state[name] = value
        elif name.endswith(".weight_Transposed"):
            state[name.removesuffix("_Transposed")] = value.T
        elif name.endswith(".weight_quantized"):
            stem = name.removesuffix("_quantized")
            scale, zero = initializers[f"{stem}_scale"], initializers[f"{stem}_zero_point"]
            state[stem] = (value.astype(np.float32) - float(zero)) * float(scale)
    for node in model.graph.node:
        if node.op_type != "MatMulNBits":
            continue
        attributes = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
        if attributes.get("bits") != 8 or len(node.input) > 3:
            raise ValueError(f"{node.name}: only symmetric 8-bit MatMulNBits weights are read")
        quantized, scales = initializers[node.input[1]], initializers[node.input[2]]
        out_features, in_features = attributes["N"], attributes["K"]
        blocks = (quantized.astype(np.float32) - NBITS_ZERO_POINT) * scales[:, :, None]
        weight = blocks.reshape(out_features, -1)[:, :in_features]
        # "/bert/encoder/layer.0/attention/self/query/MatMul_Q8" -> "bert.encoder.layer.0.attention.self.query.weight"
        parameter = ".".join(node.name.strip("/").split("/")[:-1]) + ".weight"
        state[parameter] = weight
    return {name: torch.from_numpy(np.array(value, dtype=np.float32)) for name, value in state.items()}


def unpack(onnx_path: Path, out: Path):
    """Build the float model from `onnx_path`, save it to `out` and return (model, tokenizer)."""
    from transformers import AutoConfig, AutoModelForSequenceClassification, AutoTokenizer

    base = base_model_dir()
    config = AutoConfig.from_pretrained(
        base, num_labels=len(LABELS), id2label=dict(enumerate(LABELS)), label2id={n: i for i, n in enumerate(LABELS)})
    model = AutoModelForSequenceClassification.from_config(config)
    state = dequantized_state(onnx_path)
    expected = {k for k in model.state_dict() if not k.endswith("position_ids")}
    missing = expected - set(state)
    if missing:
        raise ValueError(f"weights not found in {onnx_path}: {sorted(missing)}")
    model.load_state_dict(state, strict=False)
    tokenizer = AutoTokenizer.from_pretrained(base)
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)
    return model, tokenizer


def largest_difference(model, tokenizer, onnx_path: Path, rows: list[dict], max_length: int) -> float:
    """The largest absolute probability difference between the float model and the ONNX file on `rows`."""
    import onnxruntime

    session = onnxruntime.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
    model.eval()
    worst = 0.0
    for start in range(0, len(rows), 32):
        batch = encode(tokenizer, rows[start:start + 32], max_length)
        with torch.no_grad():
            ours = torch.softmax(model(**batch).logits, dim=-1).numpy()
        names = ("input_ids", "attention_mask", "token_type_ids")
        feeds = {name: batch[name].numpy().astype(np.int64) for name in names}
        logits = session.run(["logits"], feeds)[0]
        theirs = np.exp(logits - logits.max(axis=1, keepdims=True))
        theirs /= theirs.sum(axis=1, keepdims=True)
        worst = max(worst, float(np.abs(ours - theirs).max()))
    return worst


def main(argv: list[str] | None = None) -> int:
    """Unpack, compare on a seeded sample of FEVER dev pairs, save."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--onnx", type=Path, default=SHIPPED / "model.int8.onnx", help="the shipped int8 model")
    parser.add_argument("--out", type=Path, required=True, help="folder for the float model")
    parser.add_argument("--nli-dir", type=Path, default=DEFAULT_NLI_DIR)
    parser.add_argument("--compare-rows", type=int, default=256)
    args = parser.parse_args(argv)
    model, tokenizer = unpack(args.onnx, args.out)
    rows = read_rows(args.nli_dir / "eval" / "fever_dev_binary.jsonl")
    random.Random(13).shuffle(rows)
    difference = largest_difference(model, tokenizer, args.onnx, rows[: args.compare_rows], 160)
    print(f"largest probability difference against {args.onnx.name} on {args.compare_rows} pairs: {difference:.5f}")
    (args.out / "unpacked_from.json").write_text(json.dumps(
        {"onnx": str(args.onnx), "compare_rows": args.compare_rows, "largest_probability_difference": difference},
        indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
