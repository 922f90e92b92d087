"""The local staging directory of a storage's build, and those that builds killed on
this machine left.

A build stages its files in ``<tempdir>/sitemapkit-<16 hex digits>/`` before it
uploads them. A build that dies there (killed, out of memory, the machine
rebooted without a cleared ``/tmp``) cannot remove it; the next build does. The
temporary directory is shared with everything else on the machine, other
projects' builds included, so a directory is removed only when it is certainly
one of this package's and its build is certainly over: named as the package
names them, a real directory (not a link) of this user, holding the owner file
its build keeps locked with ``flock()`` for as long as it runs. The kernel
releases that lock when the process dies, however it dies, so a free lock is a
dead build, whichever project or destination it was for.
"""

from __future__ import annotations

import fcntl
import os
import re
import shutil
import stat
from pathlib import Path
from typing import IO

NAME_PREFIX = "sitemapkit-"
NAME = re.compile(r"sitemapkit-[0-9a-f]{16}")
#: Locked by the build that stages in the directory, from before it is named so.
OWNER = ".owner"
OWNER_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)


def make_staging(directory: Path) -> IO[bytes]:
    """Create ``directory`` with its owner file, locked; keep the returned file open for
    as long as the directory is used, and close it once the directory is removed."""
    directory.mkdir(mode=0o700)
    # Locked under another name, then renamed: another build never finds the
    # owner file unlocked while this one is alive.
    claiming = directory / f"{OWNER}.new"
    owner = open(claiming, "xb")  # noqa: SIM115 - the caller closes it
    try:
        fcntl.flock(owner.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        claiming.rename(directory / OWNER)
    except BaseException:
        owner.close()
        raise
    return owner


def remove_dead_stagings(root: Path) -> list[str]:
    """Remove the staging directories in ``root`` whose builds are over; their names."""
    removed = []
    try:
        entries = list(os.scandir(root))
    except OSError:
        return []
    for entry in entries:
        if NAME.fullmatch(entry.name) and ours_and_dead(Path(entry.path)):
            removed.append(entry.name)
    return sorted(removed)


def ours_and_dead(directory: Path) -> bool:
    """Remove ``directory`` if it is a staging directory of this user whose build is
    over; whether it was removed."""
    try:
        status = os.lstat(directory)
    except OSError:
        return False
    if not stat.S_ISDIR(status.st_mode) or status.st_uid != os.getuid():
        return False
    try:
        descriptor = os.open(directory / OWNER, OWNER_FLAGS)
    except OSError:
        return False  # no owner file: not certainly a staging directory, so left alone
    try:
        owner = os.fstat(descriptor)
        if not stat.S_ISREG(owner.st_mode) or owner.st_uid != os.getuid():
            return False
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False  # its build is running
        # rmtree() removes links inside without following them.
        shutil.rmtree(directory, ignore_errors=True)
        return True
    finally:
        os.close(descriptor)
