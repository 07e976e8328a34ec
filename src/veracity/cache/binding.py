"""Each cache entry bound to its key by a keyed digest, so an entry edited, forged or moved in the file is a miss.

An entry is stored as ``{"value": ..., "digest": ...}``: the digest is an HMAC-SHA256, under a
secret kept beside the cache file (``<cache>.secret``, mode 0600, made on first use), of the
entry's namespace, key and value. An entry whose digest does not hold was not written under
that key by this cache: someone edited its value (a search answer rewritten to say something
else), copied a genuine answer under another question's key, or wrote it without the secret.
It is read as a miss, and the search or model call is made again.

The secret protects against whoever can write the cache file but not read the user's private
files (a shared or copied cache file); a process running as the user can read both.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import stat
from pathlib import Path
from typing import Any

SECRET_SUFFIX = ".secret"
"""The secret's file is the cache file's name with this added: ``cache.sqlite.secret``."""
SECRET_BYTES = 32


class UnboundEntry(ValueError):
    """A cache entry whose digest does not hold for its key and value (or that carries none)."""


class EntryBinding:
    """Seals values into entries bound to their keys, and opens entries only when their digest holds."""

    def __init__(self, secret: bytes) -> None:
        """Bind entries with `secret` (at least 16 bytes)."""
        if len(secret) < 16:
            raise ValueError("an entry binding needs a secret of at least 16 bytes")
        self._secret = secret

    @classmethod
    def for_cache(cls, cache_path: Path) -> EntryBinding:
        """The binding of the cache file at `cache_path`, its secret made on first use.

        Raises `OSError` saying why when the secret cannot be made or read.
        """
        return cls(_load_or_make_secret(cache_path.with_name(cache_path.name + SECRET_SUFFIX)))

    def _digest(self, namespace: tuple[str, ...], key: str, value: Any) -> str:
        message = json.dumps([list(namespace), key, value], sort_keys=True, separators=(",", ":"), ensure_ascii=True,
                             allow_nan=False)
        return hmac.new(self._secret, message.encode("ascii"), hashlib.sha256).hexdigest()

    def seal(self, namespace: tuple[str, ...], key: str, value: Any) -> dict[str, Any]:
        """The entry to store for `value` (JSON data) under (`namespace`, `key`)."""
        return {"value": value, "digest": self._digest(namespace, key, value)}

    def open(self, namespace: tuple[str, ...], key: str, entry: Any) -> Any:
        """The value of `entry` read under (`namespace`, `key`); `UnboundEntry` when its digest does not hold."""
        if not isinstance(entry, dict) or set(entry) != {"value", "digest"} or not isinstance(entry["digest"], str):
            raise UnboundEntry("it carries no digest binding it to its key (written by an older veracity, or not "
                               "by the cache)")
        try:
            expected = self._digest(namespace, key, entry["value"])
        except ValueError as exc:  # a value JSON cannot write back (NaN, infinity): not one the cache wrote
            raise UnboundEntry(f"its value cannot be read back as written ({exc})") from None
        if not hmac.compare_digest(expected, entry["digest"]):
            raise UnboundEntry("its digest does not match its key and value (edited, or copied from another key)")
        return entry["value"]


def _load_or_make_secret(path: Path) -> bytes:
    """The secret in `path`; made (mode 0600, whole, by one process even when several start at once) if missing."""
    try:
        return _read_secret(path)
    except FileNotFoundError:
        pass
    partial = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.part")
    descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
    try:
        try:
            os.write(descriptor, secrets.token_bytes(SECRET_BYTES))
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
        try:
            os.link(partial, path)  # only the first process to get here makes the secret; the others read it
        except FileExistsError:
            pass
    finally:
        partial.unlink(missing_ok=True)
    return _read_secret(path)


def _read_secret(path: Path) -> bytes:
    descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(descriptor, "rb") as handle:
        status = os.fstat(handle.fileno())
        if not stat.S_ISREG(status.st_mode) or status.st_size != SECRET_BYTES:
            raise OSError(f"the cache secret {path} is not a {SECRET_BYTES}-byte file; delete it (the cache is then "
                          "read afresh)")
        return handle.read()
