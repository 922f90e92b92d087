from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path
from urllib.robotparser import RobotFileParser

import pytest
from django.test import Client, override_settings
from factories import ArticleFactory
from sitemap_xml import fetch, parse_index

from django_sitemapkit.robots import sitemap_lines

ROBOTS_TXT = b"User-agent: *\nDisallow:\n\nSitemap: https://www.example.com/sitemap.xml\n"


def test_sitemap_lines() -> None:
    assert sitemap_lines() == ["Sitemap: https://www.example.com/sitemap.xml"]


@override_settings(SITEMAPKIT_BASE_URL="http://localhost:8000/", FORCE_SCRIPT_NAME="/blog")
def test_sitemap_lines_follow_the_base_url_and_the_script_prefix() -> None:
    assert sitemap_lines() == ["Sitemap: http://localhost:8000/blog/sitemap.xml"]


@override_settings(ROOT_URLCONF="testapp.urls_subpath")
def test_sitemap_lines_name_the_index_where_it_is_mounted() -> None:
    assert sitemap_lines() == ["Sitemap: https://www.example.com/shop/sitemap.xml"]


def test_robots_txt(client: Client) -> None:
    # Never built on the Host header, which the view does not read.
    response = client.get("/robots.txt", headers={"host": "evil.example"})
    assert response.status_code == 200
    assert dict(response.headers) == {"Content-Type": "text/plain; charset=utf-8"}
    assert response.content == ROBOTS_TXT


def test_robots_txt_allows_everything_and_names_the_index(client: Client) -> None:
    parser = RobotFileParser()
    parser.parse(client.get("/robots.txt").content.decode().splitlines())
    assert parser.can_fetch("AnyBot", "https://www.example.com/articles/a/")
    assert parser.can_fetch("*", "https://www.example.com/")
    assert parser.site_maps() == ["https://www.example.com/sitemap.xml"]


def test_with_no_source_registered_no_index_is_named(
    client: Client, sources: Callable[..., None]
) -> None:
    # The index would be a 404 (test_views.py): a crawler is not sent to it.
    sources()
    assert sitemap_lines() == []
    response = client.get("/robots.txt")
    assert (response.status_code, response.content) == (200, b"User-agent: *\nDisallow:\n")


@pytest.mark.parametrize("mode", ["files", "files-or-database"])
def test_in_the_file_modes_a_built_index_is_named_while_it_is_there(
    sources: Callable[..., None], tmp_path: Path, mode: str
) -> None:
    # The views serve a built file whatever is registered.
    named = ["Sitemap: https://www.example.com/sitemap.xml"]
    with override_settings(SITEMAPKIT_SERVE=mode, SITEMAPKIT_OUTPUT_DIR=str(tmp_path)):
        assert sitemap_lines() == named  # sources registered: no file is looked for
        sources()
        assert sitemap_lines() == []
        (tmp_path / "sitemap.xml").write_bytes(b"<sitemapindex/>")
        assert sitemap_lines() == named


@pytest.mark.django_db
def test_the_named_index_is_served(client: Client) -> None:
    ArticleFactory.create(slug="a", updated_at=dt.datetime(2024, 3, 1, tzinfo=dt.timezone.utc))
    (line,) = sitemap_lines()
    status, body, _ = fetch(client, line.removeprefix("Sitemap: https://www.example.com"))
    assert status == 200
    assert parse_index(body) == [
        ("https://www.example.com/sitemap-articles-1.xml", "2024-03-01T00:00:00+00:00"),
        ("https://www.example.com/sitemap-pages-1.xml", None),
    ]


def test_head(client: Client) -> None:
    response = client.head("/robots.txt")
    assert response.status_code == 200
    assert response.content == b""
    assert response["Content-Type"] == "text/plain; charset=utf-8"


@pytest.mark.parametrize("method", ["post", "put", "delete", "patch"])
def test_unsafe_methods_are_405(client: Client, method: str) -> None:
    assert getattr(client, method)("/robots.txt").status_code == 405
