"""Sign a written report, and check the signature: Ed25519, with a key pair kept in the user's data folder.

`check --out` writes ``report.json.sig`` beside ``report.json``: a small JSON document holding
an Ed25519 signature over the exact bytes of ``report.json``, and which key made it. The
signature is detached rather than embedded, so the report file stays exactly the report and
is signed byte for byte: any edit shows, even one a reader of the JSON would not (a field
the report model ignores, such as ``passed``, or whitespace).

The key pair is made on first use in `default_keys_folder()` (``$VERACITY_KEYS``, else
``keys`` in the user data folder): ``report-signing-key.pem`` (private, mode 0600) and
``report-signing-key.pub.pem`` (public, to hand to whoever verifies: ``veracity verify --key``).
A private key file that others than its owner may read or write is refused, with the command
that makes it private again.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import os
import shlex
import stat
from dataclasses import dataclass
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from veracity.audit.findings import Finding
from veracity.user_files import FileRefused, read_regular_file, write_atomically

KEYS_ENV = "VERACITY_KEYS"
"""Environment variable naming the folder of the signing key pair."""
PRIVATE_KEY_FILE = "report-signing-key.pem"
PUBLIC_KEY_FILE = "report-signing-key.pub.pem"
SIGNATURE_SUFFIX = ".sig"
"""A report's signature file is its name with this added: ``report.json.sig``."""
SIGNATURE_FORMAT = "veracity-report-signature/1"
MAX_KEY_BYTES = 16_384
MAX_SIGNATURE_BYTES = 16_384
_SIGNED_PREFIX = b"veracity report signature v1\n"
"""Prepended to the report bytes before signing, so the signature is good for nothing else."""


class SigningKeyError(OSError):
    """A key file that cannot be made, read or used; the message says which and why."""


def default_keys_folder() -> Path:
    """`$VERACITY_KEYS` when set, else `<user data dir>/veracity/keys`."""
    configured = os.environ.get(KEYS_ENV, "").strip()
    if configured:
        return Path(configured).expanduser()
    from platformdirs import user_data_dir

    return Path(user_data_dir("veracity")) / "keys"


def signature_path(report_path: Path) -> Path:
    """Where the signature of `report_path` is kept: beside it, named ``<name>.sig``."""
    return report_path.with_name(report_path.name + SIGNATURE_SUFFIX)


def fingerprint(key: Ed25519PublicKey) -> str:
    """A short name for a public key: 'ed25519:' and the first 16 hex digits of the SHA-256 of its raw bytes."""
    raw = key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return "ed25519:" + hashlib.sha256(raw).hexdigest()[:16]


@dataclass(frozen=True)
class SigningKey:
    """The private key that signs reports, and where its public half is kept."""

    private: Ed25519PrivateKey
    public_path: Path

    @property
    def fingerprint(self) -> str:
        """The public key's fingerprint."""
        return fingerprint(self.private.public_key())

    def sign(self, report_bytes: bytes, name: str) -> bytes:
        """The signature file for the report `name` whose file holds exactly `report_bytes`."""
        signature = self.private.sign(_SIGNED_PREFIX + report_bytes)
        document = {
            "format": SIGNATURE_FORMAT, "algorithm": "Ed25519", "report": name,
            "report_sha256": hashlib.sha256(report_bytes).hexdigest(), "key": self.fingerprint,
            "signature": base64.b64encode(signature).decode("ascii"),
        }
        return (json.dumps(document, indent=2) + "\n").encode("utf-8")


@dataclass(frozen=True)
class VerifyingKey:
    """A public key to check signatures with, and where it came from (for people)."""

    key: Ed25519PublicKey
    origin: str

    @property
    def fingerprint(self) -> str:
        """The key's fingerprint."""
        return fingerprint(self.key)


def local_signing_key(folder: Path | None = None) -> SigningKey:
    """The local signing key in `folder` (default: `default_keys_folder()`), made on first use.

    The private key file is created with mode 0600 (its folder 0700), under a file lock so two
    checks starting at once make one key pair. Raises `SigningKeyError` when the folder or a
    key file cannot be made or read.
    """
    from filelock import FileLock

    folder = folder or default_keys_folder()
    private_path, public_path = folder / PRIVATE_KEY_FILE, folder / PUBLIC_KEY_FILE
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        with FileLock(folder / ".keys.lock"):
            if not os.path.lexists(private_path):
                _write_private(private_path, Ed25519PrivateKey.generate())
            private = _load_private(private_path)
            if not os.path.lexists(public_path):
                write_atomically(public_path, _public_pem(private.public_key()), mode=0o644)
    except OSError as exc:
        if isinstance(exc, SigningKeyError):
            raise
        raise SigningKeyError(f"cannot make or read the signing key in {folder}: {exc.strerror or exc}") from exc
    return SigningKey(private, public_path)


def local_public_key_path(folder: Path | None = None) -> Path:
    """Where the local public key is (or will be) kept."""
    return (folder or default_keys_folder()) / PUBLIC_KEY_FILE


def local_verifying_key(folder: Path | None = None) -> VerifyingKey | None:
    """The local public key, or None when this machine has no key pair yet (nothing is made)."""
    folder = folder or default_keys_folder()
    public_path = folder / PUBLIC_KEY_FILE
    if os.path.lexists(public_path):
        return load_public_key(public_path, origin=f"the local key {public_path}")
    private_path = folder / PRIVATE_KEY_FILE
    if os.path.lexists(private_path):
        return VerifyingKey(_load_private(private_path).public_key(), f"the local key {private_path}")
    return None


def load_public_key(path: Path, *, origin: str | None = None) -> VerifyingKey:
    """The Ed25519 public key in the PEM file `path`; `SigningKeyError` saying why when it is not one."""
    try:
        pem = read_regular_file(path, MAX_KEY_BYTES)
    except FileRefused as exc:
        raise SigningKeyError(f"the public key file {path} {exc}") from exc
    try:
        key = serialization.load_pem_public_key(pem)
    except ValueError as exc:
        raise SigningKeyError(f"{path} is not a PEM public key ({exc})") from exc
    if not isinstance(key, Ed25519PublicKey):
        raise SigningKeyError(f"{path} holds a {type(key).__name__}, not an Ed25519 public key")
    return VerifyingKey(key, origin or f"the key in {path}")


def check_signature(report_path: Path, report_bytes: bytes, key: VerifyingKey | None, *,
                    required: bool = False) -> Finding:
    """Whether the signature beside `report_path` holds for `report_bytes` under `key`.

    An unsigned report is a warning, or a failure when `required` (a key was given to check it
    with). A signed report with no key to check it against fails: its signature cannot be trusted.
    """
    path = signature_path(report_path)
    if not os.path.lexists(path):
        if required:
            return Finding(None, f"not signed: there is no {path.name} beside the report, but a key was given "
                                 "to check its signature", False)
        return Finding(None, f"not signed: there is no {path.name} beside the report, so an edit to it cannot "
                             "be detected (`veracity check --out` writes signed reports)", True, warning=True)
    try:
        claimed, signature = _read_signature(path)
    except FileRefused as exc:
        return Finding(None, f"signature {path.name} {exc}", False)
    if key is None:
        return Finding(None, f"signed by {claimed}, but there is no public key to check it with (no local key in "
                             f"{default_keys_folder()}); give the signer's public key with --key", False)
    try:
        key.key.verify(signature, _SIGNED_PREFIX + report_bytes)
    except InvalidSignature:
        other = "" if claimed == key.fingerprint else f"; it names {claimed} as its key"
        return Finding(None, f"signature does not hold: the report was changed after it was signed, or signed by "
                             f"another key (checked against {key.origin}, {key.fingerprint}{other})", False)
    return Finding(None, f"signature holds: signed by {key.origin} ({key.fingerprint})", True)


def _read_signature(path: Path) -> tuple[str, bytes]:
    """The key fingerprint a signature file names and its signature bytes; `FileRefused` when it is not one."""
    data = read_regular_file(path, MAX_SIGNATURE_BYTES)
    try:
        document = json.loads(data)
        if not isinstance(document, dict) or document.get("format") != SIGNATURE_FORMAT \
                or document.get("algorithm") != "Ed25519":
            raise ValueError("not a veracity report signature")
        signature = base64.b64decode(str(document["signature"]), validate=True)
        return str(document.get("key") or "an unnamed key"), signature
    except (ValueError, KeyError, binascii.Error) as exc:
        raise FileRefused(f"is not a veracity report signature ({exc})") from exc


def _private_to_owner(path: Path, status: os.stat_result) -> None:
    """Refuse a private key file that others than its owner may read or write (as ssh does)."""
    mode = stat.S_IMODE(status.st_mode)
    if mode & 0o077:
        raise FileRefused(f"can be read or written by others than its owner (mode {mode:04o}); it must be private: "
                          f"run `chmod 600 {shlex.quote(str(path))}` and try again (or make a new key pair, if "
                          "someone may have copied it)")


def _public_pem(key: Ed25519PublicKey) -> bytes:
    return key.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)


def _write_private(path: Path, key: Ed25519PrivateKey) -> None:
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption())
    write_atomically(path, pem, mode=0o600)


def _load_private(path: Path) -> Ed25519PrivateKey:
    try:
        pem = read_regular_file(path, MAX_KEY_BYTES, check=_private_to_owner)
    except FileRefused as exc:
        raise SigningKeyError(f"the signing key {path} {exc}") from exc
    try:
        key = serialization.load_pem_private_key(pem, password=None)
    except (ValueError, TypeError) as exc:
        raise SigningKeyError(f"{path} is not a usable private key ({exc})") from exc
    if not isinstance(key, Ed25519PrivateKey):
        raise SigningKeyError(f"{path} holds a {type(key).__name__}, not an Ed25519 private key")
    return key
