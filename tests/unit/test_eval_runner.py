"""`run_eval` with scripted models: each dataset kind, judge failures scored 0, repeated runs, the gate."""

from __future__ import annotations

import re
import statistics
from pathlib import Path

import pytest

from tests.fakes import FakeWorld, claims_reply, verdict_reply
from tests.unit.eval_data import (
    OFFLINE_BALANCED_ACCURACY,
    OFFLINE_MATRIX,
    OFFLINE_PASS_SCORE,
    OFFLINE_PREDICTED,
    OFFLINE_ROWS,
    POLICY,
    RAW_JUDGE,
    WINDOW,
    write_jsonl,
)
from veracity.evaluation import EvalResult, assert_eval, run_eval
from veracity.evaluation.formats import to_markdown
from veracity.evaluation.rows import RowEvaluator
from veracity.pytest_plugin import veracity_eval as veracity_eval_fixture

PARIS, PARIS_NOTE = "Paris is the capital of France.", "Paris is the capital and largest city of France."
BOIL, BOIL_NOTE = "Water boils at 50 degrees Celsius at sea level.", "At sea level, water boils at 100 degrees Celsius."
SUSHI = "Tokyo has the best sushi restaurants in the world."
MOON = "The Moon orbits the Earth."

JUDGE_ROWS = [
    {"id": "paris", "claim": PARIS, "evidence": PARIS_NOTE, "label": "supported"},
    {"id": "boil", "claim": BOIL, "evidence": ["Lyon is a city in France.", BOIL_NOTE], "label": "refuted"},
    {"id": "sushi", "claim": SUSHI, "evidence": "Bananas are a good source of potassium.", "label": "unverifiable"},
    {"id": "moon", "claim": MOON, "evidence": "The Moon orbits the Earth every 27 days.", "label": "supported"},
]


def judge_world(world: FakeWorld) -> FakeWorld:
    world.judge(PARIS, verdict_reply("supported", "c1-e1", PARIS_NOTE))
    world.judge(BOIL, verdict_reply("refuted", "c1-e2", "water boils at 100 degrees Celsius"))
    world.judge(SUSHI, verdict_reply("unverifiable"))
    world.judge(MOON, verdict_reply("unverifiable"))  # wrong: the evidence says so
    return world


def predicted(result: EvalResult, run: int = 0) -> dict[str, list[str]]:
    return {outcome.row_id: outcome.predicted for outcome in result.runs[run].outcomes}


# -- judge rows -------------------------------------------------------------------------------

def test_judge_rows_through_the_scripted_model(tmp_path: Path, world: FakeWorld) -> None:
    result = run_eval(write_jsonl(tmp_path / "judge.jsonl", JUDGE_ROWS), model=judge_world(world).model())
    assert predicted(result) == {"paris": ["supported"], "boil": ["refuted"], "sushi": ["unverifiable"],
                                 "moon": ["unverifiable"]}
    # gold S: paris S, moon U -> [1, 0, 1, 0]; gold R: [0, 1, 0, 0]; gold U: [0, 0, 1, 0]
    assert result.summed_matrix() == [[1, 0, 1, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0]]
    # (1/2 + 1 + 1) / 3
    assert result.aggregate["balanced_accuracy"].mean == pytest.approx(5 / 6)
    assert result.aggregate["pass_score"].mean == 0.75 and result.aggregate["judge_failures"].mean == 0.0
    boil = result.runs[0].outcomes[1]
    assert boil.detail["evidence_id"] == "c1-e2" and boil.detail["quote"] == "water boils at 100 degrees Celsius"
    # the judge saw the claim and each evidence text under its id and title
    prompt = world.judge_prompts[BOIL][0]
    assert f"Claim: {BOIL}" in prompt
    lyon = r"<<<evidence c1-e1 \w+>>> evidence 1\nLyon is a city in France\.\n<<<end of evidence c1-e1"
    assert re.search(lyon, prompt)
    assert re.search(rf"<<<evidence c1-e2 \w+>>> evidence 2\n{re.escape(BOIL_NOTE)}\n<<<end of evidence c1-e2", prompt)
    assert result.settings["runs_as"] == "judge: custom:ScriptedChatModel; evidence: each row's own"


def test_tokens_are_counted_per_row_and_summed(tmp_path: Path, world: FakeWorld) -> None:
    result = run_eval(write_jsonl(tmp_path / "judge.jsonl", JUDGE_ROWS), model=judge_world(world).model())
    outcomes = result.runs[0].outcomes
    assert all(o.tokens_in > 0 and o.tokens_out > 0 for o in outcomes)
    assert result.aggregate["tokens_in"].mean == sum(o.tokens_in for o in outcomes)
    assert result.aggregate["tokens_out"].mean == sum(o.tokens_out for o in outcomes)


def test_offline_judge_on_obvious_rows(tmp_path: Path) -> None:
    result = run_eval(write_jsonl(tmp_path / "judge.jsonl", OFFLINE_ROWS), mode="offline", **RAW_JUDGE)
    assert {row_id: labels[0] for row_id, labels in predicted(result).items()} == OFFLINE_PREDICTED
    assert result.summed_matrix() == OFFLINE_MATRIX
    assert result.aggregate["balanced_accuracy"].mean == pytest.approx(OFFLINE_BALANCED_ACCURACY)
    assert result.aggregate["pass_score"].mean == OFFLINE_PASS_SCORE
    assert result.aggregate["tokens_in"].mean == 0.0  # no model, no tokens
    assert result.settings == {"mode": "offline", "runs_as": "judge: offline; evidence: each row's own", "runs": 1,
                               "concurrency": 4, "match_threshold": None}


# -- judge failures ---------------------------------------------------------------------------

def failing_rows(tmp_path: Path) -> Path:
    return write_jsonl(tmp_path / "judge.jsonl", [
        {"id": "bad", "claim": PARIS, "evidence": PARIS_NOTE, "label": "supported"},
        {"id": "good", "claim": BOIL, "evidence": BOIL_NOTE, "label": "refuted"},
    ])


def assert_scored_as_failed(result: EvalResult) -> None:
    bad, good = result.runs[0].outcomes
    assert (bad.predicted, bad.score, bad.failed) == (["failed"], 0.0, True)
    assert (good.predicted, good.score) == (["refuted"], 1.0)
    assert result.aggregate["judge_failures"].mean == 1.0
    # gold supported -> failed, gold refuted -> refuted: recall (0 + 1) / 2
    assert result.summed_matrix() == [[0, 0, 0, 1], [0, 1, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]
    assert result.aggregate["balanced_accuracy"].mean == 0.5
    assert result.aggregate["pass_score"].mean == 0.5


def test_quote_missing_from_the_evidence_scores_zero(tmp_path: Path, world: FakeWorld) -> None:
    world.judge(PARIS, verdict_reply("supported", "c1-e1", "Paris is the capital of Europe"))
    world.judge(BOIL, verdict_reply("refuted", "c1-e1", BOIL_NOTE))
    result = run_eval(failing_rows(tmp_path), model=world.model())
    assert_scored_as_failed(result)
    bad = result.runs[0].outcomes[0]
    assert world.judge_calls[PARIS] == 3  # max_judge_attempts, then downgraded
    assert bad.failures == ["citation not found in evidence after 3 attempt(s); verdict downgraded to unverifiable"]
    assert "does not appear verbatim in the cited evidence 'c1-e1'" in bad.detail["errors"][0]
    assert bad.tokens_in > 0  # the rejected attempts still cost tokens


def test_judge_attempts_setting_reaches_the_gate(tmp_path: Path, world: FakeWorld) -> None:
    world.judge(PARIS, verdict_reply("supported", "c9-e1", PARIS_NOTE))  # an id that was never retrieved
    world.judge(BOIL, verdict_reply("refuted", "c1-e1", BOIL_NOTE))
    result = run_eval(failing_rows(tmp_path), model=world.model(), max_judge_attempts=1)
    assert_scored_as_failed(result)
    assert world.judge_calls[PARIS] == 1


@pytest.mark.parametrize(
    "reply",
    [RuntimeError("model is down"), {"label": "maybe", "reason": "?"}],
    ids=["model-raises", "schema-invalid"],
)
def test_model_error_or_invalid_reply_scores_zero(tmp_path: Path, world: FakeWorld, reply) -> None:
    world.judge(PARIS, reply)
    world.judge(BOIL, verdict_reply("refuted", "c1-e1", BOIL_NOTE))
    result = run_eval(failing_rows(tmp_path), model=world.model())
    assert_scored_as_failed(result)
    assert result.runs[0].outcomes[0].failures == [
        "judge output failed validation after 3 attempt(s); verdict downgraded to unverifiable"
    ]


def test_an_exception_in_one_row_fails_that_row_only(
    tmp_path: Path, world: FakeWorld, monkeypatch: pytest.MonkeyPatch,
) -> None:
    original = RowEvaluator._judge_row

    async def broken_for_paris(self, row):
        if row.claim == PARIS:
            raise KeyError("no such thing")
        return await original(self, row)

    monkeypatch.setattr(RowEvaluator, "_judge_row", broken_for_paris)
    world.judge(BOIL, verdict_reply("refuted", "c1-e1", BOIL_NOTE))
    result = run_eval(failing_rows(tmp_path), model=world.model())
    assert_scored_as_failed(result)
    assert result.runs[0].outcomes[0].failures == ["KeyError: 'no such thing'"]


# -- repeated runs ----------------------------------------------------------------------------

def test_runs_report_mean_and_sample_standard_deviation(tmp_path: Path, world: FakeWorld) -> None:
    # Each claim's replies are used in order: the refuted row is right in run 1, wrong in run 2.
    world.judge(PARIS, verdict_reply("supported", "c1-e1", PARIS_NOTE))
    world.judge(BOIL, verdict_reply("refuted", "c1-e1", BOIL_NOTE), verdict_reply("unverifiable"))
    result = run_eval(failing_rows(tmp_path), model=world.model(), runs=2, concurrency=1)

    assert [predicted(result, run)["good"] for run in (0, 1)] == [["refuted"], ["unverifiable"]]
    spread = result.aggregate["balanced_accuracy"]
    # run 1: (1 + 1) / 2 = 1.0; run 2: (1 + 0) / 2 = 0.5
    assert spread.values == (1.0, 0.5)
    assert spread.mean == 0.75 and spread.std == pytest.approx(statistics.stdev([1.0, 0.5]))  # sqrt(0.125)
    assert (spread.min, spread.max) == (0.5, 1.0)
    assert result.aggregate["pass_score"].values == (1.0, 0.5)
    assert result.summed_matrix() == [[2, 0, 0, 0], [0, 1, 1, 0], [0, 0, 0, 0], [0, 0, 0, 0]]
    assert result.settings["runs"] == 2 and result.settings["concurrency"] == 1

    text = to_markdown(result)
    assert "- runs: 2 (mean ± sample standard deviation)" in text
    assert "| balanced accuracy | 0.750 ± 0.354 |" in text
    assert "summed over 2 runs" in text


def test_progress_counts_every_row_of_every_run_and_the_baseline(tmp_path: Path) -> None:
    seen: list[tuple[int, int]] = []
    run_eval(write_jsonl(tmp_path / "judge.jsonl", OFFLINE_ROWS), mode="offline", runs=2, baseline=True,
             on_progress=lambda done, total: seen.append((done, total)))
    assert seen == [(done, 12) for done in range(1, 13)]  # 4 rows x 2 runs + 4 baseline rows


# -- end-to-end rows --------------------------------------------------------------------------

FAITHFUL = "You can return the package within 14 days of delivery."
LONGER = "You have 30 days to return it."
FREE = "Returns are always free of charge."


def test_pass_rows_with_a_source_run_the_whole_graph(tmp_path: Path, world: FakeWorld) -> None:
    rows = [
        {"id": "faithful", "text": FAITHFUL, "source": POLICY, "expected": {"pass": True}},
        {"id": "longer", "text": LONGER, "source": POLICY, "expected": {"pass": False}},
        {"id": "free", "text": FREE, "source": POLICY, "expected": {"pass": True}},  # the judge disagrees
    ]
    # concurrency 1: the rows are extracted in file order
    world.extract(claims_reply((FAITHFUL, FAITHFUL)), claims_reply((LONGER, LONGER)), claims_reply((FREE, FREE)))
    world.judge(FAITHFUL, verdict_reply("supported", "c1-e1", WINDOW))
    world.judge(LONGER, verdict_reply("refuted", "c1-e1", WINDOW))
    world.judge(FREE, verdict_reply("unverifiable"))
    result = run_eval(write_jsonl(tmp_path / "pass.jsonl", rows), model=world.model(), concurrency=1)

    assert predicted(result) == {"faithful": ["pass"], "longer": ["fail"], "free": ["fail"]}
    assert [o.score for o in result.runs[0].outcomes] == [1.0, 1.0, 0.0]
    # labels (pass, fail, failed): gold pass -> [1, 1, 0]; gold fail -> [0, 1, 0]
    assert result.summed_matrix() == [[1, 1, 0], [0, 1, 0], [0, 0, 0]]
    assert result.aggregate["balanced_accuracy"].mean == pytest.approx((1 / 2 + 1) / 2)
    # the source was the only evidence: the judge saw the policy, and every row ran in source mode
    assert POLICY in world.judge_prompts[FAITHFUL][0]
    assert {o.detail["mode"] for o in result.runs[0].outcomes} == {"llm+source"}
    assert result.runs[0].outcomes[2].detail["not_supported"][0]["label"] == "unverifiable"
    outcomes = result.runs[0].outcomes
    assert all(o.tokens_in > 0 and o.tokens_out > 0 for o in outcomes)
    assert result.aggregate["tokens_in"].mean == sum(o.tokens_in for o in outcomes)
    assert result.aggregate["tokens_out"].mean == sum(o.tokens_out for o in outcomes)
    assert result.settings["runs_as"] == (
        "model custom:ScriptedChatModel; evidence: each row's source")


def test_pass_row_whose_extraction_fails_is_scored_zero(tmp_path: Path, world: FakeWorld) -> None:
    world.extract(RuntimeError("extraction model is down"))
    rows = [{"id": "x", "text": FAITHFUL, "source": POLICY, "expected": {"pass": True}}]
    result = run_eval(write_jsonl(tmp_path / "pass.jsonl", rows), model=world.model())
    [outcome] = result.runs[0].outcomes
    assert (outcome.predicted, outcome.score, outcome.failed) == (["failed"], 0.0, True)
    assert result.aggregate["judge_failures"].mean == 1.0


CANBERRA = "Canberra is the capital of Australia."
SYDNEY = "Sydney is the capital of Australia."
REEF = "The Great Barrier Reef is visible from space."
KANGAROO = "Kangaroos are marsupials."
AUSTRALIA = ("Canberra is the capital city of Australia. Sydney is the capital of New South Wales. "
             "Kangaroos are marsupials native to Australia.")


def test_claims_rows_match_claims_by_meaning(tmp_path: Path, world: FakeWorld) -> None:
    row = {"id": "aus", "text": f"{CANBERRA} {SYDNEY} {KANGAROO}", "source": AUSTRALIA, "expected": [
        {"claim": CANBERRA, "label": "supported"},
        {"claim": SYDNEY, "label": "refuted"},
        {"claim": REEF, "label": "supported"},  # never extracted
    ]}
    world.extract(claims_reply((CANBERRA, CANBERRA), (SYDNEY, SYDNEY), (KANGAROO, KANGAROO)))  # c1, c2, c3
    world.judge(CANBERRA, verdict_reply("supported", "c1-e1", "Canberra is the capital city of Australia."))
    world.judge(SYDNEY, verdict_reply("refuted", "c2-e1", "Sydney is the capital of New South Wales."))
    world.judge(KANGAROO, verdict_reply("supported", "c3-e1", "Kangaroos are marsupials native to Australia."))
    result = run_eval(write_jsonl(tmp_path / "claims.jsonl", [row]), model=world.model())

    [outcome] = result.runs[0].outcomes
    pairs = {(m["expected"], m["extracted"]): (m["gold"], m["predicted"]) for m in outcome.detail["matches"]}
    assert pairs == {
        (CANBERRA, CANBERRA): ("supported", "supported"),
        (SYDNEY, SYDNEY): ("refuted", "refuted"),
        (REEF, None): ("supported", "unmatched"),
        (None, KANGAROO): ("unmatched", "supported"),
    }
    assert outcome.score == 0.5  # 2 of 4 items right
    # labels (S, R, U, unmatched, failed):
    #   gold S: Canberra S, reef unmatched -> [1, 0, 0, 1, 0]; gold R: [0, 1, 0, 0, 0]
    #   gold unmatched: the kangaroo claim judged S -> [1, 0, 0, 0, 0]
    assert result.summed_matrix() == [
        [1, 0, 0, 1, 0], [0, 1, 0, 0, 0], [0, 0, 0, 0, 0], [1, 0, 0, 0, 0], [0, 0, 0, 0, 0],
    ]
    metrics = result.runs[0].metrics()
    # supported: 1 right of 2 predicted, of 2 gold; refuted perfect; unmatched: 0 right
    assert (metrics["precision:supported"], metrics["recall:supported"]) == (0.5, 0.5)
    assert metrics["f1:refuted"] == 1.0 and metrics["recall:unmatched"] == 0.0
    # balanced accuracy (S 1/2 + R 1 + unmatched 0) / 3; macro F1 leaves unmatched out: (1/2 + 1) / 2
    assert metrics["balanced_accuracy"] == pytest.approx(0.5)
    assert metrics["macro_f1"] == pytest.approx(0.75)
    assert result.settings["match_threshold"] == 0.7
    assert outcome.tokens_in > 0 and metrics["tokens_in"] == outcome.tokens_in
    assert outcome.tokens_out > 0 and metrics["tokens_out"] == outcome.tokens_out


def test_a_stricter_match_threshold_leaves_paraphrases_unmatched(tmp_path: Path, world: FakeWorld) -> None:
    paraphrase = "Australia's capital is Canberra."
    row = {"text": paraphrase, "source": AUSTRALIA, "expected": [{"claim": CANBERRA, "label": "supported"}]}
    world.extract(claims_reply((paraphrase, paraphrase)))
    world.judge(paraphrase, verdict_reply("supported", "c1-e1", "Canberra is the capital city of Australia."))
    path = write_jsonl(tmp_path / "claims.jsonl", [row])
    loose = run_eval(path, model=world.model(), match_threshold=0.5)
    strict = run_eval(path, model=world.model(), match_threshold=1.0)
    assert loose.runs[0].outcomes[0].predicted == ["supported"]
    assert sorted(zip(strict.runs[0].outcomes[0].gold, strict.runs[0].outcomes[0].predicted, strict=True)) == [
        ("supported", "unmatched"), ("unmatched", "supported"),
    ]


# -- options ----------------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"runs": 0}, "runs must be at least 1"),
        ({"concurrency": 0}, "concurrency must be at least 1"),
        ({"match_threshold": 1.5}, "match_threshold must be between 0 and 1"),
        ({"mode": "offline", "model": "openai:gpt-4.1-mini"}, "mode 'offline' runs the local judge"),
        ({"mode": "llm", "model": "offline"}, "mode 'llm' needs a chat model"),
        ({"mode": "sometimes"}, "unknown mode 'sometimes'"),
    ],
)
def test_bad_options_raise_value_error(tmp_path: Path, options: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        run_eval(write_jsonl(tmp_path / "judge.jsonl", OFFLINE_ROWS), **options)


def test_baseline_needs_judge_rows(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "pass.jsonl", [{"text": FAITHFUL, "source": POLICY, "expected": {"pass": True}}])
    with pytest.raises(ValueError, match="judge datasets"):
        run_eval(path, mode="offline", baseline=True)


def test_baseline_scores_both_thresholds_on_the_same_rows(tmp_path: Path) -> None:
    result = run_eval(write_jsonl(tmp_path / "judge.jsonl", OFFLINE_ROWS), mode="offline", baseline=True)
    assert list(result.baselines) == ["similarity@0.5", "similarity@0.6"]
    for baseline in result.baselines.values():
        assert baseline.total == len(OFFLINE_ROWS) and baseline.labels == ("supported", "refuted", "unverifiable")
        assert baseline.per_label["refuted"].predicted == 0  # the baseline never answers refuted
    assert "## Similarity-threshold baseline (same rows, same run)" in to_markdown(result)


# -- the gate for test suites -----------------------------------------------------------------

def test_assert_eval_returns_the_result_when_the_gate_passes(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "judge.jsonl", OFFLINE_ROWS)
    result = assert_eval(path, min_score=0.8, mode="offline", **RAW_JUDGE)  # balanced accuracy 5/6
    assert isinstance(result, EvalResult) and result.gate("balanced_accuracy", 0.8).passed
    assert assert_eval(path, metric="pass_score", min_score=0.75, mode="offline", **RAW_JUDGE).dataset.path == path


def test_assert_eval_fails_with_the_gate_line_and_the_report(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "judge.jsonl", OFFLINE_ROWS)
    with pytest.raises(AssertionError) as raised:
        assert_eval(path, min_score=0.9, mode="offline", **RAW_JUDGE)
    message = str(raised.value)
    assert message.startswith("judge.jsonl: gate FAILED: balanced_accuracy 0.833 < 0.900\n")
    assert "## Confusion matrix" in message and "| paris | supported | unverifiable | 0.00 |" in message


def test_assert_eval_rejects_an_unknown_metric(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown metric 'f1'; choose one of: balanced_accuracy"):
        assert_eval(write_jsonl(tmp_path / "judge.jsonl", OFFLINE_ROWS), metric="f1", min_score=0.5, mode="offline",
                    **RAW_JUDGE)


async def test_assert_eval_works_inside_a_running_event_loop(tmp_path: Path) -> None:
    result = assert_eval(write_jsonl(tmp_path / "judge.jsonl", OFFLINE_ROWS), min_score=0.8, mode="offline",
                         **RAW_JUDGE)
    assert result.aggregate["balanced_accuracy"].mean == pytest.approx(OFFLINE_BALANCED_ACCURACY)


def test_veracity_eval_fixture_is_assert_eval(veracity_eval, tmp_path: Path) -> None:
    assert veracity_eval is assert_eval
    with pytest.raises(AssertionError, match="gate FAILED: pass_score 0.750 < 0.800"):
        veracity_eval(write_jsonl(tmp_path / "judge.jsonl", OFFLINE_ROWS), metric="pass_score", min_score=0.8,
                      mode="offline", **RAW_JUDGE)


def test_pytest_plugin_is_registered_by_entry_point() -> None:
    from importlib.metadata import entry_points

    [entry] = [e for e in entry_points(group="pytest11") if e.name == "veracity"]
    assert entry.value == "veracity.pytest_plugin"
    assert entry.load().veracity_eval is veracity_eval_fixture


def test_at_the_default_target_the_offline_judge_holds_back_what_it_is_not_sure_of(tmp_path: Path) -> None:
    raw = run_eval(write_jsonl(tmp_path / "judge.jsonl", OFFLINE_ROWS), mode="offline", **RAW_JUDGE)
    held = run_eval(write_jsonl(tmp_path / "judge.jsonl", OFFLINE_ROWS), mode="offline")
    raw_labels = {row_id: labels[0] for row_id, labels in predicted(raw).items()}
    held_labels = {row_id: labels[0] for row_id, labels in predicted(held).items()}
    assert raw_labels == OFFLINE_PREDICTED
    # risk control only ever turns a decisive label into unverifiable, never the reverse or a flip
    for row_id, label in held_labels.items():
        assert label in (raw_labels[row_id], "unverifiable")
    assert held_labels["boil"] == "unverifiable"  # no refutation of the offline judge is certified at 0.90
