"""Checks of how each site is served (checks/sites/served_hosts.py): ALLOWED_HOSTS
(E042, W013), SITEMAPKIT_SITE_SCHEME (E041) and the scheme against the security
settings (W014)."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.checks import Error, Warning
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.test import override_settings

from django_sitemapkit.checks import check_settings, check_site_settings

SITES = {
    "www": "https://www.example.com",
    "shop": "https://Shop.example.com.",
    "v6": "https://[2001:db8::1]:8443",
}
SEVERAL = override_settings(SITEMAPKIT_BASE_URL=None, SITEMAPKIT_SITES=SITES)
REFUSED = (
    "The host of site {name!r} of SITEMAPKIT_SITES, {host!r}, is not accepted by "
    "ALLOWED_HOSTS ['www.example.com']: requests for its sitemaps are answered with 400."
)


def e042(name: str, host: str) -> Error:
    return Error(
        REFUSED.format(name=name, host=host),
        hint=f"Add {host!r} to ALLOWED_HOSTS, or remove site {name!r} from SITEMAPKIT_SITES "
        "if it is not served here.",
        id="sitemapkit.E042",
    )


def w013(name: str, host: str) -> Warning:
    return Warning(
        REFUSED.format(name=name, host=host),
        hint="With DEBUG off this is an error (sitemapkit.E042). Give each environment its "
        f"own values: read SITEMAPKIT_SITES from the environment, or add {host!r} to "
        "ALLOWED_HOSTS where the site is served on it.",
        id="sitemapkit.W013",
    )


@SEVERAL
@override_settings(ALLOWED_HOSTS=["www.example.com"], DEBUG=False)
def test_e042_hosts_allowed_hosts_refuses() -> None:
    # The host as a request's is judged: no final dot, an IPv6 address in brackets.
    assert check_site_settings() == [
        e042("shop", "shop.example.com"),
        e042("v6", "[2001:db8::1]"),
    ]


@SEVERAL
@override_settings(ALLOWED_HOSTS=["www.example.com"], DEBUG=True)
def test_w013_with_debug_on() -> None:
    assert check_site_settings() == [
        w013("shop", "shop.example.com"),
        w013("v6", "[2001:db8::1]"),
    ]


@SEVERAL
@pytest.mark.parametrize(
    ("allowed", "debug"),
    [
        ([".example.com", "[2001:db8::1]"], False),
        (["*"], False),
        ([], True),  # Django's development default: localhost only, nothing to say
    ],
)
def test_e042_quiet(allowed: list[str], debug: bool) -> None:
    with override_settings(ALLOWED_HOSTS=allowed, DEBUG=debug):
        assert check_site_settings() == []


@SEVERAL
@override_settings(ALLOWED_HOSTS=["www.example.com"], DEBUG=False)
def test_e042_is_registered() -> None:
    with pytest.raises(SystemCheckError) as raised:
        call_command("check")
    assert "(sitemapkit.E042) The host of site 'shop' of SITEMAPKIT_SITES" in str(raised.value)
    # The base URL's own check says nothing of SITEMAPKIT_BASE_URL.
    assert "sitemapkit.E004" not in str(raised.value)


@SEVERAL
@override_settings(ALLOWED_HOSTS=["www.example.com"], DEBUG=True)
def test_w013_is_registered_and_does_not_stop_commands() -> None:
    out = StringIO()
    call_command("check", stdout=out, stderr=out)
    assert "(sitemapkit.W013) The host of site 'v6' of SITEMAPKIT_SITES" in out.getvalue()


# -- E041: SITEMAPKIT_SITE_SCHEME --------------------------------------------------------

ANY_SCHEME = (
    "Set SITEMAPKIT_SITE_SCHEME = 'https' (or 'http' for sites served without TLS), or "
    "remove it for 'https'."
)


@pytest.mark.parametrize(
    ("value", "hint"),
    [
        ("ftp", ANY_SCHEME),
        (None, ANY_SCHEME),
        ("", ANY_SCHEME),
        ("HTTPS", "Set SITEMAPKIT_SITE_SCHEME = 'https'."),
        ("http://", "Set SITEMAPKIT_SITE_SCHEME = 'http'."),
    ],
)
@pytest.mark.parametrize("sites", [None, "django.contrib.sites"])
def test_e041_site_scheme(value: object, hint: str, sites: object) -> None:
    with override_settings(
        SITEMAPKIT_BASE_URL=None, SITEMAPKIT_SITES=sites, SITEMAPKIT_SITE_SCHEME=value
    ):
        assert check_site_settings() == [
            Error(
                f"SITEMAPKIT_SITE_SCHEME is {value!r}, not 'https' or 'http'.",
                hint=hint,
                id="sitemapkit.E041",
            )
        ]


@override_settings(SITEMAPKIT_SITE_SCHEME="ftp")
def test_e041_is_registered() -> None:
    with pytest.raises(SystemCheckError, match=r"sitemapkit\.E041\) SITEMAPKIT_SITE_SCHEME is"):
        call_command("check")


# -- W014: http:// while the security settings say HTTPS ------------------------------


@override_settings(
    SITEMAPKIT_BASE_URL=None,
    SITEMAPKIT_SITES={"www": "https://www.example.com", "old": "http://old.example.com:8080"},
    ALLOWED_HOSTS=["*"],
    SECURE_SSL_REDIRECT=True,
    SECURE_HSTS_SECONDS=60,
)
def test_w014_an_http_site() -> None:
    w014 = Warning(
        "Site 'old' of SITEMAPKIT_SITES is on 'http://old.example.com:8080', an http:// URL, "
        "but SECURE_SSL_REDIRECT = True and SECURE_HSTS_SECONDS = 60 say the site is served "
        "over HTTPS: every URL of its sitemaps would point at http://, which answers with a "
        "redirect instead of the page.",
        hint="Set SITEMAPKIT_SITES['old'] = 'https://old.example.com:8080'.",
        id="sitemapkit.W014",
    )
    assert check_site_settings() == [w014]
    assert check_settings() == []  # W005 speaks of SITEMAPKIT_BASE_URL alone
    out = StringIO()
    call_command("check", stdout=out, stderr=out)
    assert "(sitemapkit.W014) Site 'old' of SITEMAPKIT_SITES is on" in out.getvalue()


W014_SCHEME = Warning(
    "SITEMAPKIT_SITE_SCHEME is 'http', but SECURE_PROXY_SSL_HEADER = ('HTTP_X_FORWARDED_PROTO', "
    "'https') says the site is served over HTTPS: every URL of the sitemaps built on a Site's "
    "domain would point at http://, which answers with a redirect instead of the page.",
    hint="Set SITEMAPKIT_SITE_SCHEME = 'https', or remove it.",
    id="sitemapkit.W014",
)
PROXIED = override_settings(
    SITEMAPKIT_SITE_SCHEME="http", SECURE_PROXY_SSL_HEADER=("HTTP_X_FORWARDED_PROTO", "https")
)


@PROXIED
@pytest.mark.parametrize("sites", ["django.contrib.sites", None])
def test_w014_site_scheme_http(sites: str | None) -> None:
    # With SITEMAPKIT_SITES unset, the current Site gives the host (SITE_ID = 1).
    with override_settings(SITEMAPKIT_BASE_URL=None, SITEMAPKIT_SITES=sites):
        assert check_site_settings() == [W014_SCHEME]


@PROXIED
def test_w014_site_scheme_unused() -> None:
    # SITEMAPKIT_BASE_URL gives the host, with its own scheme: no Site's domain is used.
    assert check_site_settings() == []


@PROXIED
@override_settings(
    SITEMAPKIT_BASE_URL=None,
    SITEMAPKIT_SITES={"old": "http://old.example.com"},
    ALLOWED_HOSTS=["*"],
    DEBUG=True,
)
def test_w014_quiet_in_development() -> None:
    assert check_site_settings() == []
