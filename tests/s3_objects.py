"""What a bucket holds and what a storage sent it, read as the S3 tests need them."""

from __future__ import annotations

import base64
import datetime as dt
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlsplit

from django.core.files.storage import Storage


@dataclass(frozen=True)
class Sent:
    """One request a storage's boto3 client sent (retries included)."""

    method: str
    key: str  # the object's key; "" for a request about the bucket (a listing)
    headers: dict[str, str]


def objects(client: Any, bucket: str) -> dict[str, bytes]:
    """Every object of ``bucket``: its key and bytes."""
    found = {}
    for page in client.get_paginator("list_objects_v2").paginate(Bucket=bucket):
        for listed in page.get("Contents", []):
            answer = client.get_object(Bucket=bucket, Key=listed["Key"])
            found[listed["Key"]] = answer["Body"].read()
    return found


def heads(client: Any, bucket: str, keys: list[str]) -> dict[str, dict[str, Any]]:
    """Each key's HEAD answer, with the checksum S3 keeps for it."""
    return {key: client.head_object(Bucket=bucket, Key=key, ChecksumMode="ENABLED") for key in keys}


def stamps(client: Any, bucket: str, keys: list[str]) -> dict[str, tuple[dt.datetime, str]]:
    """Each key's LastModified and ETag: what an upload, even of the same bytes, changes."""
    return {
        key: (head["LastModified"], head["ETag"])
        for key, head in heads(client, bucket, keys).items()
    }


def crc32(content: bytes) -> str:
    """The value S3 gives ``ChecksumCRC32``: the big-endian CRC-32, in base64."""
    return base64.b64encode(zlib.crc32(content).to_bytes(4, "big")).decode()


def epoch_ns(moment: dt.datetime) -> int:
    return int(moment.timestamp()) * 1_000_000_000  # S3 keeps whole seconds


@contextmanager
def requests_of(storage: Storage) -> Iterator[list[Sent]]:
    """The requests ``storage`` (an S3Storage) sends inside the block, in order.

    Read from its boto3 client's own event, fired for each request as it goes
    out: S3Storage has one client per thread, and the test's requests and
    builds run on the test's thread.
    """
    sent: list[Sent] = []
    bucket = storage.bucket_name  # type: ignore[attr-defined]

    def record(request: Any, **kwargs: Any) -> None:
        path = unquote(urlsplit(request.url).path).lstrip("/")
        key = path[len(bucket) + 1 :] if path.startswith(f"{bucket}/") else ""
        headers = {name: value_text(value) for name, value in request.headers.items()}
        sent.append(Sent(request.method, key, headers))

    events = storage.connection.meta.client.meta.events  # type: ignore[attr-defined]
    events.register("before-send.s3", record)
    try:
        yield sent
    finally:
        events.unregister("before-send.s3", record)


def value_text(value: str | bytes) -> str:
    return value.decode() if isinstance(value, bytes) else value


def writes(sent: list[Sent]) -> list[tuple[str, str]]:
    """The uploads and deletions among ``sent``."""
    return [(r.method, r.key) for r in sent if r.method in ("PUT", "POST", "DELETE")]
