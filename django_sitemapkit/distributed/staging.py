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
import hashlib
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
        #: Each staged name whose bytes were checked: the size and SHA-256 its worker
        #: reported, and S3's ETag of the object checked (a copy takes no other).
        self.checked: dict[str, tuple[int, str, str | None]] = {}

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

    def check(self, name: str, size: int, sha256: str) -> str | None:
        """Whether the staged ``name`` holds the bytes its worker reported: ``None`` if it
        does, else what it holds."""
        content, etag = fetch(self.storage, self.shared + name, size)
        found = mismatch(content, size, sha256)
        if found is None:
            self.checked[name] = (size, sha256, etag)
        return found

    def put(self, written: list[str]) -> None:
        pages = [name for name in written if name in self.moved]
        with ThreadPoolExecutor(THREADS) as pool:
            # list(): the first error stops the publish before the index.
            list(pool.map(lambda name: self.copy(self.moved[name], name), pages))
        # The index (written here) goes after every page it names.
        super().put([name for name in written if name not in self.moved])

    def copy(self, staged: str, name: str) -> None:
        """Copy the staged file, if it still holds the bytes ``check()`` found in it."""
        source, target = self.shared + staged, self.prefix + name
        size, sha256, etag = self.checked[staged]
        if server_copy(self.storage, source, target, etag):
            return
        content, _ = fetch(self.storage, source, size)
        found = mismatch(content, size, sha256)
        if found is not None:
            raise BuildError(f"{source} changed after it was checked: it now holds {found}")
        self.upload_as(target, content)

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


def s3_bucket(storage: Storage) -> tuple[Any, Any] | None:
    """django-storages' S3 bucket of ``storage``, and its name for a key, if it is one."""
    bucket: Any = getattr(storage, "bucket", None)
    normalize = getattr(storage, "_normalize_name", None)
    if bucket is None or normalize is None or not hasattr(bucket, "Object"):
        return None
    return bucket, normalize


def fetch(storage: Storage, stored_name: str, size: int) -> tuple[bytes, str | None]:
    """The bytes of ``stored_name`` (no more than ``size`` and one), and in S3 the
    ETag of the very object they were read from."""
    found = s3_bucket(storage)
    if found is None:
        with storage.open(stored_name, "rb") as stored:
            content: bytes = stored.read(size + 1)
            return content, None
    bucket, normalize = found
    response = bucket.Object(normalize(stored_name)).get()
    with response["Body"] as body:
        return body.read(size + 1), response["ETag"]


def mismatch(content: bytes, size: int, sha256: str) -> str | None:
    """``None`` if ``content`` has ``size`` bytes and the SHA-256 ``sha256``, else what
    it has instead."""
    if len(content) > size:
        return f"more than the {size:,} bytes reported"
    if len(content) < size:
        return f"{len(content):,} bytes, not {size:,}"
    digest = hashlib.sha256(content).hexdigest()
    return None if digest == sha256 else f"SHA-256 {digest}, not {sha256}"


def server_copy(storage: Storage, source: str, target: str, etag: str | None) -> bool:
    """Copy ``source`` to ``target`` inside the storage, if it is django-storages'
    S3 storage, and only if ``source`` is still the object of ``etag``; ``False`` if
    it cannot (the bytes then go through this machine)."""
    found = s3_bucket(storage)
    if found is None:
        return False
    bucket, normalize = found
    copied: dict[str, Any] = {"Bucket": bucket.name, "Key": normalize(source)}
    # CopyObject keeps the source's metadata (its Content-Type and
    # Content-Encoding, which django-storages set from the same suffix).
    # x-amz-copy-source-if-match: a file staged again since it was checked
    # (a forged job's) is not copied.
    condition = {} if etag is None else {"CopySourceIfMatch": etag}
    bucket.Object(normalize(target)).copy_from(CopySource=copied, **condition)
    return True
