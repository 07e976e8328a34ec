"""Recording an evaluation as a LangSmith experiment, with a fake client and a fake `aevaluate`."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.unit.eval_data import OFFLINE_BALANCED_ACCURACY, OFFLINE_ROWS, POLICY, RAW_JUDGE, write_jsonl
from veracity.errors import ConfigurationError
from veracity.evaluation import arun_eval, load_dataset
from veracity.evaluation.langsmith import arun_langsmith_eval, dataset_name, langsmith_problem


class FakeClient:
    """Records the LangSmith dataset calls; `existing` names datasets that are already there."""

    def __init__(self, existing: tuple[str, ...] = ()) -> None:
        self.existing = set(existing)
        self.calls: list[tuple] = []
        self.examples: list[dict] = []

    def has_dataset(self, *, dataset_name: str) -> bool:
        self.calls.append(("has_dataset", dataset_name))
        return dataset_name in self.existing

    def create_dataset(self, name: str, *, description: str):
        self.calls.append(("create_dataset", name, description))
        self.existing.add(name)
        return SimpleNamespace(id="dataset-1")

    def create_examples(self, *, dataset_id: str, examples: list[dict]) -> None:
        self.calls.append(("create_examples", dataset_id, len(examples)))
        self.examples.extend(examples)


class FakeResults:
    """What `aevaluate` returns: an async iterable of {run, example} with the experiment's name."""

    def __init__(self, items: list[dict], experiment_name: str) -> None:
        self.items = items
        self.experiment_name = experiment_name

    async def __aiter__(self):
        for item in self.items:
            yield item


class FakeAevaluate:
    """Runs the target on every uploaded example `num_repetitions` times, as LangSmith would, and
    applies the row and summary evaluators; `drop` leaves out the output of (row_id, repetition)."""

    def __init__(self, client: FakeClient, drop: tuple[str, int] | None = None) -> None:
        self.client = client
        self.drop = drop
        self.kwargs: dict = {}
        self.feedback: dict[tuple[str, int], list[dict]] = {}
        self.summary: list[dict] = []

    async def __call__(self, target, /, *, data, evaluators, summary_evaluators, num_repetitions, client, **kwargs):
        assert client is self.client
        self.kwargs = {"data": data, "num_repetitions": num_repetitions, **kwargs}
        items = []
        for repetition in range(num_repetitions):
            for example in self.client.examples:
                outputs = await target(example["inputs"])
                row_id = example["inputs"]["row_id"]
                if self.drop == (row_id, repetition):
                    outputs = {"error": "RuntimeError('lost')"}
                self.feedback[(row_id, repetition)] = [evaluator(outputs=outputs) for evaluator in evaluators]
                items.append({
                    "run": SimpleNamespace(outputs=outputs),
                    "example": SimpleNamespace(inputs=example["inputs"], outputs=example["outputs"]),
                })
        outputs = [i["run"].outputs or {} for i in items]  # as LangSmith passes them
        references = [i["example"].outputs for i in items]
        self.summary = [evaluator(outputs=outputs, reference_outputs=references) for evaluator in summary_evaluators]
        return FakeResults(items, experiment_name=f"{kwargs['experiment_prefix']}-0001")


@pytest.fixture
def judge_file(tmp_path: Path) -> Path:
    return write_jsonl(tmp_path / "judge.jsonl", OFFLINE_ROWS)


@pytest.fixture
def client() -> FakeClient:
    return FakeClient()


@pytest.fixture
def fake_aevaluate(client: FakeClient, monkeypatch: pytest.MonkeyPatch) -> FakeAevaluate:
    fake = FakeAevaluate(client)
    monkeypatch.setattr("langsmith.evaluation.aevaluate", fake)
    return fake


def without_timing(metrics: dict[str, float]) -> dict[str, float]:
    return {name: value for name, value in metrics.items() if name != "wall_seconds"}


async def test_rows_are_uploaded_once_and_scored_as_locally(judge_file: Path, client: FakeClient,
                                                           fake_aevaluate: FakeAevaluate) -> None:
    dataset = load_dataset(judge_file)
    result = await arun_langsmith_eval(dataset, mode="offline", **RAW_JUDGE, runs=2, concurrency=3, client=client)

    name = dataset_name(dataset)
    assert name == f"veracity-eval judge.jsonl {dataset.sha256[:12]}"
    assert [call[0] for call in client.calls] == ["has_dataset", "create_dataset", "create_examples"]
    assert client.calls[2] == ("create_examples", "dataset-1", 4)
    assert [e["inputs"]["row_id"] for e in client.examples] == ["paris", "boil", "moon", "sushi"]
    assert client.examples[1]["inputs"] == {"row_id": "boil", **{k: v for k, v in OFFLINE_ROWS[1].items() if k != "id"},
                                            "evidence": [OFFLINE_ROWS[1]["evidence"]]}
    assert client.examples[1]["outputs"] == {"labels": ["refuted"]}
    assert fake_aevaluate.kwargs["data"] == name
    assert fake_aevaluate.kwargs["num_repetitions"] == 2 and fake_aevaluate.kwargs["max_concurrency"] == 3
    assert fake_aevaluate.kwargs["metadata"]["veracity_dataset_sha256"] == dataset.sha256

    local = await arun_eval(dataset, mode="offline", **RAW_JUDGE, runs=2)
    assert len(result.runs) == 2
    for recorded, expected in zip(result.runs, local.runs, strict=True):
        assert without_timing(recorded.metrics()) == without_timing(expected.metrics())
        assert [o.predicted for o in recorded.outcomes] == [o.predicted for o in expected.outcomes]
    assert result.summed_matrix() == local.summed_matrix()
    # the summary evaluator's balanced accuracy, over both repetitions, is the local one
    assert fake_aevaluate.summary == [{"key": "balanced_accuracy", "score": pytest.approx(OFFLINE_BALANCED_ACCURACY)}]
    assert result.aggregate["balanced_accuracy"].mean == pytest.approx(OFFLINE_BALANCED_ACCURACY)
    assert result.settings["langsmith_experiment"] == "veracity-judge-0001"
    assert result.settings["runs_as"] == local.settings["runs_as"]


async def test_row_feedback_is_the_pass_score_and_failure(judge_file: Path, client: FakeClient,
                                                          fake_aevaluate: FakeAevaluate) -> None:
    await arun_langsmith_eval(load_dataset(judge_file), mode="offline", **RAW_JUDGE, client=client)
    # the offline judge calls 'paris' unverifiable (wrong) and gets 'boil' right
    assert fake_aevaluate.feedback[("paris", 0)] == [{"key": "pass_score", "score": 0.0},
                                                     {"key": "judge_failure", "score": 0}]
    assert fake_aevaluate.feedback[("boil", 0)][0] == {"key": "pass_score", "score": 1.0}


async def test_an_existing_dataset_is_not_uploaded_again(judge_file: Path, client: FakeClient,
                                                         fake_aevaluate: FakeAevaluate) -> None:
    dataset = load_dataset(judge_file)
    await arun_langsmith_eval(dataset, mode="offline", **RAW_JUDGE, client=client)
    client.calls.clear()
    await arun_langsmith_eval(dataset, mode="offline", **RAW_JUDGE, client=client)
    assert client.calls == [("has_dataset", dataset_name(dataset))]
    assert len(client.examples) == 4


async def test_a_row_without_recorded_output_scores_zero(judge_file: Path, client: FakeClient,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    fake = FakeAevaluate(client, drop=("boil", 1))
    monkeypatch.setattr("langsmith.evaluation.aevaluate", fake)
    result = await arun_langsmith_eval(load_dataset(judge_file), mode="offline", **RAW_JUDGE, runs=2, client=client)
    first, second = ({o.row_id: o for o in run.outcomes} for run in result.runs)
    assert first["boil"].predicted == ["refuted"]
    assert (second["boil"].predicted, second["boil"].score) == (["failed"], 0.0)
    assert second["boil"].failures == ["RuntimeError('lost')"]
    assert result.aggregate["judge_failures"].values == (0.0, 1.0)
    assert fake.feedback[("boil", 1)][1] == {"key": "judge_failure", "score": 1}


async def test_summary_balanced_accuracy_counts_a_lost_row_as_failed(judge_file: Path, client: FakeClient,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    # A row whose output was lost (LangSmith passes `run.outputs or {}`) must count as failed in the
    # summary metric too, taking its gold labels from the example, as the local report counts it.
    fake = FakeAevaluate(client, drop=("boil", 0))
    monkeypatch.setattr("langsmith.evaluation.aevaluate", fake)
    result = await arun_langsmith_eval(load_dataset(judge_file), mode="offline", **RAW_JUDGE, client=client)
    # local: supported 1/2 (paris wrong), refuted 0/1 (boil failed), unverifiable 1/1 -> (1/2 + 0 + 1) / 3
    assert result.aggregate["balanced_accuracy"].mean == pytest.approx(1 / 2)
    # (leaving boil out instead would give 3/4: refuted has no gold item then: (1/2 + 1) / 2)
    assert fake.summary[0]["score"] == pytest.approx(1 / 2)


async def test_pass_rows_upload_their_expectation_by_alias(tmp_path: Path, client: FakeClient,
                                                           fake_aevaluate: FakeAevaluate) -> None:
    rows = [{"id": "ok", "text": "Hello.", "source": POLICY, "expected": {"pass": True}}]
    await arun_langsmith_eval(load_dataset(write_jsonl(tmp_path / "pass.jsonl", rows)), mode="offline", **RAW_JUDGE,
                              client=client)
    [example] = client.examples
    assert example["inputs"] == {"row_id": "ok", "text": "Hello.", "source": POLICY, "expected": {"pass": True}}
    assert example["outputs"] == {"labels": ["pass"]} and example["metadata"] == {"row_id": "ok", "kind": "pass"}


async def test_no_key_and_no_client_is_a_configuration_error(judge_file: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LANGCHAIN_API_KEY", raising=False)
    assert "LANGSMITH_API_KEY is not set" in langsmith_problem()
    with pytest.raises(ConfigurationError, match="LANGSMITH_API_KEY"):
        await arun_langsmith_eval(load_dataset(judge_file), mode="offline", **RAW_JUDGE)
    monkeypatch.setenv("LANGSMITH_API_KEY", "lsv2-test")
    assert langsmith_problem() is None
