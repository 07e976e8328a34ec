"""Per-step output caps and the bounded request schemas sent with them."""

from __future__ import annotations

import pytest
from langchain_openai import ChatOpenAI

from veracity.context import Context
from veracity.contracts import Evidence
from veracity.llm.caps import truncation_error, with_output_cap
from veracity.nodes.extract import extraction_cap, extraction_schema, word_count
from veracity.nodes.judge import judge_schema
from veracity.testing import ScriptedChatModel


def evidence(item_id: str, text: str) -> Evidence:
    return Evidence(id=item_id, claim_id="c1", title="t", text=text, backend="kb")


def test_the_extraction_cap_grows_with_the_text() -> None:
    short, long = extraction_cap("Paris is in France."), extraction_cap("Paris is in France. " * 50)
    assert 256 < short < long
    assert long >= 3 * len("Paris is in France. " * 50) // 4  # room for claim, source and query per sentence


def test_the_cap_is_set_on_a_copy_of_the_model_and_a_lower_limit_is_kept() -> None:
    model = ChatOpenAI(model="m", api_key="k")
    capped, applied = with_output_cap(model, 300)
    assert applied and capped.max_tokens == 300 and model.max_tokens is None
    assert capped._get_request_payload([("user", "hi")])["max_completion_tokens"] == 300
    stricter = ChatOpenAI(model="m", api_key="k", max_tokens=100)
    assert with_output_cap(stricter, 300)[0].max_tokens == 100


def test_a_model_without_an_output_limit_setting_is_left_as_it_is() -> None:
    model = ScriptedChatModel(responder=lambda messages: "{}")
    assert with_output_cap(model, 300) == (model, False)


def test_the_truncation_error_names_the_step_its_setting_and_what_to_do() -> None:
    error = truncation_error("revise", 512)
    assert "512-token limit of the revise step (revise_max_tokens)" in error and "short" in error


@pytest.mark.parametrize("name", ["extraction_max_tokens", "judge_max_tokens", "revise_max_tokens"])
@pytest.mark.parametrize("value", [0, -5, 2.5])
def test_caps_must_be_positive_whole_numbers(name: str, value: object) -> None:
    with pytest.raises(ValueError, match=name):
        Context(**{name: value})  # type: ignore[arg-type]


def test_the_extraction_schema_bounds_passages_by_the_text() -> None:
    text = "The Eiffel Tower is in Paris. It was completed in 1889."
    schema = extraction_schema(text)
    claim = schema["$defs"]["ExtractedClaim"]["properties"]
    assert claim["source"]["maxLength"] == len(text)
    assert claim["claim"]["maxLength"] > len(text)
    assert claim["counter_query"]["anyOf"][0]["maxLength"] == 200
    assert schema["properties"]["claims"]["maxItems"] == len(text.split()) // 3 + 1


def test_a_text_without_spaces_is_not_held_to_one_claim() -> None:
    text = "巴黎是法国的首都。埃菲尔铁塔于一八八九年建成。它高三百米。"
    assert word_count(text) == len(text) // 4
    assert extraction_schema(text)["properties"]["claims"]["maxItems"] >= 3


def test_the_judge_schema_names_only_retrieved_evidence() -> None:
    schema = judge_schema([evidence("c1-e1", "short"), evidence("c1-e2", "a longer evidence text")])
    props = schema["properties"]
    assert props["evidence_id"]["anyOf"] == [{"enum": ["c1-e1", "c1-e2"]}, {"type": "null"}]
    assert props["quote"]["anyOf"][0]["maxLength"] == len("a longer evidence text")
    assert props["reason"]["maxLength"] == 600


def test_with_no_evidence_the_judge_schema_allows_no_citation() -> None:
    props = judge_schema([])["properties"]
    assert props["evidence_id"]["anyOf"] == [{"type": "null"}] and props["quote"]["anyOf"] == [{"type": "null"}]


def test_a_revise_round_uses_the_revise_cap() -> None:
    from veracity.contracts import Claim
    from veracity.nodes.judge import judge_step, judge_tokens

    claim = Claim(id="c1", text="Paris is in France.", source="Paris is in France.", span=(0, 19))
    context = Context(judge_max_tokens=300, revise_max_tokens=700)
    first, again = {"claim": claim, "revision": 0}, {"claim": claim, "revision": 1}
    assert (judge_step(first), judge_tokens(first, context)) == ("judge", 300)  # type: ignore[arg-type]
    assert (judge_step(again), judge_tokens(again, context)) == ("revise", 700)  # type: ignore[arg-type]
