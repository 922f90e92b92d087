"""Database checks of the Site rows of SITEMAPKIT_SITES = "django.contrib.sites"
(checks/sites/site_rows.py): W016-W020, on SQLite and PostgreSQL alike."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from io import StringIO
from typing import Any

import pytest
from django.contrib.sites.models import Site
from django.core.checks import Warning
from django.core.management import call_command
from django.db import connection
from django.test import override_settings
from testapp.sitemaps import ArticleSource

from django_sitemapkit.checks import check_site_rows, check_sites_framework

pytestmark = pytest.mark.django_db
Sources = Callable[..., None]
SOURCE = f"Sitemap source {__name__}"
FRAMEWORK = "(SITEMAPKIT_SITES = 'django.contrib.sites')"


@pytest.fixture(autouse=True)
def site_rows() -> Iterator[None]:
    with override_settings(
        SITEMAPKIT_BASE_URL=None,
        SITEMAPKIT_SITES="django.contrib.sites",
        ALLOWED_HOSTS=[".example.com"],
    ):
        yield


def rows(*domains: str) -> None:
    Site.objects.all().delete()
    for pk, domain in enumerate(domains, start=1):
        Site.objects.create(pk=pk, domain=domain, name=domain)
    Site.objects.clear_cache()


def check() -> list[Any]:
    return check_site_rows(databases=["default"])


def check_output() -> str:
    out = StringIO()
    call_command("check", databases=["default"], stdout=out, stderr=out)
    return out.getvalue()


def test_quiet_for_fit_rows() -> None:
    rows("www.example.com", "shop.example.com:8443")
    assert check() == []
    assert "sitemapkit" not in check_output()


def test_only_with_database_checks_and_the_sites_framework_value() -> None:
    rows()
    assert check_site_rows() == []
    with override_settings(SITEMAPKIT_SITES={"www": "https://www.example.com"}):
        assert check() == []
    with override_settings(SITEMAPKIT_SITES=None, SITEMAPKIT_BASE_URL="https://www.example.com"):
        assert check() == []


def test_quiet_before_the_first_migrate() -> None:
    # No table to read: what a database has before migrate creates it.
    with connection.cursor() as cursor:
        cursor.execute("ALTER TABLE django_site RENAME TO django_site_away")
    try:
        assert check() == []
    finally:
        with connection.cursor() as cursor:
            cursor.execute("ALTER TABLE django_site_away RENAME TO django_site")
    assert Site.objects.count() == 1  # the transaction is still usable


@override_settings(SITEMAPKIT_SITE_SCHEME="ftp")
def test_quiet_when_the_scheme_refuses_every_row() -> None:
    # sitemapkit.E041 says why; one finding, not one per row.
    assert check() == []


@pytest.mark.parametrize("site_id", [1, None])
def test_the_base_url_checks_of_the_current_site_are_silent(site_id: object) -> None:
    rows("example.com", "shop/blog")  # W009 and W010 of a single site
    with override_settings(SITE_ID=site_id):
        assert check_sites_framework(databases=["default"]) == []


# -- W016: a domain that cannot be a base URL --------------------------------------------


def test_w016_a_domain_that_is_no_host() -> None:
    rows("www.example.com", "shop.example.com/fr", "[2001:db8::1]")
    assert check() == [
        Warning(
            f"The domain of Site 2 {FRAMEWORK}, 'shop.example.com/fr', carries a path: the "
            "sitemap cannot be built on https:// and that domain.",
            hint="Set the domain of Site 2 to the host the site is served on, alone or with "
            "its port, such as 'www.example.com' or 'www.example.com:8443' (a non-ASCII host "
            "in its xn-- form), or delete the Site if it has no sitemap.",
            id="sitemapkit.W016",
        ),
        Warning(
            "The domain of Site 3, '[2001:db8::1]', cannot name the directory of its built files.",
            hint="Set the domain of Site 3 to a host name such as 'www.example.com'.",
            id="sitemapkit.W016",
        ),
    ]


def test_w016_is_registered() -> None:
    rows("www.example.com", "shop.example.com/fr")
    assert f"(sitemapkit.W016) The domain of Site 2 {FRAMEWORK}" in check_output()


# -- W017: two rows, one host ------------------------------------------------------------


@pytest.mark.parametrize(
    "again",
    [
        pytest.param(
            "WWW.example.com",
            marks=pytest.mark.skipif(
                connection.vendor == "mysql",
                reason="SQLite and PostgreSQL: MySQL's case-insensitive collation makes"
                " Site.domain's unique index refuse this row",
            ),
        ),
        "www.example.com.",
        "www.example.com:443",
    ],
)
def test_w017_two_rows_with_one_host(again: str) -> None:
    rows("www.example.com", "shop.example.com", again)
    assert check() == [
        Warning(
            f"Site 1 ('www.example.com') and Site 3 ({again!r}) have the same host "
            f"{FRAMEWORK}: requests for it always get the sitemaps of Site 1.",
            hint="Delete Site 3, or set its domain to another host.",
            id="sitemapkit.W017",
        )
    ]
    assert "(sitemapkit.W017) Site 1 ('www.example.com') and Site 3" in check_output()


def test_w017_not_for_another_port() -> None:
    rows("www.example.com", "www.example.com:8443")
    assert check() == []


# -- W018: ALLOWED_HOSTS -------------------------------------------------------------------


@override_settings(ALLOWED_HOSTS=["www.example.com"])
def test_w018_a_host_allowed_hosts_refuses() -> None:
    rows("www.example.com", "Shop.example.org.")
    assert check() == [
        Warning(
            "The host of Site 2 ('Shop.example.org.'), 'shop.example.org', is not accepted by "
            f"ALLOWED_HOSTS ['www.example.com'] {FRAMEWORK}: requests for its sitemaps are "
            "answered with 400.",
            hint="Add 'shop.example.org' to ALLOWED_HOSTS, or delete Site 2 if it is not "
            "served here.",
            id="sitemapkit.W018",
        )
    ]
    assert "(sitemapkit.W018) The host of Site 2" in check_output()


@override_settings(ALLOWED_HOSTS=[], DEBUG=True)
def test_w018_quiet_in_development_with_no_allowed_hosts() -> None:
    rows("www.example.com", "shop.example.org")
    assert check() == []


# -- W019: a source's sites naming no row --------------------------------------------------


def on(*names: str) -> type[Any]:
    return type("OnSites", (ArticleSource,), {"sites": list(names), "__module__": __name__})


@pytest.mark.parametrize(
    ("names", "found", "hint"),
    [
        (
            ("www.example.com", "Shop.example.com."),
            "'Shop.example.com.' is",
            "Set sites = ['www.example.com', 'shop.example.com']: a site is named by its "
            "Site's domain, in lower case and without a final dot.",
        ),
        (
            ("www", "blog.example.com"),
            "'www', 'blog.example.com' are",
            "Name sites by their Site's domain ('www.example.com', 'shop.example.com'), or "
            "add the Site.",
        ),
    ],
)
def test_w019_a_name_no_row_has(
    sources: Sources, names: tuple[str, ...], found: str, hint: str
) -> None:
    rows("www.example.com", "SHOP.example.com")
    source = on(*names)
    sources(source)
    assert check() == [
        Warning(
            f"{SOURCE}.OnSites declares sites {list(names)!r}: {found} the site of no Site "
            f"{FRAMEWORK}.",
            hint=hint,
            obj=source,
            id="sitemapkit.W019",
        )
    ]
    assert f"(sitemapkit.W019) {SOURCE}.OnSites declares sites" in check_output()


def test_w019_quiet_for_names_of_rows(sources: Sources) -> None:
    rows("www.example.com", "shop.example.com:8443")
    sources(on("shop.example.com:8443"), type("Bad", (ArticleSource,), {"sites": "www"}))
    assert check() == []  # the string is E031's


# -- W020: no row -------------------------------------------------------------------------

W020 = Warning(
    "SITEMAPKIT_SITES = 'django.contrib.sites', but there is no Site: no sitemap is served.",
    hint="Add a Site for each host the project serves (Sites, in the admin), or set "
    "SITEMAPKIT_SITES to a dict of each site's name to its base URL, such as "
    "{'www': 'https://www.example.com'}.",
    id="sitemapkit.W020",
)


def test_w020_no_site() -> None:
    rows()
    assert check() == [W020]
    assert "(sitemapkit.W020) SITEMAPKIT_SITES = 'django.contrib.sites', but" in check_output()
