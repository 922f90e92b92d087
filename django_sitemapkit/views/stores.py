"""Where the built files are read from, for ``serving.py``: a directory, or a storage.

Each file is opened with its size and modification time, the validators of
its response. A storage that fails (a server that cannot be reached, a
refusal, a bug in a custom storage) raises ``StorageUnavailable``, which the
views answer with 503: a crawler retries later, where a 500 reads as a broken
site.
"""

from __future__ import annotations

import datetime as dt
import errno
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import IO

from django.core.exceptions import SuspiciousFileOperation
from django.core.files import File
from django.core.files.storage import FileSystemStorage, Storage
from django.http import Http404

from django_sitemapkit.names import INDEX_FILENAME
from django_sitemapkit.values import aware_utc

# O_NOFOLLOW: a symbolic link in the directory could point anywhere, and the
# command writes none among the files (only the directory is a link).
# O_NONBLOCK: opening a FIFO must not hang a worker.
OPEN_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_BINARY", 0)
)
# open(2) fails with ELOOP on a symbolic link under O_NOFOLLOW (EMLINK on the
# BSDs), and with ENXIO on a UNIX socket: neither is a built file.
NOT_A_FILE = {errno.ELOOP, errno.EMLINK, errno.ENXIO}
EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)


class StorageUnavailable(Exception):
    """The storage of the built files raised something else than "no such file"."""

    def __init__(self, alias: str, error: Exception) -> None:
        super().__init__(f"storage {alias!r} raised {type(error).__name__}: {error}")
        self.alias = alias
        self.error = error


@contextmanager
def reaching(alias: str | None) -> Iterator[None]:
    """Calls to the storage ``alias`` (``None``: a directory), whose failures become
    ``StorageUnavailable``.

    Broad, as a storage's errors are its client library's own (botocore's
    EndpointConnectionError, say), which this package does not import; but a
    missing file stays one (a 404), and a refused name or a 404 stays what it is.
    """
    try:
        yield
    except (FileNotFoundError, SuspiciousFileOperation, Http404, StorageUnavailable):
        raise
    except Exception as exc:
        if alias is None:
            raise
        raise StorageUnavailable(alias, exc) from exc


@dataclass
class OpenFile:
    """A built file, open, with what its directory or storage can tell about it."""

    file: IO[bytes] | File[bytes]  # from a directory, or from a storage
    size: int | None
    modified_ns: int | None
    #: The storage it comes from; ``None`` for a directory.
    alias: str | None = None

    @property
    def modified(self) -> int | None:
        """Whole seconds since the epoch, as ``Last-Modified`` has them."""
        return None if self.modified_ns is None else self.modified_ns // 1_000_000_000

    def etag(self, coding: str | None) -> str | None:
        """A strong validator (RFC 9110 section 8.8.3) from modification time and size.

        It must differ between the representations of one URL, so the
        gzip-encoded one is marked; without both values there is none.
        """
        if self.modified_ns is None or self.size is None:
            return None
        marker = "" if coding is None else f"-{coding}"
        return f'"{self.modified_ns:x}-{self.size:x}{marker}"'

    def body(self) -> IO[bytes] | File[bytes]:
        """What the response sends. A storage may fetch it only now (and then set
        ``size`` and ``modified_ns`` from that fetch): called only for a body."""
        return self.file

    def close(self) -> None:
        self.file.close()


class LocalDirectory:
    """``SITEMAPKIT_OUTPUT_DIR``: validators from ``fstat()`` of the open file, so they
    describe the bytes sent even if a new build is published meanwhile.

    The directory is a symbolic link to the current build's (``build/directory.py``),
    resolved once: every file a response reads (the ``.xml`` or its ``.gz``) comes
    from the same build, even if the link moves while it is read.
    """

    def __init__(self, path: str) -> None:
        self.path = os.path.realpath(path)

    def open(self, name: str) -> OpenFile | None:
        try:
            descriptor = os.open(os.path.join(self.path, name), OPEN_FLAGS)
        except (FileNotFoundError, NotADirectoryError):
            return None
        except OSError as exc:
            if exc.errno in NOT_A_FILE:
                return None
            raise
        try:
            status = os.fstat(descriptor)
            if stat.S_ISREG(status.st_mode):
                return OpenFile(os.fdopen(descriptor, "rb"), status.st_size, status.st_mtime_ns)
        except BaseException:
            os.close(descriptor)
            raise
        os.close(descriptor)  # a directory, a FIFO, a device: not a built file
        return None

    def exists(self, name: str) -> bool:
        try:
            status = os.lstat(os.path.join(self.path, name))
        except (FileNotFoundError, NotADirectoryError):
            return False
        return stat.S_ISREG(status.st_mode)

    def has_set(self) -> bool:
        return self.exists(INDEX_FILENAME)


class StorageDirectory:
    """``SITEMAPKIT_STORAGE``: validators from ``size()`` and ``get_modified_time()``,
    left out where the storage does not implement them."""

    def __init__(self, alias: str, storage: Storage, prefix: str = "") -> None:
        self.alias = alias
        self.storage = storage
        self.prefix = prefix

    def open(self, name: str) -> OpenFile | None:
        name = self.prefix + name
        with reaching(self.alias):
            # exists() first: a storage may open a missing file without an
            # error, and fail only when it is read, after the status is sent.
            if not self.storage.exists(name):
                return None
            try:
                file = self.storage.open(name, "rb")
            except FileNotFoundError:
                return None  # deleted since exists()
            try:
                return OpenFile(file, self.size(name), self.modified_ns(name), self.alias)
            except BaseException:
                file.close()
                raise

    def exists(self, name: str) -> bool:
        with reaching(self.alias):
            return self.storage.exists(self.prefix + name)

    def has_set(self) -> bool:
        return self.exists(INDEX_FILENAME)

    def size(self, name: str) -> int | None:
        try:
            return self.storage.size(name)
        except NotImplementedError:
            return None

    def modified_ns(self, name: str) -> int | None:
        try:
            modified = self.storage.get_modified_time(name)
        except NotImplementedError:
            return None
        return epoch_ns(modified)


def epoch_ns(moment: dt.datetime) -> int:
    """Nanoseconds since the epoch; a naive value (USE_TZ = False) is in the project's
    time zone."""
    delta = aware_utc(moment) - EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000_000 + delta.microseconds * 1_000


def local_directory(storage: Storage) -> str | None:
    """The directory a storage keeps its files in, if its files are plain files there.

    ``InMemoryStorage`` answers ``path()`` too, with a path that is not on the
    disk; a ``FileSystemStorage`` subclass that reads its files its own way
    (decrypting them, say) is read through its API.
    """
    plain = getattr(type(storage), "_open", None) is getattr(FileSystemStorage, "_open", None)
    if isinstance(storage, FileSystemStorage) and plain:
        return os.fspath(storage.location)
    return None
