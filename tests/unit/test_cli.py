"""`veracity check`: input handling, output formats and exit codes."""

from __future__ import annotations

import functools
import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

import veracity.api
from tests.fakes import FakeWorld, claims_reply, hit, verdict_reply
from veracity.cli import main

TEXT = "Canberra is the capital of Australia. Sydney is the capital of Australia."
C1, C2 = "Canberra is the capital of Australia.", "Sydney is the capital of Australia."
NOTE = "Canberra is the capital city of Australia. Sydney is the capital of New South Wales."


@pytest.fixture
def runner(monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    monkeypatch.setenv("COLUMNS", "220")  # wide enough that table cells are not wrapped
    return CliRunner()


@pytest.fixture
def scripted(world: FakeWorld, monkeypatch: pytest.MonkeyPatch) -> FakeWorld:
    """Route the CLI's checks through a scripted model and backend."""
    world.extract(claims_reply((C1, C1), (C2, C2)))
    world.evidence(C1, [hit(NOTE, title="Australia note")])
    world.evidence(C2, [hit(NOTE, title="Australia note")])
    world.judge(C1, verdict_reply("supported", "c1-e1", "Canberra is the capital city of Australia."))
    world.judge(C2, verdict_reply("refuted", "c2-e1", "Canberra is the capital city of Australia."))
    original = veracity.api.acheck
    scripted = functools.partial(original, model=world.model(), backend=world.backend())
    monkeypatch.setattr(veracity.api, "acheck", scripted)
    return world


def test_json_output_has_the_documented_fields(runner: CliRunner, scripted: FakeWorld) -> None:
    result = runner.invoke(main, ["check", TEXT, "--json"])
    assert result.exit_code == 1, result.output  # one claim refuted
    data = json.loads(result.stdout)
    assert [v["label"] for v in data["verdicts"]] == ["supported", "refuted"]
    assert data["verdicts"][1]["quote"] == "Canberra is the capital city of Australia."
    # one field says pass or fail: the text fails; `ok` says the check was sound, the evaluation lists no issue
    assert data["passed"] is False and data["ok"] is True and data["failures"] == []
    assert data["evaluation"] == {"issues": []}
    assert len(data["claims"]) == 2 and data["trace"]


def test_table_output_shows_label_claim_quote_and_source(runner: CliRunner, scripted: FakeWorld) -> None:
    result = runner.invoke(main, ["check", TEXT])
    assert result.exit_code == 1
    for expected in ("supported", "refuted", "Sydney is the capital", "Canberra is the capital city", "Australia note",
                     "2 claim(s): 1 supported, 1 refuted, 0 unverifiable"):
        assert expected in result.stdout


def test_trace_table(runner: CliRunner, scripted: FakeWorld) -> None:
    result = runner.invoke(main, ["check", TEXT, "--trace"])
    assert "Trace" in result.stdout and "verdict_gate" in result.stdout and "gather_evidence" in result.stdout


def test_reads_standard_input_with_dash(runner: CliRunner, scripted: FakeWorld) -> None:
    result = runner.invoke(main, ["check", "-", "--json"], input=TEXT)
    assert json.loads(result.stdout)["text"] == TEXT


def test_all_supported_exits_zero(runner: CliRunner, scripted: FakeWorld) -> None:
    scripted.extract(claims_reply((C1, C1)))
    result = runner.invoke(main, ["check", C1])
    assert result.exit_code == 0, result.output


def test_incomplete_check_exits_three(runner: CliRunner, scripted: FakeWorld) -> None:
    scripted.evidence(C2, veracity.ToolError("rate_limit", "slow down"))
    result = runner.invoke(main, ["check", TEXT, "--json"])
    assert result.exit_code == 3
    assert json.loads(result.stdout)["failures"][0]["error"] == "rate_limit"


@pytest.mark.parametrize("text", ["", "   \n\t "])
def test_empty_text_is_exit_two(runner: CliRunner, text: str) -> None:
    result = runner.invoke(main, ["check", text])
    assert result.exit_code == 2 and "the text is empty" in result.stderr


def test_oversized_text_is_exit_two(runner: CliRunner) -> None:
    result = runner.invoke(main, ["check", "word " * 50, "--max-chars", "100"])
    assert result.exit_code == 2 and "the limit is 100" in result.stderr


def test_missing_key_says_what_to_configure(runner: CliRunner) -> None:
    result = runner.invoke(main, ["check", C1, "--model", "openai:gpt-4.1-mini", "--search", "web"])
    assert result.exit_code == 2 and "OPENAI_API_KEY" in result.stderr


def test_missing_tavily_key_says_what_to_configure(runner: CliRunner, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    result = runner.invoke(main, ["check", C1, "--search", "web"])
    assert result.exit_code == 2 and "TAVILY_API_KEY" in result.stderr


def test_an_archive_template_without_the_url_placeholder_is_bad_usage(runner: CliRunner) -> None:
    result = runner.invoke(main, ["check", C1, "--archive-url", "https://archive.example/web/"])
    assert result.exit_code == 2 and "must hold {url}" in result.stderr


def test_help_documents_exit_codes(runner: CliRunner) -> None:
    result = runner.invoke(main, ["check", "--help"])
    assert result.exit_code == 0 and "Exit codes" in result.stdout and "--max-revisions" in result.stdout


def test_rich_markup_in_claims_and_evidence_is_shown_as_written(
    runner: CliRunner, world: FakeWorld, monkeypatch: pytest.MonkeyPatch
) -> None:
    claim = "Canberra [/] is the capital of [bold red]Australia[/]."
    world.extract(claims_reply((claim, claim)))
    world.evidence(claim, [hit(NOTE, title="[/link] note [red]")])
    world.judge(claim, verdict_reply("supported", "c1-e1", "Canberra is the capital city of Australia."))
    monkeypatch.setattr(veracity.api, "acheck",
                        functools.partial(veracity.api.acheck, model=world.model(), backend=world.backend()))
    for extra in ([], ["--trace"], ["--stream"]):
        result = runner.invoke(main, ["check", claim, *extra])
        assert result.exit_code == 0, result.output  # before: rich.errors.MarkupError, exit 1
        assert "[bold red]Australia[/]" in result.output
    assert "[/link] note [red]" in runner.invoke(main, ["check", claim]).stdout


def test_invalid_utf8_is_bad_input_that_says_where(runner: CliRunner) -> None:
    result = runner.invoke(main, ["check", "-"], input=b"The tower \xff\xfe is in Paris.")
    assert result.exit_code == 2  # bad input, not a gate failure (3)
    assert "not valid UTF-8" in result.output and "0xff at offset 10" in result.output
    undecodable = runner.invoke(main, ["check", "The tower \udcff is in Paris."])  # as argv decodes bad bytes
    assert undecodable.exit_code == 2 and "not valid UTF-8" in undecodable.output


def test_a_lone_surrogate_still_gives_a_report_that_writes_as_json(runner: CliRunner, scripted: FakeWorld) -> None:
    import veracity

    report = veracity.check(f"{C1} \ud800", model=scripted.model(), backend=scripted.backend())
    assert report.text == f"{C1} \ufffd"  # before: kept as is, and model_dump_json raised PydanticSerializationError
    assert json.loads(report.model_dump_json())["text"] == report.text


def source_problem(runner: CliRunner, path: object) -> tuple[int, str]:
    result = runner.invoke(main, ["check", "Returns are accepted within 14 days.", "--source", str(path), "--json"])
    return result.exit_code, " ".join(result.output.split())


def test_a_source_that_is_a_pipe_or_a_device_is_refused_before_reading(runner: CliRunner, tmp_path: Path) -> None:
    fifo = tmp_path / "policy.fifo"
    os.mkfifo(fifo)  # before: reading it blocked for ever
    for path in (fifo, Path("/dev/zero")):
        code, output = source_problem(runner, path)
        assert code == 2 and "not a regular file" in output


def test_a_binary_source_is_refused_and_html_and_pdf_sources_are_read_as_text(
    runner: CliRunner, tmp_path: Path
) -> None:
    from tests.unit.kb_fixtures import minimal_pdf

    binary = tmp_path / "policy.bin"
    binary.write_bytes(b"\x7fELF\x00\x01\x02 Returns are accepted within 14 days.")
    code, output = source_problem(runner, binary)
    assert code == 2 and "looks binary" in output  # before: read as text with replacement characters
    page = tmp_path / "policy.html"
    page.write_text("<html><head><title>Returns</title></head><body><p>Returns are accepted within 14 days."
                    "</p></body></html>", encoding="utf-8")
    pdf = tmp_path / "policy.pdf"
    pdf.write_bytes(minimal_pdf(["Returns are accepted within 14 days."]))
    for path in (page, pdf):
        result = runner.invoke(main, ["check", "Returns are accepted within 14 days.", "--source", str(path), "--json"])
        evidence = json.loads(result.stdout)["evidence"]
        assert evidence and "<p>" not in evidence[0]["text"] and "%PDF" not in evidence[0]["text"]
        assert "Returns are accepted within 14 days." in evidence[0]["text"]


BROCHURE = "Exhibition brochure: the Eiffel Tower was completed in 1887."
TRUE_IN_THE_KB = "The Eiffel Tower was completed in 1889."  # the demo knowledge base supports it


def test_a_source_is_the_evidence_and_another_search_with_it_is_a_usage_error(
    runner: CliRunner, tmp_path: Path
) -> None:
    brochure = tmp_path / "brochure.txt"
    brochure.write_text(BROCHURE, encoding="utf-8")
    for extra in ([], ["--search", "auto"], ["--search", "source"]):
        result = runner.invoke(main, ["check", TRUE_IN_THE_KB, "--source", str(brochure), "--model", "offline",
                                      "--json", *extra])
        assert result.exit_code == 1, result.output  # the text strays from its source
        report = json.loads(result.stdout)
        assert report["mode"] == "offline+source" and report["passed"] is False
        assert [item["backend"] for item in report["evidence"]] == ["source"]
        assert "evidence: only the source text 'brochure.txt'" in result.stderr
    for search in ("kb", "web"):
        result = runner.invoke(main, ["check", TRUE_IN_THE_KB, "--source", str(brochure), "--search", search,
                                      "--model", "offline", "--json"])
        # before: the source was dropped and the text passed on the knowledge base (exit 0)
        assert result.exit_code == 2, result.output
        assert (f"a source text was given, so the evidence is that source; --search {search} cannot be combined "
                "with --source (drop one)") in " ".join(result.stderr.split())
        assert result.stdout == ""


def test_max_tokens_and_structured_output_reach_the_checks_settings(
    runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: dict[str, object] = {}

    async def capture(text: str, **settings: object) -> object:
        seen.update(settings)
        raise SystemExit(0)

    monkeypatch.setattr(veracity.api, "acheck", capture)
    result = runner.invoke(main, ["check", TEXT, "--max-tokens", "judge=300", "--max-tokens", "extract=900",
                                  "--structured-output", "prompt", "--model", "offline"])
    assert result.exit_code == 0, result.output
    assert (seen["judge_max_tokens"], seen["extraction_max_tokens"], seen["structured_output"]) == (300, 900, "prompt")
    assert "revise_max_tokens" not in seen


@pytest.mark.parametrize("value", ["judge=0", "judge", "answer=5", "extract=-3"])
def test_a_bad_max_tokens_is_a_usage_error_that_says_what_is_expected(runner: CliRunner, value: str) -> None:
    result = runner.invoke(main, ["check", TEXT, "--max-tokens", value])
    assert result.exit_code == 2 and "expected STEP=N" in result.output


def test_every_skipped_statement_is_listed_under_the_table_with_its_reason(runner: CliRunner) -> None:
    text = ("Thanks for reaching out! The Eiffel Tower was completed in 1889. Is the museum open on Sundays? "
            "Paris is the most beautiful city in Europe. The Lakers will win the championship.")
    result = runner.invoke(main, ["check", text, "--model", "offline", "--search", "kb"])
    assert "1 claim(s)" in result.stdout, result.output  # only the Eiffel Tower's completion is judged
    lines = result.stdout.splitlines()
    listed = lines[lines.index("Not checked:") + 1:]
    assert [line.strip() for line in listed[:4]] == [
        "- “Thanks for reaching out”: courtesy, not a claim",
        "- “Is the museum open on Sundays”: a question, not a statement",
        "- “Paris is the most beautiful city in Europe”: an opinion or value judgement, not a checkable fact",
        "- “The Lakers will win the championship”: a prediction about the future, not yet checkable",
    ]


# --------------------------------------------------------------------------- the first line on stderr

POLICY_FILE_TEXT = "Returns are accepted within 14 days of delivery."


@pytest.fixture
def dead_model_endpoint(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """An OpenAI-compatible endpoint that does not answer: a check's calls to it fail at once (no socket is opened)."""
    from veracity.llm import probe

    asked: list[str] = []

    def prober(base_url: str) -> str:
        asked.append(base_url)
        return f"the model endpoint {base_url} is not answering"

    monkeypatch.setenv("OPENAI_API_KEY", "local")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://models.internal:8080/v1")
    monkeypatch.setattr(probe, "ENDPOINT_PROBES", probe.EndpointProbes(prober))
    return asked


def test_the_first_line_names_each_steps_model_as_it_runs(
    runner: CliRunner, tmp_path: Path, dead_model_endpoint: list[str]
) -> None:
    policy = tmp_path / "policy.txt"
    policy.write_text(POLICY_FILE_TEXT, encoding="utf-8")
    result = runner.invoke(main, ["check", "You can return it within 30 days.", "--source", str(policy),
                                  "--extract-model", "offline", "--judge-model", "openai:my-judge", "--no-cache"])
    # before: "model openai:gpt-4.1-mini", the run's default model, which neither step ran
    first = result.stderr.splitlines()[0]
    assert first == "veracity: extract: offline · judge: openai:my-judge · evidence: only the source text " \
                    "'policy.txt' · cache: off", result.stderr
    assert dead_model_endpoint  # the judge's endpoint was asked: the line came after the set-up's checks
    assert result.exit_code == 3, result.output  # the judge's endpoint is down: the check is incomplete


def test_a_missing_key_is_the_first_line_with_nothing_misleading_before_it(runner: CliRunner, tmp_path: Path) -> None:
    policy = tmp_path / "policy.txt"
    policy.write_text(POLICY_FILE_TEXT, encoding="utf-8")
    result = runner.invoke(main, ["check", "You can return it within 30 days.", "--source", str(policy),
                                  "--judge-model", "openai:x"])
    assert result.exit_code == 2, result.output
    # before: "veracity: offline (local claim splitter and judge; ...)" came first, then the error
    assert result.stderr.splitlines()[0].startswith("not configured: model 'openai:x' needs OPENAI_API_KEY")
    assert "offline" not in result.stderr.splitlines()[0]


def test_an_offline_check_says_both_steps_run_locally_and_how_to_change_it(
    runner: CliRunner, tmp_path: Path
) -> None:
    policy = tmp_path / "policy.txt"
    policy.write_text(POLICY_FILE_TEXT, encoding="utf-8")
    result = runner.invoke(main, ["check", "You can return it within 14 days.", "--source", str(policy),
                                  "--model", "offline"])
    assert result.exit_code in (0, 1), result.output
    assert result.stderr.splitlines()[0] == (
        "veracity: offline (the local claim splitter and judge; set OPENAI_API_KEY or --model for an LLM) · "
        "evidence: only the source text 'policy.txt'")
