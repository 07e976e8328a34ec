"""Signed reports: `check --out` signs report.json with a local Ed25519 key; `veracity verify` checks it."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner

import veracity
from tests.fakes import FakeWorld, claims_reply, hit, verdict_reply
from veracity.audit import write_artefacts
from veracity.audit.signing import (
    PRIVATE_KEY_FILE,
    PUBLIC_KEY_FILE,
    SigningKeyError,
    default_keys_folder,
    local_signing_key,
    signature_path,
)
from veracity.cli import main

C1, C2 = "Canberra is the capital of Australia.", "Sydney is the capital of Australia."
NOTE = "Canberra is the capital city of Australia."
NOTE2 = "Sydney is the largest city, but Canberra is the capital city of Australia."


@pytest.fixture
def report(world: FakeWorld) -> veracity.Report:
    """A scripted chat model's check: one claim supported, one refuted, each with a verified quote."""
    world.extract(claims_reply((C1, C1), (C2, C2)))
    world.evidence(C1, [hit(NOTE, title="Australia note")])
    world.evidence(C2, [hit(NOTE2, title="Cities note")])
    world.judge(C1, verdict_reply("supported", "c1-e1", NOTE))
    world.judge(C2, verdict_reply("refuted", "c2-e1", NOTE2))
    return veracity.check(f"{C1} {C2}", model=world.model(), backend=world.backend())


def verify(path: Path, *options: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["verify", str(path), *options])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, " ".join(result.stdout.split()), " ".join(result.stderr.split())


def test_the_key_pair_is_made_on_first_use_in_the_data_folder_with_a_private_file_only_the_user_reads(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VERACITY_KEYS", str(tmp_path / "keys"))
    assert default_keys_folder() == tmp_path / "keys" and not (tmp_path / "keys").exists()
    first = local_signing_key()
    assert stat.S_IMODE((tmp_path / "keys" / PRIVATE_KEY_FILE).stat().st_mode) == 0o600
    assert stat.S_IMODE((tmp_path / "keys").stat().st_mode) == 0o700
    assert first.public_path == tmp_path / "keys" / PUBLIC_KEY_FILE and first.public_path.is_file()
    assert local_signing_key().fingerprint == first.fingerprint  # made once, then reused


def test_written_artefacts_are_signed_and_verify_names_the_key_it_used(report: veracity.Report,
                                                                       tmp_path: Path) -> None:
    written = write_artefacts(report, tmp_path / "out")
    assert [path.name for path in written][-1] == "report.json.sig"
    code, out, _ = verify(tmp_path / "out" / "report.json")
    assert code == 0 and "signature holds: signed by the local key" in out, out
    assert local_signing_key().fingerprint in out and "0 failed" in out


def test_verify_key_checks_against_the_given_public_key(report: veracity.Report, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    write_artefacts(report, tmp_path / "out")
    mine = default_keys_folder() / PUBLIC_KEY_FILE
    monkeypatch.setenv("VERACITY_KEYS", str(tmp_path / "elsewhere"))  # the verifier's machine: no local key
    code, out, _ = verify(tmp_path / "out" / "report.json", "--key", str(mine))
    assert code == 0 and "signature holds: signed by the key in" in out, out
    other = local_signing_key(tmp_path / "other").public_path
    code, out, _ = verify(tmp_path / "out" / "report.json", "--key", str(other))
    assert code == 1 and "FAILS report: signature does not hold" in out, out


def test_a_signed_report_with_no_key_to_check_it_against_fails(report: veracity.Report, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    write_artefacts(report, tmp_path / "out")
    monkeypatch.setenv("VERACITY_KEYS", str(tmp_path / "elsewhere"))
    code, out, _ = verify(tmp_path / "out" / "report.json")
    assert code == 1 and "there is no public key to check it with" in out and "--key" in out, out
    assert not (tmp_path / "elsewhere").exists()  # verify makes no key


def test_an_unsigned_report_says_so_and_fails_when_a_key_is_given(report: veracity.Report, tmp_path: Path) -> None:
    path = tmp_path / "report.json"
    path.write_text(report.model_dump_json(indent=2))  # as `check --json` prints it
    code, out, _ = verify(path)
    assert code == 0 and "warning report: not signed" in out and "1 warning(s)" in out, out
    public = local_signing_key().public_path
    code, out, _ = verify(path, "--key", str(public))
    assert code == 1 and "FAILS report: not signed" in out, out


def test_an_edit_that_changes_no_field_still_fails_the_signature(report: veracity.Report, tmp_path: Path) -> None:
    write_artefacts(report, tmp_path / "out")
    path = tmp_path / "out" / "report.json"
    path.write_text(path.read_text() + " ")
    code, out, _ = verify(path)
    assert code == 1 and "FAILS report: signature does not hold" in out and "1 failed" in out, out


def test_a_damaged_signature_file_or_key_file_is_a_clear_failure(report: veracity.Report, tmp_path: Path) -> None:
    write_artefacts(report, tmp_path / "out")
    path = tmp_path / "out" / "report.json"
    signature = signature_path(path)
    document = json.loads(signature.read_text())
    document["signature"] = "not base64!"
    signature.write_text(json.dumps(document))
    code, out, _ = verify(path)
    assert code == 1 and "signature report.json.sig is not a veracity report signature" in out, out
    not_a_key = tmp_path / "key.pem"
    not_a_key.write_text("hello")
    code, _, err = verify(path, "--key", str(not_a_key))
    assert code == 2 and "is not a PEM public key" in err, err


def test_writing_unsigned_removes_an_old_signature(report: veracity.Report, tmp_path: Path) -> None:
    write_artefacts(report, tmp_path / "out")
    written = write_artefacts(report, tmp_path / "out", sign=False)
    assert [path.name for path in written] == ["report.json", "report.md", "audit.md"]
    assert not signature_path(tmp_path / "out" / "report.json").exists()


@pytest.mark.parametrize("mode", [0o666, 0o644, 0o640, 0o602])
def test_a_private_key_others_may_read_or_write_is_refused_with_the_command_that_fixes_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: int) -> None:
    monkeypatch.setenv("VERACITY_KEYS", str(tmp_path / "keys"))
    first = local_signing_key()
    private = tmp_path / "keys" / PRIVATE_KEY_FILE
    private.chmod(mode)

    with pytest.raises(SigningKeyError) as refused:
        local_signing_key()

    message = " ".join(str(refused.value).split())
    assert f"mode {mode:04o}" in message and f"run `chmod 600 {private}`" in message
    private.chmod(0o600)
    assert local_signing_key().fingerprint == first.fingerprint  # the fix works, and the key is the same


def test_check_out_refuses_a_key_others_may_read_before_it_checks_anything(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VERACITY_KEYS", str(tmp_path / "keys"))
    local_signing_key()
    private = tmp_path / "keys" / PRIVATE_KEY_FILE
    private.chmod(0o666)
    policy = tmp_path / "policy.txt"
    policy.write_text("Returns are accepted within 14 days.", encoding="utf-8")

    result = CliRunner().invoke(main, ["check", "You can return it within 14 days.", "--model", "offline",
                                       "--source", str(policy), "--out", str(tmp_path / "out")])

    assert result.exit_code == 2 and isinstance(result.exception, SystemExit), (result.output, result.exception)
    said = " ".join(result.stderr.split())
    assert f"chmod 600 {private}" in said and "mode 0666" in said and "Traceback" not in result.output
    assert not (tmp_path / "out").exists()  # refused before the check ran, nothing written
