"""A source class is the project's namespace: only the documented names mean anything."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client
from factories import bulk_articles
from sitemap_xml import parse_index, parse_urlset
from testapp.sitemaps import ArticleSource, PagesSource

from django_sitemapkit import SitemapSource, StaticSource
from django_sitemapkit.sources.declaration import DECLARED, HOOKS, QUERYSET_DECLARED

pytestmark = pytest.mark.django_db

SITE = "https://www.example.com"

# Names the engine used on a source's class before it had a plan of its own:
# declaring any of them broke a page, a build or `manage.py check`.
PROJECT_NAMES: dict[str, Any] = {
    "count": 10,
    "key": "slug",
    "fetch": "https://api.example.com/",
    "columns": ["title"],
    "database": "replica",
    "page_size": 1_000,
    "order_by": ["-pk"],
    "entries": 10,
    "skip": True,
    "read": "r",
    "model": None,
    "pages": ["/x/"],
    "plan": {"a": 1},
    "items": [1, 2, 3],
}


def helper(name: str) -> Any:
    def method(self: Any, *args: Any, **kwargs: Any) -> str:
        raise AssertionError(f"the engine called the project's helper {name}()")

    return method


def declaring(base: type[Any], methods: bool) -> type[Any]:
    """``base`` with every name of PROJECT_NAMES, as constants or as helper methods."""
    attributes = {name: helper(name) if methods else value for name, value in PROJECT_NAMES.items()}
    return type(f"Own{base.__name__}", (base,), attributes)


def fetch(client: Client, path: str) -> tuple[int, bytes]:
    response = client.get(path)
    body = b"".join(response.streaming_content) if response.streaming else response.content  # type: ignore[attr-defined]
    return response.status_code, body


def test_no_project_name_is_documented() -> None:
    assert not set(PROJECT_NAMES) & {*DECLARED, *QUERYSET_DECLARED, *HOOKS}


@pytest.mark.parametrize("methods", [False, True], ids=["constants", "methods"])
def test_names_of_the_project_s_own_change_nothing(
    client: Client, sources: Any, tmp_path: Path, methods: bool
) -> None:
    bulk_articles(3)
    sources(ArticleSource, PagesSource)
    expected = {path: fetch(client, path) for path in ("/sitemap.xml",)}
    expected_pages = {
        loc: fetch(client, loc.removeprefix(SITE))
        for loc, _ in parse_index(expected["/sitemap.xml"][1])
    }

    sources(declaring(ArticleSource, methods), declaring(PagesSource, methods))
    call_command("check", fail_level="ERROR")
    status, body = fetch(client, "/sitemap.xml")
    assert (status, body) == expected["/sitemap.xml"]
    for loc, (page_status, page_body) in expected_pages.items():
        assert fetch(client, loc.removeprefix(SITE)) == (page_status, page_body)
        assert parse_urlset(page_body)
    call_command("build_sitemaps", output=str(tmp_path), verbosity=0)
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith(".")) == [
        "sitemap-articles-1.xml",
        "sitemap-articles-1.xml.gz",
        "sitemap-pages-1.xml",
        "sitemap-pages-1.xml.gz",
        "sitemap.xml",
        "sitemap.xml.gz",
        "sitemapkit-manifest.json",
    ]
    assert (tmp_path / "sitemap-articles-1.xml").read_bytes() == expected_pages[
        f"{SITE}/sitemap-articles-1.xml"
    ][1]


def test_a_source_class_exposes_only_the_documented_names() -> None:
    def public(cls: type[Any]) -> set[str]:
        return {name for name in dir(cls) if not name.startswith("_")}

    assert public(SitemapSource) == {*DECLARED, *QUERYSET_DECLARED, *HOOKS}
    assert public(StaticSource) == {*DECLARED, "urls", "location"}
