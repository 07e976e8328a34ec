"""The entailment model's batching: scores that do not depend on the batch, shared calls across claims, memory.

The offline judge scores each claim's passages from its own claim branch; the model merges the
requests that wait at the same time into one call (`Coalescer`), cuts a call into batches of
similar token length (`cheapest_batches`) and remembers recent scores (`ScoreMemo`). None of
that may change a verdict: the judge on several claims at once must rule exactly as the judge
of one claim at a time, one model call per claim, did before.
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from importlib import resources

import numpy as np
import pytest

from veracity.contracts import Evidence
from veracity.offline.judge.entailment_judge import EntailmentJudge
from veracity.offline.model.coalescing import Coalescer
from veracity.offline.model.entailment import (
    EntailmentModel,
    Probabilities,
    assets_folder,
    cheapest_batches,
    load_config,
)
from veracity.offline.model.score_memo import ScoreMemo, pair_key

DEMO = resources.files("veracity.kb").joinpath("demo")
POLICY = (
    "Items may be returned within 30 days of delivery for a full refund. Items must be unused and in their "
    "original packaging. Refunds are issued to the original payment method within 5 business days of "
    "receiving the return. Sale items are final and cannot be returned. Return shipping is free for orders "
    "over $50."
)
CLAIMS = [
    ("You can return items within 30 days of delivery.", "policy"),
    ("They need to be unused and in the original packaging.", "policy"),
    ("Your refund reaches your original payment method within 5 business days.", "policy"),
    ("Sale items can be returned too.", "policy"),
    ("Return shipping is free on orders over $40.", "policy"),
    ("Sydney is the capital of Australia.", "australia"),
    ("The Sydney Opera House opened in 1973.", "sydney-opera-house"),
    ("The Eiffel Tower is in Berlin.", "eiffel-tower"),
    ("Marie Curie liked gardening.", "marie-curie"),
    ("Mount Everest is growing taller every year.", "mount-everest"),
]


def evidence(source: str) -> list[Evidence]:
    text = POLICY if source == "policy" else DEMO.joinpath(f"{source}.md").read_text(encoding="utf-8")
    return [Evidence(id=source, claim_id="c1", text=text, backend="kb")]


class PerClaimModel:
    """The scoring as it was: each claim's passages in one padded batch of their own, no memory."""

    def __init__(self) -> None:
        import onnxruntime
        from tokenizers import Tokenizer

        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = 1
        self.config = load_config()
        self.session = onnxruntime.InferenceSession(
            assets_folder().joinpath(self.config["model_file"]).read_bytes(), sess_options=options,
            providers=["CPUExecutionProvider"])
        tokenizer_file = resources.files("veracity.offline").joinpath(self.config["tokenizer_file"])
        self.tokenizer = Tokenizer.from_str(tokenizer_file.read_text(encoding="utf-8"))
        self.tokenizer.enable_truncation(max_length=int(self.config["max_length"]), strategy="longest_first")
        self.tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")

    def probabilities(self, premises: list[str], hypothesis: str) -> list[Probabilities]:
        assert len(premises) <= 32  # one batch, as before
        encodings = self.tokenizer.encode_batch([(premise, hypothesis) for premise in premises])
        feeds = {name: np.array([getattr(e, field) for e in encodings], dtype=np.int64) for name, field in
                 (("input_ids", "ids"), ("attention_mask", "attention_mask"), ("token_type_ids", "type_ids"))}
        (logits,) = self.session.run(None, feeds)
        shifted = np.exp(logits - logits.max(axis=1, keepdims=True))
        return [Probabilities(*map(float, row)) for row in shifted / shifted.sum(axis=1, keepdims=True)]


# --------------------------------------------------------------------------- the model's scores


def test_a_pair_scores_the_same_alone_and_in_any_batch() -> None:
    words = POLICY.split()
    pairs = [(" ".join(words[i:i + 3 + 7 * (i % 5)]), " ".join(words[i % 9:i % 9 + 4 + i % 6])) for i in range(40)]
    fresh = EntailmentModel(remembered=0)
    together = fresh.predict(pairs)
    runs_together = fresh.runs
    alone = np.stack([fresh.predict([pair])[0] for pair in pairs])
    reversed_order = fresh.predict(pairs[::-1])[::-1]
    # Padding is masked out, so a pair's scores do not depend on its batch: bit for bit on this project's CPUs.
    # A longer padded row may still be summed in another order by another CPU's kernels, which moves a float32
    # probability in its last bits only; the tolerance is that rounding, far below any threshold's resolution.
    np.testing.assert_allclose(together, alone, rtol=0, atol=1e-6)
    np.testing.assert_allclose(together, reversed_order, rtol=0, atol=1e-6)
    assert 2 <= runs_together <= 8  # 40 pairs in a few batches of similar length (32 at most in one)


def test_the_memory_answers_a_pair_seen_before_with_the_same_row() -> None:
    fresh = EntailmentModel()
    pairs = [("Items may be returned within 30 days.", "You can return items within 30 days."),
             ("Sale items are final.", "Sale items can be returned.")]
    first = fresh.predict(pairs)
    runs, scored = fresh.runs, fresh.pairs_scored
    again = fresh.predict([pairs[1], pairs[0], pairs[1]])
    assert np.array_equal(again, first[[1, 0, 1]])
    assert (fresh.runs, fresh.pairs_scored) == (runs, scored) and fresh.memo.reused == 3


def test_a_pair_asked_twice_in_one_call_is_scored_once() -> None:
    fresh = EntailmentModel(remembered=0)
    pair = ("Items may be returned within 30 days.", "You can return items within 30 days.")
    scores = fresh.predict([pair, pair])
    assert np.array_equal(scores[0], scores[1]) and fresh.pairs_scored == 1


def test_the_memory_is_bounded_and_forgets_the_least_recently_used() -> None:
    memo = ScoreMemo(size=2)
    keys = [pair_key(f"premise {n}", "claim") for n in range(3)]
    rows = np.arange(9, dtype=np.float32).reshape(3, 3)
    memo.keep(keys[:2], rows[:2])
    assert memo.recall([keys[0]], 3)[0] is not None  # the first is now the most recent
    memo.keep(keys[2:], rows[2:])
    found = memo.recall(keys, 3)
    assert len(memo) == 2 and found[1] is None
    assert np.array_equal(found[0], rows[0]) and np.array_equal(found[2], rows[2])
    assert ScoreMemo(size=0).keep(keys, rows) is None and len(ScoreMemo(size=0)) == 0


def test_pair_keys_keep_the_texts_apart() -> None:
    assert pair_key("ab", "c") != pair_key("a", "bc")
    assert pair_key("a", "b") != pair_key("b", "a")


# --------------------------------------------------------------------------- cutting a call into batches


def batch_cost(batches: list[list[int]], lengths: list[int], overhead: int) -> int:
    return sum(overhead + len(batch) * max(lengths[i] for i in batch) for batch in batches)


@pytest.mark.parametrize("overhead", [0, 16, 64, 10_000])
def test_batches_cover_every_pair_once_and_cost_no_more_than_fixed_cuts(overhead: int) -> None:
    lengths = [19, 20, 20, 25, 29, 37, 47, 47, 23, 24, 24, 29, 39, 42, 51, 57, 25, 26, 31, 34, 43, 44, 53, 53, 59,
               22, 23, 28, 31, 38, 56, 23, 22, 28, 32, 31, 50, 160, 12, 12]
    batches = cheapest_batches(lengths, max_size=8, call_overhead=overhead)
    assert sorted(i for batch in batches for i in batch) == list(range(len(lengths)))
    assert all(1 <= len(batch) <= 8 for batch in batches)
    order = sorted(range(len(lengths)), key=lambda i: (lengths[i], i))
    chunks = [order[start:start + 8] for start in range(0, len(order), 8)]
    singles = [[i] for i in order]
    cost = batch_cost(batches, lengths, overhead)
    assert cost <= batch_cost(chunks, lengths, overhead) and cost <= batch_cost(singles, lengths, overhead)
    if overhead == 0:  # padding only costs: no batch mixes lengths
        assert all(len({lengths[i] for i in batch}) == 1 for batch in batches)
    if overhead == 10_000:  # calls only cost: as few as the size allows
        assert len(batches) == len(chunks)


def test_no_pairs_make_no_batches() -> None:
    assert cheapest_batches([], max_size=32, call_overhead=64) == []


# --------------------------------------------------------------------------- sharing calls between threads


class SlowDoubler:
    """A batch function that doubles numbers, records each call, and takes `seconds` per call."""

    def __init__(self, seconds: float = 0.2, fail_on: int | None = None) -> None:
        self.seconds = seconds
        self.fail_on = fail_on
        self.calls: list[list[int]] = []
        self.running = 0
        self.most_running = 0
        self._lock = threading.Lock()

    def __call__(self, items: list[int]) -> list[int]:
        with self._lock:
            self.calls.append(list(items))
            self.running += 1
            self.most_running = max(self.most_running, self.running)
        time.sleep(self.seconds)
        with self._lock:
            self.running -= 1
        if self.fail_on is not None and self.fail_on in items:
            raise RuntimeError("the model failed")
        return [2 * item for item in items]


def test_a_lone_caller_is_run_at_once() -> None:
    run = SlowDoubler(seconds=0.0)
    shared = Coalescer(run, runs_at_once=1)
    assert shared([1, 2]) == [2, 4] and shared([]) == [] and run.calls == [[1, 2]]


def test_callers_arriving_while_the_model_is_busy_share_the_next_call() -> None:
    run = SlowDoubler()
    shared = Coalescer(run, runs_at_once=1)
    with ThreadPoolExecutor(5) as pool:
        first = pool.submit(shared, [0])
        time.sleep(0.05)  # the first call is under way
        rest = [pool.submit(shared, [n, 10 + n]) for n in range(1, 5)]
        answers = [first.result()] + [future.result() for future in rest]
    assert answers == [[0]] + [[2 * n, 20 + 2 * n] for n in range(1, 5)]
    assert len(run.calls) == 2 and sorted(run.calls[1]) == sorted([1, 11, 2, 12, 3, 13, 4, 14])
    assert shared.calls == 2


def test_at_most_runs_at_once_calls_run_together() -> None:
    run = SlowDoubler(seconds=0.1)
    shared = Coalescer(run, runs_at_once=2)
    with ThreadPoolExecutor(6) as pool:
        futures = [pool.submit(shared, [n]) for n in range(6)]
        assert [future.result() for future in futures] == [[2 * n] for n in range(6)]
    assert run.most_running == 2 and len(run.calls) < 6


def test_a_failed_call_fails_its_callers_only() -> None:
    run = SlowDoubler(fail_on=1)
    shared = Coalescer(run, runs_at_once=1)
    with ThreadPoolExecutor(3) as pool:
        first = pool.submit(shared, [0])
        time.sleep(0.05)
        failing = [pool.submit(shared, [1]), pool.submit(shared, [2])]
        assert first.result() == [0]
        for future in failing:  # both were in the failed call
            with pytest.raises(RuntimeError, match="the model failed"):
                future.result()
    assert shared([3]) == [6]  # the slot was handed back


# --------------------------------------------------------------------------- the judge's verdicts


def test_judging_claims_together_rules_exactly_as_one_claim_at_a_time() -> None:
    reference = EntailmentJudge(model=PerClaimModel())  # type: ignore[arg-type]
    before = [reference.assess(claim, evidence(source)) for claim, source in CLAIMS]

    batched_model = EntailmentModel(runs_at_once=1)
    batched = EntailmentJudge(embedder=reference.embedder, model=batched_model)
    start = threading.Barrier(len(CLAIMS))

    def judge(claim: str, source: str):
        start.wait()
        return batched.assess(claim, evidence(source))

    with ThreadPoolExecutor(len(CLAIMS)) as pool:
        after = list(pool.map(lambda pair: judge(*pair), CLAIMS))

    assert [j.output() for j in after] == [j.output() for j in before]
    for old, new in zip(before, after, strict=True):
        assert (new.decision.label, new.decision.reason, new.decision.basis) == (
            old.decision.label, old.decision.reason, old.decision.basis)
        assert [(c.text, c.entailment) for c in new.candidates] == [(c.text, c.entailment) for c in old.candidates]
    assert {j.decision.label for j in before} == {"supported", "refuted", "unverifiable"}  # a varied set
    assert batched_model.calls < len(CLAIMS)  # claims shared model calls



class PairedDoubler(SlowDoubler):
    """A `SlowDoubler` that, once `paired` is set, lets a call finish only when a second call is under way too."""

    def __init__(self) -> None:
        super().__init__(seconds=0.0)
        self.paired = False
        self.inside = threading.Event()
        self.meet = threading.Barrier(2, timeout=60)

    def __call__(self, items: list[int]) -> list[int]:
        if self.paired:
            self.inside.set()
            self.meet.wait()  # raises BrokenBarrierError when no second call could start
        return super().__call__(items)


def test_many_callers_over_many_rounds_all_return_and_no_slot_is_lost() -> None:
    """Two slots and callers arriving in waves: calls ending at nearly the same moment hand over the
    queue without losing a slot, so afterwards two callers can still run at the same time."""
    run = PairedDoubler()
    shared = Coalescer(run, runs_at_once=2)
    answers: list[list[int]] = []

    def caller(n: int) -> None:
        for round_ in range(200):
            answers.append(shared([n * 1000 + round_]))

    threads = [threading.Thread(target=caller, args=(n,), daemon=True) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)  # a hang guard, far above the run's length; no timing is asserted
    assert not any(thread.is_alive() for thread in threads), "a caller is still waiting: a run slot was lost"
    assert len(answers) == 8 * 200 and run.most_running <= 2
    assert sorted(answer[0] for answer in answers) == sorted(2 * (n * 1000 + r) for n in range(8) for r in range(200))

    run.paired = True
    with ThreadPoolExecutor(2) as pool:
        first = pool.submit(shared, [1])
        assert run.inside.wait(timeout=60)  # the first call is under way and holds one slot
        second = pool.submit(shared, [2])  # the other slot must be free for this one
        assert first.result(timeout=120) == [2] and second.result(timeout=120) == [4]
