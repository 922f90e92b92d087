"""Checks of SITEMAPKIT_BASE_URL (checks/sites/base_url.py)."""

from __future__ import annotations

from io import StringIO
from typing import Any

import pytest
from django.conf import settings
from django.contrib.sites.models import Site
from django.core.checks import Error, Warning
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.test import Client, modify_settings, override_settings

from django_sitemapkit.checks import check_settings, check_sites_framework
from django_sitemapkit.conf import conf
from django_sitemapkit.sites.base_urls import Origin
from django_sitemapkit.sites.hosts import default_site

WITHOUT_SITES = modify_settings(INSTALLED_APPS={"remove": ["django.contrib.sites"]})


@WITHOUT_SITES
@pytest.mark.parametrize("value", [None, "", "\n"])
def test_e001_base_url_missing(value: str | None) -> None:
    with override_settings(SITEMAPKIT_BASE_URL=value):
        assert check_settings() == [
            Error(
                f"SITEMAPKIT_BASE_URL is not set ({value!r}), and django.contrib.sites is not "
                "installed to give the site's domain instead.",
                hint="Set SITEMAPKIT_BASE_URL to the scheme and host the site is served on, "
                "such as 'https://www.example.com'; or add 'django.contrib.sites' to "
                "INSTALLED_APPS and set SITE_ID, to build the sitemap on https:// and the "
                "current Site's domain; or, on a Wagtail project, set SITEMAPKIT_SITES = "
                "'wagtail', to list each Wagtail Site on its own root URL.",
                id="sitemapkit.E001",
            )
        ]


@WITHOUT_SITES
@override_settings(SITEMAPKIT_BASE_URL=None)
def test_e001_is_registered() -> None:
    with pytest.raises(SystemCheckError, match=r"sitemapkit\.E001\) SITEMAPKIT_BASE_URL is not"):
        call_command("check")


@pytest.mark.parametrize("value", [None, "", "\n"])
def test_e001_not_with_the_current_site(value: str | None) -> None:
    # django.contrib.sites and SITE_ID = 1 in the test settings: the Site gives the host.
    with override_settings(SITEMAPKIT_BASE_URL=value, ALLOWED_HOSTS=[], DEBUG=False):
        assert check_settings() == []


# -- E034: django.contrib.sites without SITE_ID -------------------------------------------


def e034(site_id: object) -> Error:
    return Error(
        f"SITEMAPKIT_BASE_URL is not set (None), and neither is SITE_ID ({site_id!r}): "
        "without SITE_ID, django.contrib.sites finds the current Site from a request's host, "
        "which the sitemap is never built on.",
        hint="Set SITE_ID to the pk of the Site the site is served on (SITE_ID = 1 for the "
        "Site 'migrate' creates), or set SITEMAPKIT_BASE_URL to the scheme and host the site "
        "is served on, such as 'https://www.example.com'.",
        id="sitemapkit.E034",
    )


@pytest.mark.parametrize("site_id", [None, 0, ""])
def test_e034_sites_without_site_id(site_id: object) -> None:
    with override_settings(SITEMAPKIT_BASE_URL=None, SITE_ID=site_id):
        assert check_settings() == [e034(site_id)]


def test_e034_site_id_not_in_the_settings(settings: Any) -> None:
    settings.SITEMAPKIT_BASE_URL = None
    del settings.SITE_ID
    assert check_settings() == [e034(None)]


@override_settings(SITEMAPKIT_BASE_URL="", SITE_ID=None)
def test_e034_is_registered() -> None:
    with pytest.raises(SystemCheckError, match=r"sitemapkit\.E034\) SITEMAPKIT_BASE_URL is not"):
        call_command("check")


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("www.example.com", "is not an absolute http or https URL"),
        ("ftp://www.example.com", "is not an absolute http or https URL"),
        ("https://www.example.com:http", "has an invalid port"),
        ("https://www.example.com:0", "has an invalid port"),
    ],
)
def test_e002_base_url_not_absolute_http(value: str, problem: str) -> None:
    with override_settings(SITEMAPKIT_BASE_URL=value):
        assert check_settings() == [
            Error(
                f"SITEMAPKIT_BASE_URL {problem}: {value!r}.",
                hint="Set it to 'http://' or 'https://' followed by the site's host, such as "
                "'https://www.example.com'.",
                id="sitemapkit.E002",
            )
        ]


@pytest.mark.parametrize(
    ("value", "problem", "extra"),
    [
        ("https://www.example.com/?utm=1", "carries a query string or fragment", ""),
        ("https://www.example.com#top", "carries a query string or fragment", ""),
        ("https://me:pw@www.example.com", "carries credentials", ""),
        (
            "https://www.example.com/blog",
            "carries a path",
            " For a site deployed under a sub-path, set FORCE_SCRIPT_NAME instead.",
        ),
    ],
)
def test_e003_base_url_with_more_than_an_origin(value: str, problem: str, extra: str) -> None:
    with override_settings(SITEMAPKIT_BASE_URL=value):
        assert check_settings() == [
            Error(
                f"SITEMAPKIT_BASE_URL {problem}: {value!r}.",
                hint="Set SITEMAPKIT_BASE_URL to 'https://www.example.com'." + extra,
                id="sitemapkit.E003",
            )
        ]


@override_settings(ALLOWED_HOSTS=["example.com"], DEBUG=False)
def test_e004_host_not_allowed() -> None:
    assert check_settings() == [
        Error(
            "The host of SITEMAPKIT_BASE_URL, 'www.example.com', is not accepted by "
            "ALLOWED_HOSTS ['example.com'].",
            hint="Add 'www.example.com' to ALLOWED_HOSTS, or set SITEMAPKIT_BASE_URL to a host "
            "the site is served on.",
            id="sitemapkit.E004",
        )
    ]


@pytest.mark.parametrize(
    "allowed", [[".example.com"], ["*"], ["www.example.com"], ["WWW.EXAMPLE.COM"]]
)
def test_e004_host_allowed(allowed: list[str]) -> None:
    with override_settings(ALLOWED_HOSTS=allowed):
        assert check_settings() == []


@override_settings(SITEMAPKIT_BASE_URL="http://[::1]:8000", ALLOWED_HOSTS=["[::1]"], DEBUG=False)
def test_e004_ipv6_host_allowed_in_brackets() -> None:
    # Django matches the Host header's IPv6 address with its brackets.
    assert check_settings() == []


@override_settings(
    SITEMAPKIT_BASE_URL="http://[::1]:8000", ALLOWED_HOSTS=["localhost"], DEBUG=False
)
def test_e004_names_an_ipv6_host_in_brackets() -> None:
    assert check_settings() == [
        Error(
            "The host of SITEMAPKIT_BASE_URL, '[::1]', is not accepted by "
            "ALLOWED_HOSTS ['localhost'].",
            hint="Add '[::1]' to ALLOWED_HOSTS, or set SITEMAPKIT_BASE_URL to a host "
            "the site is served on.",
            id="sitemapkit.E004",
        )
    ]


@override_settings(ALLOWED_HOSTS=[], DEBUG=True)
def test_e004_is_quiet_in_development() -> None:
    assert check_settings() == []


# -- E032: characters no base URL can hold --------------------------------------------


def e032(value: str, problem: str, hint: str) -> Error:
    return Error(f"SITEMAPKIT_BASE_URL {problem}: {value!r}.", hint=hint, id="sitemapkit.E032")


GENERIC_E032_HINT = (
    "Set SITEMAPKIT_BASE_URL to the scheme and host the site is served on, written without "
    "spaces or control characters, such as 'https://www.example.com'."
)


@pytest.mark.parametrize(
    ("value", "problem", "hint"),
    [
        ("https://www.exa mple.com", "contains whitespace", GENERIC_E032_HINT),
        ("https://www.exa\tmple.com\n", "contains whitespace", GENERIC_E032_HINT),
        ("https://www.exa mple.com/blog", "contains whitespace", GENERIC_E032_HINT),
        (
            "\ufeffhttps://www.example.com/blog",
            "contains control characters",
            "Set SITEMAPKIT_BASE_URL = 'https://www.example.com/blog'.",
        ),
        (
            "\ufeffhttps://www.example.com",
            "contains control characters",
            "Set SITEMAPKIT_BASE_URL = 'https://www.example.com'.",
        ),
        ("https://www.exam\x00ple.com", "contains control characters", GENERIC_E032_HINT),
        (
            "https://www.example.com\\",
            "has characters that cannot stand in a URL's host or port ('\\\\')",
            GENERIC_E032_HINT,
        ),
        (
            "https://<www.example.com>",
            "has characters that cannot stand in a URL's host or port ('<', '>')",
            GENERIC_E032_HINT,
        ),
        (
            "https://bücher.example.com",
            "has characters that cannot stand in a URL's host or port ('ü')",
            "Set SITEMAPKIT_BASE_URL = 'https://xn--bcher-kva.example.com'.",
        ),
        (
            " https://Bücher.example.com:8443/blog\n",
            "has characters that cannot stand in a URL's host or port ('ü')",
            "Set SITEMAPKIT_BASE_URL = 'https://xn--bcher-kva.example.com:8443/blog'.",
        ),
        # IDNA 2003 maps 'ß' to 'ss', another domain: no such hint.
        (
            "https://straße.de",
            "has characters that cannot stand in a URL's host or port ('ß')",
            GENERIC_E032_HINT,
        ),
        # Credentials are never encoded into a hint.
        (
            "https://user@exämple.com",
            "has characters that cannot stand in a URL's host or port ('ä')",
            GENERIC_E032_HINT,
        ),
    ],
)
def test_e032_base_url_with_characters_a_url_cannot_hold(
    value: str, problem: str, hint: str
) -> None:
    # ALLOWED_HOSTS refuses every such host, DEBUG is off: E032 comes alone,
    # never E004 with a hint to allow a host holding a space.
    with override_settings(SITEMAPKIT_BASE_URL=value, ALLOWED_HOSTS=["example.com"]):
        assert check_settings() == [e032(value, problem, hint)]


@override_settings(SITEMAPKIT_BASE_URL="https://www.exa mple.com", ALLOWED_HOSTS=["*"])
def test_e032_is_refused_at_run_time_too() -> None:
    # Refused by the check and at run time alike: nothing guessed in one place only.
    with pytest.raises(ImproperlyConfigured, match="SITEMAPKIT_BASE_URL contains whitespace"):
        default_site()


@pytest.mark.django_db
@override_settings(SITEMAPKIT_BASE_URL="https://www.exa mple.com")
def test_e032_hides_w001() -> None:
    Site.objects.update_or_create(pk=1, defaults={"domain": "other.example", "name": "x"})
    Site.objects.clear_cache()
    assert check_sites_framework(databases=["default"]) == []


@pytest.mark.parametrize("value", ["https://[::1]:8000", "http://127.0.0.1:8000/"])
def test_e032_accepts_ip_hosts_and_ports(value: str) -> None:
    with override_settings(SITEMAPKIT_BASE_URL=value, ALLOWED_HOSTS=["*"]):
        assert check_settings() == []


@override_settings(SITEMAPKIT_BASE_URL="https://www.exa mple.com")
def test_e032_is_registered() -> None:
    with pytest.raises(SystemCheckError, match=r"sitemapkit\.E032"):
        call_command("check")


# -- W008: whitespace around a valid value ---------------------------------------------


@pytest.mark.parametrize(
    ("value", "used"),
    [
        ("https://www.example.com\n", "https://www.example.com"),
        ("https://www.example.com ", "https://www.example.com"),
        (" \thttp://localhost:8000/\r\n", "http://localhost:8000/"),
    ],
)
def test_w008_whitespace_around_the_base_url(value: str, used: str) -> None:
    with override_settings(SITEMAPKIT_BASE_URL=value, ALLOWED_HOSTS=["*"]):
        assert check_settings() == [
            Warning(
                f"SITEMAPKIT_BASE_URL {value!r} has whitespace around it: the sitemap uses "
                f"the value without it, {used!r}.",
                hint=f"Set SITEMAPKIT_BASE_URL = {used!r}.",
                id="sitemapkit.W008",
            )
        ]


@override_settings(SITEMAPKIT_BASE_URL="https://www.example.com\n", ALLOWED_HOSTS=["*"])
def test_w008_value_is_served_trimmed(client: Client) -> None:
    # As before E032: a value read from an env file or secret with its newline serves.
    assert default_site().origin == Origin("https", "www.example.com", 443)
    response = client.get("/robots.txt")
    assert response.status_code == 200
    assert response.content.endswith(b"\nSitemap: https://www.example.com/sitemap.xml\n")


def test_w008_is_not_shown_with_an_error_of_the_value() -> None:
    # One finding per value: E003's hint drops the whitespace too.
    value = "https://www.example.com/blog \n"
    with override_settings(SITEMAPKIT_BASE_URL=value):
        assert check_settings() == [
            Error(
                f"SITEMAPKIT_BASE_URL carries a path: {value!r}.",
                hint="Set SITEMAPKIT_BASE_URL to 'https://www.example.com'. For a site "
                "deployed under a sub-path, set FORCE_SCRIPT_NAME instead.",
                id="sitemapkit.E003",
            )
        ]


@override_settings(SITEMAPKIT_BASE_URL="https://www.example.com\n")
def test_w008_is_registered() -> None:
    out = StringIO()
    call_command("check", stdout=out, stderr=out)
    assert "?: (sitemapkit.W008) SITEMAPKIT_BASE_URL 'https://www.example.com\\n'" in (
        out.getvalue()
    )


# -- W005: http:// on a site served over HTTPS --------------------------------------------


@override_settings(SITEMAPKIT_BASE_URL="http://www.example.com", SECURE_SSL_REDIRECT=True)
def test_w005_http_base_url_with_ssl_redirect() -> None:
    assert check_settings() == [
        Warning(
            "SITEMAPKIT_BASE_URL 'http://www.example.com' is an http:// URL, but "
            "SECURE_SSL_REDIRECT = True says the site is served over HTTPS: every URL of the "
            "sitemap would point at http://, which answers with a redirect instead of the page.",
            hint="Set SITEMAPKIT_BASE_URL = 'https://www.example.com'.",
            id="sitemapkit.W005",
        )
    ]


@override_settings(
    SITEMAPKIT_BASE_URL="http://www.example.com:8080/",
    SECURE_PROXY_SSL_HEADER=("HTTP_X_FORWARDED_PROTO", "https"),
    SECURE_HSTS_SECONDS=3600,
)
def test_w005_names_every_setting_and_keeps_a_port() -> None:
    assert check_settings() == [
        Warning(
            "SITEMAPKIT_BASE_URL 'http://www.example.com:8080/' is an http:// URL, but "
            "SECURE_PROXY_SSL_HEADER = ('HTTP_X_FORWARDED_PROTO', 'https') and "
            "SECURE_HSTS_SECONDS = 3600 say the site is served over HTTPS: every URL of the "
            "sitemap would point at http://, which answers with a redirect instead of the page.",
            hint="Set SITEMAPKIT_BASE_URL = 'https://www.example.com:8080'.",
            id="sitemapkit.W005",
        )
    ]


@pytest.mark.parametrize(
    ("base_url", "https"),
    [
        ("http://www.example.com", {}),
        ("http://www.example.com", {"SECURE_HSTS_SECONDS": 0, "SECURE_SSL_REDIRECT": False}),
        ("https://www.example.com", {"SECURE_SSL_REDIRECT": True, "SECURE_HSTS_SECONDS": 60}),
        ("http://www .example.com", {"SECURE_SSL_REDIRECT": True}),  # E032 only
    ],
)
def test_w005_quiet(base_url: str, https: dict[str, object]) -> None:
    with override_settings(SITEMAPKIT_BASE_URL=base_url, **https):
        assert [m.id for m in check_settings() if m.id == "sitemapkit.W005"] == []


@override_settings(
    SITEMAPKIT_BASE_URL="http://localhost:8000",
    ALLOWED_HOSTS=["localhost"],
    SECURE_PROXY_SSL_HEADER=("HTTP_X_FORWARDED_PROTO", "https"),
)
@pytest.mark.parametrize("debug", [True, False])
def test_w005_is_quiet_in_development(debug: bool) -> None:
    # Settings shared with production, runserver on http: no https:// hint it cannot serve.
    with override_settings(DEBUG=debug):
        found = [m.id for m in check_settings()]
    assert found == ([] if debug else ["sitemapkit.W005"])


@override_settings(SITEMAPKIT_BASE_URL="http://www.example.com", SECURE_SSL_REDIRECT=True)
@pytest.mark.parametrize("deploy", [False, True])
@pytest.mark.django_db  # check --deploy reads each section's first rows (E118)
def test_w005_is_registered(deploy: bool) -> None:
    # With DEBUG off, as in production: there check --deploy shows it too.
    assert settings.DEBUG is False
    out = StringIO()
    call_command("check", deploy=deploy, stdout=out, stderr=out)
    assert (
        "?: (sitemapkit.W005) SITEMAPKIT_BASE_URL 'http://www.example.com' is an http:// URL"
        in out.getvalue()
    )


# -- W007: E004 with DEBUG on ------------------------------------------------------------

W007 = Warning(
    "The host of SITEMAPKIT_BASE_URL, 'www.example.com', is not accepted by ALLOWED_HOSTS "
    "['127.0.0.1', 'localhost'].",
    hint="With DEBUG off this is an error (sitemapkit.E004). Give each environment its own "
    "values: set SITEMAPKIT_BASE_URL from an environment variable "
    "(os.environ['SITEMAPKIT_BASE_URL']) to the host that environment serves, or add "
    "'www.example.com' to ALLOWED_HOSTS where the site is served on it.",
    id="sitemapkit.W007",
)


@override_settings(ALLOWED_HOSTS=["127.0.0.1", "localhost"], DEBUG=True)
def test_w007_host_not_allowed_in_development() -> None:
    assert conf.BASE_URL == "https://www.example.com"
    assert check_settings() == [W007]


@override_settings(ALLOWED_HOSTS=["127.0.0.1", "localhost"], DEBUG=True)
def test_w007_is_registered_and_does_not_stop_commands() -> None:
    out = StringIO()
    call_command("check", stdout=out, stderr=out)  # no SystemCheckError
    assert "?: (sitemapkit.W007) The host of SITEMAPKIT_BASE_URL" in out.getvalue()
