"""django-storages' ``S3Storage`` as a destination, where the Storage API cannot say or
do what a build needs: the sizes and times of many objects in one request, an
object's HEAD, many deletions in one request, and the multipart uploads a killed
build left.

Importing this module imports neither django-storages nor boto3: a storage is
recognised by what it has (``bucket`` and ``_normalize_name``), and a client's
errors are read from the client itself.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from django.core.files.storage import Storage

from django_sitemapkit.names import GZIP_SUFFIX, MANIFEST_FILENAME, is_sitemap_file

logger = logging.getLogger("django_sitemapkit")
#: DeleteObjects takes at most this many keys a request (S3 API reference).
DELETE_BATCH = 1000


@dataclass(frozen=True)
class Head:
    """What a HEAD request says of an object."""

    size: int
    #: Its ``Content-Encoding``: ``"gzip"`` for a ``.gz`` file, and for a file the
    #: storage compressed itself (its ``gzip`` option), whose size is then not ours.
    coding: str | None
    modified: dt.datetime


@dataclass(frozen=True)
class Bucket:
    """An ``S3Storage``'s bucket, its client, and the key a name is stored under."""

    storage: Any

    @property
    def client(self) -> Any:
        return self.storage.connection.meta.client

    @property
    def name(self) -> str:
        name: str = self.storage.bucket_name
        return name

    def key(self, name: str) -> str:
        key: str = self.storage._normalize_name(name)
        return key


def bucket_of(storage: Storage) -> Bucket | None:
    """``storage``'s bucket if it is django-storages' ``S3Storage`` (or a subclass)."""
    # Looked up on the class: the instance's ``bucket`` would open a connection.
    if not all(hasattr(type(storage), attr) for attr in ("bucket", "_normalize_name")):
        return None
    return Bucket(storage)


def head(bucket: Bucket, name: str) -> Head:
    """The HEAD of ``name``; ``FileNotFoundError`` when there is no such object."""
    try:
        answer = bucket.client.head_object(Bucket=bucket.name, Key=bucket.key(name))
    except bucket.client.exceptions.ClientError as exc:
        if exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode") == 404:
            raise FileNotFoundError(name) from exc
        raise
    return Head(answer["ContentLength"], answer.get("ContentEncoding"), answer["LastModified"])


def listing(bucket: Bucket, prefix: str, start: str) -> dict[str, Head]:
    """The objects directly under ``prefix`` whose names begin with ``start``, by name:
    a thousand a request, where a HEAD is one each. A listing gives no
    ``Content-Encoding`` (``coding`` is ``None``)."""
    directory = bucket.key(prefix + "x")[:-1]
    pages = bucket.client.get_paginator("list_objects_v2").paginate(
        Bucket=bucket.name, Prefix=directory + start, Delimiter="/"
    )
    return {
        listed["Key"][len(directory) :]: Head(listed["Size"], None, listed["LastModified"])
        for page in pages
        for listed in page.get("Contents", [])
    }


class SetObjects:
    """The objects of the set under ``prefix``, listed once, at the first question."""

    def __init__(self, bucket: Bucket, prefix: str) -> None:
        self.bucket = bucket
        self.prefix = prefix
        self.listed: dict[str, Head] | None = None

    def size_and_change(self, name: str) -> tuple[int | None, bool] | None:
        """``name``'s size (``None`` where the storage may have compressed it itself),
        and whether it was changed after the set's manifest (every file of a set is
        uploaded before it); ``None`` if there is no such object."""
        if self.listed is None:
            # Every name a build publishes begins so: no other file of the bucket is listed.
            self.listed = listing(self.bucket, self.prefix, "sitemap")
        found, manifest = self.listed.get(name), self.listed.get(MANIFEST_FILENAME)
        if found is None:
            return None
        changed = manifest is not None and found.modified > manifest.modified
        # With its gzip option, the storage may compress a file itself, which then
        # has another size: its HEAD says (a .gz is stored as it is).
        compressing = getattr(self.bucket.storage, "gzip", False) and not name.endswith(GZIP_SUFFIX)
        if compressing and head(self.bucket, self.prefix + name).coding == "gzip":
            return None, changed
        return found.size, changed


def delete_all(bucket: Bucket, names: list[str]) -> None:
    """Delete ``names`` (those that exist), a thousand a request."""
    for start in range(0, len(names), DELETE_BATCH):
        keys = [{"Key": bucket.key(name)} for name in names[start : start + DELETE_BATCH]]
        answer = bucket.client.delete_objects(
            Bucket=bucket.name, Delete={"Objects": keys, "Quiet": True}
        )
        # A key that did not exist is no error (DeleteObjects reports it as
        # deleted); any other refusal stops the publish like a failed upload.
        errors = answer.get("Errors", [])
        if errors:
            first = errors[0]
            raise OSError(f"S3 refused to delete {first['Key']!r}: {first['Code']}")


def abort_left_uploads(bucket: Bucket, prefix: str, label: str) -> list[str]:
    """Abort the unfinished multipart uploads of the files a build publishes under
    ``prefix`` (its pages, index and manifest); the names they were for. A refusal
    is logged, and the build goes on: the parts cost storage, not correctness."""
    try:
        return abort_uploads(bucket, prefix, is_set_file)
    except Exception as exc:
        logger.warning(
            "The unfinished uploads of builds that died in %s could not be aborted (%s: %s); "
            "allow s3:ListBucketMultipartUploads and s3:AbortMultipartUpload to the build's "
            "credentials, or add a lifecycle rule that aborts incomplete multipart uploads.",
            label,
            type(exc).__name__,
            exc,
        )
        return []


def is_set_file(name: str) -> bool:
    return is_sitemap_file(name) or name == MANIFEST_FILENAME


def abort_uploads(bucket: Bucket, prefix: str, ours: Callable[[str], bool]) -> list[str]:
    """Abort the incomplete multipart uploads of the names directly under ``prefix`` for
    which ``ours`` is true; the names they were for.

    S3 keeps (and bills) the parts of an upload that was neither completed nor
    aborted, which is what a build killed in the middle of a large file leaves;
    only a lifecycle rule would ever remove them. The caller holds the build
    lock, so no upload of these names can still be running.
    """
    directory = bucket.key(prefix + "x")[:-1]  # "" or "location/", as the storage keys it
    aborted = []
    for key, upload in uploads_under(bucket, directory):
        name = key[len(directory) :]
        if ours(name):
            bucket.client.abort_multipart_upload(Bucket=bucket.name, Key=key, UploadId=upload)
            aborted.append(name)
    return sorted(aborted)


def uploads_under(bucket: Bucket, directory: str) -> Iterator[tuple[str, str]]:
    """The key and id of each multipart upload of a key in ``directory`` itself (the
    delimiter leaves out those further down: other sites' prefixes, other files)."""
    pages = bucket.client.get_paginator("list_multipart_uploads").paginate(
        Bucket=bucket.name, Prefix=directory, Delimiter="/"
    )
    for page in pages:
        for upload in page.get("Uploads", []):
            yield upload["Key"], upload["UploadId"]
