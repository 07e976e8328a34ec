"""Read a file `veracity verify` was pointed at, or that a report names, without trusting it.

A path may name a FIFO (opening it blocks), a device (``/dev/zero`` never ends) or a file far
larger than any report; `read_regular_file` refuses all three before reading, and
`name_inside` refuses a name that leads out of the folder it is meant to be in.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path, PurePosixPath, PureWindowsPath


class FileRefused(Exception):
    """A file that is not read: what is wrong with it, in words (the message)."""


FileCheck = Callable[[Path, os.stat_result], None]
"""A further check of a file opened for reading: raises `FileRefused` to refuse it."""


def read_regular_file(path: Path, max_bytes: int, *, check: FileCheck | None = None) -> bytes:
    """The bytes of `path`, a regular file of at most `max_bytes`; else `FileRefused` saying why.

    The file is checked with `stat` before it is opened, and again once open (it may have been
    swapped in between); it is opened non-blocking, so even a FIFO put in its place cannot hold
    the reader. `check`, when given, is called with the path and the open file's status, and
    refuses it by raising `FileRefused` (e.g. a private key others may read).
    """
    try:
        before = os.stat(path)
    except OSError as exc:
        raise FileRefused(f"cannot be opened ({exc.strerror or exc})") from exc
    _check_kind(before, max_bytes)
    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except OSError as exc:
        raise FileRefused(f"cannot be opened ({exc.strerror or exc})") from exc
    with os.fdopen(descriptor, "rb") as handle:
        status = os.fstat(handle.fileno())
        _check_kind(status, max_bytes)
        if check is not None:
            check(path, status)
        data = handle.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise FileRefused(f"is larger than {max_bytes:,} bytes")
    return data


def _check_kind(status: os.stat_result, max_bytes: int) -> None:
    if not stat.S_ISREG(status.st_mode):
        raise FileRefused(f"is not a regular file (a {_kind(status.st_mode)})")
    if status.st_size > max_bytes:
        raise FileRefused(f"is larger than {max_bytes:,} bytes ({status.st_size:,})")


def _kind(mode: int) -> str:
    kinds = ((stat.S_ISDIR, "folder"), (stat.S_ISFIFO, "FIFO"), (stat.S_ISCHR, "character device"),
             (stat.S_ISBLK, "block device"), (stat.S_ISSOCK, "socket"))
    return next((name for test, name in kinds if test(mode)), "special file")


def name_inside(folder: Path, name: str) -> Path:
    """The path of the file called `name` in `folder`; `FileRefused` when `name` is not a plain file name there.

    Absolute paths, drive letters, separators, ``.`` and ``..`` are refused, and so is a name whose
    path resolves (through a link) outside `folder`.
    """
    if not name or "\x00" in name:
        raise FileRefused("has an empty or invalid name")
    if PurePosixPath(name).is_absolute() or PureWindowsPath(name).is_absolute() or PureWindowsPath(name).drive:
        raise FileRefused("is an absolute path, not a name inside the folder")
    if name in (".", "..") or PurePosixPath(name).name != name or PureWindowsPath(name).name != name:
        raise FileRefused("is a path, not a plain file name inside the folder")
    root = folder.resolve()
    target = (root / name).resolve()
    if not target.is_relative_to(root) or target == root:
        raise FileRefused("leads outside the folder")
    return root / name
