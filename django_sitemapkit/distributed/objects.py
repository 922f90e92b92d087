"""The files of a distributed build in the shared storage: uploaded with their SHA-256,
checked against it, and copied only as checked.

Through django-storages' S3 storage, S3's own API does better than the
``Storage`` API: a PUT carries the file's SHA-256, which S3 checks against the
bytes it receives and keeps (``x-amz-checksum-sha256``), so a HEAD says what
an object holds without its bytes crossing the network again; a PUT of a new
name can refuse to replace an object (``If-None-Match: *``); and a copy can
refuse a source that is no longer the object checked
(``x-amz-copy-source-if-match``). Any other storage is read and written
through its API, and its bytes hashed here.
"""

from __future__ import annotations

import base64
import hashlib
import io
from collections.abc import Callable
from typing import Any, NamedTuple

from django.core.files.storage import Storage

from django_sitemapkit.build.stored import save_exact

#: What S3 answers when a conditional request's condition does not hold.
PRECONDITION_FAILED = 412
#: ``Checked.problem`` of a name the storage has no file of.
MISSING = "no such file"


class Checked(NamedTuple):
    """What the storage holds under a name, against what a worker reported: ``problem``
    is ``None`` when it holds those very bytes; ``etag`` is S3's for the object seen."""

    problem: str | None
    etag: str | None


class Bucket(NamedTuple):
    """django-storages' S3 bucket, its key for a name, and the parameters of an object
    it writes under a name (Content-Type and Content-Encoding from the suffix, and
    the project's object parameters)."""

    bucket: Any
    key: Callable[[str], str]
    parameters: Callable[..., dict[str, Any]]


def s3_bucket(storage: Storage) -> Bucket | None:
    """The S3 bucket of ``storage``, if it is django-storages' S3 storage and its objects
    hold the bytes written (not gzipped by the storage itself: AWS_IS_GZIPPED)."""
    bucket: Any = getattr(storage, "bucket", None)
    key = getattr(storage, "_normalize_name", None)
    parameters = getattr(storage, "_get_write_parameters", None)
    if bucket is None or key is None or parameters is None or getattr(storage, "gzip", False):
        return None
    return Bucket(bucket, key, parameters) if hasattr(bucket, "Object") else None


def status(exc: Exception) -> int | None:
    """The HTTP status of a botocore ``ClientError``, if it is one."""
    response = getattr(exc, "response", None)
    found = response.get("ResponseMetadata", {}).get("HTTPStatusCode") if response else None
    return found if isinstance(found, int) else None


def upload(
    storage: Storage, stored_name: str, path: Any, sha256: str, label: str, *, only_new: bool
) -> bool:
    """Upload the file at ``path`` as ``stored_name``; ``False`` if ``only_new`` and the
    storage has a file of that name already (S3 only: any other storage replaces it)."""
    found = s3_bucket(storage)
    with open(path, "rb") as content:
        if found is None:
            save_exact(storage, stored_name, content, label)
            return True
        key = found.key(stored_name)
        condition = {"IfNoneMatch": "*"} if only_new else {}
        checksum = base64.b64encode(bytes.fromhex(sha256)).decode()
        try:
            # The algorithm named too: a server that records only a checksum it
            # was told the algorithm of (moto) keeps it then.
            found.bucket.Object(key).put(
                Body=content,
                ChecksumAlgorithm="SHA256",
                ChecksumSHA256=checksum,
                **found.parameters(key, content),
                **condition,
            )
        except Exception as exc:
            if only_new and status(exc) == PRECONDITION_FAILED:
                return False
            raise
    return True


def check(storage: Storage, stored_name: str, size: int, sha256: str) -> Checked:
    """Whether ``stored_name`` holds ``size`` bytes of SHA-256 ``sha256``: from S3's
    record of the checksum its uploader sent, or else from the bytes themselves."""
    found = s3_bucket(storage)
    if found is not None:
        try:
            head = found.bucket.meta.client.head_object(
                Bucket=found.bucket.name, Key=found.key(stored_name), ChecksumMode="ENABLED"
            )
        except Exception as exc:
            if status(exc) == 404:
                return Checked(MISSING, None)
            raise
        recorded = head.get("ChecksumSHA256")
        # A multipart upload's checksum is of its parts ("...-3"): not the file's.
        if isinstance(recorded, str) and "-" not in recorded:
            if head["ContentLength"] != size:
                return Checked(f"{head['ContentLength']:,} bytes, not {size:,}", head["ETag"])
            digest = base64.b64decode(recorded).hex()
            return Checked(None if digest == sha256 else differs(digest, sha256), head["ETag"])
    if not storage.exists(stored_name):
        return Checked(MISSING, None)
    content, etag = fetch(storage, stored_name, size)
    return Checked(mismatch(content, size, sha256), etag)


def fetch(storage: Storage, stored_name: str, size: int) -> tuple[bytes, str | None]:
    """The bytes of ``stored_name`` (no more than ``size`` and one), and in S3 the ETag
    of the very object they were read from."""
    found = s3_bucket(storage)
    if found is None:
        with storage.open(stored_name, "rb") as stored:
            content: bytes = stored.read(size + 1)
            return content, None
    response = found.bucket.Object(found.key(stored_name)).get()
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
    return None if digest == sha256 else differs(digest, sha256)


def differs(digest: str, sha256: str) -> str:
    return f"SHA-256 {digest}, not {sha256}"


def copy(
    storage: Storage, source: str, target: str, checked: tuple[int, str, str | None], label: str
) -> None:
    """Copy ``source`` to ``target``, only if it is still the object ``checked`` (its size,
    SHA-256 and ETag): inside S3, conditional on the ETag; elsewhere through this
    machine, its bytes checked again."""
    size, sha256, etag = checked
    found = s3_bucket(storage)
    if found is not None and etag is not None:
        copied = {"Bucket": found.bucket.name, "Key": found.key(source)}
        # CopyObject keeps the source's metadata (its Content-Type and
        # Content-Encoding, which django-storages set from the same suffix).
        found.bucket.Object(found.key(target)).copy_from(CopySource=copied, CopySourceIfMatch=etag)
        return
    content, _ = fetch(storage, source, size)
    problem = mismatch(content, size, sha256)
    if problem is not None:
        raise ValueError(f"{source} changed after it was checked: it now holds {problem}")
    save_exact(storage, target, io.BytesIO(content), label)
