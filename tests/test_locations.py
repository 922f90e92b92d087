from __future__ import annotations

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.test import override_settings

from django_sitemapkit.exceptions import InvalidEntry
from django_sitemapkit.locations.policy import (
    LocationPolicy,
    index_path,
    page_path,
    sitemap_directory,
)
from django_sitemapkit.locations.uris import remove_dot_segments, without_dot_segments
from django_sitemapkit.sites.base_urls import Origin, base_url_problem
from django_sitemapkit.sites.hosts import default_site

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
        ("https://www.example.com:0", "has an invalid port"),
        # Judged as used: without the whitespace around it (sitemapkit.W008).
        ("https://www.example.com\n", None),
        (" \t\n", "is not set"),
        ("https://www.exa mple.com", "contains whitespace"),
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
        ("https://www.example.com\n", ORIGIN, "https://www.example.com"),
    ],
)
def test_origin_from_settings(value: str, origin: Origin, url: str) -> None:
    with override_settings(SITEMAPKIT_BASE_URL=value):
        assert default_site().origin == origin
    assert origin.url == url


@override_settings(SITEMAPKIT_BASE_URL="https://www.example.com:0")
def test_origin_refuses_port_0() -> None:
    # Not silently the default port 443.
    with pytest.raises(ImproperlyConfigured, match="has an invalid port"):
        default_site()


@override_settings(SITEMAPKIT_BASE_URL="www.example.com")
def test_origin_from_bad_settings_names_setting_and_fix() -> None:
    with pytest.raises(ImproperlyConfigured) as info:
        default_site()
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
            "location 'https://evil.example/x' is not on 'https://www.example.com'"
            ", the site's base URL; a sitemap lists URLs of one host only",
        ),
        (
            "http://www.example.com/x",
            "location 'http://www.example.com/x' is not on 'https://www.example.com'"
            ", the site's base URL; a sitemap lists URLs of one host only",
        ),
        (
            "https://www.example.com:8443/x",
            "location 'https://www.example.com:8443/x' is not on 'https://www.example.com'"
            ", the site's base URL; a sitemap lists URLs of one host only",
        ),
        (
            "https://www.example.com@evil.example/",
            "location 'https://www.example.com@evil.example/' is not on "
            "'https://www.example.com', the site's base URL; a sitemap lists URLs of one "
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


@pytest.mark.parametrize(
    ("location", "path"),
    [
        ("/blog/..//evil.example/x", "//evil.example/x"),
        ("/.//evil.example/x", "//evil.example/x"),
        ("/%2e//evil.example/x", "//evil.example/x"),
        ("/%2E%2E//evil.example/x", "//evil.example/x"),
        ("/a/b/../..//evil.example/x?q#f", "//evil.example/x?q#f"),
        ("https://www.example.com/..//evil.example/x", "//evil.example/x"),
        ("https://www.example.com//evil.example/x", "//evil.example/x"),
        ("https://WWW.EXAMPLE.COM:443/.//evil.example", "//evil.example"),
    ],
)
def test_a_location_whose_path_starts_with_two_slashes_is_refused(location: str, path: str) -> None:
    # Found by trying: after dot-segment removal the path was "//evil.example/x",
    # which the HTML sitemap wrote as href="//evil.example/x", a link off the site.
    message = (
        f"location {location!r} resolves to the path {path!r}, which starts with '//' and "
        "so reads as another host in a link (RFC 3986 section 4.2)"
    )
    policy = LocationPolicy(ORIGIN, "/")
    with pytest.raises(InvalidEntry) as info:
        policy.absolute(location)
    assert str(info.value) == message
    if location.startswith("/"):
        with pytest.raises(InvalidEntry) as info:
            policy.absolute_path(location)
        assert str(info.value) == message


@pytest.mark.parametrize(
    ("location", "expected"),
    [
        # A "//" after the first segment is a path on the site, as written.
        ("/blog//x", "https://www.example.com/blog//x"),
        ("/blog/./x//y", "https://www.example.com/blog/x//y"),
        ("/a/..", "https://www.example.com/"),
        ("/%2F/evil.example/x", "https://www.example.com/%2F/evil.example/x"),
    ],
)
def test_two_slashes_after_the_first_segment_are_listed(location: str, expected: str) -> None:
    assert LocationPolicy(ORIGIN, "/").absolute(location) == expected


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


# -- dot segments ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        # RFC 3986 section 5.2.4's own two examples.
        ("/a/b/c/./../../g", "/a/g"),
        ("mid/content=5/../6", "mid/6"),
        ("/..", "/"),
        ("/a/..", "/"),
        ("/a/b/.", "/a/b/"),
        ("/a//../b", "/a/b"),
        ("/a/.../b/..c/c../", "/a/.../b/..c/c../"),
    ],
)
def test_remove_dot_segments(path: str, expected: str) -> None:
    assert remove_dot_segments(path) == expected


@pytest.mark.parametrize(
    ("reference", "target"),
    [
        # RFC 3986 section 5.4, every example whose path is not empty: the
        # reference merged with the base path "/b/c/d;p" (section 5.2.3), and
        # the target URI on the base "http://a/b/c/d;p?q".
        ("g", "http://a/b/c/g"),
        ("./g", "http://a/b/c/g"),
        ("g/", "http://a/b/c/g/"),
        ("/g", "http://a/g"),
        ("g?y", "http://a/b/c/g?y"),
        ("g#s", "http://a/b/c/g#s"),
        ("g?y#s", "http://a/b/c/g?y#s"),
        (";x", "http://a/b/c/;x"),
        ("g;x", "http://a/b/c/g;x"),
        ("g;x?y#s", "http://a/b/c/g;x?y#s"),
        (".", "http://a/b/c/"),
        ("./", "http://a/b/c/"),
        ("..", "http://a/b/"),
        ("../", "http://a/b/"),
        ("../g", "http://a/b/g"),
        ("../..", "http://a/"),
        ("../../", "http://a/"),
        ("../../g", "http://a/g"),
        ("../../../g", "http://a/g"),
        ("../../../../g", "http://a/g"),
        ("/./g", "http://a/g"),
        ("/../g", "http://a/g"),
        ("g.", "http://a/b/c/g."),
        (".g", "http://a/b/c/.g"),
        ("g..", "http://a/b/c/g.."),
        ("..g", "http://a/b/c/..g"),
        ("./../g", "http://a/b/g"),
        ("./g/.", "http://a/b/c/g/"),
        ("g/./h", "http://a/b/c/g/h"),
        ("g/../h", "http://a/b/c/h"),
        ("g;x=1/./y", "http://a/b/c/g;x=1/y"),
        ("g;x=1/../y", "http://a/b/c/y"),
        # The query and the fragment keep their dot segments.
        ("g?y/./x", "http://a/b/c/g?y/./x"),
        ("g?y/../x", "http://a/b/c/g?y/../x"),
        ("g#s/./x", "http://a/b/c/g#s/./x"),
        ("g#s/../x", "http://a/b/c/g#s/../x"),
    ],
)
def test_without_dot_segments_resolves_the_rfc_3986_examples(reference: str, target: str) -> None:
    merged = reference if reference.startswith("/") else "/b/c/" + reference
    assert without_dot_segments(merged) == target.removeprefix("http://a")


@pytest.mark.parametrize(
    ("reference", "expected"),
    [
        # RFC 3986 section 6.2.2.2: "%2E" and "%2e" are ".".
        ("/b/%2e%2e/g", "/g"),
        ("/b/%2E%2E/g", "/g"),
        ("/b/.%2E/g", "/g"),
        ("/b/%2e./g", "/g"),
        ("/b/%2E/g", "/b/g"),
        ("/b/c/%2e%2e", "/b/"),
        # Not dot segments: kept as written.
        ("/b/%2ex/%2e%2e%2e/a%2e/g", "/b/%2ex/%2e%2e%2e/a%2e/g"),
        ("/b/%2e%2e%2Fg", "/b/%2e%2e%2Fg"),
        ("/b/%252e%252e/g", "/b/%252e%252e/g"),
        # Only the path: the query and the fragment are left as they are.
        ("/b/../g?x=/%2e%2e/&y=/../#/./%2E", "/g?x=/%2e%2e/&y=/../#/./%2E"),
        ("/b/g?/../", "/b/g?/../"),
        ("/b/g#/../", "/b/g#/../"),
    ],
)
def test_without_dot_segments_reads_percent_encoded_dots_in_the_path_only(
    reference: str, expected: str
) -> None:
    assert without_dot_segments(reference) == expected


OUTSIDE_BLOG = (
    "location 'https://www.example.com/admin/' is outside 'https://www.example.com/blog/', "
    "the directory the sitemap is served from (sitemaps.org location rule)"
)


@override_settings(FORCE_SCRIPT_NAME="/blog/")
@pytest.mark.parametrize(
    "location",
    [
        "/blog/../admin/",
        "/blog/%2e%2e/admin/",
        "/blog/./x/../../admin/",
        "/blog/%2E%2e/admin/",
        "/blog/.%2e/admin/",
        "/blog/x/../../admin/",
        "https://www.example.com/blog/../admin/",
        "HTTPS://WWW.EXAMPLE.COM:443/blog/%2e%2e/admin/",
    ],
)
def test_a_location_that_dot_segments_take_outside_the_directory_is_refused(
    location: str,
) -> None:
    policy = LocationPolicy.for_site(default_site())
    assert policy.prefix == "https://www.example.com/blog/"
    with pytest.raises(InvalidEntry) as info:
        policy.absolute(location)
    assert str(info.value) == OUTSIDE_BLOG
    if location.startswith("/"):
        with pytest.raises(InvalidEntry) as info:
            policy.absolute_path(location)
        assert str(info.value) == OUTSIDE_BLOG


@override_settings(FORCE_SCRIPT_NAME="/blog/")
@pytest.mark.parametrize(
    ("location", "expected"),
    [
        ("/blog/a/../b/", "https://www.example.com/blog/b/"),
        ("/blog/./a/", "https://www.example.com/blog/a/"),
        ("/blog/a/%2E%2E/b/%2e/", "https://www.example.com/blog/b/"),
        ("/blog/a/..", "https://www.example.com/blog/"),
        ("/blog/a/b/../../c?next=/../admin/", "https://www.example.com/blog/c?next=/../admin/"),
        ("https://WWW.example.com/blog/a/./b#/../x", "https://www.example.com/blog/a/b#/../x"),
        # Dots that make no dot segment, and the common case, are left alone.
        ("/blog/a.b/.c/..d/c%2E/", "https://www.example.com/blog/a.b/.c/..d/c%2E/"),
        ("/blog/a/b/", "https://www.example.com/blog/a/b/"),
    ],
)
def test_a_location_inside_the_directory_is_listed_without_its_dot_segments(
    location: str, expected: str
) -> None:
    policy = LocationPolicy.for_site(default_site())
    assert policy.absolute(location) == expected
    if location.startswith("/"):
        assert policy.absolute_path(location) == expected


def test_dot_segments_are_resolved_before_the_location_rule_of_a_sub_directory() -> None:
    policy = LocationPolicy(ORIGIN, "/blog/")
    assert policy.absolute("/blog/x/y/../../z/") == "https://www.example.com/blog/z/"
    # "/blog/.." is the site's root, above the directory.
    with pytest.raises(InvalidEntry) as info:
        policy.absolute_path("/blog/..")
    assert str(info.value) == (
        "location 'https://www.example.com/' is outside 'https://www.example.com/blog/', the "
        "directory the sitemap is served from (sitemaps.org location rule)"
    )
