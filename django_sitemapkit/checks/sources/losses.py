"""E118, with ``check --deploy``: a section whose first rows mostly make no URL
(``sources/losses.py``), such as every location on ``http`` while the base URL
is ``https``; E119, a section whose first rows raise (contrib's ``location(item)``
reading an attribute of the dict a row is). It reads at most ``SAMPLE_ROWS`` rows
of each section on each site, so a big table costs one small query."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from django.core.checks import CheckMessage, Error
from django.core.exceptions import ImproperlyConfigured
from django.db import DatabaseError

from django_sitemapkit.checks.sources.values import check_sources
from django_sitemapkit.locations.policy import LocationPolicy, fixed_script_prefix
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
        for source in registry.sections(site):
            findings += source_losses(source, site, None)
    for source in pattern_sources():
        # The drop-in serves a class on whichever host routes its pattern, and a
        # per-host URLconf (django-hosts) may route it on one host only: a loss is one
        # on every site, reported on the first.
        lost = [
            source_losses(source, site, LocationPolicy(site.origin, fixed_script_prefix()))
            for site in sites
        ]
        if all(lost):
            findings += lost[0]
    return findings


def pattern_sources() -> Iterator[BaseSource]:
    """The classes the drop-in's URL patterns serve (docs/migrating.md, Step 1), each
    dict's once; the drop-in's location rule is the host's root (contrib lists any path
    of the host)."""
    # Imported here: a project without the drop-in does not load it for the checks.
    from django_sitemapkit.checks.compat_classes import pattern_classes
    from django_sitemapkit.compat.plan import contrib_source

    seen: set[tuple[str, int]] = set()
    for _, key, value in pattern_classes():
        if (key, id(value)) not in seen:
            seen.add((key, id(value)))
            yield contrib_source(key, value)


def source_losses(
    source: BaseSource, site: SitemapSite, policy: LocationPolicy | None
) -> list[CheckMessage]:
    try:
        loss = first_rows_loss(compile_plan(source, site, policy=policy))
    except (DatabaseError, ImproperlyConfigured):
        return []  # no table yet: migrate first
    except Exception as exc:
        return [unreadable(source, site, exc)]
    if not loss.most:
        return []
    return [Error(loss.describe(site), hint=loss.fix(site), obj=type(source), id="sitemapkit.E118")]


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
