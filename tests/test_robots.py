from __future__ import annotations

import datetime as dt
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
