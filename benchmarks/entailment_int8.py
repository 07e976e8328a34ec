"""Would an int8-compute entailment model be fast enough, and would it score like the shipped one?

The shipped model stores its linear layers as 8-bit weights (``MatMulNBits``) but computes in
float32. This script builds variants that compute in int8, scores the same (evidence sentence,
claim) pairs with each, and prints the CPU time of onnxruntime's runs and how far each variant's
probabilities are from the shipped model's:

* ``float32``: the shipped weights dequantized exactly (the same numbers, computed as MatMul);
* ``blockwise int8 (accuracy level 4)``: the shipped file with int8 activations per block of 32;
* ``dynamic int8, all linear layers`` / ``... except the feed-forward outputs`` /
  ``... attention only``: onnxruntime's dynamic quantization (per-channel int8 weights,
  activations quantized per call) of the float32 model, on those layers.

Pairs: the first five evidence sentences of the first ``--claims`` claims of
``climatefever_claims.jsonl``, against their claim, batched as the judge batches them. Needs the
``onnx`` package (``pip install -e '.[train]'``, or onnx and ml_dtypes alone)::

    .venv/bin/python benchmarks/entailment_int8.py --claims 60
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "benchmarks" / "climatefever_claims.jsonl"


def dequantized(model: Any) -> Any:
    """`model` with every 8-bit ``MatMulNBits`` node replaced by a float32 MatMul of the same weights."""
    from onnx import helper, numpy_helper

    graph = model.graph
    initializers = {item.name: item for item in graph.initializer}
    nodes = []
    for node in graph.node:
        if node.op_type != "MatMulNBits":
            nodes.append(node)
            continue
        attributes = {item.name: helper.get_attribute_value(item) for item in node.attribute}
        k, n = attributes["K"], attributes["N"]
        if attributes["bits"] != 8 or any(node.input[3:]):
            raise ValueError(f"{node.name}: only symmetric 8-bit blocks without zero points or bias are handled")
        codes = numpy_helper.to_array(initializers[node.input[1]]).astype(np.float32)  # (N, blocks, block)
        scales = numpy_helper.to_array(initializers[node.input[2]]).reshape(n, -1)
        weights = ((codes - 128.0) * scales[:, :, None]).reshape(n, -1)[:, :k].T.astype(np.float32)
        name = f"{node.input[1]}_float32"
        graph.initializer.append(numpy_helper.from_array(np.ascontiguousarray(weights), name))
        nodes.append(helper.make_node("MatMul", [node.input[0], name], list(node.output), name=node.name))
    del graph.node[:]
    graph.node.extend(nodes)
    used = {name for node in graph.node for name in node.input}
    kept = [item for item in graph.initializer if item.name in used]
    del graph.initializer[:]
    graph.initializer.extend(kept)
    return model


def with_accuracy_level(model: Any, level: int) -> Any:
    """`model` with its ``MatMulNBits`` nodes told to compute at `level` (4: int8 activations)."""
    from onnx import helper

    for node in model.graph.node:
        if node.op_type == "MatMulNBits":
            for item in [item for item in node.attribute if item.name == "accuracy_level"]:
                node.attribute.remove(item)
            node.attribute.append(helper.make_attribute("accuracy_level", level))
    return model


def build_variants(shipped: Path, folder: Path) -> dict[str, Path]:
    """Write the variants into `folder`; name -> file."""
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    float32 = folder / "float32.onnx"
    onnx.save(dequantized(onnx.load(str(shipped))), str(float32))
    level4 = folder / "level4.onnx"
    onnx.save(with_accuracy_level(onnx.load(str(shipped)), 4), str(level4))
    linear = [node.name for node in onnx.load(str(float32)).graph.node
              if node.op_type == "MatMul" and node.name.endswith("_Q8")]
    subsets = {
        "dynamic int8, all linear layers": linear,
        "dynamic int8, except the feed-forward outputs": [
            name for name in linear if "/output/dense" not in name or "attention" in name],
        "dynamic int8, attention only": [name for name in linear if "attention" in name],
    }
    variants = {"shipped": shipped, "float32": float32, "blockwise int8 (accuracy level 4)": level4}
    for number, (label, nodes) in enumerate(subsets.items()):
        target = folder / f"dynamic{number}.onnx"
        quantize_dynamic(str(float32), str(target), weight_type=QuantType.QInt8, per_channel=True,
                         nodes_to_quantize=nodes)
        variants[label] = target
    return variants


def main() -> int:
    """Build, time and compare the variants; print one JSON line per variant."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--claims", type=int, default=60)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--repeats", type=int, default=3, help="timed passes per variant; the fastest counts")
    args = parser.parse_args()

    import onnxruntime

    from veracity.offline.model import entailment

    model = entailment.EntailmentModel(threads=1, remembered=0)
    shipped = Path(str(entailment.assets_folder().joinpath(model.config["model_file"])))
    with open(args.data, encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle][:args.claims]
    pairs = [(sentence, row["claim"]) for row in rows for sentence in row["evidence"].split("\n")[:5]]
    encodings = model._tokenizer.encode_batch(pairs)
    batches = entailment.cheapest_batches([len(e.ids) for e in encodings], max_size=entailment.MAX_BATCH,
                                          call_overhead=entailment.CALL_OVERHEAD_TOKENS)
    feeds = [(batch, entailment._padded([encodings[i] for i in batch])) for batch in batches]

    def scores(session: Any) -> np.ndarray:
        result = np.zeros((len(pairs), 3), dtype=np.float32)
        for batch, feed in feeds:
            (logits,) = session.run(None, feed)
            shifted = np.exp(logits - logits.max(axis=1, keepdims=True))
            result[batch] = shifted / shifted.sum(axis=1, keepdims=True)
        return result

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    options.log_severity_level = 3
    reference = None
    with tempfile.TemporaryDirectory() as folder:
        for name, path in build_variants(shipped, Path(folder)).items():
            session = onnxruntime.InferenceSession(str(path), sess_options=options,
                                                   providers=["CPUExecutionProvider"])
            found = scores(session)  # untimed: the first run allocates
            seconds = []
            for _ in range(args.repeats):
                started = time.process_time()
                found = scores(session)
                seconds.append(time.process_time() - started)
            reference = found if reference is None else reference
            print(json.dumps({
                "variant": name, "pairs": len(pairs), "cpu_ms": round(1000 * min(seconds)),
                "cpu_ms_per_pair": round(1000 * min(seconds) / len(pairs), 2),
                "same_top_label": round(float((found.argmax(1) == reference.argmax(1)).mean()), 4),
                "largest_probability_change": round(float(np.abs(found - reference).max()), 4),
                "mean_probability_change": round(float(np.abs(found - reference).mean()), 4),
            }), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
