"""The calibration folder is trusted as ``~/.ssh`` is: a file found there is used only if no one else could have put it.

A check uses the file kept for its judge in the calibration folder without being told, so that
file must be the user's own doing. It is refused (`FileRefused`, saying why) when it is a symbolic
link (it could lead anywhere), when its folder is writable by every user (anyone could have put it
there, sticky bit or not), and, on POSIX, when the file is writable by every user or owned by
another user. A file named explicitly (``--calibration FILE``) only has to be a regular file.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from veracity.user_files import FileRefused, read_regular_file

POSIX = os.name == "posix"
"""Whether file modes and owners mean what they say here (on Windows they do not)."""


def read_trusted(path: Path, max_bytes: int) -> bytes:
    """The bytes of `path`, a file found in the calibration folder, once it is known to be the user's own."""
    try:
        link = os.lstat(path)
    except OSError as exc:
        raise FileRefused(f"cannot be opened ({exc.strerror or exc})") from exc
    if stat.S_ISLNK(link.st_mode):
        raise FileRefused("is a symbolic link; a file in the calibration folder must be a regular file of its own "
                          "(copy it there, or name the file with --calibration)")
    _check_folder(path.parent)

    def check(_path: Path, status: os.stat_result) -> None:
        if (status.st_dev, status.st_ino) != (link.st_dev, link.st_ino):
            raise FileRefused("was replaced while it was read")
        _check_owner(status)

    return read_regular_file(path, max_bytes, check=check)


def _check_folder(folder: Path) -> None:
    try:
        status = os.stat(folder)
    except OSError as exc:
        raise FileRefused(f"is in a folder that cannot be read ({exc.strerror or exc})") from exc
    if POSIX and status.st_mode & stat.S_IWOTH:
        raise FileRefused(f"is in {folder}, a folder every user may write to, so anyone could have put it there "
                          f"(chmod o-w {folder})")


def _check_owner(status: os.stat_result) -> None:
    if not POSIX:
        return
    if status.st_mode & stat.S_IWOTH:
        raise FileRefused("is writable by every user, so anyone could have changed it (chmod o-w on it)")
    if status.st_uid != os.getuid():
        raise FileRefused(f"is owned by another user (uid {status.st_uid}, not {os.getuid()}); only a file of "
                          "your own in the calibration folder is used")
