"""One ``django.contrib.sitemaps`` class of a ``sitemaps`` dict, read as contrib reads it.

The class is instantiated as contrib's views do (a class is called, an
instance is used as it is), once per request or per section of a build. What
the engine needs to know about it is decided here, once: whether it writes its
own URL dicts (an overridden ``get_urls()``), its languages, and where its
lastmods come from.
"""

from __future__ import annotations

import enum
import logging
from collections.abc import Callable, Iterator
from functools import cached_property
from typing import Any

from django.conf import settings
from django.contrib.sitemaps import GenericSitemap, Sitemap
from django.core.paginator import EmptyPage, PageNotAnInteger
from django.db.models import QuerySet
from django.http import Http404, HttpRequest

from django_sitemapkit.compat.known_lastmods import aggregated_lastmods
from django_sitemapkit.compat.served import given_site, instance
from django_sitemapkit.sites.base_urls import Origin
from django_sitemapkit.sources.pages import LastmodValue
from django_sitemapkit.sources.rows import close_iterator
from django_sitemapkit.values import newest_lastmod

logger = logging.getLogger("django_sitemapkit")


class Lastmods(enum.Enum):
    """Where a page's newest lastmod comes from, cheapest first."""

    #: No ``lastmod`` at all.
    NONE = "none"
    #: One value for every item.
    CONSTANT = "constant"
    #: A ``GenericSitemap``'s ``date_field``: aggregated in the database.
    DATE_FIELD = "date_field"
    #: Read from each item (or URL dict) of the page.
    PER_ITEM = "per_item"


#: What ``latest_lastmod()`` returns for a class without its own ``get_latest_lastmod()``.
NOT_DECLARED: Any = object()


def overridden(site: Any, name: str, *bases: type) -> bool:
    """Whether ``site``'s class defines ``name`` itself rather than inheriting it from ``bases``."""
    found = getattr(type(site), name, None)
    return all(found is not getattr(base, name, None) for base in bases)


class ContribClass:
    def __init__(
        self, section: str, declared: Any, origin: Origin, request: HttpRequest | None = None
    ) -> None:
        self.section = section
        self.site = instance(declared, origin, request)
        self.origin = origin
        protocol = getattr(self.site, "protocol", None)
        if protocol is not None and protocol != origin.scheme:
            logger.warning(
                "Sitemap section %r sets protocol = %r; its locations are on %s "
                "(the site's base URL), whose scheme is used instead.",
                section,
                protocol,
                origin.url,
            )

    @cached_property
    def items(self) -> Any:
        """``items()``, called once (a QuerySet is not evaluated by the call)."""
        return self.site.items()

    @cached_property
    def own_urls(self) -> bool:
        """Whether the class writes its own URL dicts (Wagtail's, djangoproject.com's)."""
        site = self.site
        return (
            not isinstance(site, Sitemap)
            or overridden(site, "get_urls", Sitemap)
            # A private method, but the one Wagtail's and others' classes override.
            or overridden(site, "_urls", Sitemap)
            or self.own_paging
        )

    @cached_property
    def own_paging(self) -> bool:
        """Whether the class pages its units itself: its own ``paginator`` or
        ``_items()`` (an ``i18n`` class's pairs, made its own way). contrib's
        ``get_urls()`` reads both, so its pages, and their number, are theirs."""
        return overridden(self.site, "paginator", Sitemap) or overridden(
            self.site, "_items", Sitemap
        )

    @property
    def i18n(self) -> bool:
        return bool(getattr(self.site, "i18n", False))

    @cached_property
    def languages(self) -> list[str] | None:
        """The languages of every item, or ``None`` if the class gives each item its own."""
        site = self.site
        if overridden(site, "get_languages_for_item", Sitemap):
            return None
        if getattr(site, "languages", None) is not None:
            return list(site.languages)
        return [code for code, _ in settings.LANGUAGES]

    def item_languages(self, item: Any) -> list[str]:
        if self.languages is not None:
            return self.languages
        return list(self.site.get_languages_for_item(item))

    @cached_property
    def date_field(self) -> str | None:
        """A ``GenericSitemap``'s ``date_field``, when its ``lastmod`` is GenericSitemap's."""
        site = self.site
        if isinstance(site, GenericSitemap) and not overridden(site, "lastmod", GenericSitemap):
            return site.date_field
        return None

    @cached_property
    def lastmods(self) -> Lastmods:
        site = self.site
        if isinstance(site, GenericSitemap) and not overridden(site, "lastmod", GenericSitemap):
            return Lastmods.NONE if site.date_field is None else Lastmods.DATE_FIELD
        lastmod = getattr(site, "lastmod", None)
        if callable(lastmod):
            return Lastmods.PER_ITEM
        return Lastmods.NONE if lastmod is None else Lastmods.CONSTANT

    @property
    def lastmod_of(self) -> Callable[[Any], LastmodValue | None]:
        """A unit's lastmod: contrib calls ``lastmod(item)``, the language left out."""
        lastmod = self.site.lastmod
        if self.i18n:
            return lambda unit: lastmod(unit[0])
        return lastmod  # type: ignore[no-any-return]

    @cached_property
    def counted_with_lastmods(self) -> bool:
        """Whether the index lists each page with the newest ``lastmod(item)`` of the
        items, read in the pass that counts them: a class that writes its own URL
        dicts (Wagtail's, django CMS's), one item a unit, whose ``lastmod`` is a
        method and which has no ``get_latest_lastmod()`` of its own. contrib's index
        lists every page with ``get_latest_lastmod()``, that same maximum. Building
        every page's URL dicts to find each page's own newest took three times the
        queries of the package's own index (44 against 15 for Wagtail's); the pass
        also saves the COUNT contrib's paginator runs."""
        return (
            self.own_urls
            and not self.own_paging
            and not self.i18n
            and self.lastmods is Lastmods.PER_ITEM
            and not self.declares_latest_lastmod
        )

    def item_pass(self, chunk_size: int) -> tuple[int, LastmodValue | None]:
        """How many items there are, and the newest ``lastmod(item)`` of those with one,
        read a chunk at a time, or from one aggregate where the class is known to
        read its date from columns (compat/known_lastmods.py)."""
        items, lastmod = self.items, self.site.lastmod
        aggregated = aggregated_lastmods(self.site, items, self.section)
        if aggregated is not None:
            return aggregated
        rows = items.iterator(chunk_size) if isinstance(items, QuerySet) else iter(items)
        count = 0

        def read() -> Iterator[Any]:
            nonlocal count
            for item in rows:
                count += 1
                yield lastmod(item)

        try:
            newest = newest_lastmod(read())
        finally:
            close_iterator(rows)
        return count, newest

    @cached_property
    def declares_latest_lastmod(self) -> bool:
        return overridden(self.site, "get_latest_lastmod", Sitemap, GenericSitemap)

    def latest_lastmod(self) -> Any:
        """The class's own ``get_latest_lastmod()``, or ``NOT_DECLARED``; contrib's and
        GenericSitemap's are replaced by cheaper equivalents (see ``pages.py``)."""
        if self.declares_latest_lastmod:
            return self.site.get_latest_lastmod()
        return NOT_DECLARED

    @cached_property
    def given_site(self) -> Any:
        """The ``site`` ``get_urls()`` is given: the served site's row (``served.py``)."""
        return given_site(self.origin)

    def page_urls(self, page: int) -> list[Any]:
        """What ``get_urls()`` returns for ``page``, given the served site."""
        try:
            urls: list[Any] = self.site.get_urls(
                page=page, site=self.given_site, protocol=self.origin.scheme
            )
        except PageNotAnInteger as exc:
            raise Http404(f"No page '{page}'") from exc
        except EmptyPage as exc:
            raise Http404(f"Page {page} empty") from exc
        return urls

    def relocator(self) -> Callable[[str], str]:
        """How a location from ``get_urls()`` is mended: contrib's ``_urls()`` puts
        ``protocol://domain`` before whatever ``location()`` returned, an absolute
        URL included (kept as it was), and uses the class's ``protocol`` (replaced
        by the base URL's scheme)."""
        protocol = getattr(self.site, "protocol", None) or self.origin.scheme
        prefix = f"{protocol}://{self.given_site.domain}".lower()
        origin_url = self.origin.url

        def relocate(location: str) -> str:
            if not location.lower().startswith(prefix):
                return location
            rest = location[len(prefix) :]
            if rest.lower().startswith(("http://", "https://")):
                return rest
            return origin_url + rest

        return relocate
