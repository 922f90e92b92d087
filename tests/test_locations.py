from __future__ import annotations

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.test import override_settings

from django_sitemapkit.exceptions import InvalidEntry
from django_sitemapkit.locations import (
    LocationPolicy,
    Origin,
    base_url_problem,
    index_path,
    page_path,
    sitemap_directory,
)

ORIGIN = Origin("https", "www.example.com", 443)


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("https://www.example.com", None),
        ("https://www.example.com/", None),
        ("http://127.0.0.1:8000", None),
        ("https://[::1]:8443", None),
        (None, "is not set"),
        ("", "is not set"),
        ("www.example.com", "is not an absolute http or https URL"),
        ("ftp://www.example.com", "is not an absolute http or https URL"),
        ("https://", "is not an absolute http or https URL"),
        ("https://www.example.com:99999", "has an invalid port"),
        ("https://user:secret@www.example.com", "carries credentials"),
        ("https://www.example.com/?a=1", "carries a query string or fragment"),
        ("https://www.example.com/#top", "carries a query string or fragment"),
        ("https://www.example.com?", "carries a query string or fragment"),
        ("https://www.example.com/blog/", "carries a path"),
    ],
)
def test_base_url_problem(value: object, problem: str | None) -> None:
    assert base_url_problem(value) == problem


@pytest.mark.parametrize(
    ("value", "origin", "url"),
    [
        ("https://WWW.Example.com", ORIGIN, "https://www.example.com"),
        ("https://www.example.com:443/", ORIGIN, "https://www.example.com"),
        ("http://localhost:8000", Origin("http", "localhost", 8000), "http://localhost:8000"),
        ("https://[::1]:8443", Origin("https", "::1", 8443), "https://[::1]:8443"),
    ],
)
def test_origin_from_settings(value: str, origin: Origin, url: str) -> None:
    with override_settings(SITEMAPKIT_BASE_URL=value):
        assert Origin.from_settings() == origin
    assert origin.url == url


@override_settings(SITEMAPKIT_BASE_URL="www.example.com")
def test_origin_from_bad_settings_names_setting_and_fix() -> None:
    with pytest.raises(ImproperlyConfigured) as info:
        Origin.from_settings()
    assert str(info.value) == (
        "SITEMAPKIT_BASE_URL is not an absolute http or https URL ('www.example.com'); set it "
        "to the scheme and host the site is served on, such as 'https://www.example.com'."
    )


@pytest.mark.parametrize(
    ("location", "expected"),
    [
        ("/a/b/", "https://www.example.com/a/b/"),
        ("/caf\u00e9/?q=\u00fc ber", "https://www.example.com/caf%C3%A9/?q=%C3%BC%20ber"),
        ("/already%20encoded/", "https://www.example.com/already%20encoded/"),
        ("/ctl\x01\x7f/", "https://www.example.com/ctl%01%7F/"),
        ("https://www.example.com/x", "https://www.example.com/x"),
        ("HTTPS://WWW.EXAMPLE.COM:443/x", "https://www.example.com/x"),
        ("/" + "a" * 2_023, "https://www.example.com/" + "a" * 2_023),
        # Found by the property tests: kept as they were, these made the
        # document invalid (RFC 3986 sections 2.4, 3.2.2 and 3.5).
        ("/[a]/", "https://www.example.com/%5Ba%5D/"),
        ("/100%/?q=%zz&r=%4", "https://www.example.com/100%25/?q=%25zz&r=%254"),
        ("/a#b#c", "https://www.example.com/a#b%23c"),
        ("https://www.example.com/[x]#y#z", "https://www.example.com/%5Bx%5D#y%23z"),
        ("https://www.example.com?q", "https://www.example.com/?q"),
    ],
)
def test_absolute_locations(location: str, expected: str) -> None:
    assert LocationPolicy(ORIGIN, "/").absolute(location) == expected


@pytest.mark.parametrize(
    ("location", "message"),
    [
        (
            "https://evil.example/x",
            "location 'https://evil.example/x' is not on 'https://www.example.com' "
            "(SITEMAPKIT_BASE_URL); a sitemap lists URLs of one host only",
        ),
        (
            "http://www.example.com/x",
            "location 'http://www.example.com/x' is not on 'https://www.example.com' "
            "(SITEMAPKIT_BASE_URL); a sitemap lists URLs of one host only",
        ),
        (
            "https://www.example.com:8443/x",
            "location 'https://www.example.com:8443/x' is not on 'https://www.example.com' "
            "(SITEMAPKIT_BASE_URL); a sitemap lists URLs of one host only",
        ),
        (
            "https://www.example.com@evil.example/",
            "location 'https://www.example.com@evil.example/' is not on "
            "'https://www.example.com' (SITEMAPKIT_BASE_URL); a sitemap lists URLs of one "
            "host only",
        ),
        (
            "//evil.example/x",
            "location '//evil.example/x' is relative; return a path starting with '/'",
        ),
        ("a/b/", "location 'a/b/' is relative; return a path starting with '/'"),
        ("", "location '' is relative; return a path starting with '/'"),
        (
            "https://www.example.com:x/",
            "location 'https://www.example.com:x/' has an invalid port",
        ),
        ("/\ud800/", "location '/\\ud800/' is not valid Unicode"),
        # Found by the property tests: urlsplit() raised, and the page was a 500.
        ("//[", "location '//[' is not a valid URL (Invalid IPv6 URL)"),
        ("https://[::1/x", "location 'https://[::1/x' is not a valid URL (Invalid IPv6 URL)"),
        (
            "/" + "a" * 2_024,
            "location of 2,048 characters is too long (the protocol requires fewer than "
            "2,048): 'https://www.example.com/" + "a" * 56 + "'...",
        ),
    ],
)
def test_refused_locations(location: str, message: str) -> None:
    with pytest.raises(InvalidEntry) as info:
        LocationPolicy(ORIGIN, "/").absolute(location)
    assert str(info.value) == message


def test_location_rule_for_a_sitemap_under_a_sub_path() -> None:
    policy = LocationPolicy(ORIGIN, "/shop/")
    assert policy.absolute("/shop/item/") == "https://www.example.com/shop/item/"
    with pytest.raises(InvalidEntry) as info:
        policy.absolute("/blog/post/")
    assert str(info.value) == (
        "location 'https://www.example.com/blog/post/' is outside "
        "'https://www.example.com/shop/', the directory the sitemap is served from "
        "(sitemaps.org location rule)"
    )


def test_sitemap_paths() -> None:
    assert index_path() == "/sitemap.xml"
    assert page_path("articles", 3) == "/sitemap-articles-3.xml"
    assert sitemap_directory() == "/"


@override_settings(FORCE_SCRIPT_NAME="/site")
def test_paths_follow_force_script_name() -> None:
    assert index_path() == "/site/sitemap.xml"
    assert sitemap_directory() == "/site/"
