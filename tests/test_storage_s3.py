"""django-storages' S3Storage on a real S3 endpoint (moto's server, s3_endpoint.py):
``build_sitemaps`` publishes the set into a bucket, and only what changed."""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from built_sets import snapshot, without_times
from django.core.files.storage import Storage, storages
from django.core.management import CommandError, call_command
from django.test import Client, override_settings
from factories import bulk_articles
from processes import TESTS
from s3_endpoint import S3Server
from s3_objects import crc32, heads, objects, requests_of, stamps, writes
from sitemap_xml import versions_served
from testapp.models import Article
from testapp.sitemaps import ArticleSource, PagesSource

from django_sitemapkit.conf import conf
from django_sitemapkit.names import MANIFEST_FILENAME

pytestmark = [pytest.mark.django_db, pytest.mark.slow]
Sources = Callable[..., None]
LATER = dt.datetime(2025, 1, 2, 3, 4, 5, tzinfo=dt.timezone.utc)
NOT_KEPT = ": it is not kept, and the build writes it afresh."
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
    # Imported once the s3_bucket fixture found boto3 installed.
    from botocore.config import Config

    alias = f"s3-{uuid.uuid4().hex[:12]}"
    # A stopped server is found out at once, not after botocore's retries with
    # backoff; the checksums stay boto3's defaults.
    client_config = Config(connect_timeout=2, retries={"mode": "standard", "max_attempts": 1})
    options = {**s3_bucket["OPTIONS"], "client_config": client_config}
    stores = {alias: {**s3_bucket, "OPTIONS": options}}
    with override_settings(STORAGES=stores, SITEMAPKIT_STORAGE=alias):
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
    # A row of the second page (rows 3 and 4) changes: the .gz of its page and
    # of the index are deleted (one DeleteObjects request, a POST to the
    # bucket), its page uploaded (the .xml the index links first), then the
    # index that names it, then the manifest.
    Article.objects.filter(pk=rows[2].pk).update(updated_at=LATER)
    with requests_of(storage) as sent:
        build_to_storage()
    rewritten = [
        "sitemap-articles-2.xml",
        "sitemap-articles-2.xml.gz",
        "sitemap.xml",
        "sitemap.xml.gz",
        MANIFEST_FILENAME,
    ]
    assert writes(sent) == [("POST", ""), *(("PUT", key) for key in rewritten)]
    second = stamps(client, bucket, SET)
    assert sorted(key for key in SET if second[key][0] > first[key][0]) == sorted(rewritten)
    assert {key: second[key] for key in SET if key not in rewritten} == {
        key: first[key] for key in SET if key not in rewritten
    }
    # The same rows built into a directory the same two times give the same bytes.
    build_to(tmp_path / "local")
    assert without_times(objects(client, bucket)) == snapshot(tmp_path / "local", built=False)


# -- what a build finds, and what a build that stopped leaves --------------------------


def damage(client: Any, bucket: str) -> list[str]:
    """Three objects damaged after the set was published; what each build logs of them."""
    page = client.get_object(Bucket=bucket, Key="sitemap-articles-2.xml")["Body"].read()
    client.put_object(Bucket=bucket, Key="sitemap-articles-2.xml", Body=page[: len(page) // 2])
    compressed = bytearray(
        client.get_object(Bucket=bucket, Key="sitemap-articles-1.xml.gz")["Body"].read()
    )
    compressed[40] ^= 0x01
    client.put_object(Bucket=bucket, Key="sitemap-articles-1.xml.gz", Body=bytes(compressed))
    client.delete_object(Bucket=bucket, Key="sitemap-pages-1.xml.gz")
    return [
        f"sitemap-articles-1.xml.gz in storage {{alias!r}} was modified after its set was "
        f"published{NOT_KEPT}",
        f"sitemap-articles-2.xml in storage {{alias!r}} has {len(page) // 2:,} bytes where "
        f"the manifest records {len(page):,}{NOT_KEPT}",
        f"sitemap-pages-1.xml.gz in storage {{alias!r}} is missing{NOT_KEPT}",
    ]


@pytest.mark.parametrize(
    "options", [{}, {"full": True}, {"validate": True, "full": True}], ids=repr
)
def test_damaged_objects_are_uploaded_afresh(
    sources: Sources,
    storage: Storage,
    s3_server: S3Server,
    tmp_path: Path,
    options: dict[str, bool],
    caplog: pytest.LogCaptureFixture,
) -> None:
    sources(SmallPages, PagesSource)
    bulk_articles(5)
    client, bucket = s3_server.client(), bucket_of(storage)
    build_to_storage()
    build_to(tmp_path / "local")
    # S3 dates an object to the second: what is put from here on is later than
    # the manifest.
    next_second()
    problems = damage(client, bucket)
    call_command("build_sitemaps", verbosity=0, **options)
    assert without_times(objects(client, bucket)) == snapshot(tmp_path / "local", built=False)
    alias = conf.STORAGE
    assert sorted(caplog.messages) == [problem.format(alias=alias) for problem in problems]


# django-storages' S3File, reading a gzip-coded object with the gzip option
# on, decompresses it into a new file and leaves the one it downloaded to the
# garbage collector (a ResourceWarning of its own).
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
@pytest.mark.parametrize("options", [{}, {"full": True}], ids=repr)
def test_a_storage_that_compresses_files_itself_keeps_them(
    sources: Sources,
    s3_bucket: dict[str, Any],
    s3_server: S3Server,
    options: dict[str, bool],
    caplog: pytest.LogCaptureFixture,
) -> None:
    # django-storages' gzip option: a .xml is stored compressed (its size is
    # not the file's), and a .gz is read back decompressed.
    alias = f"s3-{uuid.uuid4().hex[:12]}"
    gzipping = {"gzip": True, "gzip_content_types": ("application/xml", "text/xml")}
    stores = {alias: {**s3_bucket, "OPTIONS": {**s3_bucket["OPTIONS"], **gzipping}}}
    sources(SmallPages, PagesSource)
    bulk_articles(5)
    with override_settings(STORAGES=stores, SITEMAPKIT_STORAGE=alias):
        build_to_storage()
        client, bucket = s3_server.client(), s3_bucket["OPTIONS"]["bucket_name"]
        assert heads(client, bucket, ["sitemap.xml"])["sitemap.xml"]["ContentEncoding"] == "gzip"
        first = stamps(client, bucket, SET)
        next_second()
        with requests_of(storages[alias]) as sent:
            call_command("build_sitemaps", verbosity=0, **options)
    # Nothing is uploaded again; a full build records when it was, in the manifest.
    manifest = [("PUT", MANIFEST_FILENAME)] if options else []
    assert writes(sent) == manifest
    kept = [name for name in SET if name != MANIFEST_FILENAME]
    assert stamps(client, bucket, kept) == {name: first[name] for name in kept}
    assert caplog.messages == []


def test_a_publish_stopped_before_any_request_never_serves_two_versions(
    client: Client, sources: Sources, storage: Storage, s3_server: S3Server, tmp_path: Path
) -> None:
    # tests/test_build_order.py stops the writes of a storage on the local disk
    # in turn, with --gzip-links too; here S3 itself stops, before each request.
    sources(SmallPages, PagesSource)
    bulk_articles(3)
    Article.objects.update(updated_at=LATER)
    build_to_storage()
    stop_at = 0
    while True:
        stop_at += 1
        # Every page of articles changes: each is replaced, .xml and .gz.
        Article.objects.update(updated_at=LATER + dt.timedelta(minutes=stop_at))
        with stopped_at_write(storage, s3_server, stop_at):
            try:
                build_to_storage()
                ended = True
            except CommandError as exc:
                ended = False
                message = str(exc)
        s3_server.start()
        if not ended:
            assert message.startswith(
                f"Publishing to storage {conf.STORAGE!r} stopped: EndpointConnectionError: "
            ), message
        with override_settings(SITEMAPKIT_SERVE="files"):
            for loc, got in versions_served(client, "https://www.example.com"):
                assert len(got) == 1, f"(the server stopped at write {stop_at}; {loc})"
        if ended:
            break
        build_to_storage()
    # Each write request failed in turn: one DeleteObjects (the .gz of 2 pages
    # and of the index), then 6 files and the manifest put.
    assert stop_at - 1 == 8
    build_to(tmp_path / "local")
    stored = objects(s3_server.client(), bucket_of(storage))
    assert without_times(stored) == snapshot(tmp_path / "local", built=False)


@contextmanager
def stopped_at_write(storage: Storage, s3_server: S3Server, stop_at: int) -> Iterator[None]:
    """The S3 server stops just before the write request number ``stop_at`` (a PUT, a
    POST or a DELETE) that ``storage`` sends."""
    writes: list[str] = []

    def count(request: Any, **kwargs: Any) -> None:
        if request.method in ("PUT", "POST", "DELETE"):
            writes.append(request.url)
            if len(writes) == stop_at:
                s3_server.stop()

    events = storage.connection.meta.client.meta.events  # type: ignore[attr-defined]
    events.register("before-send.s3", count)
    try:
        yield
    finally:
        events.unregister("before-send.s3", count)


def test_the_next_build_aborts_a_killed_builds_upload_and_removes_its_staging(
    sources: Sources,
    storage: Storage,
    s3_bucket: dict[str, Any],
    s3_server: S3Server,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    client, bucket = s3_server.client(), bucket_of(storage)
    # What is not the build's own: a directory that only looks like a staging
    # one, and unfinished uploads of other keys (another prefix, another file).
    lookalike = temporary / "sitemapkit-0123456789abcdef"
    lookalike.mkdir()
    (lookalike / "notes.txt").write_text("mine")
    others = {
        client.create_multipart_upload(Bucket=bucket, Key=key)["UploadId"]: key
        for key in ("shop/sitemap.xml", "sitemap.xml.bak", "media/video.mp4")
    }
    started = tmp_path / "started"
    killed = subprocess.Popen(
        [sys.executable, str(TESTS / "killed_upload.py"), str(started)],
        env={
            **os.environ,
            "PYTHONPATH": str(TESTS),
            "DJANGO_SETTINGS_MODULE": "settings_distributed",
            "SITEMAPKIT_TEST_DATABASE": "sqlite",
            "SITEMAPKIT_TEST_S3_STORAGE": json.dumps(s3_bucket),
            "TMPDIR": str(temporary),
        },
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        while not started.exists():
            assert killed.poll() is None, killed.communicate()
            assert time.monotonic() < deadline, "the build never started an upload"
            time.sleep(0.05)
    finally:
        killed.kill()
        killed.communicate()
    (staging,) = [
        entry.name
        for entry in temporary.iterdir()
        if entry.name != lookalike.name and entry.name.startswith("sitemapkit-")
    ]
    (left,) = [upload for upload in unfinished(client, bucket) if upload[1] not in others]
    assert left[0] in ("sitemap-pages-1.xml", "sitemap-pages-1.xml.gz")  # the first upload

    monkeypatch.setattr(tempfile, "tempdir", str(temporary))
    sources(PagesSource)
    build_to_storage()
    assert sorted(unfinished(client, bucket)) == sorted(
        (key, upload) for upload, key in others.items()
    )
    assert sorted(e.name for e in temporary.iterdir() if e.name.startswith("sitemapkit-")) == [
        lookalike.name
    ]
    assert (lookalike / "notes.txt").read_text() == "mine"
    assert staging not in os.listdir(temporary)
    assert "sitemap.xml" in objects(client, bucket)


def unfinished(client: Any, bucket: str) -> list[tuple[str, str]]:
    """The key and id of each multipart upload of ``bucket`` neither completed nor aborted."""
    found = []
    for page in client.get_paginator("list_multipart_uploads").paginate(Bucket=bucket):
        found += [(upload["Key"], upload["UploadId"]) for upload in page.get("Uploads", [])]
    return found
