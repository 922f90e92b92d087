"""What a build's files depend on beyond their rows, as fingerprints: when one
changes, the files it covers are cut and rendered afresh. The coordinator of a
distributed build and its workers compare them, so a worker set up otherwise
(another version, other settings, other URL patterns) refuses a job."""

from __future__ import annotations

from django_sitemapkit.build.manifest import fingerprint, package_version
from django_sitemapkit.build.options import BuildOptions
from django_sitemapkit.build.routes import urls_fingerprint
from django_sitemapkit.conf import conf
from django_sitemapkit.locations.policy import sitemap_directory
from django_sitemapkit.sites.configured import SitemapSite
from django_sitemapkit.sources.disallowed import exclusion_fingerprint
from django_sitemapkit.sources.plan import Plan


def section_fingerprint(plan: Plan) -> str:
    """What a section's files depend on beyond its rows: when it changes (a new limit,
    another key, other URL patterns, an upgrade of this package), every shard is cut
    and rendered afresh."""
    cls = type(plan.source)
    key = plan.key
    return fingerprint(
        {
            "version": package_version(),
            "class": f"{cls.__module__}.{cls.__qualname__}",
            "pager": type(plan.pager).__name__,
            "page_size": plan.page_size,
            "url_limit": plan.url_limit,
            "languages": plan.languages,
            "extensions": plan.document.extensions,
            "key": None if key is None else [list(column) for column in key],
            "lastmod": plan.lastmod_path,
            "urls": urls_fingerprint(plan),
            # The rows a declaration keeps out, and a lastmod expression.
            "listing": listing_fingerprint(plan),
        }
    )


def listing_fingerprint(plan: Plan) -> str | None:
    if plan.listing is None or plan.queryset is None:
        return None
    return plan.listing.fingerprint(plan.queryset.ordered.model)


def settings_fingerprint(site: SitemapSite, options: BuildOptions) -> str:
    """What every file of the set depends on, beyond each section's own: under
    ``SITEMAPKIT_ROBOTS = "exclude"``, the robots.txt too, so that a new one renders
    every shard again (and a worker that read another refuses its job)."""
    excluding = exclusion_fingerprint(site.origin)
    return fingerprint(
        {
            "version": package_version(),
            "base_url": site.base_url,
            "directory": sitemap_directory(),
            "gzip": options.gzip,
            # The .gz bytes depend on the level: a set compressed at another one is
            # rendered again, and a worker set up with another refuses its job.
            **({"gzip_level": conf.GZIP_LEVEL} if options.gzip else {}),
            "gzip_links": options.gzip_links,
            "max_bytes": conf.MAX_BYTES,
            # Only when set: the sets built without it keep their fingerprint.
            **({} if excluding is None else {"robots": excluding}),
        }
    )
