"""SITEMAPKIT_SERVE = "files" from django-storages' S3Storage on a real S3 endpoint
(moto's server, s3_endpoint.py): the responses, the requests each costs, and a 503
while the endpoint is down."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from django.core.files.storage import Storage, storages
from django.core.management import call_command
from django.http import HttpResponseBase
from django.test import Client, override_settings
from django.utils.http import http_date
from factories import bulk_articles
from s3_endpoint import S3Server
from s3_objects import epoch_ns, objects, requests_of, stamps
from sitemap_xml import streamed
from testapp.sitemaps import ArticleSource

pytestmark = [pytest.mark.django_db, pytest.mark.slow]
Sources = Callable[..., None]
XML = "application/xml; charset=utf-8"
PAGE = "sitemap-articles-1.xml"


@dataclass
class Served:
    alias: str
    storage: Storage
    bucket: str
    #: Every object of the bucket, and its LastModified and S3 ETag.
    stored: dict[str, bytes]
    stamps: dict[str, Any]

    def etag(self, key: str, suffix: str = "") -> str:
        modified_ns = epoch_ns(self.stamps[key][0])
        return f'"{modified_ns:x}-{len(self.stored[key]):x}{suffix}"'

    def last_modified(self, key: str) -> str:
        return http_date(self.stamps[key][0].timestamp())


@pytest.fixture
def served(sources: Sources, s3_bucket: dict[str, Any], s3_server: S3Server) -> Iterator[Served]:
    """A set of three articles built into the bucket, served from it."""
    sources(ArticleSource)
    bulk_articles(3)
    alias = f"s3-{uuid.uuid4().hex[:12]}"
    with override_settings(
        STORAGES={alias: s3_bucket}, SITEMAPKIT_STORAGE=alias, SITEMAPKIT_SERVE="files"
    ):
        call_command("build_sitemaps", verbosity=0)
        client, bucket = s3_server.client(), s3_bucket["OPTIONS"]["bucket_name"]
        stored = objects(client, bucket)
        yield Served(alias, storages[alias], bucket, stored, stamps(client, bucket, list(stored)))


def get(client: Client, path: str, **headers: str) -> tuple[HttpResponseBase, bytes]:
    response = client.get(path, headers=headers)
    return response, (streamed(response) if response.streaming else response.content)


def test_a_page_with_its_validators(client: Client, served: Served) -> None:
    xml = served.stored[PAGE]
    response, body = get(client, f"/{PAGE}")
    assert (response.status_code, body) == (200, xml)
    headers = {
        "Content-Type": XML,
        "X-Robots-Tag": "noindex",
        "Content-Length": str(len(xml)),
        "ETag": served.etag(PAGE),
        "Last-Modified": served.last_modified(PAGE),
        "Vary": "Accept-Encoding",
    }
    assert dict(response.headers) == headers
    head = client.head(f"/{PAGE}")
    assert (head.status_code, head.content, dict(head.headers)) == (200, b"", headers)
    for condition in [
        {"if-none-match": served.etag(PAGE)},
        {"if-modified-since": served.last_modified(PAGE)},
    ]:
        response, body = get(client, f"/{PAGE}", **condition)
        assert (response.status_code, body) == (304, b""), condition
        assert response["ETag"] == served.etag(PAGE)


def test_the_gzip_sibling(client: Client, served: Served) -> None:
    compressed = served.stored[f"{PAGE}.gz"]
    response, body = get(client, f"/{PAGE}", **{"accept-encoding": "gzip"})
    assert body == compressed
    assert dict(response.headers) == {
        "Content-Type": XML,
        "X-Robots-Tag": "noindex",
        "Content-Encoding": "gzip",
        "Content-Length": str(len(compressed)),
        "ETag": served.etag(f"{PAGE}.gz", "-gzip"),
        "Last-Modified": served.last_modified(f"{PAGE}.gz"),
        "Vary": "Accept-Encoding",
    }
    response, body = get(client, f"/{PAGE}", **{"accept-encoding": "gzip;q=0, identity"})
    assert (body, response.get("Content-Encoding")) == (served.stored[PAGE], None)
    # The .xml.gz URL: the file itself, whatever coding S3 keeps for the object.
    response, body = get(client, f"/{PAGE}.gz", **{"accept-encoding": "gzip"})
    assert body == compressed
    assert dict(response.headers) == {
        "Content-Type": "application/gzip",
        "X-Robots-Tag": "noindex",
        "Content-Length": str(len(compressed)),
        "ETag": served.etag(f"{PAGE}.gz"),
        "Last-Modified": served.last_modified(f"{PAGE}.gz"),
    }


def test_a_page_not_built_is_a_404(client: Client, served: Served) -> None:
    for path in ["/sitemap-articles-2.xml", "/sitemap-articles-2.xml.gz", "/sitemap-other-1.xml"]:
        assert client.get(path, headers={"accept-encoding": "gzip"}).status_code == 404, path


def test_requests_to_s3_per_response(client: Client, served: Served) -> None:
    """A HEAD of the file sent, and a GET if a body is: the size and validators come
    from them. (Through the Storage API alone, a response with a body took 6
    requests, or 7 for an .xml URL without gzip, and one without took 4 or 5.)"""
    cases: list[tuple[str, str, dict[str, str], int, list[tuple[str, str]]]] = [
        (
            "get",
            PAGE,
            {"accept-encoding": "gzip"},
            200,
            [("HEAD", f"{PAGE}.gz"), ("GET", f"{PAGE}.gz")],
        ),
        # Without gzip the sibling is looked for too, for Vary.
        ("get", PAGE, {}, 200, [("HEAD", f"{PAGE}.gz"), ("HEAD", PAGE), ("GET", PAGE)]),
        ("get", f"{PAGE}.gz", {}, 200, [("HEAD", f"{PAGE}.gz"), ("GET", f"{PAGE}.gz")]),
        ("head", PAGE, {"accept-encoding": "gzip"}, 200, [("HEAD", f"{PAGE}.gz")]),
        (
            "get",
            PAGE,
            {"if-none-match": served.etag(PAGE)},
            304,
            [("HEAD", f"{PAGE}.gz"), ("HEAD", PAGE)],
        ),
        ("get", "sitemap-articles-2.xml.gz", {}, 404, [("HEAD", "sitemap-articles-2.xml.gz")]),
    ]
    for method, name, headers, status, expected in cases:
        with requests_of(served.storage) as sent:
            response = getattr(client, method)(f"/{name}", headers=headers)
            if response.streaming:
                streamed(response)
        assert (response.status_code, [(r.method, r.key) for r in sent]) == (status, expected)
    # boto3 asks for the object's checksum with every GET (its default since
    # 1.36), and checks the body against it as it is read.
    with requests_of(served.storage) as sent:
        get(client, f"/{PAGE}.gz")
    assert sent[-1].method == "GET"
    assert sent[-1].headers["x-amz-checksum-mode"] == "ENABLED"


# -- the endpoint down -------------------------------------------------------------------


def test_a_storage_that_cannot_be_reached_gives_a_503(
    client: Client, served: Served, s3_server: S3Server, caplog: pytest.LogCaptureFixture
) -> None:
    with s3_server.down(), caplog.at_level(logging.ERROR, "django_sitemapkit"):
        response, body = get(client, "/sitemap.xml", **{"accept-encoding": "gzip"})
        head = client.head(f"/{PAGE}")
    assert (response.status_code, response["Retry-After"], body) == (
        503,
        "120",
        b"The sitemap is unavailable; try again later.\n",
    )
    assert (head.status_code, head["Retry-After"], head.content) == (503, "120", b"")
    url = f"{s3_server.endpoint_url}/{served.bucket}"
    logged = [
        (r.levelname, r.getMessage()) for r in caplog.records if r.name == "django_sitemapkit"
    ]
    assert logged == [
        (
            "ERROR",
            f"The sitemap index could not be read: storage {served.alias!r} raised "
            f'EndpointConnectionError: Could not connect to the endpoint URL: "{url}/'
            'sitemap.xml.gz". It is answered with 503 and Retry-After.',
        ),
        (
            "ERROR",
            f"Page 1 of sitemap source 'articles' could not be read: storage "
            f"{served.alias!r} raised EndpointConnectionError: Could not connect to the "
            f'endpoint URL: "{url}/{PAGE}.gz". It is answered with 503 and Retry-After.',
        ),
    ]
    # Back up: the same files again.
    assert get(client, "/sitemap.xml")[1] == served.stored["sitemap.xml"]


# -- a build that publishes between the HEAD and the GET ---------------------------------


def before_the_get(storage: Storage, act: Callable[[], None]) -> None:
    """Run ``act`` once, as the storage's next GET request goes out."""
    events = storage.connection.meta.client.meta.events  # type: ignore[attr-defined]

    def once(request: Any, **kwargs: Any) -> None:
        if request.method == "GET":
            events.unregister("before-send.s3", once)
            act()

    events.register("before-send.s3", once)


def test_an_object_replaced_after_its_head_goes_out_with_its_own_headers(
    client: Client, served: Served, s3_server: S3Server
) -> None:
    replacement = served.stored[PAGE].replace(b"</urlset>", b"<!-- new --></urlset>")
    s3 = s3_server.client()
    before_the_get(
        served.storage, lambda: s3.put_object(Bucket=served.bucket, Key=PAGE, Body=replacement)
    )
    response, body = get(client, f"/{PAGE}")
    # The HEAD said a file of the old size: the GET's own answer describes
    # the bytes sent.
    modified = s3.head_object(Bucket=served.bucket, Key=PAGE)["LastModified"]
    assert (response.status_code, body) == (200, replacement)
    assert response["Content-Length"] == str(len(replacement))
    assert response["ETag"] == f'"{epoch_ns(modified):x}-{len(replacement):x}"'


def test_an_object_deleted_after_its_head_is_a_404(
    client: Client, served: Served, s3_server: S3Server
) -> None:
    s3 = s3_server.client()
    before_the_get(served.storage, lambda: s3.delete_object(Bucket=served.bucket, Key=PAGE))
    assert client.get(f"/{PAGE}").status_code == 404


def test_a_subclass_that_opens_its_own_way_is_read_through_the_storage_api(
    client: Client, served: Served, s3_bucket: dict[str, Any]
) -> None:
    entry = {"BACKEND": "s3_storages.OwnOpen", "OPTIONS": s3_bucket["OPTIONS"]}
    with (
        override_settings(STORAGES={served.alias: entry}),
        requests_of(storages[served.alias]) as sent,
    ):
        response, body = get(client, f"/{PAGE}.gz")
    assert (response.status_code, body) == (200, served.stored[f"{PAGE}.gz"])
    # exists(), open(), size(), get_modified_time(), the download's HEAD and GET.
    assert [r.method for r in sent] == ["HEAD"] * 5 + ["GET"]


# S3File's GzipFile does not close the temporary file it decompresses from,
# left to the garbage collector (django-storages 1.14).
@pytest.mark.filterwarnings("ignore:unclosed file <tempfile.SpooledTemporaryFile:ResourceWarning")
def test_with_gzip_on_what_the_storage_compressed_is_read_through_its_api(
    client: Client, served: Served, s3_bucket: dict[str, Any], s3_server: S3Server
) -> None:
    s3 = s3_server.client()
    for key in served.stored:
        s3.delete_object(Bucket=served.bucket, Key=key)
    options = {**s3_bucket["OPTIONS"], "gzip": True}
    options["gzip_content_types"] = ("application/xml", "text/xml")
    entry = {"BACKEND": s3_bucket["BACKEND"], "OPTIONS": options}
    with override_settings(STORAGES={served.alias: entry}):
        call_command("build_sitemaps", verbosity=0)
        # The storage compressed the .xml files on upload; the .gz ones it keeps.
        codings = {
            key: s3.head_object(Bucket=served.bucket, Key=key).get("ContentEncoding")
            for key in [PAGE, f"{PAGE}.gz"]
        }
        assert codings == {PAGE: "gzip", f"{PAGE}.gz": "gzip"}
        assert objects(s3, served.bucket)[f"{PAGE}.gz"] == served.stored[f"{PAGE}.gz"]
        with requests_of(storages[served.alias]) as sent:
            response, body = get(client, f"/{PAGE}.gz")
        # The .gz file as it is stored (the storage's own read would decompress it).
        assert (response.status_code, body) == (200, served.stored[f"{PAGE}.gz"])
        assert [r.method for r in sent] == ["HEAD", "GET"]
        with requests_of(storages[served.alias]) as sent:
            response, body = get(client, f"/{PAGE}")
    # The .xml file as the storage reads it, decompressed.
    assert (response.status_code, body) == (200, served.stored[PAGE])
    assert response["Content-Length"] == str(len(served.stored[PAGE]))
    # The sibling for Vary, the HEAD that found a compressed object, then the
    # Storage API's four HEAD requests and its download's HEAD and GET.
    assert [r.method for r in sent] == ["HEAD"] * 7 + ["GET"]
