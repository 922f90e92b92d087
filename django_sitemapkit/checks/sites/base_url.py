"""System checks of ``SITEMAPKIT_BASE_URL``: set, or left to the current Site of
``django.contrib.sites`` that ``SITE_ID`` names; well formed, made of characters
a URL's host can hold, accepted by ``ALLOWED_HOSTS``, and on the scheme the
security settings serve the site on. One finding per bad value: a value E001,
E002, E003, E032 or E034 refuses is not judged by the checks after it, and W008
(whitespace around a valid value) comes only when nothing else is wrong.

Where the Site gives the base URL, its host is known only to the database:
the checks here that need it (E004, W005, W007) say nothing, and the database
checks (``sites.py``) judge the domain.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from django.apps import apps
from django.conf import settings
from django.core.checks import CheckMessage, Error, Warning
from django.http.request import validate_host

from django_sitemapkit.conf import conf
from django_sitemapkit.sites.base_urls import (
    EXAMPLE,
    Origin,
    base_url_in_use,
    base_url_problem,
    base_url_unset,
    trimmed,
    unfit_characters,
)
from django_sitemapkit.sites.framework import SITES_APP, site_id, uses_site
from django_sitemapkit.sites.hosts import default_site
from django_sitemapkit.sites.wagtail import WAGTAIL_SITES

NOT_AN_ORIGIN = ("is not an absolute http or https URL", "has an invalid port")


def check_base_url() -> list[CheckMessage]:
    value = conf.raw("BASE_URL")
    used = base_url_in_use(value)
    if base_url_unset(value):
        return check_unset_base_url(value)
    if isinstance(used, str) and unfit_characters(used) is not None:
        return check_base_url_characters(str(value))
    problem = base_url_problem(value)
    if problem is None:
        return check_surrounding_whitespace(value)
    if problem in NOT_AN_ORIGIN:
        return [
            Error(
                f"SITEMAPKIT_BASE_URL {problem}: {value!r}.",
                hint="Set it to 'http://' or 'https://' followed by the site's host, such as "
                f"{EXAMPLE}.",
                id="sitemapkit.E002",
            )
        ]
    assert isinstance(used, str)
    # The hint's value also drops any whitespace around it: one finding, whole fix.
    hint = f"Set SITEMAPKIT_BASE_URL to {Origin.from_parts(urlsplit(used)).url!r}."
    if problem == "carries a path":
        hint += " For a site deployed under a sub-path, set FORCE_SCRIPT_NAME instead."
    return [Error(f"SITEMAPKIT_BASE_URL {problem}: {value!r}.", hint=hint, id="sitemapkit.E003")]


def check_unset_base_url(value: object) -> list[CheckMessage]:
    """E001, or E034 where django.contrib.sites is installed but cannot stand in for
    the setting; nothing where the current Site gives the base URL (``sites.py``)."""
    if uses_site():
        return []  # its domain is in the database: sitemapkit.W009 and W010 judge it
    if apps.is_installed(SITES_APP):
        return [
            Error(
                f"SITEMAPKIT_BASE_URL is not set ({value!r}), and neither is SITE_ID "
                f"({site_id()!r}): without SITE_ID, django.contrib.sites finds the current "
                "Site from a request's host, which the sitemap is never built on.",
                hint="Set SITE_ID to the pk of the Site the site is served on (SITE_ID = 1 "
                "for the Site 'migrate' creates), or set SITEMAPKIT_BASE_URL to the scheme "
                f"and host the site is served on, such as {EXAMPLE}.",
                id="sitemapkit.E034",
            )
        ]
    return [
        Error(
            f"SITEMAPKIT_BASE_URL is not set ({value!r}), and django.contrib.sites is not "
            "installed to give the site's domain instead.",
            hint="Set SITEMAPKIT_BASE_URL to the scheme and host the site is served on, "
            f"such as {EXAMPLE}; or add 'django.contrib.sites' to INSTALLED_APPS and set "
            "SITE_ID, to build the sitemap on https:// and the current Site's domain; or, "
            f"on a Wagtail project, set SITEMAPKIT_SITES = {WAGTAIL_SITES!r}, to list each "
            "Wagtail Site on its own root URL.",
            id="sitemapkit.E001",
        )
    ]


def check_surrounding_whitespace(value: object) -> list[CheckMessage]:
    """W008: a valid base URL with whitespace around it, such as the newline an env
    file or a secret ends with. The run time drops it (``base_url_in_use()``), so
    it is no error; the setting should still say what is used."""
    used = base_url_in_use(value)
    if used == value:
        return []
    return [
        Warning(
            f"SITEMAPKIT_BASE_URL {value!r} has whitespace around it: the sitemap uses "
            f"the value without it, {used!r}.",
            hint=f"Set SITEMAPKIT_BASE_URL = {used!r}.",
            id="sitemapkit.W008",
        )
    ]


def check_base_url_characters(value: str) -> list[CheckMessage]:
    """E032: whitespace or control characters inside the value, or what a host cannot
    be written with. ``urlsplit()`` would keep a space in the host, or drop a tab or
    newline inside it, so the run time refuses such a value as the check does."""
    problem = unfit_characters(value.strip())
    if problem is None:
        return []
    corrected = corrected_base_url(value)
    if corrected is not None:
        hint = f"Set SITEMAPKIT_BASE_URL = {corrected!r}."
    else:
        hint = (
            "Set SITEMAPKIT_BASE_URL to the scheme and host the site is served on, written "
            f"without spaces or control characters, such as {EXAMPLE}."
        )
    return [Error(f"SITEMAPKIT_BASE_URL {problem}: {value!r}.", hint=hint, id="sitemapkit.E032")]


def corrected_base_url(value: str) -> str | None:
    """The base URL ``value`` means, where that is certain: whitespace and control
    characters trimmed from its ends, and a non-ASCII host in its ASCII (IDNA) form;
    ``None`` otherwise. Only what E032 is about is changed: a path is kept, for
    E003 to give its own advice about it."""
    candidate = trimmed(value)
    if unfit_characters(candidate) is not None:
        candidate = ascii_host(candidate) or candidate
    if unfit_characters(candidate) is not None or base_url_problem(candidate) in NOT_AN_ORIGIN:
        return None
    return candidate


def ascii_host(value: str) -> str | None:
    """``value`` with its non-ASCII host written in its ``xn--`` form, where that form
    names the same host; ``None`` otherwise.

    Python's "idna" codec is IDNA 2003, which maps some names to other domains
    ('straße.de' to 'strasse.de'): a form that does not decode back to the host
    is not offered. Credentials are not encoded, and with them no value is offered.
    """
    try:
        parts = urlsplit(value)
        if parts.username is not None or parts.password is not None:
            return None
        written, separator, port = parts.netloc.partition(":")
        if not written or written.startswith("["):
            return None
        host = written.lower()
        encoded = host.encode("idna").decode("ascii")
        if encoded.encode("ascii").decode("idna") != host:
            return None
    except (UnicodeError, ValueError):
        return None
    return value.replace(parts.netloc, encoded + separator + port, 1)


def check_allowed_hosts() -> list[CheckMessage]:
    """E004, or W007 with DEBUG on: a development machine's ALLOWED_HOSTS
    (localhost) and the production base URL must not stop ``runserver``."""
    # With DEBUG on and ALLOWED_HOSTS empty Django serves localhost only, as
    # in development: there the check would only be noise.
    if settings.DEBUG and not settings.ALLOWED_HOSTS:
        return []
    if uses_site():
        # The host is the Site's, in the database, which a check that is not a
        # database check must not read.
        return []
    origin = default_site().origin
    # As Django reads the Host header (split_domain_port()): an IPv6 address
    # keeps its brackets, and ALLOWED_HOSTS must name it so.
    host = f"[{origin.host}]" if ":" in origin.host else origin.host
    if validate_host(host, settings.ALLOWED_HOSTS):
        return []
    message = (
        f"The host of SITEMAPKIT_BASE_URL, {host!r}, is not accepted by "
        f"ALLOWED_HOSTS {settings.ALLOWED_HOSTS!r}."
    )
    if settings.DEBUG:
        return [
            Warning(
                message,
                hint="With DEBUG off this is an error (sitemapkit.E004). Give each "
                "environment its own values: set SITEMAPKIT_BASE_URL from an environment "
                "variable (os.environ['SITEMAPKIT_BASE_URL']) to the host that environment "
                f"serves, or add {host!r} to ALLOWED_HOSTS where the site is served "
                "on it.",
                id="sitemapkit.W007",
            )
        ]
    return [
        Error(
            message,
            hint=f"Add {host!r} to ALLOWED_HOSTS, or set SITEMAPKIT_BASE_URL to a host "
            "the site is served on.",
            id="sitemapkit.E004",
        )
    ]


def check_https(**kwargs: Any) -> list[CheckMessage]:
    """W005: an http:// base URL on a site the security settings serve over HTTPS.

    Not with DEBUG on: settings shared with production (SECURE_PROXY_SSL_HEADER,
    say) and an http://localhost base URL are the normal development setup, and
    runserver cannot serve the https:// URL the hint would give."""
    if settings.DEBUG:
        return []
    if base_url_problem(conf.BASE_URL) is not None:
        # Reported by check_base_url, or unset for the Site's domain, which is
        # always on https://.
        return []
    origin = default_site().origin
    saying = https_settings()
    if origin.scheme != "http" or not saying:
        return []
    port = 443 if origin.port == 80 else origin.port
    https = Origin("https", origin.host, port).url
    verb = "says" if len(saying) == 1 else "say"
    return [
        Warning(
            f"SITEMAPKIT_BASE_URL {conf.BASE_URL!r} is an http:// URL, but "
            f"{' and '.join(saying)} {verb} the site is served over HTTPS: every URL of the "
            "sitemap would point at http://, which answers with a redirect instead of the page.",
            hint=f"Set SITEMAPKIT_BASE_URL = {https!r}.",
            id="sitemapkit.W005",
        )
    ]


def https_settings() -> list[str]:
    """The security settings that say the site is served over HTTPS, with their values."""
    saying = []
    redirect = getattr(settings, "SECURE_SSL_REDIRECT", False)
    if redirect:
        saying.append(f"SECURE_SSL_REDIRECT = {redirect!r}")
    proxy_header = getattr(settings, "SECURE_PROXY_SSL_HEADER", None)
    if proxy_header:
        saying.append(f"SECURE_PROXY_SSL_HEADER = {proxy_header!r}")
    hsts = getattr(settings, "SECURE_HSTS_SECONDS", 0)
    if isinstance(hsts, int) and hsts > 0:
        saying.append(f"SECURE_HSTS_SECONDS = {hsts!r}")
    return saying
