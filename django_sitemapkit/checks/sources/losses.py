"""E118, with ``check --deploy``: a section whose first rows mostly make no URL
(``sources/losses.py``), such as every location on ``http`` while the base URL
is ``https``. It reads at most ``SAMPLE_ROWS`` rows of each section on each site,
so a big table costs one small query."""

from __future__ import annotations

from typing import Any

from django.core.checks import CheckMessage, Error
from django.core.exceptions import ImproperlyConfigured
from django.db import DatabaseError

from django_sitemapkit.checks.sources.values import check_sources
from django_sitemapkit.registry import registry
from django_sitemapkit.sites.configured import SitemapSite
from django_sitemapkit.sites.hosts import all_sites
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
