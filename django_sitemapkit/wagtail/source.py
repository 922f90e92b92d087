"""``WagtailSource``: a section of a Wagtail site's live, public pages, read as rows.

A ``SitemapSource`` like any other, so the engine's plan, pager, keyset seeks
and writer read it: its queryset is Wagtail's ``Page`` table (or a page type's),
ordered by the tree's ``path`` (unique, so the seek key of every page), each row
carrying its location and its translations as columns the database computes
(``pages.py``). No page instance is made, except for the page types that
override ``get_sitemap_urls()``, whose rows ``fallback.py`` hands to it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any, ClassVar

from django.db.models import QuerySet
from django.db.models.functions import Coalesce
from wagtail.models import Page

from django_sitemapkit.encoding.encoder import urlset
from django_sitemapkit.exceptions import InvalidEntry
from django_sitemapkit.extensions import ALTERNATES
from django_sitemapkit.locations.policy import LocationPolicy
from django_sitemapkit.sites.configured import SitemapSite
from django_sitemapkit.sites.wagtail import wagtail_site_of
from django_sitemapkit.sources.declaration import SitemapSource
from django_sitemapkit.sources.finishing import FINISHERS
from django_sitemapkit.sources.plan import Plan
from django_sitemapkit.sources.writer import Writer
from django_sitemapkit.wagtail.fallback import CONTENT_TYPE, fallback_plan
from django_sitemapkit.wagtail.pages import (
    LOCATION,
    TRANSLATIONS,
    listable,
    placeholders,
    site_pages,
    untranslated,
    versions,
)


class WagtailSource(SitemapSource):
    """The live, public pages of the Wagtail site each site of the sitemap serves.

    ``queryset`` may be a page type's (``BlogPage.objects.all()``) or a filtered one;
    ``noindex`` and ``canonical`` may name that model's fields.
    """

    queryset: ClassVar[QuerySet[Any] | None] = Page.objects.all()
    ordering: ClassVar[tuple[str, ...]] = ("path",)
    #: When the page was last published. Wagtail's own sitemap falls back on its
    #: latest revision for pages published before ``last_published_at`` existed
    #: (Wagtail 1.x); so does this, so that both write the same dates.
    lastmod: Any = Coalesce("last_published_at", "latest_revision_created_at")
    fields: ClassVar[tuple[str, ...]] = (LOCATION, TRANSLATIONS, CONTENT_TYPE)

    def get_queryset(self) -> QuerySet[Any]:
        """The pages of ``queryset`` a crawler may read, on any site."""
        pages: QuerySet[Any] = listable(super().get_queryset()).annotate(**placeholders())
        return pages

    def get_site_queryset(self, site: SitemapSite) -> QuerySet[Any]:
        """Those of them in the trees of ``site``'s Wagtail site."""
        return site_pages(self.get_queryset(), wagtail_site_of(site))

    def location(self, row: Any) -> str:
        found: str = row[LOCATION]
        if not found:
            raise InvalidEntry("the page is in none of the site's trees")
        return found

    def alternates(self, row: Any) -> Mapping[str, str]:
        """The page's versions in the site's other locales, and itself: none where it
        has no listed translation."""
        found = versions(row[TRANSLATIONS])
        if len(found) < 2:
            return {}
        return found


def finished(plan: Plan, policy: LocationPolicy) -> Plan:
    """The plan of a ``WagtailSource``: written without alternates where the site has
    one locale (no page then has another version), in the writer's one tight loop;
    the rows of page types with a ``get_sitemap_urls()`` of their own from it."""
    queryset = plan.queryset
    single = queryset is not None and untranslated(queryset.ordered)
    # Only where the alternates are the source's alone: no image, video or news
    # declared, no alternates() of the project's (nor a canonical compared per row,
    # whose writer wraps this one).
    own = type(plan.source).alternates is WagtailSource.alternates
    extensions = plan.document.extensions
    if single and own and extensions == (ALTERNATES,) and isinstance(plan.writer, Writer):
        plan = replace(plan, writer=plan.writer.plain(), document=urlset(()))
    return fallback_plan(plan, policy)


FINISHERS.append((WagtailSource, finished))
