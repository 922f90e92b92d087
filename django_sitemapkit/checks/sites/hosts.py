"""System checks of ``SITEMAPKIT_SITES`` and ``SITEMAPKIT_SITE_SCHEME``, without the
database: the setting's shape, each site's name and base URL, hosts shared by
two sites, and ``SITEMAPKIT_BASE_URL`` set beside it; ``served_hosts`` checks
how the sites are served (``ALLOWED_HOSTS``, the scheme). The ``Site`` rows of
``SITEMAPKIT_SITES = "django.contrib.sites"`` are judged by the database checks
(``site_rows``).

A site whose name or base URL is refused is left out of the checks that compare
sites (hosts shared, ``ALLOWED_HOSTS``, scheme): each bad value gets one finding.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from django.apps import apps
from django.core.checks import CheckMessage, Error, Warning
from django.core.exceptions import ImproperlyConfigured

from django_sitemapkit.checks.setting_values import check_values
from django_sitemapkit.checks.sites.base_url import NOT_AN_ORIGIN, corrected_base_url
from django_sitemapkit.checks.sites.served_hosts import (
    check_allowed_hosts,
    check_http,
    check_scheme_https,
)
from django_sitemapkit.checks.sites.wagtail_sites import check_wagtail_app
from django_sitemapkit.conf import conf
from django_sitemapkit.names import SITE_NAME
from django_sitemapkit.sites.base_urls import (
    EXAMPLE,
    Origin,
    base_url_in_use,
    base_url_problem,
    base_url_unset,
)
from django_sitemapkit.sites.configured import (
    SITES_FRAMEWORK,
    SitemapSite,
    parsed_site,
    shared_hosts,
)
from django_sitemapkit.sites.framework import SITES_APP
from django_sitemapkit.sites.wagtail import WAGTAIL_SITES

A_DICT = f"a dict of each site's name to its base URL, such as {{'www': {EXAMPLE}}}"


def check_site_settings(**kwargs: Any) -> list[CheckMessage]:
    value = conf.raw("SITES")
    errors = check_values("SITE_SCHEME")
    if value is None:
        return errors + check_scheme_https()
    errors += check_base_url_too()
    if value == SITES_FRAMEWORK:
        return errors + check_sites_app() + check_scheme_https()
    if value == WAGTAIL_SITES:
        return errors + check_wagtail_app()
    if not isinstance(value, Mapping) or not value:
        return errors + check_sites_shape(value)
    for name, url in value.items():
        errors += check_site_name(name) + check_site_url(name, url)
    sites = usable_sites()
    return errors + check_shared_hosts(sites) + check_allowed_hosts(sites) + check_http(sites)


def usable_sites() -> list[SitemapSite]:
    """The sites of a ``SITEMAPKIT_SITES`` dict whose name and base URL are fit; none
    if the setting is no dict."""
    value = conf.raw("SITES")
    if not isinstance(value, Mapping):
        return []
    sites = []
    for name, url in value.items():
        try:
            sites.append(parsed_site(name, url))
        except ImproperlyConfigured:
            continue  # reported by check_site_name or check_site_url
    return sites


def check_sites_shape(value: object) -> list[CheckMessage]:
    """E035: neither a non-empty dict nor ``"django.contrib.sites"``."""
    why = (
        "which lists no site"
        if isinstance(value, Mapping)
        else (
            f"neither a dict of site names to base URLs, {SITES_FRAMEWORK!r} nor {WAGTAIL_SITES!r}"
        )
    )
    return [
        Error(
            f"SITEMAPKIT_SITES is {value!r}, {why}.",
            hint=shape_fix(value),
            id="sitemapkit.E035",
        )
    ]


def shape_fix(value: object) -> str:
    if isinstance(value, str) and value.strip().lower() == SITES_FRAMEWORK:
        return f"Set SITEMAPKIT_SITES = {SITES_FRAMEWORK!r}."
    if isinstance(value, str) and base_url_problem(value) is None:
        used = base_url_in_use(value)
        return (
            f"For one site, remove SITEMAPKIT_SITES and set SITEMAPKIT_BASE_URL = {used!r}; "
            f"for several, set SITEMAPKIT_SITES = {{'www': {used!r}, ...}}."
        )
    derived = named_by_host(value)
    if derived is not None:
        return f"Set SITEMAPKIT_SITES = {derived!r}: a dict of each site's name to its base URL."
    return (
        f"Set SITEMAPKIT_SITES to {A_DICT}, to {SITES_FRAMEWORK!r} for a site per Site "
        f"row (or {WAGTAIL_SITES!r} per Wagtail Site), or remove it for one site on "
        "SITEMAPKIT_BASE_URL."
    )


def named_by_host(value: object) -> dict[str, str] | None:
    """A list of base URLs as the dict it means, each site named by its host; ``None``
    where a URL is refused or two hosts would give one name."""
    if not isinstance(value, (list, tuple)) or not value:
        return None
    derived: dict[str, str] = {}
    for url in value:
        if base_url_problem(url) is not None:
            return None
        used = base_url_in_use(url)
        assert isinstance(used, str)
        host = Origin.from_url(used).host.removesuffix(".")
        if not SITE_NAME.fullmatch(host) or host in derived:
            return None
        derived[host] = used
    return derived


def check_site_name(name: object) -> list[CheckMessage]:
    """E036: a name that cannot name a directory (of the site's built files)."""
    if isinstance(name, str) and SITE_NAME.fullmatch(name):
        return []
    return [
        Error(
            f"SITEMAPKIT_SITES names a site {name!r}, which cannot name the directory of its "
            "built files.",
            hint="Name each site with 1 to 64 ASCII letters, digits, '.', '-' or '_', "
            "starting with a letter or digit, such as 'www'.",
            id="sitemapkit.E036",
        )
    ]


def check_site_url(name: object, url: object) -> list[CheckMessage]:
    """E037: a base URL the run time refuses; W012: whitespace around a fit one."""
    setting = f"SITEMAPKIT_SITES[{name!r}]"
    problem = "is not a str" if not isinstance(url, str) else base_url_problem(url)
    if problem is None:
        used = base_url_in_use(url)
        if used == url:
            return []
        return [
            Warning(
                f"The base URL of site {name!r} in SITEMAPKIT_SITES, {url!r}, has whitespace "
                f"around it: the sitemaps use the value without it, {used!r}.",
                hint=f"Set {setting} = {used!r}.",
                id="sitemapkit.W012",
            )
        ]
    corrected = corrected_site_url(url) if isinstance(url, str) else None
    if corrected is None:
        hint = f"Set {setting} to the scheme and host the site is served on, such as {EXAMPLE}."
    else:
        hint = f"Set {setting} = {corrected!r}."
    if problem == "carries a path":
        hint += " For sites deployed under a sub-path, set FORCE_SCRIPT_NAME instead."
    return [
        Error(
            f"The base URL of site {name!r} in SITEMAPKIT_SITES {problem}: {url!r}.",
            hint=hint,
            id="sitemapkit.E037",
        )
    ]


def corrected_site_url(value: str) -> str | None:
    """The base URL ``value`` means, where that is certain: trimmed, its host in its
    ASCII form, without a path, query, fragment or credentials."""
    candidate = corrected_base_url(value)
    if candidate is None or base_url_problem(candidate) in NOT_AN_ORIGIN:
        return None
    corrected = Origin.from_parts(urlsplit(candidate)).url
    return corrected if base_url_problem(corrected) is None else None


def check_shared_hosts(sites: list[SitemapSite]) -> list[CheckMessage]:
    """E038: two sites on one host (and port), which a request cannot tell apart;
    the scheme does not count, as a request is matched without it."""
    return [
        Error(
            f"SITEMAPKIT_SITES gives the sites {other.name!r} ({other.base_url!r}) and "
            f"{site.name!r} ({site.base_url!r}) the same host: requests for it always "
            f"get the sitemaps of {other.name!r}.",
            hint="Give each site a host (or port) of its own: a request selects its site "
            f"by host and port, never by scheme. Or remove {site.name!r}.",
            id="sitemapkit.E038",
        )
        for other, site in shared_hosts(sites)
    ]


def check_base_url_too() -> list[CheckMessage]:
    """E039: ``SITEMAPKIT_BASE_URL`` set beside ``SITEMAPKIT_SITES``, which replaces it."""
    value = conf.raw("BASE_URL")
    if base_url_unset(value):
        return []
    return [
        Error(
            f"SITEMAPKIT_SITES and SITEMAPKIT_BASE_URL ({value!r}) are both set: with "
            "SITEMAPKIT_SITES each site has its own base URL, and SITEMAPKIT_BASE_URL is "
            "not used.",
            hint="Remove SITEMAPKIT_BASE_URL (and list its site in SITEMAPKIT_SITES if it has "
            "sitemaps), or remove SITEMAPKIT_SITES for one site.",
            id="sitemapkit.E039",
        )
    ]


def check_sites_app() -> list[CheckMessage]:
    """E040: a site per ``Site`` row, without the app that has them."""
    if apps.is_installed(SITES_APP):
        return []
    return [
        Error(
            f"SITEMAPKIT_SITES is {SITES_FRAMEWORK!r}, but {SITES_APP} is not in INSTALLED_APPS.",
            hint=f"Add {SITES_APP!r} to INSTALLED_APPS and run migrate, or set "
            f"SITEMAPKIT_SITES to {A_DICT}.",
            id="sitemapkit.E040",
        )
    ]
