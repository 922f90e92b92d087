"""Checks of SITEMAPKIT_SITES without the database (checks/sites/hosts.py), and the base
URL's checks left silent beside it."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.checks import Error, Warning
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.test import modify_settings, override_settings

from django_sitemapkit.checks import check_settings, check_site_settings

WITHOUT_SITES_APP = modify_settings(INSTALLED_APPS={"remove": ["django.contrib.sites"]})
TWO = {"www": "https://www.example.com", "shop": "https://shop.example.com"}
HOSTS = ["www.example.com", "shop.example.com"]
SEVERAL = override_settings(SITEMAPKIT_BASE_URL=None, SITEMAPKIT_SITES=TWO, ALLOWED_HOSTS=HOSTS)


def check_output() -> str:
    out = StringIO()
    call_command("check", stdout=out, stderr=out)
    return out.getvalue()


@SEVERAL
def test_quiet_for_fit_sites() -> None:
    assert check_site_settings() == []
    assert check_settings() == []
    assert "sitemapkit" not in check_output()


@pytest.mark.parametrize("site_id", [1, None])
@pytest.mark.parametrize("sites", [TWO, "django.contrib.sites"])
def test_the_base_url_checks_are_silent_with_several_sites(site_id: object, sites: object) -> None:
    # E034 (no SITE_ID), E004 (ALLOWED_HOSTS) and W005 (HTTPS) would speak of
    # SITEMAPKIT_BASE_URL, which several sites do not use.
    with override_settings(
        SITEMAPKIT_BASE_URL=None,
        SITEMAPKIT_SITES=sites,
        SITE_ID=site_id,
        ALLOWED_HOSTS=HOSTS,
        SECURE_SSL_REDIRECT=True,
    ):
        assert check_settings() == []
        assert check_site_settings() == []


@WITHOUT_SITES_APP
@SEVERAL
def test_e001_is_silent_with_several_sites() -> None:
    assert check_settings() == []
    assert "sitemapkit" not in check_output()


# -- E035: the setting's shape ----------------------------------------------------------

GENERAL = (
    "Set SITEMAPKIT_SITES to a dict of each site's name to its base URL, such as "
    "{'www': 'https://www.example.com'}, to 'django.contrib.sites' for a site per Site row "
    "(or 'wagtail' per Wagtail Site), or remove it for one site on SITEMAPKIT_BASE_URL."
)
NEITHER = "neither a dict of site names to base URLs, 'django.contrib.sites' nor 'wagtail'"


@pytest.mark.parametrize(
    ("value", "why", "hint"),
    [
        ({}, "which lists no site", GENERAL),
        ("", NEITHER, GENERAL),
        (42, NEITHER, GENERAL),
        ([], NEITHER, GENERAL),
        (" Django.contrib.sites", NEITHER, "Set SITEMAPKIT_SITES = 'django.contrib.sites'."),
        (
            "https://www.example.com",
            NEITHER,
            "For one site, remove SITEMAPKIT_SITES and set SITEMAPKIT_BASE_URL = "
            "'https://www.example.com'; for several, set SITEMAPKIT_SITES = "
            "{'www': 'https://www.example.com', ...}.",
        ),
        (
            ["https://www.example.com", "http://Shop.example.com:8080"],
            NEITHER,
            "Set SITEMAPKIT_SITES = {'www.example.com': 'https://www.example.com', "
            "'shop.example.com': 'http://Shop.example.com:8080'}: a dict of each site's name "
            "to its base URL.",
        ),
        (["https://www.example.com", "www"], NEITHER, GENERAL),
    ],
)
def test_e035_neither_a_dict_nor_the_sites_framework(value: object, why: str, hint: str) -> None:
    with override_settings(SITEMAPKIT_BASE_URL=None, SITEMAPKIT_SITES=value):
        assert check_site_settings() == [
            Error(f"SITEMAPKIT_SITES is {value!r}, {why}.", hint=hint, id="sitemapkit.E035")
        ]
        assert check_settings() == []


@pytest.mark.parametrize(
    ("sites", "shown"),
    [
        ({}, ["E035) SITEMAPKIT_SITES is {}"]),
        (
            {"a b": "https://a.example.com", "c": "https://www.example.com/x", **TWO},
            ["E036) SITEMAPKIT_SITES names a site 'a b'", "E037) The base URL of site 'c'"],
        ),
        (
            {"www": "https://www.example.com\n", "again": "http://www.example.com"},
            ["W012) The base URL of site 'www'", "E038) SITEMAPKIT_SITES gives the sites"],
        ),
    ],
)
def test_registered(sites: object, shown: list[str]) -> None:
    # SITEMAPKIT_BASE_URL is left set, as the test settings have it: E039 too.
    settings = override_settings(SITEMAPKIT_SITES=sites, ALLOWED_HOSTS=HOSTS)
    with settings, pytest.raises(SystemCheckError) as raised:
        call_command("check")
    for text in [*shown, "E039) SITEMAPKIT_SITES and SITEMAPKIT_BASE_URL"]:
        assert f"(sitemapkit.{text}" in str(raised.value)


# -- E036, E037, W012: each site's name and base URL -----------------------------------


@pytest.mark.parametrize("name", ["", "../www", "www/", ".www", "a b", 3, "x" * 65])
def test_e036_a_name_that_cannot_name_a_directory(name: object) -> None:
    with override_settings(
        SITEMAPKIT_BASE_URL=None,
        SITEMAPKIT_SITES={name: "https://shop.example.com", "www": "https://www.example.com"},
        ALLOWED_HOSTS=HOSTS,
    ):
        assert check_site_settings() == [
            Error(
                f"SITEMAPKIT_SITES names a site {name!r}, which cannot name the directory of "
                "its built files.",
                hint="Name each site with 1 to 64 ASCII letters, digits, '.', '-' or '_', "
                "starting with a letter or digit, such as 'www'.",
                id="sitemapkit.E036",
            )
        ]


ANY = "Set SITEMAPKIT_SITES['shop'] to the scheme and host the site is served on, such as "
ANY += "'https://www.example.com'."


@pytest.mark.parametrize(
    ("url", "problem", "hint"),
    [
        (None, "is not a str", ANY),
        (42, "is not a str", ANY),
        ("", "is not set", ANY),
        ("shop.example.com", "is not an absolute http or https URL", ANY),
        ("https://shop.example.com:0", "has an invalid port", ANY),
        (
            "https://shop.example.com/fr/",
            "carries a path",
            "Set SITEMAPKIT_SITES['shop'] = 'https://shop.example.com'. For sites deployed "
            "under a sub-path, set FORCE_SCRIPT_NAME instead.",
        ),
        (
            "https://me:pw@shop.example.com:8443?x=1",
            "carries credentials",
            "Set SITEMAPKIT_SITES['shop'] = 'https://shop.example.com:8443'.",
        ),
        (
            " https://bücher.example.com/ ",
            "has characters that cannot stand in a URL's host or port ('ü')",
            "Set SITEMAPKIT_SITES['shop'] = 'https://xn--bcher-kva.example.com'.",
        ),
        ("https://shop example.com", "contains whitespace", ANY),
    ],
)
def test_e037_a_base_url_the_run_time_refuses(url: object, problem: str, hint: str) -> None:
    with override_settings(
        SITEMAPKIT_BASE_URL=None,
        SITEMAPKIT_SITES={"www": "https://www.example.com", "shop": url},
        ALLOWED_HOSTS=HOSTS,
    ):
        assert check_site_settings() == [
            Error(
                f"The base URL of site 'shop' in SITEMAPKIT_SITES {problem}: {url!r}.",
                hint=hint,
                id="sitemapkit.E037",
            )
        ]


@override_settings(
    SITEMAPKIT_BASE_URL=None,
    SITEMAPKIT_SITES={"www": "https://www.example.com\n", "shop": "https://shop.example.com"},
    ALLOWED_HOSTS=HOSTS,
)
def test_w012_whitespace_around_a_base_url() -> None:
    assert check_site_settings() == [
        Warning(
            "The base URL of site 'www' in SITEMAPKIT_SITES, 'https://www.example.com\\n', has "
            "whitespace around it: the sitemaps use the value without it, "
            "'https://www.example.com'.",
            hint="Set SITEMAPKIT_SITES['www'] = 'https://www.example.com'.",
            id="sitemapkit.W012",
        )
    ]


# -- E038: two sites, one host ---------------------------------------------------------


@pytest.mark.parametrize(
    "url", ["https://www.example.com", "http://WWW.example.com", "https://www.example.com.:443"]
)
def test_e038_two_sites_on_one_host(url: str) -> None:
    sites = {"www": "https://www.example.com", "again": url, "shop": "https://shop.example.com"}
    with override_settings(SITEMAPKIT_BASE_URL=None, SITEMAPKIT_SITES=sites, ALLOWED_HOSTS=HOSTS):
        shown = url.lower().removesuffix(":443")
        assert check_site_settings() == [
            Error(
                "SITEMAPKIT_SITES gives the sites 'www' ('https://www.example.com') and "
                f"'again' ({shown!r}) the same host: requests for it always get the sitemaps "
                "of 'www'.",
                hint="Give each site a host (or port) of its own: a request selects its site "
                "by host and port, never by scheme. Or remove 'again'.",
                id="sitemapkit.E038",
            )
        ]


def test_e038_not_for_another_port() -> None:
    sites = {"www": "https://www.example.com", "admin": "https://www.example.com:8443"}
    with override_settings(SITEMAPKIT_BASE_URL=None, SITEMAPKIT_SITES=sites, ALLOWED_HOSTS=HOSTS):
        assert check_site_settings() == []


# -- E039, E040: what SITEMAPKIT_SITES replaces, and what it needs ----------------------


@pytest.mark.parametrize("sites", [TWO, "django.contrib.sites"])
def test_e039_the_base_url_set_too(sites: object) -> None:
    with override_settings(SITEMAPKIT_SITES=sites, ALLOWED_HOSTS=HOSTS):
        assert check_site_settings() == [
            Error(
                "SITEMAPKIT_SITES and SITEMAPKIT_BASE_URL ('https://www.example.com') are both "
                "set: with SITEMAPKIT_SITES each site has its own base URL, and "
                "SITEMAPKIT_BASE_URL is not used.",
                hint="Remove SITEMAPKIT_BASE_URL (and list its site in SITEMAPKIT_SITES if it "
                "has sitemaps), or remove SITEMAPKIT_SITES for one site.",
                id="sitemapkit.E039",
            )
        ]


@WITHOUT_SITES_APP
@override_settings(SITEMAPKIT_BASE_URL=None, SITEMAPKIT_SITES="django.contrib.sites")
def test_e040_the_sites_framework_not_installed() -> None:
    e040 = Error(
        "SITEMAPKIT_SITES is 'django.contrib.sites', but django.contrib.sites is not in "
        "INSTALLED_APPS.",
        hint="Add 'django.contrib.sites' to INSTALLED_APPS and run migrate, or set "
        "SITEMAPKIT_SITES to a dict of each site's name to its base URL, such as "
        "{'www': 'https://www.example.com'}.",
        id="sitemapkit.E040",
    )
    assert check_site_settings() == [e040]
    with pytest.raises(SystemCheckError, match=r"sitemapkit\.E040\) SITEMAPKIT_SITES is 'django"):
        call_command("check")
