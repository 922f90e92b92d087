"""E118, with ``check --deploy``: a section whose first rows mostly make no URL
(``sources/losses.py``), such as every location on ``http`` while the base URL
is ``https``; E119, a section whose first rows raise (contrib's ``location(item)``
reading an attribute of the dict a row is). It reads at most ``SAMPLE_ROWS`` rows
of each section on each site, so a big table costs one small query."""

from __future__ import annotations

from typing import Any

from django.core.checks import CheckMessage, Error
from django.core.exceptions import ImproperlyConfigured
from django.db import DatabaseError

from django_sitemapkit.checks.sources.values import check_sources
from django_sitemapkit.registry import registry
from django_sitemapkit.sites.configured import SitemapSite
from django_sitemapkit.sites.hosts import all_sites
from django_sitemapkit.sources.declaration import BaseSource
from django_sitemapkit.sources.losses import first_rows_loss
from django_sitemapkit.sources.plan import compile_plan


def check_section_losses(**kwargs: Any) -> list[CheckMessage]:
    if check_sources():
        return []  # a source the checks refuse is not read: its error says why
    try:
        sites = all_sites()
    except (DatabaseError, ImproperlyConfigured):
        return []  # no table yet, or no site: the checks of the sites say why
    findings: list[CheckMessage] = []
    for site in sites:
        findings += site_losses(site)
    return findings


def site_losses(site: SitemapSite) -> list[CheckMessage]:
    findings: list[CheckMessage] = []
    for source in registry.sections(site):
        try:
            loss = first_rows_loss(compile_plan(source, site))
        except (DatabaseError, ImproperlyConfigured):
            continue  # no table yet: migrate first
        except Exception as exc:
            findings.append(unreadable(source, site, exc))
            continue
        if loss.most:
            findings.append(
                Error(
                    loss.describe(site),
                    hint=loss.fix(site),
                    obj=type(source),
                    id="sitemapkit.E118",
                )
            )
    return findings


def unreadable(source: BaseSource, site: SitemapSite, exc: Exception) -> CheckMessage:
    """E119: the project's code raised on the section's first rows."""
    where = f" on the site {site.name!r}" if site.several else ""
    hint = "Fix the error; the build and the section's pages fail on it too."
    if isinstance(exc, (AttributeError, TypeError)) and "'dict'" in str(exc):
        # contrib's location(item) and lastmod(item) read attributes of a model instance.
        hint = (
            "A per-row method (location(row), lastmod(row), ...) is given a dict of the "
            "columns the source reads, not a model instance: read row['field'] and list the "
            "fields in fields, or set use_instances = True."
        )
    return Error(
        f"Section {type(source).name!r}{where} cannot be read: its first rows raise "
        f"{type(exc).__name__}: {exc}.",
        hint=hint,
        obj=type(source),
        id="sitemapkit.E119",
    )
