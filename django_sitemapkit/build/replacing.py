"""A file written beside its name and put in its place whole, or not at all: the JSON
report of ``build_sitemaps --report`` and of ``verify_sitemaps --json``.

The text goes to a temporary file in the same directory, created as any new
file of the user's (mode 0666 less the umask), and is renamed onto the name
once complete, after an ``fsync()``: one ``rename()``, atomic under POSIX, so a
reader sees the last file whole or the new one whole, and a crash never leaves
a file cut short at the name. A run that fails removes the temporary file.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from typing import IO


class ReplacingFile:
    """The text of the file to be at ``path``, open for writing; ``OSError`` if its
    temporary file cannot be created."""

    def __init__(self, path: str, encoding: str) -> None:
        self.path = os.path.abspath(path)
        directory, name = os.path.split(self.path)
        self.temporary = os.path.join(directory, f".{name}.{secrets.token_hex(4)}.tmp")
        descriptor = os.open(self.temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        self.out: IO[str] = os.fdopen(descriptor, "w", encoding=encoding)

    def replace(self) -> None:
        """Put the file in place, whole (``OSError`` if it cannot be: then discard it)."""
        self.out.flush()
        os.fsync(self.out.fileno())
        self.out.close()
        os.replace(self.temporary, self.path)

    def discard(self) -> None:
        """Remove the temporary file; ``path`` keeps what it held."""
        with contextlib.suppress(OSError):  # what is left to flush goes with the file
            self.out.close()
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.temporary)
