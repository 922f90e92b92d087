"""Where ``build_sitemaps`` puts its files: a local directory, or a Django storage.

A build first writes every file to a *staging* name, then publishes them:
pages first, the index last, and only then removes what the new index no
longer names. A local directory stages next to the final names, so each
publish is one atomic ``os.replace``; a storage stages in a local temporary
directory and uploads, since the Storage API has no rename.
"""

from __future__ import annotations

import fcntl
import filecmp
import hashlib
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

from django.core.files import File
from django.core.files.storage import Storage, storages

from django_sitemapkit.conf import conf
from django_sitemapkit.configured_sites import SitemapSite
from django_sitemapkit.exceptions import BuildError
from django_sitemapkit.names import is_sitemap_file
from django_sitemapkit.serving import site_directory, site_prefix

# Written files must be readable by the web server that serves them.
FILE_MODE = 0o644
LOCK_NAME = ".sitemapkit.lock"
STAGING_SUFFIX = ".tmp"


@dataclass(frozen=True)
class Staging:
    """Where the staged copy of each file is written; picklable, for ``--jobs`` workers."""

    directory: str
    token: str

    def path(self, name: str) -> Path:
        # Dot-named, so a web server serving the directory never lists it.
        return Path(self.directory) / f".{name}.{self.token}{STAGING_SUFFIX}"

    def is_leftover(self, name: str) -> bool:
        """A staged file of any build (a crashed one left it behind)."""
        return name.startswith(".sitemap") and name.endswith(STAGING_SUFFIX)


class Destination(ABC):
    """A place files are published to."""

    #: How messages name this destination.
    label: str

    def __init__(self) -> None:
        self.staging = Staging(self.staging_directory(), secrets.token_hex(4))

    @abstractmethod
    def staging_directory(self) -> str: ...

    @abstractmethod
    def lock(self) -> AbstractContextManager[None]:
        """Hold the build lock for this destination (or raise ``BuildError``)."""

    @abstractmethod
    def names(self) -> list[str]:
        """The sitemap files present now."""

    @abstractmethod
    def read(self, name: str) -> bytes | None:
        """A published file's bytes, or ``None`` if it does not exist."""

    @abstractmethod
    def publish(self, name: str) -> bool:
        """Move the staged copy of ``name`` into place; ``False`` if the bytes were unchanged."""

    @abstractmethod
    def remove(self, name: str) -> None: ...

    def discard(self) -> None:
        """Delete every staged file of this build."""
        directory = Path(self.staging.directory)
        if not directory.is_dir():
            return
        for path in directory.iterdir():
            if path.name.endswith(f".{self.staging.token}{STAGING_SUFFIX}"):
                path.unlink(missing_ok=True)


class DirectoryDestination(Destination):
    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self.label = str(self.path)
        super().__init__()

    def staging_directory(self) -> str:
        # The same directory as the published files: os.replace() is atomic
        # only within one file system (POSIX rename()).
        return str(self.path)

    @contextmanager
    def lock(self) -> Iterator[None]:
        try:
            self.path.mkdir(parents=True, exist_ok=True)
            lock_file = open(self.path / LOCK_NAME, "a")  # noqa: SIM115 - closed below
        except OSError as exc:
            raise BuildError(f"Cannot write to {self.label}: {exc.strerror or exc}.") from exc
        with lock_file, held_lock(lock_file, self.label):
            self.remove_leftovers()
            yield

    def remove_leftovers(self) -> None:
        # The lock is held, so staged files found now belong to a build that died.
        for path in self.path.iterdir():
            if self.staging.is_leftover(path.name):
                path.unlink(missing_ok=True)

    def names(self) -> list[str]:
        if not self.path.is_dir():
            return []
        return sorted(p.name for p in self.path.iterdir() if is_sitemap_file(p.name))

    def read(self, name: str) -> bytes | None:
        try:
            return (self.path / name).read_bytes()
        except FileNotFoundError:
            return None

    def publish(self, name: str) -> bool:
        staged = self.staging.path(name)
        target = self.path / name
        if target.is_file() and filecmp.cmp(staged, target, shallow=False):
            # Unchanged: keep the old file, and with it its mtime, so the
            # Last-Modified and ETag it is served with stay the same.
            staged.unlink()
            return False
        os.chmod(staged, FILE_MODE)
        os.replace(staged, target)
        return True

    def remove(self, name: str) -> None:
        (self.path / name).unlink(missing_ok=True)


class StorageDestination(Destination):
    """A storage, or the names in it under ``prefix`` (``"www/"``: one site of several)."""

    def __init__(self, alias: str, prefix: str = "") -> None:
        self.alias = alias
        self.prefix = prefix
        self.storage: Storage = storages[alias]
        self.label = f"storage {alias!r}" + (f" under {prefix!r}" if prefix else "")
        self._staging_root = Path(tempfile.gettempdir()) / f"sitemapkit-{secrets.token_hex(8)}"
        super().__init__()

    def staging_directory(self) -> str:
        # Created by lock(), so a dry run leaves nothing behind.
        return str(self._staging_root)

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
                self._staging_root.mkdir(mode=0o700)
                yield
        finally:
            shutil.rmtree(self._staging_root, ignore_errors=True)

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

    def publish(self, name: str) -> bool:
        staged = self.staging.path(name)
        content = staged.read_bytes()
        stored_name = self.prefix + name
        exists = self.storage.exists(stored_name)
        if exists and self.read(name) == content:
            staged.unlink()
            return False
        if exists and self.storage.get_available_name(stored_name) != stored_name:
            # This storage would save beside the old file under another name,
            # so the old one must go first: a moment with no file. Storages
            # that overwrite (S3 with file_overwrite, FileSystemStorage with
            # allow_overwrite) replace it in one write instead.
            self.storage.delete(stored_name)
        with open(staged, "rb") as source:
            saved = self.storage.save(stored_name, File(source, name=name))
        staged.unlink()
        if saved != stored_name:
            raise BuildError(
                f"{self.label} saved {stored_name!r} as {saved!r}; the storage must keep the "
                "exact name (it should not rename files that exist)."
            )
        return True

    def remove(self, name: str) -> None:
        self.storage.delete(self.prefix + name)


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


def destination_for(site: SitemapSite, output: str | os.PathLike[str] | None = None) -> Destination:
    """Where ``site``'s files go: the ``--output`` directory, else ``SITEMAPKIT_OUTPUT_DIR``,
    else ``SITEMAPKIT_STORAGE``; for one site of several, the directory (or prefix)
    named after it, the very one its files are served from."""
    if output is not None:
        return DirectoryDestination(site_directory(os.fspath(output), site))
    if conf.OUTPUT_DIR is not None:
        return DirectoryDestination(site_directory(os.fspath(conf.OUTPUT_DIR), site))
    if conf.STORAGE is not None:
        return StorageDestination(conf.STORAGE, site_prefix(site))
    raise BuildError(
        "Nowhere to write: pass --output DIR, or set SITEMAPKIT_OUTPUT_DIR (a directory) "
        "or SITEMAPKIT_STORAGE (an alias of STORAGES)."
    )
