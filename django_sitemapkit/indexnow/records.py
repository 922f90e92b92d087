"""Where IndexNow submission keeps what it has to send and what was accepted: a
record, stored as JSON (``state.py``) in a file or a Django storage, between one
build and the next.

A build adds its changes to the record while it holds the build lock; its
notification, after the lock is released, reads what is pending and writes back
what the endpoint answered. So that neither loses what the other wrote, each
read and write of a record is done under a lock of its own, held only that long
(never while a request is made), and waited for at most ``LOCK_WAIT`` seconds.
"""

from __future__ import annotations

import errno
import fcntl
import os
import stat
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, ExitStack, contextmanager, nullcontext
from pathlib import Path
from typing import IO, Protocol, runtime_checkable

from django.core.files.base import ContentFile
from django.core.files.storage import Storage

from django_sitemapkit.exceptions import BuildError

#: The record's name beside the build's output, for a project's only site.
RECORD_NAME = "sitemapkit-indexnow.json"
#: The largest record read: about 128 MB, more than the URLs a record keeps take
#: (``state.py`` sheds the oldest accepted ones before a record grows past it).
#: A larger one is not the app's, and is set aside as one that cannot be parsed.
MAX_RECORD_BYTES = 128 * 1024 * 1024
#: The longest a process waits for another's read and write of the record.
LOCK_WAIT = 5.0
LOCK_POLL = 0.02


class UnfitRecord(ValueError):
    """A record that is no regular file, or too large: set aside, as one that cannot
    be parsed is."""


class RecordBusy(Exception):
    """Another process held the record's lock for ``LOCK_WAIT`` seconds."""


class Record(Protocol):
    """Where a record's bytes are kept."""

    def read(self) -> bytes | None:
        """The bytes last written, or ``None`` if none were."""

    def write(self, content: bytes) -> None:
        """Replace the bytes with ``content``, whole or not at all."""


@runtime_checkable
class Lockable(Protocol):
    """A record several processes may write: each holds ``lock()`` to read and write it."""

    def lock(self) -> AbstractContextManager[None]: ...


def locked(record: Record) -> AbstractContextManager[None]:
    """The record's lock; none for a record of a project's own that has no ``lock()``."""
    return record.lock() if isinstance(record, Lockable) else nullcontext()


@contextmanager
def waited(take: Callable[[], AbstractContextManager[None]], record: str) -> Iterator[None]:
    """Hold the lock ``take`` gives, or refuses at once (``BlockingIOError`` from
    ``flock()``, ``BuildError`` from the build's locks) while another process holds
    it: tried again until ``LOCK_WAIT`` seconds have passed."""
    give_up = time.monotonic() + LOCK_WAIT
    with ExitStack() as stack:
        while True:
            try:
                stack.enter_context(take())
                break
            except (BlockingIOError, BuildError) as exc:
                if time.monotonic() >= give_up:
                    raise RecordBusy(
                        f"another process has held the lock of {record} for {LOCK_WAIT:g} seconds"
                    ) from exc
                time.sleep(LOCK_POLL)
        yield


def bounded(file: IO[bytes]) -> bytes:
    content = file.read(MAX_RECORD_BYTES + 1)
    if len(content) > MAX_RECORD_BYTES:
        raise UnfitRecord(f"it is more than {MAX_RECORD_BYTES:,} bytes")
    return content


class FileRecord:
    """A record in a local file, replaced atomically."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)

    def __repr__(self) -> str:
        return f"FileRecord({str(self.path)!r})"

    def read(self) -> bytes | None:
        # Not through a symbolic link, nor from a FIFO or a device, which could
        # block or never end: the record is a regular file the app wrote.
        try:
            descriptor = os.open(self.path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except FileNotFoundError:
            return None
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise UnfitRecord("it is a symbolic link") from exc
            raise
        with open(descriptor, "rb") as file:
            if not stat.S_ISREG(os.fstat(descriptor).st_mode):
                raise UnfitRecord("it is not a regular file")
            return bounded(file)

    def write(self, content: bytes) -> None:
        # A temporary file in the same directory, renamed over the record
        # (os.replace is atomic within a file system, and replaces a link or
        # anything else of that name, never what it points to): a crash leaves
        # the old record or the new one, never half of one.
        descriptor, temporary = tempfile.mkstemp(
            prefix=f".{self.path.name}.", suffix=".tmp", dir=self.path.parent
        )
        try:
            with os.fdopen(descriptor, "wb") as file:
                file.write(content)
                file.flush()
                os.fsync(file.fileno())
            os.replace(temporary, self.path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise

    def lock(self) -> AbstractContextManager[None]:
        return waited(self.try_lock, repr(self))

    @contextmanager
    def try_lock(self) -> Iterator[None]:
        # A file of its own: the record is replaced by a rename, so a lock on
        # it would be on the file it was. flock() is released by the kernel
        # when a process dies, so a crashed one leaves no stale lock.
        with open(self.path.parent / f".{self.path.name}.lock", "a") as lock_file:
            fcntl.flock(lock_file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            try:
                yield
            finally:
                fcntl.flock(lock_file.fileno(), fcntl.LOCK_UN)


class StorageRecord:
    """A record in a Django storage; ``lock``, where several processes (or machines)
    may write it, holds a lock every one of them shares, or raises ``BuildError``
    at once while another holds it (``build_sitemaps`` gives it the database's)."""

    def __init__(
        self,
        storage: Storage,
        name: str,
        lock: Callable[[], AbstractContextManager[None]] | None = None,
    ) -> None:
        self.storage = storage
        self.name = name
        self.take_lock = lock

    def __repr__(self) -> str:
        return f"StorageRecord({self.storage!r}, {self.name!r})"

    def read(self) -> bytes | None:
        if not self.storage.exists(self.name):
            return None
        with self.storage.open(self.name, "rb") as file:
            return bounded(file)

    def write(self, content: bytes) -> None:
        # A storage gives a new name to a file saved over an existing one
        # (Storage.get_available_name), so the old one goes first. No storage
        # promises an atomic replace: a crash in between loses the record,
        # which costs a resend of the accepted URLs' next changes only.
        if self.storage.exists(self.name):
            self.storage.delete(self.name)
        saved = self.storage.save(self.name, ContentFile(content))
        if saved != self.name:
            self.storage.delete(saved)
            raise OSError(
                f"{self.storage!r} saved the IndexNow record as {saved!r}, not {self.name!r}."
            )

    def lock(self) -> AbstractContextManager[None]:
        if self.take_lock is None:
            return nullcontext()
        return waited(self.take_lock, repr(self))
