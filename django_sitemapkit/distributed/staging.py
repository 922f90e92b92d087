"""A storage that a distributed build's workers stage their files in.

Each build stages under ``<prefix>.sitemapkit-staging/<build>/``, a name no
view serves (a served name has no ``/``). The files keep their staged names
until the publish, which copies each page to its name in the set (in the
storage itself where it can: S3's CopyObject moves no bytes through this
machine), then uploads the index and the manifest, then removes what the set
no longer has: the publish of a build on one machine, in the same order.
"""

from __future__ import annotations

import datetime as dt
import io
import logging
import secrets
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from django.core.files.storage import Storage

from django_sitemapkit.build.destinations import StorageDestination, save_exact
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
    """``StorageDestination`` whose pages are staged in the storage by the workers."""

    def __init__(self, alias: str, prefix: str, build: str) -> None:
        super().__init__(alias, prefix)
        self.build = build
        self.shared = f"{prefix}{STAGING_DIRECTORY}/{build}/"
        #: Each page's name in the set, and its name as staged by a worker.
        self.moved: dict[str, str] = {}

    def start(self, marker: bytes) -> None:
        """Remove what builds before left staged (this one holds the lock: they are
        over), and mark this build's staging as wanted."""
        self.remove_tree(f"{self.prefix}{STAGING_DIRECTORY}")
        self.upload_as(self.shared + MARKER, marker)

    def rename_staged(self, before: str, after: str) -> None:
        self.moved[after] = self.moved.pop(before, before)

    def drop_staged(self, name: str) -> None:
        self.moved.pop(name, None)

    def read_staged(self, name: str) -> bytes:
        if name not in self.moved:
            return super().read_staged(name)
        with self.storage.open(self.shared + self.moved[name], "rb") as staged:
            content: bytes = staged.read()
            return content

    def local_names(self, names: list[str]) -> list[str]:
        return [name for name in names if name not in self.moved]

    def staged_names(self) -> set[str]:
        """The names staged in the storage by the workers so far."""
        try:
            _, files = self.storage.listdir(self.shared.rstrip("/"))
        except FileNotFoundError:
            return set()
        return set(files)

    def put(self, written: list[str]) -> None:
        pages = [name for name in written if name in self.moved]
        with ThreadPoolExecutor(THREADS) as pool:
            # list(): the first error stops the publish before the index.
            list(pool.map(lambda name: self.copy(self.moved[name], name), pages))
        # The index (written here) goes after every page it names.
        super().put([name for name in written if name not in self.moved])

    def copy(self, staged: str, name: str) -> None:
        source, target = self.shared + staged, self.prefix + name
        if not server_copy(self.storage, source, target):
            with self.storage.open(source, "rb") as content:
                self.upload_as(target, content.read())

    def upload_as(self, stored_name: str, content: bytes) -> None:
        save_exact(self.storage, stored_name, io.BytesIO(content), self.label)

    def discard(self) -> None:
        super().discard()
        try:
            # The marker first: a worker still rendering then uploads nothing.
            self.storage.delete(self.shared + MARKER)
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

    def remove_tree(self, directory: str) -> None:
        try:
            folders, files = self.storage.listdir(directory)
        except FileNotFoundError:
            return
        with ThreadPoolExecutor(THREADS) as pool:
            list(pool.map(self.storage.delete, [f"{directory}/{name}" for name in files]))
        for folder in folders:
            self.remove_tree(f"{directory}/{folder}")


def server_copy(storage: Storage, source: str, target: str) -> bool:
    """Copy ``source`` to ``target`` inside the storage, if it is django-storages'
    S3 storage; ``False`` if it cannot (the bytes then go through this machine)."""
    bucket: Any = getattr(storage, "bucket", None)
    normalize = getattr(storage, "_normalize_name", None)
    if bucket is None or normalize is None or not hasattr(bucket, "Object"):
        return False
    # CopyObject keeps the source's metadata (its Content-Type and
    # Content-Encoding, which django-storages set from the same suffix).
    bucket.Object(normalize(target)).copy_from(
        CopySource={"Bucket": bucket.name, "Key": normalize(source)}
    )
    return True
