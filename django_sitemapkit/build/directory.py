"""A local directory, published atomically as a set; and which destination a site's
files go to (``destination_for()``).

Each build writes a whole new directory beside the output directory,
``.<name>.builds/<build id>/``: its new files, and a hard link to each
unchanged one (which so keeps its bytes, its modification time and the
``ETag`` made from them). The output directory itself is a symbolic link to
the current build, and publishing is one ``rename()`` of a new link over it,
atomic under POSIX: a reader that resolves the link sees one build whole,
never some files of one and some of another, and a build killed at any point
leaves the link as it was. The build before stays, for readers that resolved
the link just before it moved; older ones, and those of builds that died, are
removed by the next build.
"""

from __future__ import annotations

import ctypes
import datetime as dt
import os
import secrets
import shutil
import stat
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from functools import cached_property
from pathlib import Path
from typing import IO

from django_sitemapkit.build.destinations import (
    FILE_MODE,
    RECORD_FILENAME,
    Destination,
    Staging,
    StorageDestination,
    Stored,
)
from django_sitemapkit.build.locks import held_lock
from django_sitemapkit.build.reading import read_regular
from django_sitemapkit.exceptions import BuildError
from django_sitemapkit.indexnow import FileRecord, Record
from django_sitemapkit.names import MANIFEST_FILENAME, is_sitemap_file
from django_sitemapkit.sites.configured import SitemapSite
from django_sitemapkit.sites.places import files_place

LOCK_NAME = ".lock"
PARTIAL_SUFFIX = ".partial"
# What a directory of files written before builds were linked may also hold:
# the lock file and the staged files of a build that died.
EARLIER_LOCK = ".sitemapkit.lock"
EARLIER_STAGING_SUFFIX = ".tmp"
# O_NOFOLLOW: a published file read back is never a link's target; O_NONBLOCK:
# opening a FIFO planted there does not hang the build.
OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
# renameat2(2)'s flag to swap two names atomically (Linux 3.15 and later).
RENAME_EXCHANGE = 2
AT_FDCWD = -100


class DirectoryDestination(Destination):
    parallel_reads = True

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(os.path.abspath(path))
        self.label = str(self.path)
        self.builds = self.path.parent / f".{self.path.name}.builds"
        self.id = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%M%S") + (
            f"-{secrets.token_hex(4)}"
        )
        self.staging = Staging(str(self.builds / f"{self.id}{PARTIAL_SUFFIX}"))

    def current(self) -> Path | None:
        """The directory of the published set: the build the link points to, or the
        output directory itself as builds before links left it."""
        if self.path.is_symlink():
            return self.builds / os.path.basename(os.readlink(self.path))
        return self.path if self.path.is_dir() else None

    @contextmanager
    def lock(self) -> Iterator[None]:
        try:
            self.builds.mkdir(parents=True, exist_ok=True)
            lock_file = open(self.builds / LOCK_NAME, "a")  # noqa: SIM115 - closed below
        except OSError as exc:
            raise BuildError(f"Cannot write to {self.label}: {exc.strerror or exc}.") from exc
        with lock_file, held_lock(lock_file, self.label):
            self.refuse_mount_point()
            self.refuse_foreign_files()
            self.remove_leftovers()
            Path(self.staging.directory).mkdir()
            try:
                yield
            finally:
                self.discard()

    def refuse_mount_point(self) -> None:
        if os.path.ismount(self.path):
            raise BuildError(
                f"{self.label} is a mount point, which a build cannot replace with the link "
                "to its set; write to a directory inside it instead (--output or "
                f"SITEMAPKIT_OUTPUT_DIR {os.path.join(self.label, 'sitemaps')!r}), and serve "
                "that one."
            )

    def refuse_foreign_files(self) -> None:
        """A directory of earlier builds becomes the link's first target's neighbour,
        moved whole: only if nothing but sitemap files is in it, so nothing else is
        moved out of a web server's sight."""
        if self.path.is_symlink() or not self.path.is_dir():
            return
        for entry in sorted(os.listdir(self.path)):
            if is_sitemap_file(entry) or entry == EARLIER_LOCK:
                continue
            if entry.startswith(".sitemap") and entry.endswith(EARLIER_STAGING_SUFFIX):
                continue
            raise BuildError(
                f"{self.label} holds {entry!r}, which no build wrote. A build now publishes "
                f"each set as a directory of its own, linked from {self.label}; move "
                f"{entry!r} elsewhere, then build again."
            )

    def remove_leftovers(self) -> None:
        # The lock is held: a partial directory is a build that died, and a
        # link beside the output directory one that died while publishing.
        for entry in self.builds.iterdir():
            if entry.name.endswith(PARTIAL_SUFFIX):
                shutil.rmtree(entry, ignore_errors=True)
        for entry in self.path.parent.glob(f".{self.path.name}.link-*"):
            entry.unlink(missing_ok=True)

    def names(self) -> list[str]:
        current = self.current()
        if current is None:
            return []
        return sorted(name for name in os.listdir(current) if is_sitemap_file(name))

    def read(self, name: str) -> bytes | None:
        current = self.current()
        try:
            return None if current is None else (current / name).read_bytes()
        except FileNotFoundError:
            return None

    def manifest(self) -> bytes | None:
        current = self.current()
        return None if current is None else read_regular(current / MANIFEST_FILENAME)

    def record(self) -> Record:
        # With the builds, never in a build: it outlives each of them.
        return FileRecord(self.builds / RECORD_FILENAME)

    def keep(self, name: str) -> None:
        current = self.current()
        assert current is not None
        # Never through a link: one planted since the build looked at the file
        # (integrity.py) is linked as a link, and refused.
        staged = self.staging.path(name)
        os.link(current / name, staged, follow_symlinks=False)
        if not stat.S_ISREG(os.lstat(staged).st_mode):
            raise BuildError(
                f"{name} in {self.label} was replaced by something else than a file while "
                "the build ran; build again (the next build renders it afresh)."
            )

    def stored(self, name: str) -> Stored | None:
        current = self.current()
        if current is None:
            return None
        try:
            status = os.lstat(current / name)
        except (FileNotFoundError, NotADirectoryError):
            return None
        if not stat.S_ISREG(status.st_mode):
            return Stored(None, other=file_kind(status.st_mode))
        changed = self.published_ns is not None and status.st_mtime_ns > self.published_ns
        return Stored(status.st_size, changed=changed)

    @cached_property
    def published_ns(self) -> int | None:
        """When the current set was published: its manifest is the last file written,
        and a kept file keeps its time (it is a hard link to the file first written)."""
        current = self.current()
        try:
            return None if current is None else os.lstat(current / MANIFEST_FILENAME).st_mtime_ns
        except OSError:
            return None

    def open_published(self, name: str) -> AbstractContextManager[IO[bytes]] | None:
        current = self.current()
        if current is None:
            return None
        try:
            descriptor = os.open(current / name, OPEN_FLAGS)
        except OSError:
            return None  # gone, or a link (ELOOP): not a file to keep
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            os.close(descriptor)  # a directory, a FIFO, a device
            return None
        return os.fdopen(descriptor, "rb")

    def publish(self, written: list[str], manifest: bytes, removed: list[str]) -> None:
        staging = Path(self.staging.directory)
        for name in written:
            os.chmod(staging / name, FILE_MODE)
        (staging / MANIFEST_FILENAME).write_bytes(manifest)
        os.chmod(staging / MANIFEST_FILENAME, FILE_MODE)
        os.chmod(staging, 0o755)
        previous = self.current()
        final = self.builds / self.id
        staging.rename(final)
        link = self.path.parent / f".{self.path.name}.link-{self.id}"
        os.symlink(os.path.join(self.builds.name, self.id), link)
        if previous == self.path:
            previous = self.replace_directory(link)
        else:
            os.replace(link, self.path)
        self.prune(keep={final.name, previous.name if previous else ""})

    def replace_directory(self, link: Path) -> Path:
        """Put the link where the directory of earlier builds is, and move that
        directory among the builds, as the build before."""
        earlier = self.builds / f"{self.id}-before"
        if exchange(link, self.path):
            link.rename(earlier)  # ``link`` now names the directory
        else:
            # No atomic exchange here: for as long as two renames take, there
            # is no directory at all (never a mixed one).
            self.path.rename(earlier)
            os.replace(link, self.path)
        return earlier

    def prune(self, keep: set[str]) -> None:
        for entry in self.builds.iterdir():
            if entry.is_dir() and not entry.is_symlink() and entry.name not in keep:
                shutil.rmtree(entry, ignore_errors=True)

    def discard(self) -> None:
        shutil.rmtree(self.staging.directory, ignore_errors=True)


def file_kind(mode: int) -> str:
    """What a directory entry that is not a regular file is, for a message."""
    kinds = {
        stat.S_ISLNK: "a symbolic link",
        stat.S_ISDIR: "a directory",
        stat.S_ISFIFO: "a FIFO",
        stat.S_ISSOCK: "a socket",
    }
    return next((kind for test, kind in kinds.items() if test(mode)), "a device")


def exchange(first: Path, second: Path) -> bool:
    """Swap two names in one step with Linux's renameat2(); ``False`` where there is none."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    result = renameat2(AT_FDCWD, os.fsencode(first), AT_FDCWD, os.fsencode(second), RENAME_EXCHANGE)
    return bool(result == 0)


def destination_for(site: SitemapSite, output: str | os.PathLike[str] | None = None) -> Destination:
    """Where ``site``'s files go (``sites.places``, the very place they are served
    from): a directory published by a link, or a storage."""
    place = files_place(site, output)
    if place is None:
        raise BuildError(
            "Nowhere to write: pass --output DIR, or set SITEMAPKIT_OUTPUT_DIR (a directory) "
            "or SITEMAPKIT_STORAGE (an alias of STORAGES)."
        )
    if place.directory is not None:
        return DirectoryDestination(place.directory)
    assert place.storage is not None
    return StorageDestination(place.storage, place.prefix)
