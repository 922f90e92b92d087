"""A storage that a distributed build's workers write their files to.

A file whose name in the set the storage does not have yet (a new page: no
index names it, so no crawler is sent to it) is written under that name at
once, by the worker that renders it, where the storage is S3 (``objects.py``).
Any other file is staged under ``<prefix>.sitemapkit-staging/<build>/``, a
name no view serves (a served name has no ``/``), and keeps its staged name
until the publish, which copies each page to its name in the set (in the
storage itself where it can: S3's CopyObject moves no bytes through this
machine), then uploads the index and the manifest, then removes what the set
no longer has: the publish of a build on one machine, in the same order. A
build that fails removes the new files it wrote, as well as its staging.
"""

from __future__ import annotations

import datetime as dt
import io
import logging
import secrets
from concurrent.futures import ThreadPoolExecutor

from django.core.files.storage import Storage

from django_sitemapkit.build.destinations import StorageDestination
from django_sitemapkit.build.stored import save_exact
from django_sitemapkit.distributed.objects import Checked, check, copy
from django_sitemapkit.exceptions import BuildError
from django_sitemapkit.sites.configured import SitemapSite
from django_sitemapkit.sites.places import files_place

logger = logging.getLogger("django_sitemapkit")
STAGING_DIRECTORY = ".sitemapkit-staging"
#: Written by the coordinator when it starts, removed first when it ends:
#: a worker uploads nothing to a build that is over.
MARKER = "build.json"
#: Requests to the storage at once, while the publish copies and the end
#: removes the staged files.
THREADS = 16


def shared_destination(site: SitemapSite, output: str | None) -> SharedStaging:
    """Where a distributed build of ``site`` publishes: ``SITEMAPKIT_STORAGE``, which every
    worker writes to, and the views serve from."""
    place = files_place(site, output)
    if place is not None and place.directory is not None:
        raise BuildError(
            f"A distributed build (--via) writes through SITEMAPKIT_STORAGE, which workers on "
            f"other machines share, and not to a directory of this one ({place.setting}): set "
            "SITEMAPKIT_STORAGE to a storage every machine reaches (S3, say) and remove "
            f"{place.setting}."
        )
    if place is None or place.storage is None:
        raise BuildError(
            "A distributed build (--via) writes through SITEMAPKIT_STORAGE, which is not set: "
            "set it to the alias of a storage in STORAGES that every machine reaches (S3, say)."
        )
    build = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ-") + secrets.token_hex(4)
    return SharedStaging(place.storage, place.prefix, build)


def build_wanted(storage: Storage, staging: str) -> bool:
    return storage.exists(staging + MARKER)


class SharedStaging(StorageDestination):
    """``StorageDestination`` whose pages the workers write to the storage: staged, or
    under their names in the set (``placed``)."""

    def __init__(self, alias: str, prefix: str, build: str) -> None:
        super().__init__(alias, prefix)
        self.build = build
        self.shared = f"{prefix}{STAGING_DIRECTORY}/{build}/"
        #: Each page's name in the set, and its name as staged by a worker.
        self.moved: dict[str, str] = {}
        #: Each staged name whose bytes were checked: the size and SHA-256 its worker
        #: reported, and S3's ETag of the object checked (a copy takes no other).
        self.checked: dict[str, tuple[int, str, str | None]] = {}
        #: The names in the set the workers may write at once (no index names them);
        #: those of them they wrote, checked, are ``placed`` (StorageDestination's).
        self.offered: set[str] = set()
        #: Whether the index may be out: after that, no page it names is removed.
        self.exposed = False

    def start(self, marker: bytes, published: set[str] | None) -> set[str]:
        """Remove what builds before left (this one holds the lock: they are over), and
        mark this build's staging as wanted; the sitemap files the storage has then.

        Builds before left their staging, and if they failed before their index,
        new pages no index names: those are the files the storage has and the
        manifest (``published``, when it could be read) does not."""
        self.remove_tree(f"{self.prefix}{STAGING_DIRECTORY}")
        present = set(self.names())
        if published is not None:
            self.delete_all(sorted(present - published))
            present &= published
        self.upload_as(self.shared + MARKER, marker)
        return present

    def check(self, name: str, placed: bool, size: int, sha256: str) -> Checked:
        """Whether ``name``, as a worker wrote it (``placed``, or staged), holds the bytes
        it reported; what is checked is kept for the publish."""
        found = check(self.storage, (self.prefix if placed else self.shared) + name, size, sha256)
        if found.problem is None and placed:
            self.placed.add(name)
        elif found.problem is None:
            self.checked[name] = (size, sha256, found.etag)
        return found

    def rename_staged(self, before: str, after: str) -> None:
        if before not in self.placed:
            self.moved[after] = self.moved.pop(before, before)

    def drop_staged(self, name: str) -> None:
        self.moved.pop(name, None)

    def read_staged(self, name: str) -> bytes:
        if name in self.placed:
            stored = self.prefix + name
        elif name in self.moved:
            stored = self.shared + self.moved[name]
        else:
            return super().read_staged(name)
        with self.storage.open(stored, "rb") as file:
            content: bytes = file.read()
            return content

    def local_names(self, names: list[str]) -> list[str]:
        return [name for name in names if name not in self.moved and name not in self.placed]

    def put(self, written: list[str]) -> None:
        pages = [name for name in written if name in self.moved]
        with ThreadPoolExecutor(THREADS) as pool:
            # list(): the first error stops the publish before the index.
            list(pool.map(lambda name: self.copy(self.moved[name], name), pages))
        # The index (written here) goes after every page it names.
        self.exposed = True
        super().put(self.local_names(written))

    def copy(self, staged: str, name: str) -> None:
        """Copy the staged file, if it is still the object ``check()`` found it was."""
        copy(
            self.storage, self.shared + staged, self.prefix + name, self.checked[staged], self.label
        )

    def upload_as(self, stored_name: str, content: bytes) -> None:
        save_exact(self.storage, stored_name, io.BytesIO(content), self.label)

    def discard(self) -> None:
        super().discard()
        try:
            # The marker first: a worker still rendering then uploads nothing.
            self.storage.delete(self.shared + MARKER)
            if not self.exposed:
                # No index names them: the new pages of a build that failed,
                # whether or not their results came (a worker that finds the
                # marker gone after its upload removes its own).
                self.delete_all(sorted(self.offered))
            self.remove_tree(self.shared.rstrip("/"))
        except Exception as exc:
            # The next build removes what is left (start()); the build's own
            # outcome, published or not, is what the command reports.
            logger.warning(
                "The staged files of build %s in %s could not all be removed (%s: %s); the "
                "next build removes them.",
                self.build,
                self.label,
                type(exc).__name__,
                exc,
            )

    def delete_all(self, names: list[str]) -> None:
        """Delete ``names`` (in the set's namespace), several at once."""
        with ThreadPoolExecutor(THREADS) as pool:
            list(pool.map(self.storage.delete, [self.prefix + name for name in names]))

    def remove_tree(self, directory: str) -> None:
        try:
            folders, files = self.storage.listdir(directory)
        except FileNotFoundError:
            return
        with ThreadPoolExecutor(THREADS) as pool:
            list(pool.map(self.storage.delete, [f"{directory}/{name}" for name in files]))
        for folder in folders:
            self.remove_tree(f"{directory}/{folder}")
