"""Database checks of the base URL against django.contrib.sites (checks/sites/framework.py)."""

from __future__ import annotations

from io import StringIO

import pytest
from django.contrib.sites.models import Site
from django.core.checks import Warning
from django.core.management import call_command
from django.test import override_settings

from django_sitemapkit.checks import check_sites_framework

pytestmark = pytest.mark.django_db
UNSET = override_settings(SITEMAPKIT_BASE_URL=None)


def set_site(domain: str, pk: int = 1) -> None:
    Site.objects.update_or_create(pk=pk, defaults={"domain": domain, "name": "x"})
    Site.objects.clear_cache()


def check_output() -> str:
    out = StringIO()
    call_command("check", databases=["default"], stdout=out, stderr=out)
    return out.getvalue()


@pytest.mark.parametrize(
    ("domain", "expected"), [("www.example.com", []), ("WWW.example.com:443", []), ("shop", 1)]
)
def test_w001_sites_framework(domain: str, expected: object) -> None:
    set_site(domain)
    messages = check_sites_framework(databases=["default"])
    if expected == []:
        assert messages == []
    else:
        assert messages == [
            Warning(
                f"SITEMAPKIT_BASE_URL 'https://www.example.com' names another host than the "
                f"current Site's domain {domain!r} (django.contrib.sites).",
                hint="Make them agree: update the Site's domain in the admin, or "
                "SITEMAPKIT_BASE_URL. Sitemaps are built on SITEMAPKIT_BASE_URL.",
                id="sitemapkit.W001",
            )
        ]


def test_w001_runs_only_with_database_checks() -> None:
    assert check_sites_framework() == []


def test_w001_is_registered_as_a_database_check() -> None:
    set_site("example.com")
    assert "(sitemapkit.W001) SITEMAPKIT_BASE_URL 'https://www.example.com' names" in (
        check_output()
    )


# -- W009 and W010: the Site's domain as the base URL's host --------------------------


@UNSET
@pytest.mark.parametrize("domain", ["example.com", "EXAMPLE.com:8000", "example.com."])
def test_w009_the_placeholder_domain(domain: str) -> None:
    set_site(domain)
    assert check_sites_framework(databases=["default"]) == [
        Warning(
            "SITEMAPKIT_BASE_URL is not set, so the sitemap is built on https:// and the "
            f"domain of the current Site (pk=1), {domain!r}: the placeholder "
            "django.contrib.sites gives the first Site, not a host the site is served on.",
            hint="Set the domain of Site 1 to the host the site is served on (Sites, in the "
            "admin), or set SITEMAPKIT_BASE_URL to the scheme and host the site is served on.",
            id="sitemapkit.W009",
        )
    ]


@UNSET
@pytest.mark.parametrize("domain", ["shop.example.org", "www.example.com", "127.0.0.1:8000"])
def test_w009_w010_quiet_for_a_host(domain: str) -> None:
    set_site(domain)
    assert check_sites_framework(databases=["default"]) == []


def w010(domain: str, problem: str) -> Warning:
    return Warning(
        "SITEMAPKIT_BASE_URL is not set, and the domain of the current Site (pk=1), "
        f"{domain!r}, {problem}: the sitemap cannot be built on https:// and that domain.",
        hint="Set the domain of Site 1 to the host the site is served on, alone or with its "
        "port, such as 'www.example.com' or 'www.example.com:8443' (a non-ASCII host in its "
        "xn-- form), or set SITEMAPKIT_BASE_URL to the scheme and host the site is served on, "
        "such as 'https://www.example.com'.",
        id="sitemapkit.W010",
    )


@UNSET
@pytest.mark.parametrize(
    ("domain", "problem"),
    [
        ("shop.example.org/blog", "carries a path"),
        ("https://shop.example.org", "starts with a scheme"),
        ("shop.example.org ", "contains whitespace"),
        ("bücher.example.org", "has characters that cannot stand in a URL's host or port ('ü')"),
        ("shop.example.org:http", "has an invalid port"),
        ("me@shop.example.org", "carries credentials"),
        ("shop.example.org?x=1", "carries a query string or fragment"),
        ("", "is not a host"),
        (":8000", "is not a host"),
    ],
)
def test_w010_a_domain_that_is_no_host(domain: str, problem: str) -> None:
    set_site(domain)
    assert check_sites_framework(databases=["default"]) == [w010(domain, problem)]


@override_settings(SITEMAPKIT_BASE_URL=None, SITE_ID=7)
def test_w010_no_site_with_site_id() -> None:
    assert check_sites_framework(databases=["default"]) == [
        Warning(
            "SITEMAPKIT_BASE_URL is not set, and no Site has the pk SITE_ID = 7 "
            "(django.contrib.sites): the sitemap has no host to be built on.",
            hint="Create the Site 7 with the domain the site is served on, set SITE_ID to the "
            "pk of an existing Site, or set SITEMAPKIT_BASE_URL to the scheme and host the "
            "site is served on, such as 'https://www.example.com'.",
            id="sitemapkit.W010",
        )
    ]


@UNSET
def test_w001_is_not_checked_on_the_sites_domain() -> None:
    # The base URL is the Site's domain: there is nothing to compare.
    set_site("shop.example.org")
    assert check_sites_framework(databases=["default"]) == []


@UNSET
def test_w009_is_registered_as_a_database_check() -> None:
    set_site("example.com")
    assert "(sitemapkit.W009) SITEMAPKIT_BASE_URL is not set, so" in check_output()


@UNSET
def test_w010_is_registered_as_a_database_check() -> None:
    set_site("shop.example.org/blog")
    assert "(sitemapkit.W010) SITEMAPKIT_BASE_URL is not set, and the domain" in check_output()
