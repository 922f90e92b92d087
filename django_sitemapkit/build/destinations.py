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

import fcntl
import hashlib
import io
import secrets
import shutil
import tempfile
from abc import ABC, abstractmethod
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from django.core.files import File
from django.core.files.storage import Storage, storages

from django_sitemapkit.exceptions import BuildError
from django_sitemapkit.indexnow import Record, StorageRecord
from django_sitemapkit.names import MANIFEST_FILENAME, is_sitemap_file

# Written files must be readable by the web server that serves them.
FILE_MODE = 0o644
#: What a destination calls the record of what IndexNow was sent (``indexnow.py``).
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
        return self.read(MANIFEST_FILENAME)


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
        # A storage offers no lock of its own; this one keeps two builds of
        # the same names on this machine from interleaving, while the sites of
        # one storage (a prefix each) are built independently.
        # A project's only site (no prefix) keeps the lock file it always had.
        key = (f"{self.alias}\0{self.prefix}" if self.prefix else self.alias).encode()
        digest = hashlib.blake2b(key, digest_size=8).hexdigest()
        lock_path = Path(tempfile.gettempdir()) / f".sitemapkit-{digest}.lock"
        try:
            with open(lock_path, "a") as lock_file, held_lock(lock_file, self.label):
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

    def keep(self, name: str) -> None:
        """A storage keeps an unchanged file where it is: it is not uploaded again."""

    def record(self) -> Record:
        return StorageRecord(self.storage, self.prefix + RECORD_FILENAME)

    def publish(self, written: list[str], manifest: bytes, removed: list[str]) -> None:
        try:
            for name in written:
                self.upload(name, self.staging.path(name).read_bytes())
            self.upload(MANIFEST_FILENAME, manifest)
            for name in removed:
                self.storage.delete(self.prefix + name)
        except Exception as exc:
            raise PublishFailed(
                f"Publishing to {self.label} stopped: {type(exc).__name__}: {exc}. The files "
                "uploaded before it are in place, and the index, uploaded after every page, "
                "names only files that exist; run the build again."
            ) from exc

    def upload(self, name: str, content: bytes) -> None:
        stored_name = self.prefix + name
        if (
            self.storage.exists(stored_name)
            and self.storage.get_available_name(stored_name) != stored_name
        ):
            # This storage would save beside the old file under another name,
            # so the old one must go first: a moment with no file. Storages
            # that overwrite (S3 with file_overwrite, FileSystemStorage with
            # allow_overwrite) replace it in one write instead.
            self.storage.delete(stored_name)
        saved = self.storage.save(stored_name, File(io.BytesIO(content), name=name))
        if saved != stored_name:
            raise BuildError(
                f"{self.label} saved {stored_name!r} as {saved!r}; the storage must keep the "
                "exact name (it should not rename files that exist)."
            )

    def discard(self) -> None:
        shutil.rmtree(self.staging.directory, ignore_errors=True)


@contextmanager
def held_lock(lock_file: IO[str], label: str) -> Iterator[None]:
    try:
        # flock() is released by the kernel when the process dies, so a
        # crashed build never leaves a stale lock behind.
        fcntl.flock(lock_file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError as exc:
        raise BuildError(
            f"Another build_sitemaps is writing to {label}; wait for it to finish, then run "
            "this one again."
        ) from exc
    try:
        yield
    finally:
        fcntl.flock(lock_file.fileno(), fcntl.LOCK_UN)
