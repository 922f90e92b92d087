"""Database checks of ``SITEMAPKIT_SITES = "django.contrib.sites"``, where each
``Site`` row is a site: whether there is one (W020), whether each domain can be
a base URL (W016), hosts shared by two rows (W017), ``ALLOWED_HOSTS`` (W018),
and the names sources give in ``sites`` (W019).

Registered with the database tag, like ``sites``: Django runs these in
``migrate`` and ``check --database``. Warnings, not errors: the rows are data,
fixed in the admin or a shell, and an error would stop the very ``migrate``
that may be needed first. Before the first ``migrate`` there is no table to
read, and nothing is said.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.apps import apps
from django.conf import settings
from django.core.checks import CheckMessage, Warning
from django.db import DatabaseError, router, transaction
from django.http.request import validate_host

from django_sitemapkit.checks.sites.served_hosts import header_host
from django_sitemapkit.checks.sites.source_sites import listing, spelled
from django_sitemapkit.checks.sources.declarations import describe, is_strings
from django_sitemapkit.conf import SITE_SCHEMES, conf
from django_sitemapkit.registry import registry
from django_sitemapkit.sites.configured import (
    SITES_FRAMEWORK,
    SitemapSite,
    framework_sites,
    shared_hosts,
)
from django_sitemapkit.sites.framework import SITES_APP, UnusableSite

VARIANT = f"SITEMAPKIT_SITES = {SITES_FRAMEWORK!r}"


def check_site_rows(databases: Iterable[str] | None = None, **kwargs: Any) -> list[CheckMessage]:
    if not databases or conf.raw("SITES") != SITES_FRAMEWORK or not apps.is_installed(SITES_APP):
        return []
    if conf.raw("SITE_SCHEME") not in SITE_SCHEMES:
        return []  # every row would be refused for it: sitemapkit.E041 says why
    from django.contrib.sites.models import Site

    try:
        # In a savepoint: a failed query must not break a transaction the check
        # runs in (PostgreSQL refuses every statement after one).
        with transaction.atomic(using=router.db_for_read(Site)):
            sites, unusable = framework_sites()
    except DatabaseError:
        return []  # no table yet
    if not sites and not unusable:
        return check_no_site()
    return (
        check_unusable(unusable)
        + check_shared_hosts(sites)
        + check_allowed_hosts(sites)
        + check_source_names(sites)
    )


def check_unusable(unusable: list[UnusableSite]) -> list[CheckMessage]:
    """W016: a row whose domain cannot be a base URL, in the words the run time logs
    when it leaves the row out of the sitemaps."""
    return [Warning(exc.problem, hint=exc.fix, id="sitemapkit.W016") for exc in unusable]


def row(site: SitemapSite) -> str:
    assert site.django_site is not None
    return f"Site {site.django_site.pk!r} ({site.django_site.domain!r})"


def pk(site: SitemapSite) -> object:
    assert site.django_site is not None
    return site.django_site.pk


def check_shared_hosts(sites: list[SitemapSite]) -> list[CheckMessage]:
    """W017: two rows whose domains differ only in their spelling (case, a final dot,
    the default port written out): one host, which a request cannot tell apart."""
    return [
        Warning(
            f"{row(other)} and {row(site)} have the same host ({VARIANT}): requests "
            f"for it always get the sitemaps of Site {pk(other)!r}.",
            hint=f"Delete Site {pk(site)!r}, or set its domain to another host.",
            id="sitemapkit.W017",
        )
        for other, site in shared_hosts(sites)
    ]


def check_allowed_hosts(sites: list[SitemapSite]) -> list[CheckMessage]:
    """W018: a row's host that ALLOWED_HOSTS refuses, so that its sitemaps are
    answered with 400. Nothing with DEBUG on and ALLOWED_HOSTS empty, as E004."""
    if settings.DEBUG and not settings.ALLOWED_HOSTS:
        return []
    warnings: list[CheckMessage] = []
    for site in sites:
        host = header_host(site)
        if validate_host(host, settings.ALLOWED_HOSTS):
            continue
        warnings.append(
            Warning(
                f"The host of {row(site)}, {host!r}, is not accepted by ALLOWED_HOSTS "
                f"{settings.ALLOWED_HOSTS!r} ({VARIANT}): requests for its sitemaps are "
                "answered with 400.",
                hint=f"Add {host!r} to ALLOWED_HOSTS, or delete Site {pk(site)!r} if it is "
                "not served here.",
                id="sitemapkit.W018",
            )
        )
    return warnings


def check_source_names(sites: list[SitemapSite]) -> list[CheckMessage]:
    """W019: a name in a source's ``sites`` that no row's site has; the source is
    never listed there. A ``sites`` of the wrong kind is E031's."""
    known = [site.name for site in sites]
    warnings: list[CheckMessage] = []
    for source in registry.all():
        names = type(source).sites
        if names is None or not is_strings(names):
            continue
        unknown = [name for name in names if name not in known]
        if not unknown:
            continue
        corrected = [name if name in known else spelled(name, known) for name in names]
        if all(name is not None for name in corrected):
            hint = (
                f"Set sites = {corrected!r}: a site is named by its Site's domain, in lower "
                "case and without a final dot."
            )
        else:
            hint = f"Name sites by their Site's domain ({listing(known)}), or add the Site."
        warnings.append(
            Warning(
                f"{describe(source)} declares sites {names!r}: {listing(unknown)} "
                f"{'is' if len(unknown) == 1 else 'are'} the site of no Site ({VARIANT}).",
                hint=hint,
                obj=type(source),
                id="sitemapkit.W019",
            )
        )
    return warnings


def check_no_site() -> list[CheckMessage]:
    """W020: no row at all, so that no sitemap is served."""
    return [
        Warning(
            f"{VARIANT}, but there is no Site: no sitemap is served.",
            hint="Add a Site for each host the project serves (Sites, in the admin), or set "
            "SITEMAPKIT_SITES to a dict of each site's name to its base URL, such as "
            "{'www': 'https://www.example.com'}.",
            id="sitemapkit.W020",
        )
    ]
