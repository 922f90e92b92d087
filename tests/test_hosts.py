"""Several sites from one project (sites/hosts.py, sites/configured.py): three sites, from
``SITEMAPKIT_SITES`` and from the ``Site`` rows of django.contrib.sites. Each host is
served only its own URLs; the request's host selects a site and never supplies the
base URL; a host no site has is a 404."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.sites.models import Site
from django.db.models import QuerySet
from django.test import Client
from factories import ArticleFactory, CategoryFactory
from sitemap_xml import fetch, parse_index, parse_urlset
from testapp.models import Article

from django_sitemapkit import SitemapSite, SitemapSource, StaticSource
from django_sitemapkit.robots import sitemap_lines
from django_sitemapkit.sites.base_urls import Origin
from django_sitemapkit.sites.hosts import all_sites, site_named

pytestmark = pytest.mark.django_db
WWW = "https://www.example.com"
SHOP = "https://shop.example.com"
DE = "https://example.de:8443"
HOSTS = {WWW: "www.example.com", SHOP: "shop.example.com", DE: "example.de:8443"}
SETTING = {"www": WWW, "shop": SHOP, "de": DE}
ALLOWED = ["www.example.com", "shop.example.com", "example.de", "forged.example.com"]


class Pages(StaticSource):
    """On every site: the same paths, each on the site's own host."""

    name = "pages"
    urls = ["home", "about"]


class Articles(SitemapSource):
    """Per site: the articles of the category named after the site."""

    name = "articles"
    url_name = "article-detail"
    url_kwargs = {"slug": "slug"}
    lastmod = "updated_at"

    def get_site_queryset(self, site: SitemapSite) -> QuerySet[Any]:
        rows: QuerySet[Any] = Article.objects.filter(category__slug=site.name)
        return rows


class Offers(SitemapSource):
    """On the shop only (its ``sites`` is set per variant by the fixture)."""

    name = "offers"
    url_name = "article-by-pk"
    url_kwargs = {"pk": "pk"}
    queryset = Article.objects.filter(title="offer")


Names = dict[str, str]


@pytest.fixture(params=["setting", "sites-framework"])
def names(request: pytest.FixtureRequest, settings: Any, sources: Any) -> Names:
    """The three sites in one of the two variants: the name each variant gives the
    www, shop and de sites, and their data (one category per site, named after it)."""
    settings.SITEMAPKIT_BASE_URL = None
    settings.ALLOWED_HOSTS = ALLOWED
    if request.param == "setting":
        settings.SITEMAPKIT_SITES = SETTING
        found = {"www": "www", "shop": "shop", "de": "de"}
    else:
        settings.SITEMAPKIT_SITES = "django.contrib.sites"
        Site.objects.all().delete()
        for key, url in SETTING.items():
            Site.objects.create(domain=HOSTS[url], name=key)
        found = {key: HOSTS[url] for key, url in SETTING.items()}
    for key, name in found.items():
        category = CategoryFactory.create(slug=name)
        ArticleFactory.create(slug=f"{key}-1", category=category)
    ArticleFactory.create(slug="shop-2", category=category_of(found["shop"]))
    offer = ArticleFactory.create(slug="offer", title="offer")
    shop_only = type("Offers", (Offers,), {"sites": [found["shop"]], "__module__": __name__})
    sources(Pages, Articles, shop_only)
    found["offer"] = str(offer.pk)
    return found


def category_of(slug: str) -> Any:
    return CategoryFactory._meta.model.objects.get(slug=slug)


def locations(client: Client, url: str, host: str) -> list[str]:
    status, body, _ = fetch(client, url, Host=host)
    assert status == 200, body[:300]
    if b"<sitemapindex" in body[:300]:
        return [loc for loc, _ in parse_index(body)]
    return [entry.loc for entry in parse_urlset(body)]


def test_each_host_gets_only_its_own_index_and_pages(client: Client, names: Names) -> None:
    assert locations(client, "/sitemap.xml", "www.example.com") == [
        f"{WWW}/sitemap-pages-1.xml",
        f"{WWW}/sitemap-articles-1.xml",
    ]
    assert locations(client, "/sitemap.xml", "shop.example.com") == [
        f"{SHOP}/sitemap-pages-1.xml",
        f"{SHOP}/sitemap-articles-1.xml",
        f"{SHOP}/sitemap-offers-1.xml",
    ]
    assert locations(client, "/sitemap.xml", "example.de:8443") == [
        f"{DE}/sitemap-pages-1.xml",
        f"{DE}/sitemap-articles-1.xml",
    ]
    for base, host in HOSTS.items():
        assert locations(client, "/sitemap-pages-1.xml", host) == [f"{base}/", f"{base}/about/"]


def test_a_source_gives_each_site_its_own_rows(client: Client, names: Names) -> None:
    assert locations(client, "/sitemap-articles-1.xml", "www.example.com") == [
        f"{WWW}/articles/www-1/"
    ]
    assert locations(client, "/sitemap-articles-1.xml", "shop.example.com") == [
        f"{SHOP}/articles/shop-1/",
        f"{SHOP}/articles/shop-2/",
    ]
    assert locations(client, "/sitemap-articles-1.xml", "example.de:8443") == [
        f"{DE}/articles/de-1/"
    ]


def test_a_section_of_one_site_is_a_404_on_the_others(client: Client, names: Names) -> None:
    assert locations(client, "/sitemap-offers-1.xml", "shop.example.com") == [
        f"{SHOP}/by-id/{names['offer']}/"
    ]
    for host in ("www.example.com", "example.de:8443"):
        assert client.get("/sitemap-offers-1.xml", headers={"Host": host}).status_code == 404
        assert client.get("/sitemap-offers-1.xml.gz", headers={"Host": host}).status_code == 404


@pytest.mark.parametrize(
    ("host", "base"),
    [
        ("WWW.Example.COM", WWW),
        ("www.example.com:443", WWW),
        ("www.example.com.", WWW),
        ("www.example.com.:443", WWW),
        ("Example.DE:8443", DE),
        ("example.de.:8443", DE),
    ],
)
def test_another_spelling_of_a_host_gets_the_configured_one(
    client: Client, names: Names, host: str, base: str
) -> None:
    assert locations(client, "/sitemap.xml", host)[0] == f"{base}/sitemap-pages-1.xml"
    assert locations(client, "/sitemap-pages-1.xml", host) == [f"{base}/", f"{base}/about/"]


@pytest.mark.parametrize(
    "host",
    [
        "forged.example.com",  # accepted by ALLOWED_HOSTS, but no site's
        "example.de",  # the de site's host, without its port
        "www.example.com:8443",  # a port that is not the www site's
        "shop.example.com:80",
    ],
)
@pytest.mark.parametrize(
    "url", ["/sitemap.xml", "/sitemap.xml.gz", "/sitemap-pages-1.xml", "/sitemap-pages-1.xml.gz"]
)
def test_a_host_no_site_has_is_a_404(
    client: Client, names: Names, caplog: pytest.LogCaptureFixture, host: str, url: str
) -> None:
    which, fix = (
        ("No site of SITEMAPKIT_SITES", "Add the site to SITEMAPKIT_SITES")
        if names["www"] == "www"
        else ("No Site", "Add a Site with that domain")
    )
    with caplog.at_level(logging.WARNING, "django_sitemapkit"):
        response = client.get(url, headers={"Host": host})
    assert response.status_code == 404
    assert b"example" not in response.content  # no other site's sitemap, not even its name
    assert [r.getMessage() for r in caplog.records if r.name == "django_sitemapkit"] == [
        f"{which} has the host {host!r}, so {url} serves no sitemap on it. {fix} if it "
        "should have one."
    ]


def test_a_host_allowed_hosts_refuses_is_a_400(client: Client, names: Names) -> None:
    assert client.get("/sitemap.xml", headers={"Host": "evil.example.org"}).status_code == 400


def test_each_site_has_its_own_validators(client: Client, names: Names) -> None:
    etags = {
        host: fetch(client, "/sitemap-articles-1.xml", Host=host)[2]["ETag"]
        for host in ("www.example.com", "WWW.example.com.", "shop.example.com")
    }
    assert etags["www.example.com"] == etags["WWW.example.com."]
    assert etags["www.example.com"] != etags["shop.example.com"]


def test_robots_txt_names_the_requesting_sites_index(client: Client, names: Names) -> None:
    for base, host in HOSTS.items():
        response = client.get("/robots.txt", headers={"Host": host})
        assert response.content.decode() == (
            f"User-agent: *\nDisallow:\n\nSitemap: {base}/sitemap.xml\n"
        )
    forged = client.get("/robots.txt", headers={"Host": "forged.example.com"})
    assert forged.content.decode() == "User-agent: *\nDisallow:\n"


def test_sitemap_lines_takes_a_site_name(names: Names) -> None:
    assert sitemap_lines(site=names["shop"]) == [f"Sitemap: {SHOP}/sitemap.xml"]
    with pytest.raises(TypeError) as no_site:
        sitemap_lines()
    assert str(no_site.value) == (
        "sitemap_lines() needs the request (or site=NAME) when SITEMAPKIT_SITES lists "
        "several sites: each host's robots.txt names its own index."
    )
    with pytest.raises(ValueError, match="no such site") as unknown:
        sitemap_lines(site="nowhere")
    known = ", ".join(repr(names[key]) for key in ("www", "shop", "de"))
    assert str(unknown.value) == (
        f"sitemap_lines(site='nowhere'): no such site; the sites are {known}."
    )


@pytest.mark.urls("testapp.urls_html")
def test_the_html_sitemap_follows_the_host(client: Client, names: Names) -> None:
    for host in HOSTS.values():
        status, body, _ = fetch(client, "/sitemap.html", Host=host)
        assert status == 200
        text = body.decode()
        # Links site-relative, on the host asked: no site's base URL is written.
        assert '<a href="/sitemap-articles-1.html">' in text
        assert all(other not in text for other in HOSTS)
    status, body, _ = fetch(client, "/sitemap-articles-1.html", Host="shop.example.com")
    assert status == 200
    assert '<a href="/articles/shop-2/">' in body.decode()
    assert WWW not in body.decode()
    assert client.get("/sitemap.html", headers={"Host": "forged.example.com"}).status_code == 404


@pytest.mark.urls("testapp.urls_compat")
def test_the_drop_in_views_follow_the_host(client: Client, names: Names) -> None:
    for base, host in HOSTS.items():
        listed = locations(client, "/compat/sitemap.xml", host)
        assert listed
        assert all(loc.startswith(f"{base}/compat/") for loc in listed)
    assert (
        client.get("/compat/sitemap.xml", headers={"Host": "forged.example.com"}).status_code == 404
    )


def test_the_sites_in_order_and_by_name(names: Names) -> None:
    sites = all_sites()
    assert [(site.name, site.base_url, site.several) for site in sites] == [
        (names["www"], WWW, True),
        (names["shop"], SHOP, True),
        (names["de"], DE, True),
    ]
    assert site_named(names["de"]) == sites[2]
    assert sites[2].origin == Origin("https", "example.de", 8443)
    assert sites[2].domain == "example.de:8443"
    assert site_named("nowhere") is None


# -- the Sites framework variant: rows read when a document is served --------------


@pytest.fixture
def framework(settings: Any, sources: Any) -> Callable[[str], None]:
    settings.SITEMAPKIT_BASE_URL = None
    settings.SITEMAPKIT_SITES = "django.contrib.sites"
    settings.ALLOWED_HOSTS = ["*"]
    sources(Pages)

    def domain(value: str) -> None:
        # update(), not save(): nothing in this process hears of it, as when the
        # admin of another server (or a shell) changes the row.
        Site.objects.filter(pk=1).update(domain=value)

    return domain


def test_a_site_row_changed_elsewhere_is_served_at_once(
    client: Client, framework: Callable[[str], None]
) -> None:
    framework("old.example.com")
    assert locations(client, "/sitemap-pages-1.xml", "old.example.com")[0] == (
        "https://old.example.com/"
    )
    framework("new.example.com")
    assert client.get("/sitemap.xml", headers={"Host": "old.example.com"}).status_code == 404
    assert locations(client, "/sitemap-pages-1.xml", "new.example.com")[0] == (
        "https://new.example.com/"
    )


def test_the_scheme_of_the_site_rows_is_a_setting(
    client: Client, framework: Callable[[str], None], settings: Any
) -> None:
    framework("Shop.Example.com:8000")
    settings.SITEMAPKIT_SITE_SCHEME = "http"
    assert locations(client, "/sitemap-pages-1.xml", "shop.example.com:8000") == [
        "http://shop.example.com:8000/",
        "http://shop.example.com:8000/about/",
    ]


def test_a_site_row_that_cannot_be_a_base_url_is_left_out_and_logged(
    framework: Callable[[str], None], caplog: pytest.LogCaptureFixture
) -> None:
    framework("www.example.com/shop")
    Site.objects.create(domain="de.example.com", name="de")
    with caplog.at_level(logging.ERROR, "django_sitemapkit"):
        assert [site.name for site in all_sites()] == ["de.example.com"]
    assert [r.getMessage() for r in caplog.records] == [
        "Left out of the sitemaps: The domain of Site 1 (SITEMAPKIT_SITES = "
        "'django.contrib.sites'), 'www.example.com/shop', carries a path: the sitemap "
        "cannot be built on https:// and that domain. Set the domain of Site 1 to the host "
        "the site is served on, alone or with its port, such as 'www.example.com' or "
        "'www.example.com:8443' (a non-ASCII host in its xn-- form), or delete the Site if "
        "it has no sitemap."
    ]


@pytest.mark.urls("testapp.urls_contrib_redirects")
def test_the_contrib_redirects_stay_on_the_requesting_site(client: Client, names: Names) -> None:
    for base, host in HOSTS.items():
        response = client.get("/sitemap-articles.xml?p=1", headers={"Host": host.upper()})
        assert response.status_code == 301
        assert response["Location"] == f"{base}/sitemap-articles-1.xml"
    www = client.get("/sitemap-offers.xml", headers={"Host": "www.example.com"})
    assert www.status_code == 404
    forged = client.get("/sitemap-articles.xml", headers={"Host": "forged.example.com"})
    assert forged.status_code == 404


# -- Vary: the headers that chose the site ------------------------------------

KEY = "0123456789abcdef0123456789abcdef"
#: Every URL whose answer depends on the site its host chose, each with the host
#: of a site that answers it (200, or the redirect's 301) and one that has none.
CHOSEN = [
    "/sitemap.xml",
    "/sitemap.xml.gz",
    "/sitemap-pages-1.xml",
    "/sitemap-pages-1.xml.gz",
    "/sitemap.html",
    "/sitemap-pages-1.html",
    "/robots.txt",
    f"/{KEY}.txt",
]


@pytest.mark.urls("testapp.urls_html")
@pytest.mark.parametrize(("forwarded", "vary"), [(False, "Host"), (True, "Host, X-Forwarded-Host")])
def test_every_answer_names_the_headers_that_chose_the_site_in_vary(
    client: Client, names: Names, settings: Any, forwarded: bool, vary: str
) -> None:
    # Found by trying: with USE_X_FORWARDED_HOST, X-Forwarded-Host chose another
    # site's sitemap with no Vary naming it, so a cache keyed on Host could store
    # one site's sitemap under another's URL.
    settings.USE_X_FORWARDED_HOST = forwarded
    settings.SITEMAPKIT_INDEXNOW_KEY = KEY
    chosen = {"X-Forwarded-Host": "shop.example.com"} if forwarded else {}
    for url in CHOSEN:
        assert status_and_vary(client, url, Host="www.example.com", **chosen) == (200, vary), url
        # A 404 differs per host too (a host no site has), and is cacheable.
        refused = {"X-Forwarded-Host": "forged.example.com"} if forwarded else {}
        unknown = status_and_vary(client, url, Host="forged.example.com", **refused)
        assert unknown == (200 if url == "/robots.txt" else 404, vary), url
    # A 304 carries the Vary of its 200 (RFC 9110 section 15.4.5).
    etag = fetch(client, "/sitemap.xml", Host="www.example.com", **chosen)[2]["ETag"]
    again = status_and_vary(
        client, "/sitemap.xml", Host="www.example.com", **{"If-None-Match": etag}, **chosen
    )
    assert again == (304, vary)
    # The header that chose: with USE_X_FORWARDED_HOST, X-Forwarded-Host over Host.
    both = {"Host": "shop.example.com", "X-Forwarded-Host": "www.example.com"}
    offers = status_and_vary(client, "/sitemap-offers-1.xml", **both)
    assert offers == (404 if forwarded else 200, vary)


def status_and_vary(client: Client, url: str, **headers: str) -> tuple[int, str | None]:
    """The status and Vary of ``url``, its body read to the end (and its rows' cursor
    closed with it)."""
    status, _, answered = fetch(client, url, **headers)
    return status, answered.get("Vary")


@pytest.mark.urls("testapp.urls_html")
def test_with_one_site_the_host_chooses_nothing_and_vary_does_not_name_it(
    client: Client, settings: Any
) -> None:
    settings.USE_X_FORWARDED_HOST = True
    ArticleFactory.create()
    for url in [*CHOSEN[:-1], "/sitemap-nope-1.xml"]:
        status, vary = status_and_vary(client, url, **{"X-Forwarded-Host": "www.example.com"})
        assert (status, vary) == (404 if "nope" in url else 200, None), url


@pytest.mark.urls("testapp.urls_compat")
def test_the_drop_in_views_name_the_host_in_vary(client: Client, names: Names) -> None:
    for host, status in (("www.example.com", 200), ("forged.example.com", 404)):
        for url in ("/compat/sitemap.xml", "/compat/sitemap-articles.xml"):
            assert status_and_vary(client, url, Host=host) == (status, "Host"), url


@pytest.mark.urls("testapp.urls_contrib_redirects")
def test_the_contrib_redirects_name_the_host_in_vary(client: Client, names: Names) -> None:
    for host, status in (("www.example.com", 301), ("forged.example.com", 404)):
        response = client.get("/sitemap-articles.xml", headers={"Host": host})
        assert (response.status_code, response["Vary"]) == (status, "Host")
