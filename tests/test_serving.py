"""SITEMAPKIT_SERVE = "files" and "files-or-database": the views answer from built files."""

from __future__ import annotations

import datetime as dt
import gzip
import io
import os
import socket
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured, SuspiciousFileOperation
from django.core.files import File
from django.core.files.base import ContentFile
from django.core.files.storage import FileSystemStorage, InMemoryStorage, storages
from django.db import connection
from django.http import FileResponse, HttpResponseBase
from django.test import Client, RequestFactory, override_settings
from django.test.utils import CaptureQueriesContext
from django.utils.http import http_date
from factories import ArticleFactory
from sitemap_xml import Url, fetch, parse_index, parse_urlset, streamed

from django_sitemapkit.encoding.compression import gzip_stream
from django_sitemapkit.sites.hosts import default_site
from django_sitemapkit.views.http import NO_SOURCES
from django_sitemapkit.views.negotiation import accepts_gzip
from django_sitemapkit.views.serving import file_response

pytestmark = pytest.mark.django_db
SITE = "https://www.example.com"
UPDATED = dt.datetime(2024, 2, 20, 8, 30, tzinfo=dt.timezone.utc)
# 2024-03-01 10:00:00.123456789 UTC, the modification time of every built file.
MTIME_NS = 1_709_287_200_123_456_789
MTIME_HEX = "17b89ba6fe7b0d15"
LAST_MODIFIED = "Fri, 01 Mar 2024 10:00:00 GMT"
DOCUMENTS = ["sitemap.xml", "sitemap-articles-1.xml", "sitemap-pages-1.xml"]
XML = "application/xml; charset=utf-8"
EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)


def write(directory: Path, name: str, content: bytes, mtime_ns: int = MTIME_NS) -> Path:
    """A file as build_sitemaps leaves it: mode 0644, with a known modification time."""
    path = directory / name
    path.write_bytes(content)
    path.chmod(0o644)
    os.utime(path, ns=(mtime_ns, mtime_ns))
    return path


def gzipped(content: bytes) -> bytes:
    return b"".join(gzip_stream([content]))


def database_documents(client: Client) -> dict[str, bytes]:
    """What the database views serve, under the names of the built files."""
    documents = {}
    for name in DOCUMENTS:
        status, body, _ = fetch(client, f"/{name}")
        assert status == 200
        documents[name] = body
    return documents


@pytest.fixture
def built(client: Client, tmp_path: Path) -> Path:
    """A directory of built files, made from the database views' bodies: every
    document and its .gz sibling."""
    ArticleFactory.create(slug="a", updated_at=UPDATED)
    directory = tmp_path / "sitemaps"
    directory.mkdir()
    for name, body in database_documents(client).items():
        write(directory, name, body)
        write(directory, name + ".gz", gzipped(body))
    return directory


@pytest.fixture
def files(built: Path) -> Iterator[Path]:
    with override_settings(SITEMAPKIT_SERVE="files", SITEMAPKIT_OUTPUT_DIR=str(built)):
        yield built


def get(client: Client, path: str, **headers: str) -> tuple[HttpResponseBase, bytes]:
    """The response and its whole body (which also closes the file)."""
    response = client.get(path, headers=headers)
    return response, (streamed(response) if response.streaming else response.content)


def gzipped_index(directory: Path) -> bytes:
    return (directory / "sitemap.xml.gz").read_bytes()


def file_etag(content: bytes, suffix: str = "") -> str:
    return f'"{MTIME_HEX}-{len(content):x}{suffix}"'


# -- the .xml files ------------------------------------------------------------------


@pytest.mark.parametrize("name", DOCUMENTS)
def test_xml_is_the_built_file_and_no_query_is_made(client: Client, files: Path, name: str) -> None:
    xml = (files / name).read_bytes()
    with CaptureQueriesContext(connection) as queries:
        response, body = get(client, f"/{name}")
    assert queries.captured_queries == []
    assert isinstance(response, FileResponse)
    assert body == xml
    assert dict(response.headers) == {
        "Content-Type": XML,
        "X-Robots-Tag": "noindex",
        "Content-Length": str(len(xml)),
        "ETag": file_etag(xml),
        "Last-Modified": LAST_MODIFIED,
        "Vary": "Accept-Encoding",
    }


def test_built_files_are_valid_documents(client: Client, files: Path) -> None:
    assert parse_index(get(client, "/sitemap.xml")[1]) == [
        (f"{SITE}/sitemap-articles-1.xml", "2024-02-20T08:30:00+00:00"),
        (f"{SITE}/sitemap-pages-1.xml", None),
    ]
    assert parse_urlset(get(client, "/sitemap-articles-1.xml")[1]) == [
        Url(f"{SITE}/articles/a/", "2024-02-20T08:30:00+00:00", "weekly", "0.6")
    ]


@pytest.mark.parametrize(
    "accept",
    ["gzip", "gzip, deflate, br", "br;q=1.0, gzip;q=0.8, *;q=0.1", "*", "GZIP", "x-gzip"],
)
def test_gzip_sibling_goes_to_clients_that_accept_it(
    client: Client, files: Path, accept: str
) -> None:
    xml = (files / "sitemap-articles-1.xml").read_bytes()
    compressed = (files / "sitemap-articles-1.xml.gz").read_bytes()
    response, body = get(client, "/sitemap-articles-1.xml", **{"accept-encoding": accept})
    assert body == compressed
    assert gzip.decompress(body) == xml
    assert parse_urlset(gzip.decompress(body)) == [
        Url(f"{SITE}/articles/a/", "2024-02-20T08:30:00+00:00", "weekly", "0.6")
    ]
    assert dict(response.headers) == {
        "Content-Type": XML,
        "Content-Encoding": "gzip",
        "X-Robots-Tag": "noindex",
        "Content-Length": str(len(compressed)),
        "ETag": file_etag(compressed, "-gzip"),
        "Last-Modified": LAST_MODIFIED,
        "Vary": "Accept-Encoding",
    }


@pytest.mark.parametrize(
    "accept",
    [
        None,
        "",
        "identity",
        "deflate, br",
        "gzip;q=0",
        "gzip;q=0.000",
        "gzip;Q=0",
        "*;q=0",
        "*, gzip;q=0",
        "gzip;q=0.5, identity",
    ],
)
def test_plain_file_goes_to_clients_that_do_not(
    client: Client, files: Path, accept: str | None
) -> None:
    xml = (files / "sitemap.xml").read_bytes()
    headers = {} if accept is None else {"accept-encoding": accept}
    response, body = get(client, "/sitemap.xml", **headers)
    assert body == xml
    assert dict(response.headers) == {
        "Content-Type": XML,
        "X-Robots-Tag": "noindex",
        "Content-Length": str(len(xml)),
        "ETag": file_etag(xml),
        "Last-Modified": LAST_MODIFIED,
        # The other variant exists, so caches must tell them apart.
        "Vary": "Accept-Encoding",
    }


@pytest.mark.parametrize(
    ("header", "accepted"),
    [
        (None, False),
        ("", False),
        ("gzip", True),
        ("Gzip", True),
        ("x-gzip", True),
        ("deflate, gzip", True),
        (" , gzip ;q=0.001", True),
        ("gzip; q=1.000", True),
        ("gzip ; q = 0", False),
        ("gzip;q=0.", False),
        ("*", True),
        ("*;q=0.5", True),
        ("*;q=0.5, identity;q=1", False),
        ("gzip;q=0.5, *;q=0.9", False),
        ("gzip;q=0.8, deflate", True),
        ("gzip;q=0.5, identity;q=0.5", True),
        ("identity;q=0", False),
        ("identity;q=0, *;q=0.1", True),
        ("gzip, gzip;q=0", True),
        ("gzip;q=1.5", False),
        ("gzip;q=-1", False),
        ("gzip;q=0.0001", False),
        ("gzip;q=abc, *", True),
        ("br", False),
    ],
)
def test_accept_encoding_is_read_by_rfc_9110(header: str | None, accepted: bool) -> None:
    assert accepts_gzip(header) is accepted


def test_without_a_sibling_the_file_is_sent_plain_and_without_vary(
    client: Client, files: Path
) -> None:
    (files / "sitemap.xml.gz").unlink()
    xml = (files / "sitemap.xml").read_bytes()
    response, body = get(client, "/sitemap.xml", **{"accept-encoding": "gzip"})
    assert body == xml
    assert dict(response.headers) == {
        "Content-Type": XML,
        "X-Robots-Tag": "noindex",
        "Content-Length": str(len(xml)),
        "ETag": file_etag(xml),
        "Last-Modified": LAST_MODIFIED,
    }


# -- the .xml.gz files -----------------------------------------------------------------


@pytest.mark.parametrize("name", DOCUMENTS)
@pytest.mark.parametrize("accept", [None, "gzip"])
def test_xml_gz_is_the_built_gz_file(
    client: Client, files: Path, name: str, accept: str | None
) -> None:
    compressed = (files / f"{name}.gz").read_bytes()
    headers = {} if accept is None else {"accept-encoding": accept}
    response, body = get(client, f"/{name}.gz", **headers)
    assert body == compressed
    assert gzip.decompress(body) == (files / name).read_bytes()
    # The file itself: no Content-Encoding, and one variant only, so no Vary.
    assert dict(response.headers) == {
        "Content-Type": "application/gzip",
        "X-Robots-Tag": "noindex",
        "Content-Length": str(len(compressed)),
        "ETag": file_etag(compressed),
        "Last-Modified": LAST_MODIFIED,
    }


def test_xml_gz_round_trip_gives_a_valid_document(client: Client, files: Path) -> None:
    body = get(client, "/sitemap.xml.gz")[1]
    assert parse_index(gzip.decompress(body)) == parse_index(get(client, "/sitemap.xml")[1])


# -- conditional requests and HEAD ---------------------------------------------------


def test_conditional_get(client: Client, files: Path) -> None:
    response, _ = get(client, "/sitemap-articles-1.xml")
    etag = response["ETag"]
    not_modified = client.get("/sitemap-articles-1.xml", headers={"if-none-match": etag})
    assert not_modified.status_code == 304
    # RFC 9110 section 15.4.5: the validators and Vary a 200 would have had.
    assert dict(not_modified.headers) == {
        "ETag": etag,
        "Last-Modified": LAST_MODIFIED,
        "Vary": "Accept-Encoding",
    }
    since = client.get("/sitemap-articles-1.xml", headers={"if-modified-since": LAST_MODIFIED})
    assert since.status_code == 304
    older, _ = get(
        client, "/sitemap-articles-1.xml", **{"if-modified-since": "Fri, 01 Mar 2024 09:59:59 GMT"}
    )
    assert older.status_code == 200


def test_each_variant_has_its_own_validator(client: Client, files: Path) -> None:
    plain, _ = get(client, "/sitemap.xml")
    encoded, _ = get(client, "/sitemap.xml", **{"accept-encoding": "gzip"})
    assert plain["ETag"] != encoded["ETag"]
    mismatched, _ = get(
        client, "/sitemap.xml", **{"accept-encoding": "gzip", "if-none-match": plain["ETag"]}
    )
    assert mismatched.status_code == 200
    matched = client.get(
        "/sitemap.xml", headers={"accept-encoding": "gzip", "if-none-match": encoded["ETag"]}
    )
    assert matched.status_code == 304
    assert matched["ETag"] == encoded["ETag"]
    gz = client.get("/sitemap.xml.gz", headers={"if-none-match": file_etag(gzipped_index(files))})
    assert gz.status_code == 304


def test_a_new_build_changes_the_validators(client: Client, files: Path) -> None:
    old, _ = get(client, "/sitemap.xml")
    renamed = write(files, ".sitemap.xml.new", b"<?xml changed?>", MTIME_NS + 1_000_000_000)
    renamed.replace(files / "sitemap.xml")
    response, body = get(client, "/sitemap.xml", **{"if-none-match": old["ETag"]})
    assert response.status_code == 200
    assert body == b"<?xml changed?>"
    assert response["ETag"] == '"17b89ba73a15d715-f"'
    assert response["Last-Modified"] == "Fri, 01 Mar 2024 10:00:01 GMT"


@pytest.mark.parametrize(
    ("path", "accept"),
    [("/sitemap.xml", None), ("/sitemap.xml", "gzip"), ("/sitemap-pages-1.xml.gz", None)],
)
def test_head_has_the_headers_of_get_and_no_body(
    client: Client, files: Path, path: str, accept: str | None
) -> None:
    headers = {} if accept is None else {"accept-encoding": accept}
    response, _ = get(client, path, **headers)
    head = client.head(path, headers=headers)
    assert head.status_code == 200
    assert head.content == b""
    assert dict(head.headers) == dict(response.headers)


def test_head_answers_conditional_requests_too(client: Client, files: Path) -> None:
    etag = get(client, "/sitemap.xml")[0]["ETag"]
    assert client.head("/sitemap.xml", headers={"if-none-match": etag}).status_code == 304


@pytest.mark.parametrize("accept", [None, "gzip"])
def test_the_index_s_304_is_the_built_file_s_and_reads_no_table(
    client: Client, files: Path, accept: str | None
) -> None:
    # The built index's validator is its file's (its time and size, which a build
    # leaves as they are while its bytes are unchanged): rows the database view would
    # count change nothing, and no section's table is read.
    ArticleFactory.create_batch(3)
    headers = {} if accept is None else {"accept-encoding": accept}
    etag = get(client, "/sitemap.xml", **headers)[0]["ETag"]
    built = (files / ("sitemap.xml" if accept is None else "sitemap.xml.gz")).read_bytes()
    assert etag == file_etag(built, "" if accept is None else "-gzip")
    with CaptureQueriesContext(connection) as queries:
        response = client.get("/sitemap.xml", headers={**headers, "if-none-match": etag})
    assert response.status_code == 304
    assert queries.captured_queries == []


# -- missing files ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("missing", "path"),
    [
        ("sitemap-articles-1.xml", "/sitemap-articles-1.xml"),
        ("sitemap-articles-1.xml.gz", "/sitemap-articles-1.xml.gz"),
        ("sitemap.xml", "/sitemap.xml"),
        ("sitemap.xml.gz", "/sitemap.xml.gz"),
        (None, "/sitemap-articles-2.xml"),
        (None, "/sitemap-nope-1.xml"),
    ],
)
def test_missing_file_is_404_without_a_database_scan(
    client: Client, files: Path, missing: str | None, path: str
) -> None:
    if missing is not None:
        (files / missing).unlink()
    ArticleFactory.create_batch(3)  # rows the database view would list
    with CaptureQueriesContext(connection) as queries:
        response = client.get(path)
    assert response.status_code == 404
    assert queries.captured_queries == []


def test_with_no_source_registered_built_files_are_still_served(
    client: Client, files: Path, sources: Callable[..., None]
) -> None:
    # The views answer from what the build wrote, whatever is registered.
    sources()
    assert get(client, "/sitemap.xml")[1] == (files / "sitemap.xml").read_bytes()


@pytest.mark.parametrize("mode", ["files", "files-or-database"])
def test_with_no_source_registered_a_missing_file_is_a_404_that_says_so(
    client: Client, files: Path, sources: Callable[..., None], mode: str
) -> None:
    sources()
    (files / "sitemap-articles-1.xml").unlink()
    with override_settings(SITEMAPKIT_SERVE=mode):
        response = client.get("/sitemap-articles-1.xml")
    assert (response.status_code, response.content.decode()) == (404, NO_SOURCES + "\n")


def test_missing_gz_sibling_and_a_client_that_wants_plain_xml(client: Client, files: Path) -> None:
    (files / "sitemap.xml").unlink()
    assert client.get("/sitemap.xml").status_code == 404
    response, body = get(client, "/sitemap.xml", **{"accept-encoding": "gzip"})
    assert response.status_code == 200
    assert body == gzipped_index(files)


@pytest.mark.parametrize("path", ["/sitemap-articles-1.xml", "/sitemap-articles-1.xml.gz"])
def test_files_or_database_never_mixes_a_built_set_with_database_pages(
    client: Client, built: Path, path: str
) -> None:
    # A built set is cut by key range, the database's pages by position: a file
    # missing from a set is a 404, never the database's page of that number.
    for name in ["sitemap-articles-1.xml", "sitemap-articles-1.xml.gz"]:
        (built / name).unlink()
    with override_settings(SITEMAPKIT_SERVE="files-or-database", SITEMAPKIT_OUTPUT_DIR=str(built)):
        response, _ = get(client, path)
        assert response.status_code == 404
        served = get(client, "/sitemap.xml")
        assert isinstance(served[0], FileResponse)
        assert served[1] == (built / "sitemap.xml").read_bytes()


@pytest.mark.parametrize(
    "path", ["/sitemap.xml", "/sitemap-articles-1.xml", "/sitemap-articles-1.xml.gz"]
)
def test_files_or_database_answers_from_the_database_while_nothing_is_built(
    client: Client, tmp_path: Path, path: str
) -> None:
    ArticleFactory.create(slug="a", updated_at=UPDATED)
    database = fetch(client, path)
    empty = tmp_path / "not-built-yet"
    empty.mkdir()
    with override_settings(SITEMAPKIT_SERVE="files-or-database", SITEMAPKIT_OUTPUT_DIR=str(empty)):
        response, body = get(client, path)
        assert not isinstance(response, FileResponse)
        assert response["ETag"].startswith('W/"')
        assert (response.status_code, body, dict(response.headers)) == database


@pytest.mark.parametrize("method", ["post", "put", "delete", "patch", "options"])
def test_unsafe_methods_are_405(client: Client, files: Path, method: str) -> None:
    for path in ["/sitemap.xml", "/sitemap.xml.gz", "/sitemap-articles-1.xml"]:
        assert getattr(client, method)(path).status_code == 405


def test_robots_header(client: Client, files: Path) -> None:
    for path in ["/sitemap.xml", "/sitemap.xml.gz", "/sitemap-articles-1.xml"]:
        assert get(client, path)[0]["X-Robots-Tag"] == "noindex"
    with override_settings(SITEMAPKIT_X_ROBOTS_TAG=None):
        assert "X-Robots-Tag" not in get(client, "/sitemap.xml")[0]


def test_files_mode_needs_a_place_to_read(client: Client) -> None:
    with (
        override_settings(SITEMAPKIT_SERVE="files"),
        pytest.raises(ImproperlyConfigured) as info,
    ):
        client.get("/sitemap.xml")
    assert str(info.value) == (
        "SITEMAPKIT_SERVE is 'files' but neither SITEMAPKIT_OUTPUT_DIR nor "
        "SITEMAPKIT_STORAGE is set, so there are no files to serve."
    )


# -- nothing outside the directory -------------------------------------------------


@pytest.mark.parametrize(
    "name",
    ["../sitemap.xml", "/etc/passwd", "a/sitemap.xml", "a\\sitemap.xml", "..", ".", "", "C:x"],
)
def test_names_that_could_leave_the_directory_are_refused(files: Path, name: str) -> None:
    with pytest.raises(SuspiciousFileOperation):
        file_response(RequestFactory().get("/"), name, default_site())


def test_a_symbolic_link_is_not_followed(client: Client, files: Path, tmp_path: Path) -> None:
    secret = write(tmp_path, "secret.xml", b"secret")  # next to the directory, not in it
    for name in ["sitemap.xml", "sitemap.xml.gz"]:
        (files / name).unlink()
        (files / name).symlink_to(secret)
    assert client.get("/sitemap.xml").status_code == 404
    assert client.get("/sitemap.xml", headers={"accept-encoding": "gzip"}).status_code == 404
    assert client.get("/sitemap.xml.gz").status_code == 404


def test_only_regular_files_are_served(client: Client, files: Path) -> None:
    (files / "sitemap.xml").unlink()
    (files / "sitemap.xml").mkdir()
    (files / "sitemap.xml.gz").unlink()
    if hasattr(os, "mkfifo"):
        # Opening a FIFO for reading would wait for a writer: it must not.
        os.mkfifo(files / "sitemap.xml.gz")
    assert client.get("/sitemap.xml").status_code == 404
    assert client.get("/sitemap.xml", headers={"accept-encoding": "gzip"}).status_code == 404
    assert client.get("/sitemap.xml.gz").status_code == 404


def test_a_unix_socket_is_not_a_built_file(client: Client, files: Path) -> None:
    # open(2) of a socket fails with ENXIO: found by the security review as a 500.
    (files / "sitemap.xml").unlink()
    (files / "sitemap.xml.gz").unlink()
    with socket.socket(socket.AF_UNIX) as listening:
        listening.bind(str(files / "sitemap.xml"))
        assert client.get("/sitemap.xml").status_code == 404


def test_a_file_system_storage_gets_the_same_refusals(
    client: Client, built: Path, tmp_path: Path
) -> None:
    # Found by the security review: through the Storage API, a link to any
    # file was served, a directory was a 500 and a FIFO hung the worker.
    secret = write(tmp_path, "secret.xml", b"secret")
    (built / "sitemap.xml.gz").unlink()
    (built / "sitemap.xml.gz").symlink_to(secret)
    (built / "sitemap-articles-1.xml").unlink()
    (built / "sitemap-articles-1.xml").mkdir()
    (built / "sitemap-pages-1.xml").unlink()
    os.mkfifo(built / "sitemap-pages-1.xml")
    with with_storage("django.core.files.storage.FileSystemStorage", location=str(built)):
        for path in ["/sitemap.xml.gz", "/sitemap-articles-1.xml", "/sitemap-pages-1.xml"]:
            assert client.get(path).status_code == 404, path


class Reversed(FileSystemStorage):
    """A storage that keeps its files transformed (here, reversed) on the disk."""

    def _open(self, name: str, mode: str = "rb") -> File[bytes]:
        with open(self.path(name), "rb") as stored:
            return File(io.BytesIO(stored.read()[::-1]), name=name)


def test_a_file_system_storage_that_reads_its_own_way_is_read_through_its_api(
    client: Client, built: Path
) -> None:
    xml = (built / "sitemap.xml").read_bytes()
    (built / "sitemap.xml").write_bytes(xml[::-1])
    with with_storage(f"{__name__}.Reversed", location=str(built)):
        assert get(client, "/sitemap.xml")[1] == xml


# -- storages ----------------------------------------------------------------------------


class NoTimesStorage(InMemoryStorage):
    """A storage that cannot tell when a file changed."""

    def get_modified_time(self, name: str) -> dt.datetime:
        raise NotImplementedError


def with_storage(backend: str, **options: Any) -> override_settings:
    return override_settings(
        STORAGES={**settings.STORAGES, "sitemaps": {"BACKEND": backend, "OPTIONS": options}},
        SITEMAPKIT_SERVE="files",
        SITEMAPKIT_STORAGE="sitemaps",
    )


def storage_etag(name: str, content: bytes, suffix: str = "") -> str:
    modified = storages["sitemaps"].get_modified_time(name)
    nanoseconds = (modified - EPOCH) // dt.timedelta(microseconds=1) * 1_000
    return f'"{nanoseconds:x}-{len(content):x}{suffix}"'


def storage_last_modified(name: str) -> str:
    return http_date(storages["sitemaps"].get_modified_time(name).timestamp())


def test_in_memory_storage(client: Client) -> None:
    ArticleFactory.create(slug="a", updated_at=UPDATED)
    documents = database_documents(client)
    with with_storage("django.core.files.storage.InMemoryStorage"):
        for name, body in documents.items():
            storages["sitemaps"].save(name, ContentFile(body))
            storages["sitemaps"].save(name + ".gz", ContentFile(gzipped(body)))
        xml = documents["sitemap-articles-1.xml"]
        compressed = gzipped(xml)
        response, body = get(client, "/sitemap-articles-1.xml")
        assert body == xml
        assert parse_urlset(body) == [
            Url(f"{SITE}/articles/a/", "2024-02-20T08:30:00+00:00", "weekly", "0.6")
        ]
        assert dict(response.headers) == {
            "Content-Type": XML,
            "X-Robots-Tag": "noindex",
            "Content-Length": str(len(xml)),
            "ETag": storage_etag("sitemap-articles-1.xml", xml),
            "Last-Modified": storage_last_modified("sitemap-articles-1.xml"),
            "Vary": "Accept-Encoding",
        }
        response, body = get(client, "/sitemap-articles-1.xml", **{"accept-encoding": "gzip"})
        assert gzip.decompress(body) == xml
        assert dict(response.headers) == {
            "Content-Type": XML,
            "Content-Encoding": "gzip",
            "X-Robots-Tag": "noindex",
            "Content-Length": str(len(compressed)),
            "ETag": storage_etag("sitemap-articles-1.xml.gz", compressed, "-gzip"),
            "Last-Modified": storage_last_modified("sitemap-articles-1.xml.gz"),
            "Vary": "Accept-Encoding",
        }
        response, body = get(client, "/sitemap-articles-1.xml.gz")
        assert (body, response["Content-Type"]) == (compressed, "application/gzip")
        assert "Content-Encoding" not in response
        etag = response["ETag"]
        not_modified = client.get("/sitemap-articles-1.xml.gz", headers={"if-none-match": etag})
        assert not_modified.status_code == 304
        assert client.head("/sitemap.xml").content == b""
        assert client.get("/sitemap-articles-2.xml").status_code == 404


def test_file_system_storage(client: Client, built: Path) -> None:
    xml = (built / "sitemap.xml").read_bytes()
    with with_storage("django.core.files.storage.FileSystemStorage", location=str(built)):
        response, body = get(client, "/sitemap.xml")
        assert body == xml
        # Served as a directory is: validators from the file itself.
        assert dict(response.headers) == {
            "Content-Type": XML,
            "X-Robots-Tag": "noindex",
            "Content-Length": str(len(xml)),
            "ETag": file_etag(xml),
            "Last-Modified": LAST_MODIFIED,
            "Vary": "Accept-Encoding",
        }
        (built / "sitemap-pages-1.xml").unlink()
        assert client.get("/sitemap-pages-1.xml").status_code == 404


def test_output_dir_comes_first_like_for_build_sitemaps(client: Client, files: Path) -> None:
    with with_storage("django.core.files.storage.InMemoryStorage"):
        storages["sitemaps"].save("sitemap.xml", ContentFile(b"<?xml elsewhere?>"))
        # Both set is an error (sitemapkit.E021); the files served are still
        # the ones the command wrote.
        assert get(client, "/sitemap.xml")[1] == (files / "sitemap.xml").read_bytes()


def test_storage_that_cannot_tell_the_time_sends_no_validators(client: Client) -> None:
    with with_storage(f"{__name__}.NoTimesStorage"):
        storages["sitemaps"].save("sitemap.xml", ContentFile(b"<?xml plain?>"))
        response, body = get(client, "/sitemap.xml")
        assert body == b"<?xml plain?>"
        # Size alone is no validator: no ETag, and no Last-Modified.
        assert dict(response.headers) == {
            "Content-Type": XML,
            "Content-Length": "13",
            "X-Robots-Tag": "noindex",
        }
