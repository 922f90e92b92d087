"""A storage that fails while the views read the built files from it: 503 and
Retry-After, one error logged; a file gone meanwhile stays a 404; robots.txt still
answers. (tests/test_serving_s3.py does the same with an S3 endpoint that is down.)"""

from __future__ import annotations

import io
import logging
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.conf import settings
from django.core.exceptions import SuspiciousFileOperation
from django.core.files import File
from django.core.files.base import ContentFile
from django.core.files.storage import InMemoryStorage, storages
from django.test import Client, RequestFactory, override_settings

from django_sitemapkit.sites.hosts import default_site
from django_sitemapkit.views.serving import file_response

pytestmark = pytest.mark.django_db
Sources = Callable[..., None]
UNAVAILABLE = b"The sitemap is unavailable; try again later.\n"


class Failing(InMemoryStorage):
    """An in-memory storage whose ``failing`` methods raise as a server that is down."""

    failing: set[str] = set()

    def fail(self, method: str) -> None:
        if method in self.failing:
            raise ConnectionRefusedError(111, "Connection refused")

    def exists(self, name: str) -> bool:
        self.fail("exists")
        return super().exists(name)

    def open(self, name: str, mode: str = "rb") -> File[Any]:
        self.fail("open")
        if "read" in self.failing:
            return File(Unreadable(), name=name)
        return super().open(name, mode)

    def size(self, name: str) -> int:
        if "size" in self.failing:
            raise FileNotFoundError(name)  # deleted since exists()
        return super().size(name)


class Unreadable(io.BytesIO):
    """A file that fails when it is first read or measured, as a remote one that is
    fetched only then."""

    def seekable(self) -> bool:
        raise ConnectionResetError(104, "Connection reset by peer")

    def read(self, size: int | None = -1) -> bytes:
        raise ConnectionResetError(104, "Connection reset by peer")


@pytest.fixture
def storage(request: pytest.FixtureRequest) -> Iterator[Failing]:
    stores = {**settings.STORAGES, "sitemaps": {"BACKEND": f"{__name__}.Failing"}}
    with override_settings(
        STORAGES=stores, SITEMAPKIT_STORAGE="sitemaps", SITEMAPKIT_SERVE="files"
    ):
        stored: Failing = storages["sitemaps"]  # type: ignore[assignment]
        stored.failing = set()
        for name in ["sitemap.xml", "sitemap-articles-1.xml"]:
            stored.save(name, ContentFile(b"<?xml built?>"))
        yield stored


def logged(caplog: pytest.LogCaptureFixture) -> list[tuple[str, str]]:
    return [(r.levelname, r.getMessage()) for r in caplog.records if r.name == "django_sitemapkit"]


@pytest.mark.parametrize(
    ("failing", "error"),
    [
        ({"exists"}, "ConnectionRefusedError: [Errno 111] Connection refused"),
        ({"open"}, "ConnectionRefusedError: [Errno 111] Connection refused"),
        ({"read"}, "ConnectionResetError: [Errno 104] Connection reset by peer"),
    ],
)
def test_a_storage_that_fails_gives_a_503(
    client: Client,
    storage: Failing,
    caplog: pytest.LogCaptureFixture,
    failing: set[str],
    error: str,
) -> None:
    storage.failing = failing
    response = client.get("/sitemap-articles-1.xml")
    assert (response.status_code, response["Retry-After"], response.content) == (
        503,
        "120",
        UNAVAILABLE,
    )
    assert logged(caplog) == [
        (
            "ERROR",
            f"Page 1 of sitemap source 'articles' could not be read: storage 'sitemaps' "
            f"raised {error}. It is answered with 503 and Retry-After.",
        )
    ]


def test_head_gets_the_503_without_a_body(client: Client, storage: Failing) -> None:
    storage.failing = {"exists"}
    response = client.head("/sitemap.xml")
    assert (response.status_code, response["Retry-After"], response.content) == (503, "120", b"")


def test_files_or_database_does_not_fall_back_to_the_database(
    client: Client, storage: Failing
) -> None:
    # Whether a set is built cannot be told: the database's pages, cut by
    # position, would not be the set's, so neither is served.
    storage.failing = {"exists"}
    with override_settings(SITEMAPKIT_SERVE="files-or-database"):
        response = client.get("/sitemap-pages-1.xml")
    assert (response.status_code, response.content) == (503, UNAVAILABLE)


def test_a_file_deleted_while_it_is_opened_is_a_404(client: Client, storage: Failing) -> None:
    storage.failing = {"size"}
    assert client.get("/sitemap.xml").status_code == 404


def test_a_bad_name_is_refused_before_the_storage_is_asked(storage: Failing) -> None:
    storage.failing = {"exists", "open"}
    request = RequestFactory().get("/")
    with pytest.raises(SuspiciousFileOperation, match=r"^'\.\./x\.xml' is not the name of a "):
        file_response(request, "../x.xml", default_site())


def test_robots_txt_still_answers(
    client: Client, storage: Failing, sources: Sources, caplog: pytest.LogCaptureFixture
) -> None:
    # No source registered: only a built index would be named, and whether
    # there is one cannot be told. A robots.txt that fails would stop crawlers.
    sources()
    storage.failing = {"exists"}
    with caplog.at_level(logging.ERROR, "django_sitemapkit"):
        response = client.get("/robots.txt")
    assert (response.status_code, response.content) == (200, b"User-agent: *\nDisallow:\n")
    assert logged(caplog) == [
        (
            "ERROR",
            "robots.txt names no sitemap: the built index was not found: storage 'sitemaps' "
            "raised ConnectionRefusedError: [Errno 111] Connection refused.",
        )
    ]
