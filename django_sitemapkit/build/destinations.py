"""Where ``build_sitemaps`` puts its files: a local directory (``directory.py``), or a
Django storage.

A build writes every new file to its *staging*, then publishes the set. A
storage has no rename and no way to swap many files at once, so its new and
changed files are uploaded first, pages before the index, then the manifest,
then the files the new set no longer has are deleted: a crawler following the
index finds every file it names, though for a moment some pages may already
be newer than the index. Files whose bytes are unchanged are not uploaded.

A page's ``.xml`` and ``.gz`` are replaced in the order ``order.py`` gives.
"""

from __future__ import annotations

import io
import os
import secrets
import shutil
import tempfile
from abc import ABC, abstractmethod
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from django.core.files.storage import Storage, storages

from django_sitemapkit.build import s3
from django_sitemapkit.build.locks import storage_lock
from django_sitemapkit.build.manifest import MOST_BYTES, Unreadable
from django_sitemapkit.build.order import publish_waves
from django_sitemapkit.build.reading import read_regular
from django_sitemapkit.build.staging import NAME_PREFIX, make_staging, remove_dead_stagings
from django_sitemapkit.build.stored import save_exact
from django_sitemapkit.exceptions import BuildError
from django_sitemapkit.indexnow import Record, StorageRecord
from django_sitemapkit.names import MANIFEST_FILENAME, is_sitemap_file
from django_sitemapkit.views.stores import local_directory

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


@dataclass(frozen=True)
class Stored:
    """A published file as its destination sees it without reading it."""

    #: ``None`` where the destination cannot say the size of the file as written.
    size: int | None
    #: What it is where it is not a regular file: ``"a symbolic link"``, ...
    other: str | None = None
    #: Changed after its set was published (every file of a set is older than its manifest).
    changed: bool = False


class PublishFailed(BuildError):
    """A storage's publish stopped part-way: some files may already be new, so not
    "nothing was published"."""


class Destination(ABC):
    """A place a set of files is published to."""

    #: How messages name this destination.
    label: str
    staging: Staging
    #: Whether its published files may be read back from several threads at once.
    parallel_reads = False
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
    def stored(self, name: str) -> Stored | None:
        """What can be learnt of the published file ``name`` without reading it;
        ``None`` if there is no such file."""

    @abstractmethod
    def open_published(self, name: str) -> AbstractContextManager[IO[bytes]] | None:
        """The published file ``name``, open to be read back; ``None`` if it is gone, or
        is not a file."""

    @abstractmethod
    def publish(self, written: list[str], manifest: bytes, removed: list[str]) -> None:
        """Publish the staged ``written`` files and ``manifest``, and remove ``removed``.

        ``written`` gives each file's names in the order a reader must find them
        replaced: first the name that is linked, then its other one
        (``order.py``).
        """

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
        self.bucket = s3.bucket_of(self.storage)
        # S3Storage opens a connection per thread; another storage may not be safe so.
        self.parallel_reads = self.bucket is not None
        self.label = f"storage {alias!r}" + (f" under {prefix!r}" if prefix else "")
        #: The set's names already written where they are published.
        self.placed: set[str] = set()
        # Created by lock(), so a dry run leaves nothing behind.
        root = Path(tempfile.gettempdir()) / f"{NAME_PREFIX}{secrets.token_hex(8)}"
        self.staging = Staging(str(root))
        self.owner: IO[bytes] | None = None
        self.objects = None if self.bucket is None else s3.SetObjects(self.bucket, prefix)

    @property
    def lock_name(self) -> str:
        return f"{self.alias}\0{self.prefix}" if self.prefix else self.alias

    @contextmanager
    def lock(self) -> Iterator[None]:
        # A storage offers no lock of its own: the database holds it, so that
        # builds on two machines never publish at once (locks.py). The sites
        # of one storage (a prefix each) are built independently.
        try:
            with storage_lock(self.lock_name, self.label):
                self.remove_leftovers()
                self.owner = make_staging(Path(self.staging.directory))
                yield
        finally:
            self.discard()

    def remove_leftovers(self) -> None:
        """What builds that died left: their local staging (any destination's, on this
        machine), and the uploads of this destination's files they never finished."""
        remove_dead_stagings(Path(self.staging.directory).parent)
        if self.bucket is not None:
            s3.abort_left_uploads(self.bucket, self.prefix, self.label)

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

    def stored(self, name: str) -> Stored | None:
        stored_name = self.prefix + name
        try:
            if self.objects is not None:
                found = self.objects.size_and_change(name)
                return None if found is None else Stored(found[0], changed=found[1])
            return Stored(self.storage.size(stored_name))
        except FileNotFoundError:
            return None
        except NotImplementedError:
            return Stored(None) if self.storage.exists(stored_name) else None

    def open_published(self, name: str) -> AbstractContextManager[IO[bytes]] | None:
        try:
            stored: AbstractContextManager[IO[bytes]] = self.storage.open(self.prefix + name, "rb")
        except FileNotFoundError:
            return None
        return stored

    def record(self) -> Record:
        # Its own lock, held by the database too: the notifications of builds on
        # two machines may overlap, and a build's changes are kept meanwhile.
        name = f"{self.lock_name}\0indexnow"
        return StorageRecord(
            self.storage, self.prefix + RECORD_FILENAME, lock=lambda: storage_lock(name, self.label)
        )

    def publish(self, written: list[str], manifest: bytes, removed: list[str]) -> None:
        unlinked, uploads = publish_waves(written)
        try:
            # A name a worker wrote in place (distributed/staging.py) is new: nothing to replace.
            self.delete_all([name for name in unlinked if name not in self.placed])
            for wave in uploads:
                self.put(wave)
            self.upload(MANIFEST_FILENAME, manifest)
            for name in removed:
                self.storage.delete(self.prefix + name)
        except Exception as exc:
            raise PublishFailed(
                f"Publishing to {self.label} stopped: {type(exc).__name__}: {exc}. The files "
                "uploaded before it are in place, and the index, uploaded after every page, "
                "names only files that exist; run the build again."
            ) from exc

    def delete_all(self, names: list[str]) -> None:
        """Delete those of ``names`` that exist: on S3 in one request a thousand."""
        if self.bucket is not None:
            s3.delete_all(self.bucket, [self.prefix + name for name in names])
            return
        for name in names:
            if self.storage.exists(self.prefix + name):
                self.storage.delete(self.prefix + name)

    def put(self, written: list[str]) -> None:
        """Upload the staged ``written`` files, in order."""
        for name in written:
            self.upload(name, self.staging.path(name).read_bytes())

    def upload(self, name: str, content: bytes) -> None:
        save_exact(self.storage, self.prefix + name, io.BytesIO(content), self.label)

    def discard(self) -> None:
        shutil.rmtree(self.staging.directory, ignore_errors=True)
        if self.owner is not None:
            self.owner.close()
            self.owner = None
