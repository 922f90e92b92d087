"""What one run of ``build_sitemaps`` covers: its sites (all, or those ``--site`` names),
and the sections of each (all, or those ``--section`` names that the site lists)."""

from __future__ import annotations

from dataclasses import dataclass

from django.core.exceptions import ImproperlyConfigured

from django_sitemapkit.exceptions import BuildError
from django_sitemapkit.registry import registry
from django_sitemapkit.sites.configured import (
    SitemapSite,
)
from django_sitemapkit.sites.hosts import several_sites, sites_and_problems
from django_sitemapkit.sources.declaration import BaseSource


@dataclass(frozen=True)
class SiteBuild:
    """One site of a run and the sources to build for it; ``partial`` (``--section``)
    keeps the site's other sections."""

    site: SitemapSite
    sources: list[BaseSource]
    partial: bool


def configured_sites() -> tuple[list[SitemapSite], list[str]]:
    """Every site, and why each ``Site`` row that cannot be one is left out.

    Resolved before anything is locked or written, so that a base URL that
    cannot be one (a Site's domain that is no host, or a setting whose checks
    were skipped) stops the build in one line instead of a traceback.
    """
    try:
        found, unusable = sites_and_problems()
    except ImproperlyConfigured as exc:
        raise BuildError(str(exc)) from exc
    return found, [str(problem) for problem in unusable]


def selected_sites(names: list[str] | None) -> tuple[list[SitemapSite], list[str]]:
    """The sites ``--site`` names (every site without it), and the problems of the
    ``Site`` rows left out; a name no site has is an error naming the sites."""
    sites, problems = configured_sites()
    if names is None:
        return sites, problems
    known = {site.name: site for site in sites}
    unknown = [name for name in names if name not in known]
    if unknown:
        if not several_sites():
            raise BuildError(
                f"No site named {unknown[0]!r}: SITEMAPKIT_SITES is not set, so the project's "
                "only site is 'default'."
            )
        listed = ", ".join(repr(name) for name in known) or "none"
        raise BuildError(
            f"No site named {unknown[0]!r}; the sites are {listed} (SITEMAPKIT_SITES)."
        )
    # Rows left out are no concern of a run that names the sites it builds.
    return [known[name] for name in dict.fromkeys(names)], []


def site_builds(sites: list[SitemapSite], sections: list[str] | None) -> list[SiteBuild]:
    """Each site with its sections, or with those of ``sections`` it lists; a name that
    is a section of none of the sites is an error naming theirs."""
    of_site = [(site, registry.sections(site)) for site in sites]
    if sections is None:
        return [SiteBuild(site, sources, partial=False) for site, sources in of_site]
    known = list(dict.fromkeys(type(source).name for _, sources in of_site for source in sources))
    unknown = [name for name in sections if name not in known]
    if unknown:
        listed = ", ".join(repr(name) for name in known) or "none"
        raise BuildError(f"No sitemap section named {unknown[0]!r}; the sections are {listed}.")
    builds = []
    for site, sources in of_site:
        by_name = {type(source).name: source for source in sources}
        chosen = [by_name[name] for name in dict.fromkeys(sections) if name in by_name]
        builds.append(SiteBuild(site, chosen, partial=True))
    return builds
