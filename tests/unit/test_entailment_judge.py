"""The shipped entailment judge: the bundled model, its config-driven thresholds, passages and decisions."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
import textwrap
from importlib import resources
from pathlib import Path

import numpy as np
import pytest

import veracity
from veracity.contracts import Evidence, JudgeOutput
from veracity.nodes.verdict_gate import citation_problem
from veracity.offline.judge.decision import Candidate
from veracity.offline.judge.entailment_judge import RULES, EntailmentDecider, EntailmentJudge, JudgeSettings
from veracity.offline.judge.signals import compute_signals
from veracity.offline.model.entailment import LABEL_ORDER, EntailmentModel, Probabilities, assets_folder, load_config

DEMO = resources.files("veracity.kb").joinpath("demo")


def demo_note(name: str) -> Evidence:
    return Evidence(id=name, claim_id="c1", text=DEMO.joinpath(f"{name}.md").read_text(encoding="utf-8"), backend="kb")


@pytest.fixture(scope="module")
def judge() -> EntailmentJudge:
    return EntailmentJudge()


def judged(judge: EntailmentJudge, claim: str, items: list[Evidence]) -> dict:
    """Judge, then check the output against the verdict gate's contract and citation check."""
    output = judge.judge(claim, items)
    parsed = JudgeOutput(**output)
    if parsed.label != "unverifiable":
        assert citation_problem(parsed, items) is None
    return output


# --------------------------------------------------------------------------- the shipped model


def test_model_and_config_ship_inside_the_installed_package() -> None:
    folder = Path(str(assets_folder()))
    package = Path(veracity.__file__).parent
    assert folder.is_relative_to(package)
    config = load_config()
    assert tuple(config["labels"]) == LABEL_ORDER
    assert (folder / config["model_file"]).stat().st_size > 1_000_000
    assert (folder / "MODEL_CARD.md").is_file()


def test_model_scores_pairs_offline() -> None:
    model = EntailmentModel()
    scores = model.predict([("Canberra is the capital of Australia.", "Canberra is the capital of Australia."),
                            ("Bananas are yellow.", "The Eiffel Tower is in Paris.")])
    assert scores.shape == (2, 3)
    assert np.allclose(scores.sum(axis=1), 1.0, atol=1e-5)
    assert scores[0].argmax() == LABEL_ORDER.index("supported")
    assert scores[1].argmax() == LABEL_ORDER.index("unverifiable")


def test_sydney_as_capital_is_refuted_by_the_canberra_note(judge: EntailmentJudge) -> None:
    output = judged(judge, "Sydney is the capital of Australia.", [demo_note("australia")])
    assert output["label"] == "refuted", output
    assert "Canberra" in output["quote"]


def test_opera_house_opening_year_is_supported_by_its_note(judge: EntailmentJudge) -> None:
    output = judged(judge, "The Sydney Opera House opened in 1973.", [demo_note("sydney-opera-house")])
    assert output["label"] == "supported", output
    assert "1973" in output["quote"]


def test_unrelated_note_is_unverifiable(judge: EntailmentJudge) -> None:
    output = judged(judge, "The Sydney Opera House opened in 1973.", [demo_note("nile")])
    assert output["label"] == "unverifiable", output
    # a note about something else is not quoted at all; the reason names what it lacks
    assert output["evidence_id"] is None and output["quote"] is None
    assert "nothing about Sydney Opera House" in output["reason"]


def test_the_supporting_note_is_cited_among_several(judge: EntailmentJudge) -> None:
    items = [demo_note("nile"), demo_note("sydney-opera-house"), demo_note("eiffel-tower")]
    output = judged(judge, "The Sydney Opera House opened in 1973.", items)
    assert (output["label"], output["evidence_id"]) == ("supported", "sydney-opera-house")


def test_no_evidence_is_unverifiable(judge: EntailmentJudge) -> None:
    output = judged(judge, "The Sydney Opera House opened in 1973.", [])
    assert output["label"] == "unverifiable" and output["quote"] is None


def test_no_torch_is_imported_during_a_check(tmp_path: Path) -> None:
    """A stand-in `torch` on the path records any import of it; a whole offline check must not trigger it."""
    marker = tmp_path / "torch-imported"
    fake = tmp_path / "fake" / "torch"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    script = textwrap.dedent("""
        import sys, veracity
        report = veracity.check("The Sydney Opera House opened in 1973. Sydney is the capital of Australia.",
                                model="offline", source_text=open(sys.argv[1]).read())
        assert len(report.verdicts) == 2, report.verdicts
        print("torch" in sys.modules)
    """)
    source = tmp_path / "note.txt"
    source.write_text(DEMO.joinpath("australia.md").read_text() + DEMO.joinpath("sydney-opera-house.md").read_text())
    env = {"PYTHONPATH": str(fake.parent), "PATH": "/usr/bin:/bin", "LANGSMITH_TRACING": "false",
           "VERACITY_KB": str(tmp_path / "kb"), "HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", script, str(source)], capture_output=True, text=True, env=env,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "False"
    assert not marker.exists()


# --------------------------------------------------------------------------- settings come from the config


def test_settings_are_read_from_the_shipped_config() -> None:
    section = json.loads(assets_folder().joinpath("config.json").read_text())["judge"]
    settings = JudgeSettings.from_config()
    assert (settings.support, settings.refute) == (section["support"], section["refute"])
    assert settings.contradiction_first is section["contradiction_first"]
    assert (settings.top_sentences, settings.window_around) == (section["top_sentences"], section["window_around"])
    assert settings.window_sizes == tuple(section["window_sizes"])
    assert settings.overrides == tuple(section["overrides"])
    assert settings.support_must_dominate is section["support_must_dominate"]
    assert settings.rules == frozenset(section["rules"])
    assert EntailmentJudge().settings == settings


def test_settings_have_no_defaults_in_code() -> None:
    assert all(f.default is dataclasses.MISSING for f in dataclasses.fields(JudgeSettings))


def test_another_config_changes_the_decision() -> None:
    config = load_config()
    claim = "The museum opened in 1990."
    [passage] = candidates(claim, ("The museum opened in 1990.", 0.6, 0.1))
    low = dict(config, judge=dict(config["judge"], support=0.5))
    high = dict(config, judge=dict(config["judge"], support=0.7))
    assert EntailmentDecider(JudgeSettings.from_config(low)).decide(claim, [passage]).label == "supported"
    assert EntailmentDecider(JudgeSettings.from_config(high)).decide(claim, [passage]).label == "unverifiable"


def test_unknown_override_in_config_is_rejected() -> None:
    config = load_config()
    broken = dict(config, judge=dict(config["judge"], overrides=["number", "vibes"]))
    with pytest.raises(ValueError, match="vibes"):
        JudgeSettings.from_config(broken)


def test_model_with_other_labels_is_rejected(tmp_path: Path) -> None:
    folder = tmp_path / "model"
    folder.mkdir()
    config = load_config()
    (folder / "config.json").write_text(json.dumps(dict(config, labels=["refuted", "supported", "unverifiable"])))
    with pytest.raises(ValueError, match="labels"):
        EntailmentModel(folder=folder)


# --------------------------------------------------------------------------- decisions


SETTINGS = JudgeSettings(support=0.6, refute=0.6, contradiction_first=False, top_sentences=4, window_around=1,
                         window_sizes=(2, 3), overrides=("number", "negation"), support_must_dominate=True,
                         rules=frozenset(RULES))


def candidates(claim: str, *passages: tuple[str, float, float], sentences: int = 1) -> list[Candidate]:
    """Candidates from (text, P(supported), P(refuted)); each sits at its own offset."""
    found, offset = [], 0
    for text, supported, refuted in passages:
        found.append(Candidate(
            evidence_id="e1", text=text, start=offset, end=offset + len(text), similarity=0.7,
            signals=compute_signals(claim, text), sentences=sentences,
            entailment=Probabilities(supported, refuted, 1.0 - supported - refuted),
        ))
        offset += len(text) + 1
    return found


def test_contradiction_past_its_threshold_refutes() -> None:
    claim = "Sydney is the capital of Australia."
    found = candidates(claim, ("Canberra is the capital of Australia.", 0.1, 0.8), ("Sydney is a city.", 0.3, 0.0))
    decision = EntailmentDecider(SETTINGS).decide(claim, found)
    assert decision.label == "refuted" and decision.candidate is found[0]
    assert decision.reason == "The evidence contradicts the claim."  # the probability is the verdict's confidence


def test_stronger_entailment_beats_contradiction() -> None:
    claim = "The museum opened in 1990."
    found = candidates(claim, ("It opened in 1990.", 0.9, 0.05), ("Some say it opened later.", 0.05, 0.65))
    assert EntailmentDecider(SETTINGS).decide(claim, found).label == "supported"


def test_contradiction_first_lets_a_weaker_contradiction_refute() -> None:
    claim = "The museum opened in 1990."
    found = candidates(claim, ("It opened in 1990.", 0.9, 0.05), ("Some say it opened later.", 0.05, 0.65))
    first = dataclasses.replace(SETTINGS, contradiction_first=True)
    decision = EntailmentDecider(first).decide(claim, found)
    assert decision.label == "refuted" and decision.candidate is found[1]


def test_number_mismatch_overrides_an_entailing_passage() -> None:
    claim = "The building has over 2,000 rooms."
    found = candidates(claim, ("The building has about 1,000 rooms.", 0.9, 0.05))
    decision = EntailmentDecider(SETTINGS).decide(claim, found)
    assert decision.label == "refuted"
    assert decision.reason.startswith("number mismatch: claim says over 2,000 rooms, evidence says about 1,000 rooms")
    without = dataclasses.replace(SETTINGS, overrides=())
    assert EntailmentDecider(without).decide(claim, found).label == "supported"


def test_negation_mismatch_overrides_an_entailing_passage() -> None:
    claim = "Returns are accepted after that period."
    found = candidates(claim, ("After that period, returns are not accepted.", 0.7, 0.2))
    decision = EntailmentDecider(SETTINGS).decide(claim, found)
    assert decision.label == "refuted" and decision.reason.startswith("negation mismatch")


def test_an_override_on_any_entailing_passage_refutes() -> None:
    claim = "Sydney is the capital of Australia."
    found = candidates(claim, ("Sydney is the capital of New South Wales.", 0.97, 0.02),
                       ("The capital of Australia is Canberra.", 0.96, 0.03))
    with_entity = dataclasses.replace(SETTINGS, overrides=("number", "negation", "entity"))
    decision = EntailmentDecider(with_entity).decide(claim, found)
    assert decision.label == "refuted" and decision.candidate is found[1]
    assert decision.reason.startswith("entity mismatch: claim says Sydney, evidence says Canberra")
    assert EntailmentDecider(SETTINGS).decide(claim, found).candidate is found[0]  # no entity override: supported


def test_weak_probabilities_are_unverifiable() -> None:
    claim = "The museum opened in 1990."
    decision = EntailmentDecider(SETTINGS).decide(claim, candidates(claim, ("It is a museum.", 0.4, 0.3)))
    assert decision.label == "unverifiable" and decision.candidate is None
    assert decision.reason == "No passage entails or contradicts the claim clearly enough."


def test_the_shortest_passage_past_the_threshold_is_quoted() -> None:
    claim = "The museum opened in 1990."
    sentence = candidates(claim, ("It opened in 1990.", 0.7, 0.0))[0]
    window = dataclasses.replace(candidates(claim, ("It opened in 1990. Crowds came.", 0.95, 0.0))[0], sentences=2)
    assert EntailmentDecider(SETTINGS).decide(claim, [window, sentence]).candidate is sentence


@pytest.mark.parametrize(("claim", "passage"), [
    ("Lake Tarn is 312 metres deep.", "Lake Mere is 95 metres deep."),
    ("Lake Tarn is frozen in winter.", "Lake Mere is not frozen in winter."),
])
def test_a_mismatch_on_a_passage_about_another_subject_decides_nothing(claim: str, passage: str) -> None:
    decision = EntailmentDecider(SETTINGS).decide(claim, candidates(claim, (passage, 0.8, 0.1)))
    assert decision.label == "unverifiable" and decision.candidate is None
    assert "another subject or predicate" in decision.reason
    same = passage.replace("Lake Mere", "Lake Tarn")
    assert EntailmentDecider(SETTINGS).decide(claim, candidates(claim, (same, 0.8, 0.1))).label == "refuted"


def test_a_passage_read_as_more_contradicting_than_entailing_never_supports() -> None:
    claim = "The museum opened in 1990."
    decision = EntailmentDecider(SETTINGS).decide(claim, candidates(claim, ("It opened then, or later.", 0.62, 0.38)))
    assert decision.label == "supported"
    loose = dataclasses.replace(SETTINGS, support=0.4)
    split = candidates(claim, ("It opened then, or later.", 0.45, 0.5))
    assert EntailmentDecider(loose).decide(claim, split).label == "unverifiable"
    lenient = dataclasses.replace(loose, support_must_dominate=False)
    assert EntailmentDecider(lenient).decide(claim, split).label == "supported"


# --------------------------------------------------------------------------- passages


class RecordingModel:
    """Answers 'unverifiable' for every pair and records each batch it is asked to score."""

    config = load_config()

    def __init__(self) -> None:
        self.batches: list[list[str]] = []

    def probabilities(self, premises, hypothesis):
        self.batches.append(list(premises))
        return [Probabilities(0.1, 0.1, 0.8) for _ in premises]


def test_closest_sentences_and_windows_around_them_in_one_batch(judge: EntailmentJudge) -> None:
    text = ("The museum has a cafe. It opened in 1990 after a long delay. Its first director was Ann Lee. "
            "Tickets are cheap.\n\nThe museum also opened a new wing in 2005.")
    model = RecordingModel()
    settings = dataclasses.replace(SETTINGS, top_sentences=2, window_around=1, window_sizes=(2, 3))
    local = EntailmentJudge(embedder=judge.embedder, model=model, settings=settings)
    found = local.candidates("The museum opened in 1990.", [Evidence(id="e1", claim_id="c1", text=text, backend="kb")])
    assert len(model.batches) == 1
    assert [c.text for c in found] == model.batches[0]
    assert all(c.text == text[c.start:c.end] for c in found)
    singles = [c.text for c in found if c.sentences == 1]
    assert len(singles) == 2 and "It opened in 1990 after a long delay." in singles
    windows = [c.text for c in found if c.sentences > 1]
    assert "The museum has a cafe. It opened in 1990 after a long delay." in windows
    assert all("\n\n" not in w for w in windows)  # never across a paragraph break
    assert {c.sentences for c in found} <= {1, 2, 3}


def test_a_sentence_repeated_across_items_is_scored_once(judge: EntailmentJudge) -> None:
    model = RecordingModel()
    settings = dataclasses.replace(SETTINGS, top_sentences=2, window_around=0)
    local = EntailmentJudge(embedder=judge.embedder, model=model, settings=settings)
    items = [Evidence(id="note", claim_id="c1", text="Sydney is the capital of New South Wales.", backend="kb"),
             Evidence(id="mine", claim_id="c1", backend="kb",
                      text="Sydney is the capital of New South Wales. Canberra is the capital city of Australia.")]
    found = local.candidates("Sydney is the capital of Australia.", items)
    assert sorted(c.text for c in found) == ["Canberra is the capital city of Australia.",
                                             "Sydney is the capital of New South Wales."]


def test_a_negation_elsewhere_in_a_window_does_not_override() -> None:
    claim = "Refunds go to your original payment method within 5 business days once the item is returned."
    first = "Refunds go to your original payment method within 5 business days."
    sentence = candidates(claim, (first, 0.9, 0.05))[0]
    window = dataclasses.replace(candidates(
        claim, (f"{first} Items that are not returned in their packaging are not refunded.", 0.8, 0.1))[0], sentences=2)
    assert window.signals.negation is not None  # the signal fires on the window ...
    decision = EntailmentDecider(SETTINGS).decide(claim, [window, sentence])
    assert decision.label == "supported" and decision.candidate is sentence  # ... but the sentence decides
    alone = EntailmentDecider(SETTINGS).decide(claim, [window])
    assert alone.label == "refuted" and alone.reason.startswith("negation mismatch")  # a deciding window is checked


# --------------------------------------------------------------------------- judgements kept in memory


def test_the_same_claim_on_the_same_evidence_is_judged_once() -> None:
    fresh = EntailmentJudge()
    items = [demo_note("sydney-opera-house")]
    first = fresh.judge("The Sydney Opera House opened in 1973.", items)
    calls = []
    original = fresh.candidates
    fresh.candidates = lambda claim, evidence: calls.append(claim) or original(claim, evidence)  # type: ignore[method-assign]
    again = fresh.judge("The Sydney Opera House opened in 1973.", items)
    assert again == first and calls == [] and fresh.judgements_reused == 1
    again["label"] = "edited"  # a caller's copy, not the remembered one
    assert fresh.judge("The Sydney Opera House opened in 1973.", items)["label"] == first["label"]
    renamed = [Evidence(**{**items[0].model_dump(), "id": "c1-e9"})]
    assert fresh.judge("The Sydney Opera House opened in 1973.", renamed)["evidence_id"] == "c1-e9"
    assert calls == ["The Sydney Opera House opened in 1973."]  # other ids: judged again


def test_the_memory_is_bounded() -> None:
    small = EntailmentJudge(remembered=2)
    items = [demo_note("australia")]
    for claim in ("Canberra is the capital of Australia.", "Sydney is in Australia.", "Perth is in Australia."):
        small.judge(claim, items)
    assert len(small._judgements) == 2
    small.judge("Canberra is the capital of Australia.", items)  # the oldest was forgotten
    assert small.judgements_reused == 0
