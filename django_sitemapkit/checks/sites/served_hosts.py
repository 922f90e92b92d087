"""System checks of how the sites of ``SITEMAPKIT_SITES`` are served, without the
database: each site's host against ``ALLOWED_HOSTS`` (E042, W013), and an
http:// site while the security settings say HTTPS (W014). ``site_rows`` asks the
same of ``Site`` rows, in the database. ``SITEMAPKIT_SITE_SCHEME`` itself (E041)
is checked by its rule in the settings table (``setting_values``).
"""

from __future__ import annotations

from django.conf import settings
from django.core.checks import CheckMessage, Error, Warning
from django.http.request import validate_host

from django_sitemapkit.checks.sites.base_url import https_settings
from django_sitemapkit.conf import conf
from django_sitemapkit.sites.base_urls import Origin
from django_sitemapkit.sites.configured import SITES_FRAMEWORK, SitemapSite
from django_sitemapkit.sites.framework import uses_site


def header_host(site: SitemapSite) -> str:
    """The site's host as ``ALLOWED_HOSTS`` judges a request's (``split_domain_port()``):
    an IPv6 address in brackets, no final dot."""
    host = site.origin.host.removesuffix(".")
    return f"[{host}]" if ":" in host else host


def check_allowed_hosts(sites: list[SitemapSite]) -> list[CheckMessage]:
    """E042, or W013 with DEBUG on (as E004 and W007 are): a site's host that
    ALLOWED_HOSTS refuses, so that its sitemaps are answered with 400."""
    # With DEBUG on and ALLOWED_HOSTS empty Django serves localhost only, as in
    # development: there the check would only be noise.
    if settings.DEBUG and not settings.ALLOWED_HOSTS:
        return []
    errors: list[CheckMessage] = []
    for site in sites:
        host = header_host(site)
        if validate_host(host, settings.ALLOWED_HOSTS):
            continue
        message = (
            f"The host of site {site.name!r} of SITEMAPKIT_SITES, {host!r}, is not accepted "
            f"by ALLOWED_HOSTS {settings.ALLOWED_HOSTS!r}: requests for its sitemaps are "
            "answered with 400."
        )
        if settings.DEBUG:
            hint = (
                "With DEBUG off this is an error (sitemapkit.E042). Give each environment its "
                "own values: read SITEMAPKIT_SITES from the environment, or add "
                f"{host!r} to ALLOWED_HOSTS where the site is served on it."
            )
            errors.append(Warning(message, hint=hint, id="sitemapkit.W013"))
        else:
            hint = (
                f"Add {host!r} to ALLOWED_HOSTS, or remove site {site.name!r} from "
                "SITEMAPKIT_SITES if it is not served here."
            )
            errors.append(Error(message, hint=hint, id="sitemapkit.E042"))
    return errors


def check_http(sites: list[SitemapSite]) -> list[CheckMessage]:
    """W014: an http:// site while the security settings serve every host over
    HTTPS. Not with DEBUG on, for the reason W005 gives (``base_url``)."""
    saying = https_settings()
    if settings.DEBUG or not saying:
        return []
    errors: list[CheckMessage] = []
    for site in sites:
        if site.origin.scheme != "http":
            continue
        port = 443 if site.origin.port == 80 else site.origin.port
        https = Origin("https", site.origin.host, port).url
        errors.append(
            Warning(
                f"Site {site.name!r} of SITEMAPKIT_SITES is on {site.base_url!r}, an http:// "
                f"URL, but {said(saying)} the site is served over HTTPS: every URL of its "
                "sitemaps would point at http://, which answers with a redirect instead of "
                "the page.",
                hint=f"Set SITEMAPKIT_SITES[{site.name!r}] = {https!r}.",
                id="sitemapkit.W014",
            )
        )
    return errors


def check_scheme_https() -> list[CheckMessage]:
    """W014 for ``SITEMAPKIT_SITE_SCHEME = "http"`` where Site rows give the hosts."""
    saying = https_settings()
    if settings.DEBUG or not saying or conf.raw("SITE_SCHEME") != "http":
        return []
    if conf.raw("SITES") != SITES_FRAMEWORK and not uses_site():
        return []  # no Site's domain is used
    return [
        Warning(
            f"SITEMAPKIT_SITE_SCHEME is 'http', but {said(saying)} the site is served over "
            "HTTPS: every URL of the sitemaps built on a Site's domain would point at "
            "http://, which answers with a redirect instead of the page.",
            hint="Set SITEMAPKIT_SITE_SCHEME = 'https', or remove it.",
            id="sitemapkit.W014",
        )
    ]


def said(saying: list[str]) -> str:
    verb = "says" if len(saying) == 1 else "say"
    return f"{' and '.join(saying)} {verb}"
