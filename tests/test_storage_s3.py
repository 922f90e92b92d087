"""django-storages' S3Storage on a real S3 endpoint (moto's server, s3_endpoint.py):
``build_sitemaps`` publishes the set into a bucket, and only what changed."""

from __future__ import annotations

import datetime as dt
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from built_sets import snapshot, without_times
from django.core.files.storage import Storage, storages
from django.core.management import call_command
from django.test import override_settings
from factories import bulk_articles
from s3_endpoint import S3Server
from s3_objects import crc32, heads, objects, requests_of, stamps, writes
from testapp.models import Article
from testapp.sitemaps import ArticleSource, PagesSource

from django_sitemapkit.names import MANIFEST_FILENAME

pytestmark = [pytest.mark.django_db, pytest.mark.slow]
Sources = Callable[..., None]
LATER = dt.datetime(2030, 1, 2, 3, 4, 5, tzinfo=dt.timezone.utc)
SET = [
    "sitemap-articles-1.xml",
    "sitemap-articles-1.xml.gz",
    "sitemap-articles-2.xml",
    "sitemap-articles-2.xml.gz",
    "sitemap-articles-3.xml",
    "sitemap-articles-3.xml.gz",
    "sitemap-pages-1.xml",
    "sitemap-pages-1.xml.gz",
    "sitemap.xml",
    "sitemap.xml.gz",
    MANIFEST_FILENAME,
]


class SmallPages(ArticleSource):
    limit = 2


@pytest.fixture
def storage(s3_bucket: dict[str, Any]) -> Iterator[Storage]:
    """The bucket as ``SITEMAPKIT_STORAGE``, under an alias of its own: a build's lock
    (one per alias on the machine) is not another test's."""
    alias = f"s3-{uuid.uuid4().hex[:12]}"
    with override_settings(STORAGES={alias: s3_bucket}, SITEMAPKIT_STORAGE=alias):
        yield storages[alias]


def bucket_of(storage: Storage) -> str:
    name: str = storage.bucket_name  # type: ignore[attr-defined]
    return name


def build_to_storage() -> None:
    call_command("build_sitemaps", verbosity=0)


def build_to(directory: Path) -> None:
    call_command("build_sitemaps", output=str(directory), verbosity=0)


def next_second() -> None:
    start = int(time.time())
    while int(time.time()) == start:
        time.sleep(0.01)


def test_a_build_publishes_the_bytes_of_a_local_build(
    sources: Sources, storage: Storage, s3_server: S3Server, tmp_path: Path
) -> None:
    sources(SmallPages, PagesSource)
    bulk_articles(5)
    build_to(tmp_path / "local")
    build_to_storage()
    stored = objects(s3_server.client(), bucket_of(storage))
    assert sorted(stored) == SET
    # Every file byte for byte; the manifest but for the times of the build.
    assert without_times(stored) == snapshot(tmp_path / "local", built=False)


def test_uploads_carry_boto3s_default_checksums(
    sources: Sources, storage: Storage, s3_server: S3Server
) -> None:
    sources(SmallPages, PagesSource)
    bulk_articles(5)
    with requests_of(storage) as sent:
        build_to_storage()
    uploads = [request for request in sent if request.method == "PUT"]
    assert sorted(request.key for request in uploads) == SET
    # Over HTTPS boto3 sends every upload aws-chunked, the body's CRC-32 in a
    # trailer after it (its default since 1.36)...
    assert {
        request.key: (
            request.headers["Content-Encoding"],
            request.headers["X-Amz-Content-SHA256"],
            request.headers["X-Amz-Trailer"],
        )
        for request in uploads
    } == {
        # S3Storage gives a .gz file the content coding the name suggests.
        key: (
            "gzip,aws-chunked" if key.endswith(".gz") else "aws-chunked",
            "STREAMING-UNSIGNED-PAYLOAD-TRAILER",
            "x-amz-checksum-crc32",
        )
        for key in SET
    }
    # ...and the server read the body out of the chunks and kept the checksum
    # of the trailer, which is the CRC-32 of the very bytes stored.
    client = s3_server.client()
    stored = objects(client, bucket_of(storage))
    described = heads(client, bucket_of(storage), SET)
    assert {key: head["ChecksumCRC32"] for key, head in described.items()} == {
        key: crc32(content) for key, content in stored.items()
    }
    # What a bucket served directly would send: the .gz files as gzip-coded.
    assert {key: head.get("ContentEncoding") for key, head in described.items()} == {
        key: "gzip" if key.endswith(".gz") else None for key in SET
    }


def test_nothing_changed_uploads_nothing_and_a_changed_row_only_its_files(
    sources: Sources, storage: Storage, s3_server: S3Server, tmp_path: Path
) -> None:
    sources(SmallPages, PagesSource)
    rows = sorted(bulk_articles(5), key=lambda row: row.pk)
    client, bucket = s3_server.client(), bucket_of(storage)
    build_to_storage()
    build_to(tmp_path / "local")
    first = stamps(client, bucket, SET)
    # S3 dates an object to the second: a file uploaded again from here on
    # would show a later LastModified.
    next_second()
    with requests_of(storage) as sent:
        build_to_storage()
    assert writes(sent) == []
    assert stamps(client, bucket, SET) == first
    # A row of the second page (rows 3 and 4) changes: its page is uploaded
    # (the .gz first), then the index that names it, then the manifest.
    Article.objects.filter(pk=rows[2].pk).update(updated_at=LATER)
    with requests_of(storage) as sent:
        build_to_storage()
    rewritten = [
        "sitemap-articles-2.xml.gz",
        "sitemap-articles-2.xml",
        "sitemap.xml.gz",
        "sitemap.xml",
        MANIFEST_FILENAME,
    ]
    assert writes(sent) == [("PUT", key) for key in rewritten]
    second = stamps(client, bucket, SET)
    assert sorted(key for key in SET if second[key][0] > first[key][0]) == sorted(rewritten)
    assert {key: second[key] for key in SET if key not in rewritten} == {
        key: first[key] for key in SET if key not in rewritten
    }
    # The same rows built into a directory the same two times give the same bytes.
    build_to(tmp_path / "local")
    assert without_times(objects(client, bucket)) == snapshot(tmp_path / "local", built=False)
