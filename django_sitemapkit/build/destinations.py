"""Where ``build_sitemaps`` puts its files: a local directory (``directory.py``), or a
Django storage.

A build writes every new file to its *staging*, then publishes the set. A
storage has no rename and no way to swap many files at once, so its new and
changed files are uploaded first, pages before the index, then the manifest,
then the files the new set no longer has are deleted: a crawler following the
index finds every file it names, though for a moment some pages may already
be newer than the index. Files whose bytes are unchanged are not uploaded.
"""

from __future__ import annotations

import io
import os
import secrets
import shutil
import stat
import tempfile
from abc import ABC, abstractmethod
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from django.core.files import File
from django.core.files.storage import Storage, storages

from django_sitemapkit.build.locks import storage_lock
from django_sitemapkit.build.manifest import MOST_BYTES, Unreadable
from django_sitemapkit.exceptions import BuildError
from django_sitemapkit.indexnow import Record, StorageRecord
from django_sitemapkit.names import MANIFEST_FILENAME, is_sitemap_file
from django_sitemapkit.views.stores import NOT_A_FILE, OPEN_FLAGS, local_directory

# Written files must be readable by the web server that serves them.
FILE_MODE = 0o644
#: What a destination calls the record of what IndexNow was sent (``indexnow/``).
RECORD_FILENAME = "sitemapkit-indexnow.json"


@dataclass(frozen=True)
class Staging:
    """The directory a build writes its new files to; picklable, for ``--jobs`` workers."""

    directory: str

    def path(self, name: str) -> Path:
        return Path(self.directory) / name


class PublishFailed(BuildError):
    """A storage's publish stopped part-way: some files may already be new, so not
    "nothing was published"."""


class Destination(ABC):
    """A place a set of files is published to."""

    #: How messages name this destination.
    label: str
    staging: Staging
    #: Whether a build has published its new set here: what a failure after that
    #: says (``build.failed()``, the command) must not be "as they were".
    published = False

    @abstractmethod
    def lock(self) -> AbstractContextManager[None]:
        """Hold the build lock for this destination (or raise ``BuildError``), and
        prepare the staging."""

    @abstractmethod
    def read(self, name: str) -> bytes | None:
        """A published file's bytes, or ``None`` if it does not exist."""

    @abstractmethod
    def names(self) -> list[str]:
        """The sitemap files published now."""

    @abstractmethod
    def keep(self, name: str) -> None:
        """Put the published file ``name`` in the new set as it is."""

    @abstractmethod
    def publish(self, written: list[str], manifest: bytes, removed: list[str]) -> None:
        """Publish the staged ``written`` files (in this order) and ``manifest``, and
        remove ``removed``."""

    @abstractmethod
    def discard(self) -> None:
        """Delete everything staged by this build."""

    @abstractmethod
    def record(self) -> Record:
        """Where what was sent to IndexNow is kept, out of the served files' way."""

    def manifest(self) -> bytes | None:
        """The published manifest's bytes, ``None`` if there is none; ``Unreadable`` if
        it is not a regular file of at most ``manifest.MOST_BYTES``."""
        return self.read(MANIFEST_FILENAME)

    # A build's staged files are in ``staging``, on this machine; a distributed
    # build's pages are elsewhere (``distributed/staging.py``) and it overrides
    # these four.
    def rename_staged(self, before: str, after: str) -> None:
        os.replace(self.staging.path(before), self.staging.path(after))

    def drop_staged(self, name: str) -> None:
        """Forget a staged file that will not be published (the published one has its bytes)."""
        self.staging.path(name).unlink()

    def read_staged(self, name: str) -> bytes:
        return self.staging.path(name).read_bytes()

    def local_names(self, names: list[str]) -> list[str]:
        """Those of the staged ``names`` that are files in ``staging``."""
        return names


class StorageDestination(Destination):
    """A storage, or the names in it under ``prefix`` (``"www/"``: one site of several)."""

    def __init__(self, alias: str, prefix: str = "") -> None:
        self.alias = alias
        self.prefix = prefix
        self.storage: Storage = storages[alias]
        self.label = f"storage {alias!r}" + (f" under {prefix!r}" if prefix else "")
        # Created by lock(), so a dry run leaves nothing behind.
        root = Path(tempfile.gettempdir()) / f"sitemapkit-{secrets.token_hex(8)}"
        self.staging = Staging(str(root))

    @contextmanager
    def lock(self) -> Iterator[None]:
        # A storage offers no lock of its own: the database holds it, so that
        # builds on two machines never publish at once (locks.py). The sites
        # of one storage (a prefix each) are built independently.
        name = f"{self.alias}\0{self.prefix}" if self.prefix else self.alias
        try:
            with storage_lock(name, self.label):
                Path(self.staging.directory).mkdir(mode=0o700)
                yield
        finally:
            self.discard()

    def names(self) -> list[str]:
        try:
            _, files = self.storage.listdir(self.prefix.rstrip("/"))
        except (NotImplementedError, FileNotFoundError):
            return []
        return sorted(name for name in files if is_sitemap_file(name))

    def read(self, name: str) -> bytes | None:
        stored_name = self.prefix + name
        if not self.storage.exists(stored_name):
            return None
        with self.storage.open(stored_name, "rb") as stored:
            content: bytes = stored.read()
            return content

    def manifest(self) -> bytes | None:
        stored_name = self.prefix + MANIFEST_FILENAME
        if not self.storage.exists(stored_name):
            return None
        directory = local_directory(self.storage)
        if directory is not None:
            # A FileSystemStorage is a directory: the same rules as one.
            return read_regular(os.path.join(directory, stored_name))
        # A remote storage has no links or FIFOs; its size is asked first, as a
        # storage may fetch the whole object to read any of it.
        size = self.storage.size(stored_name)
        if size > MOST_BYTES:
            raise Unreadable(f"{size:,} bytes, more than {MOST_BYTES:,}")
        with self.storage.open(stored_name, "rb") as stored:
            content: bytes = stored.read(MOST_BYTES + 1)
        if len(content) > MOST_BYTES:
            raise Unreadable(f"more than {MOST_BYTES:,} bytes")
        return content

    def keep(self, name: str) -> None:
        """A storage keeps an unchanged file where it is: it is not uploaded again."""

    def record(self) -> Record:
        return StorageRecord(self.storage, self.prefix + RECORD_FILENAME)

    def publish(self, written: list[str], manifest: bytes, removed: list[str]) -> None:
        try:
            self.put(written)
            self.upload(MANIFEST_FILENAME, manifest)
            for name in removed:
                self.storage.delete(self.prefix + name)
        except Exception as exc:
            raise PublishFailed(
                f"Publishing to {self.label} stopped: {type(exc).__name__}: {exc}. The files "
                "uploaded before it are in place, and the index, uploaded after every page, "
                "names only files that exist; run the build again."
            ) from exc

    def put(self, written: list[str]) -> None:
        """Upload the staged ``written`` files, in order."""
        for name in written:
            self.upload(name, self.staging.path(name).read_bytes())

    def upload(self, name: str, content: bytes) -> None:
        save_exact(self.storage, self.prefix + name, io.BytesIO(content), self.label)

    def discard(self) -> None:
        shutil.rmtree(self.staging.directory, ignore_errors=True)


def read_regular(path: str | os.PathLike[str]) -> bytes | None:
    """The bytes of the regular file ``path`` (``None`` if there is none), read only if
    it is one, not through a link, and of at most ``manifest.MOST_BYTES``: opened as
    the views open a built file (a link could point anywhere, /dev/zero say; a FIFO
    would hang the build, which holds its lock meanwhile)."""
    try:
        descriptor = os.open(path, OPEN_FLAGS)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        if exc.errno in NOT_A_FILE:
            raise Unreadable("a symbolic link or a socket, not a regular file") from exc
        raise
    with os.fdopen(descriptor, "rb") as opened:
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode):
            raise Unreadable("a FIFO, a device or a directory, not a regular file")
        content = opened.read(MOST_BYTES + 1)
    if len(content) > MOST_BYTES:
        raise Unreadable(f"more than {MOST_BYTES:,} bytes")
    return content


def save_exact(storage: Storage, stored_name: str, content: IO[bytes], label: str) -> None:
    """Save ``content`` as ``stored_name``, replacing the file of that name if any."""
    if storage.exists(stored_name) and storage.get_available_name(stored_name) != stored_name:
        # This storage would save beside the old file under another name, so
        # the old one must go first: a moment with no file. Storages that
        # overwrite (S3 with file_overwrite, FileSystemStorage with
        # allow_overwrite) replace it in one write instead.
        storage.delete(stored_name)
    saved = storage.save(stored_name, File(content, name=stored_name.rpartition("/")[2]))
    if saved != stored_name:
        raise BuildError(
            f"{label} saved {stored_name!r} as {saved!r}; the storage must keep the exact "
            "name (it should not rename files that exist)."
        )
