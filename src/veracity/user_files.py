"""Files named by a user, read and written without trusting the path.

A path may name a FIFO (opening it blocks), a device (``/dev/zero`` never ends) or a file far
larger than anything veracity reads; `read_regular_file` refuses all three before reading, and
`name_inside` refuses a name that leads out of the folder it is meant to be in. A path veracity
writes may be a planted symlink; `write_atomically` refuses it and never follows one.
"""

from __future__ import annotations

import os
import secrets
import stat
from collections.abc import Callable
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import BinaryIO


class FileRefused(OSError):
    """A file that is not read or written: what is wrong with it, in words (the message).

    An `OSError`, so that code which reports a file it cannot read or write reports this too.
    """


FileCheck = Callable[[Path, os.stat_result], None]
"""A further check of a file opened for reading: raises `FileRefused` to refuse it."""


def read_regular_file(path: Path, max_bytes: int, *, check: FileCheck | None = None) -> bytes:
    """The bytes of `path`, a regular file of at most `max_bytes`; else `FileRefused` saying why.

    See `open_regular_file` for the checks; `check`, when given, is called with the path and the
    open file's status, and refuses it by raising `FileRefused` (e.g. a private key others may read).
    """
    with open_regular_file(path, max_bytes) as handle:
        if check is not None:
            check(path, os.fstat(handle.fileno()))
        data = handle.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise FileRefused(f"is larger than {max_bytes:,} bytes")
    return data


def open_regular_file(path: Path, max_bytes: int) -> BinaryIO:
    """`path` opened for reading in binary, once it is known to be a regular file of at most `max_bytes`.

    The file is checked with `stat` before it is opened, and again once open (it may have been
    swapped in between); it is opened non-blocking, so even a FIFO put in its place cannot hold
    the reader. `FileRefused` says what is wrong. A caller that streams the file should still stop
    at `max_bytes`: a regular file can grow while it is read.
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
    handle = os.fdopen(descriptor, "rb")
    try:
        _check_kind(os.fstat(handle.fileno()), max_bytes)
    except BaseException:
        handle.close()
        raise
    return handle


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


def write_atomically(path: Path, data: bytes, *, mode: int = 0o644) -> Path:
    """Write `data` to `path` whole, never through a symlink; return `path`.

    An existing symlink at `path` is refused (`FileRefused`, naming the path), since writing there
    would change the file it points to; so is anything else that is not a regular file. The bytes
    go to a new file with a random name in the same folder, created exclusively and without
    following links (so a link planted under a predictable temporary name cannot redirect them),
    and that file is then renamed over `path`: an interrupted write leaves the old file, never
    half a new one. `OSError` when the folder cannot be written.
    """
    refuse_unwritable(path)
    partial = path.with_name(f".{path.name}.{secrets.token_hex(6)}.part")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
    descriptor = os.open(partial, flags, mode)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(descriptor, view):]
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
        os.replace(partial, path)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    return path


def refuse_unwritable(path: Path) -> None:
    """Raise `FileRefused` (naming `path`) when `path` is a symlink, or exists and is not a regular file.

    What veracity writes replaces or extends a regular file; writing through a link would change
    the file it points to, and writing to a FIFO or device could block or never end.
    """
    try:
        status = os.lstat(path)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise FileRefused(f"{path} cannot be examined ({exc.strerror or exc})") from exc
    if stat.S_ISLNK(status.st_mode):
        raise FileRefused(f"{path} is a symbolic link; veracity does not write through links (remove it, or choose "
                          "another path)")
    if not stat.S_ISREG(status.st_mode):
        raise FileRefused(f"{path} is not a regular file (a {_kind(status.st_mode)}); choose a file path")
