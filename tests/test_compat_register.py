"""``django_sitemapkit.compat.register()``: contrib classes as sections of this app,
served at its URLs, as gzip files, in the HTML sitemap and robots.txt, and built
by ``build_sitemaps`` into the same bytes the views serve."""

from __future__ import annotations

import gzip
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from contrib_side_by_side import SITE, serve_side_by_side, tricky_articles
from django.contrib.sitemaps import Sitemap
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.db import DatabaseError, connection, transaction
from django.test import Client, override_settings
from lxml import etree
from sitemap_xml import Url, fetch, parse_index, parse_urlset
from testapp.contrib_sitemaps import SITEMAPS
from testapp.models import Article

from django_sitemapkit import compat
from django_sitemapkit.registry import registry

pytestmark = [pytest.mark.django_db, pytest.mark.urls("testapp.urls_compat_register")]


@pytest.fixture(autouse=True)
def registered(settings: Any) -> Iterator[None]:
    """Only the contrib dict's sections, registered as a project's sitemaps.py would."""
    serve_side_by_side(settings)
    saved = registry.all()
    registry._sources = []
    compat.register(SITEMAPS)
    yield
    registry._sources = saved


@pytest.fixture
def articles() -> list[Article]:
    return tricky_articles()


def locs(body: bytes) -> set[str]:
    return {url.loc for url in parse_urlset(body)}


def contrib_locs(client: Client, url: str) -> set[str]:
    response = client.get(url, secure=True, headers={"Host": "www.example.com"})
    assert response.status_code == 200
    root = etree.fromstring(response.content)
    ns = {"sm": "http://www.sitemaps.org/schemas/sitemap/0.9"}
    return {loc.text or "" for loc in root.iterfind(".//sm:loc", ns)}


def test_each_key_is_a_section_in_the_dicts_order(client: Client, articles: list[Article]) -> None:
    status, body, _ = fetch(client, "/sitemap.xml")
    assert status == 200
    # The empty section has no page; the others as many as contrib's paginator gives.
    assert [loc for loc, _ in parse_index(body)] == [
        f"{SITE}/sitemap-articles-1.xml",
        f"{SITE}/sitemap-articles-2.xml",
        f"{SITE}/sitemap-articles-3.xml",
        f"{SITE}/sitemap-static-1.xml",
        f"{SITE}/sitemap-generic-1.xml",
        f"{SITE}/sitemap-own-1.xml",
    ]


@pytest.mark.parametrize(
    ("ours", "contribs"),
    [
        ("sitemap-articles-1.xml", "sitemap-articles.xml"),
        ("sitemap-articles-2.xml", "sitemap-articles.xml?p=2"),
        ("sitemap-articles-3.xml", "sitemap-articles.xml?p=3"),
        ("sitemap-static-1.xml", "sitemap-static.xml"),
        ("sitemap-generic-1.xml", "sitemap-generic.xml"),
        ("sitemap-own-1.xml", "sitemap-own.xml"),
    ],
)
def test_page_n_holds_contribs_page_n(
    client: Client, articles: list[Article], ours: str, contribs: str
) -> None:
    expected = contrib_locs(client, f"/contrib/{contribs}")
    status, body, _ = fetch(client, f"/{ours}")
    assert status == 200
    assert locs(body) == expected
    gz_status, gz_body, headers = fetch(client, f"/{ours}.gz")
    assert (gz_status, headers["Content-Type"]) == (200, "application/gzip")
    assert gzip.decompress(gz_body) == body


def test_a_page_past_the_last_or_the_empty_section_is_a_404(
    client: Client, articles: list[Article]
) -> None:
    assert client.get("/sitemap-articles-4.xml").status_code == 404
    assert client.get("/sitemap-empty-1.xml").status_code == 404


def test_the_html_sitemap_and_robots_txt_name_them(client: Client, articles: list[Article]) -> None:
    status, body, _ = fetch(client, "/sitemap.html")
    assert status == 200
    assert b'href="/sitemap-articles-2.html"' in body
    status, body, _ = fetch(client, "/sitemap-articles-2.html")
    assert status == 200
    assert b"/articles/" in body
    response = client.get("/robots.txt")
    assert response.content.decode().splitlines()[-1] == f"Sitemap: {SITE}/sitemap.xml"


def test_build_writes_what_the_views_serve(
    client: Client, articles: list[Article], tmp_path: Path
) -> None:
    call_command("build_sitemaps", output=str(tmp_path), verbosity=0)
    pages = sorted(p.name for p in tmp_path.glob("sitemap-*.xml"))
    assert pages == [
        "sitemap-articles-1.xml",
        "sitemap-articles-2.xml",
        "sitemap-articles-3.xml",
        "sitemap-generic-1.xml",
        "sitemap-own-1.xml",
        "sitemap-static-1.xml",
    ]
    for name in pages:
        status, served, _ = fetch(client, f"/{name}")
        assert status == 200
        assert tmp_path.joinpath(name).read_bytes() == served, name
    built_index = tmp_path.joinpath("sitemap.xml").read_bytes()
    _, served_index, _ = fetch(client, "/sitemap.xml")
    # The same pages; a built page's lastmod is the newest it holds (an entry
    # skipped as invalid does not count), as for any source.
    assert [loc for loc, _ in parse_index(built_index)] == [
        loc for loc, _ in parse_index(served_index)
    ]
    with override_settings(SITEMAPKIT_SERVE="files", SITEMAPKIT_OUTPUT_DIR=str(tmp_path)):
        Article.objects.all().delete()  # the files, not the database, answer now
        status, body, _ = fetch(client, "/sitemap-articles-2.xml")
        assert (status, body) == (200, tmp_path.joinpath("sitemap-articles-2.xml").read_bytes())


def test_the_checks_pass_and_a_bad_key_is_named(capsys: pytest.CaptureFixture[str]) -> None:
    call_command("check")
    compat.register({"blog posts": SITEMAPS["static"]})
    with pytest.raises(SystemCheckError) as raised:
        call_command("check")
    assert "testapp.contrib_sitemaps.StaticViewSitemap (sitemaps['blog posts'])" in str(
        raised.value
    )
    assert "sitemapkit.E007" in str(raised.value)


def test_register_refuses_what_is_not_a_dict() -> None:
    with pytest.raises(TypeError) as raised:
        compat.register([SITEMAPS["static"]])  # type: ignore[arg-type]
    assert str(raised.value).startswith(
        "register() takes the dict of sections and Sitemap classes that "
        "django.contrib.sitemaps' views take, not ["
    )


def test_sites_lists_the_sections_on_those_sites_only(
    client: Client, articles: list[Article], settings: Any
) -> None:
    registry._sources = []
    compat.register({"static": SITEMAPS["static"]}, sites=["shop"])
    compat.register({"generic": SITEMAPS["generic"]})
    shop = "https://shop.example.com"
    settings.SITEMAPKIT_SITES = {"www": SITE, "shop": shop}
    settings.ALLOWED_HOSTS = ["www.example.com", "shop.example.com"]

    _, www_index, _ = fetch(client, "/sitemap.xml", host="www.example.com")
    assert [loc for loc, _ in parse_index(www_index)] == [f"{SITE}/sitemap-generic-1.xml"]
    _, shop_index, _ = fetch(client, "/sitemap.xml", host="shop.example.com")
    assert [loc for loc, _ in parse_index(shop_index)] == [
        f"{shop}/sitemap-static-1.xml",
        f"{shop}/sitemap-generic-1.xml",
    ]
    status, body, _ = fetch(client, "/sitemap-static-1.xml", host="shop.example.com")
    assert (status, locs(body)) == (200, {f"{shop}/", f"{shop}/about/"})
    assert client.get("/sitemap-static-1.xml", headers={"host": "www.example.com"}).status_code == (
        404
    )


def test_register_refuses_a_lone_site_name() -> None:
    registry._sources = []
    with pytest.raises(TypeError) as raised:
        compat.register({"static": SITEMAPS["static"]}, sites="shop")
    assert str(raised.value) == (
        "register(sites='shop') takes a list of site names; write sites=['shop']."
    )
    assert registry.all() == []


class ConstantNotADate(Sitemap):  # type: ignore[type-arg]
    """contrib's template writes whatever the constant is; here it is no lastmod."""

    lastmod = "yesterday"

    def items(self) -> list[str]:
        return ["/a/", "/b/"]

    def location(self, item: str) -> str:
        return item


def test_a_lastmod_constant_that_is_no_date_is_left_out_and_logged_never_a_500(
    client: Client, caplog: pytest.LogCaptureFixture
) -> None:
    # The page's Last-Modified read the constant as a date: a 500 (issue 28).
    compat.register({"constant": ConstantNotADate})
    for url in ("/sitemap-constant-1.xml", "/sitemap-constant-1.xml.gz"):
        caplog.clear()
        status, body, headers = fetch(client, url)
        assert status == 200
        assert "Last-Modified" not in headers
        assert parse_urlset(gzip.decompress(body) if url.endswith(".gz") else body) == [
            Url(f"{SITE}/a/"),
            Url(f"{SITE}/b/"),
        ]
        assert caplog.messages == [
            "Left out the lastmod of item '/a/' of source 'constant': 'yesterday' is not a "
            "date or datetime.",
            "Left out the lastmod of 1 more row of source 'constant' on page 1 for the same "
            "reason as item '/a/' (2 in all).",
        ]


class LanguagesFromTheDatabase(Mapping[str, Any]):
    """A project's mapping whose sections are read from a table (one per language), as
    a ``migrate`` on a new database meets it before the table exists."""

    def __getitem__(self, name: str) -> Any:
        return SITEMAPS["static"]

    def __iter__(self) -> Iterator[str]:
        with connection.cursor() as cursor:
            cursor.execute("SELECT DISTINCT lang FROM docs_release")
            return iter([row[0] for row in cursor.fetchall()])

    def __len__(self) -> int:
        return len(list(self))


@pytest.mark.django_db
def test_a_mapping_whose_sections_a_query_reads_is_refused_naming_the_drop_in() -> None:
    before = registry.all()
    # What the database says of the missing table, in its own words.
    with pytest.raises(DatabaseError) as query, transaction.atomic():
        iter(LanguagesFromTheDatabase())
    with pytest.raises(ImproperlyConfigured) as raised, transaction.atomic():
        compat.register(LanguagesFromTheDatabase())
    assert str(raised.value) == (
        "register() reads the sections of its mapping once, at start-up, and reading "
        f"LanguagesFromTheDatabase's raised {type(query.value).__name__}: {query.value}. "
        "A mapping whose sections come from the database cannot be registered (migrate "
        "on a new database would meet it before its tables exist): serve it with the "
        "drop-in views of django_sitemapkit.compat, which read it at each request, or "
        "register a dict of fixed sections."
    )
    assert "docs_release" in str(query.value)
    assert registry.all() == before
