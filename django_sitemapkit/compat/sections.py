"""One section of a contrib ``sitemaps`` dict: the ``Sitemap`` instantiated as contrib
does, its pages (Django's ``Paginator``, as contrib pages them), a page's entries
(its items read a chunk at a time, or the dicts of an overridden ``get_urls()``),
and the lastmod the index gives each page."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from django.core.paginator import EmptyPage, PageNotAnInteger, Paginator
from django.db.models import Max, QuerySet
from django.http import Http404

from django_sitemapkit.compat.entries import Made, item_entries, url_entries
from django_sitemapkit.conf import conf
from django_sitemapkit.locations import LocationPolicy, Origin
from django_sitemapkit.sources.pages import LastmodValue
from django_sitemapkit.sources.rows import close_iterator
from django_sitemapkit.sources.skips import Tally
from django_sitemapkit.values import newest_lastmod

logger = logging.getLogger("django_sitemapkit")


class OriginSite:
    """What ``get_urls()`` is given as its ``site``: the host of ``SITEMAPKIT_BASE_URL``,
    never the request's."""

    def __init__(self, origin: Origin) -> None:
        self.domain = self.name = origin.url.partition("://")[2]


def page_number(paginator: Paginator[Any], value: object) -> int:
    """``?p=`` as contrib reads it, with contrib's 404s (not a number, out of range)."""
    try:
        return paginator.validate_number(value)  # type: ignore[arg-type]
    except PageNotAnInteger as exc:
        raise Http404(f"No page '{value}'") from exc
    except EmptyPage as exc:
        raise Http404(f"Page {value} empty") from exc


@dataclass
class ContribSection:
    name: str
    site: Any
    paginator: Paginator[Any]
    origin: Origin

    @classmethod
    def open(cls, name: str, declared: Any, origin: Origin) -> ContribSection:
        """The section of ``declared`` (a class is instantiated, as contrib does); its
        ``items()`` are not read yet (a QuerySet is only counted when asked)."""
        site = declared() if callable(declared) else declared
        if getattr(site, "i18n", False):
            logger.warning(
                "Sitemap section %r sets i18n = True; django_sitemapkit.compat serves it in "
                "LANGUAGE_CODE only, without alternates (not supported yet).",
                name,
            )
            paginator: Paginator[Any] = Paginator(site.items(), site.limit)
        else:
            paginator = site.paginator
        protocol = getattr(site, "protocol", None)
        if protocol is not None and protocol != origin.scheme:
            logger.warning(
                "Sitemap section %r sets protocol = %r; its locations are on %s "
                "(SITEMAPKIT_BASE_URL), whose scheme is used instead.",
                name,
                protocol,
                origin.url,
            )
        return cls(name, site, paginator, origin)

    @property
    def count(self) -> int:
        return self.paginator.count

    @property
    def uses_get_urls(self) -> bool:
        """Whether the class writes its own URL dicts (Wagtail's, djangoproject.com's)."""
        from django.contrib.sitemaps import Sitemap

        cls = type(self.site)
        return (
            not isinstance(self.site, Sitemap)
            or cls.get_urls is not Sitemap.get_urls
            # A private method, but the one Wagtail's and others' classes override.
            or getattr(cls, "_urls", None) is not getattr(Sitemap, "_urls", None)
        )

    def relocator(self) -> Callable[[str], str]:
        """How a location from ``get_urls()`` is mended: contrib's ``_urls()`` puts
        ``protocol://domain`` before whatever ``location()`` returned, an absolute
        URL included (kept as it was), and uses the class's ``protocol`` (replaced
        by the base URL's scheme)."""
        protocol = getattr(self.site, "protocol", None) or self.origin.scheme
        prefix = f"{protocol}://{OriginSite(self.origin).domain}".lower()
        origin_url = self.origin.url

        def relocate(location: str) -> str:
            if not location.lower().startswith(prefix):
                return location
            rest = location[len(prefix) :]
            if rest.lower().startswith(("http://", "https://")):
                return rest
            return origin_url + rest

        return relocate

    def page_items(self, number: int) -> Iterable[Any]:
        """The items of page ``number``: a QuerySet sliced in the database and read
        ``SITEMAPKIT_CHUNK_SIZE`` rows at a time, a sequence sliced."""
        items = self.paginator.page(number).object_list
        if isinstance(items, QuerySet):
            return items.iterator(chunk_size=conf.CHUNK_SIZE)
        return items

    def page_urls(self, number: int) -> list[Any]:
        """What ``get_urls()`` returns for page ``number``, given the base URL's host."""
        try:
            urls: list[Any] = self.site.get_urls(
                page=number, site=OriginSite(self.origin), protocol=self.origin.scheme
            )
        except PageNotAnInteger as exc:
            raise Http404(f"No page '{number}'") from exc
        except EmptyPage as exc:
            raise Http404(f"Page {number} empty") from exc
        return urls

    def entries(self, number: int, policy: LocationPolicy, tally: Tally) -> Iterator[Made]:
        if self.uses_get_urls:
            yield from url_entries(
                self.name, self.page_urls(number), policy, tally, self.relocator()
            )
            return
        items = self.page_items(number)
        try:
            yield from item_entries(self.name, self.site, items, policy, tally)
        finally:
            # A strict-mode error or a class's own exception stops the reading
            # half-way: its server-side cursor (PostgreSQL) is closed now, not
            # by the garbage collector in the middle of another query.
            close_iterator(items)

    def page_lastmods(self) -> list[LastmodValue | None]:
        """The lastmod of each page in the index, as cheaply as the class allows:
        its own ``get_latest_lastmod()`` (contrib's choice too), ``Max(date_field)``
        for a ``GenericSitemap``, a constant ``lastmod``; else each page's newest,
        read from its items."""
        from django.contrib.sitemaps import GenericSitemap, Sitemap

        pages = self.paginator.num_pages
        site, cls = self.site, type(self.site)
        getter = getattr(cls, "get_latest_lastmod", None)
        if isinstance(site, GenericSitemap) and getter is GenericSitemap.get_latest_lastmod:
            field = site.date_field
            latest = None if field is None else site.queryset.aggregate(latest=Max(field))["latest"]
            return [latest] * pages
        if getter is not None and getter is not Sitemap.get_latest_lastmod:
            return [site.get_latest_lastmod()] * pages
        lastmod = getattr(site, "lastmod", None)
        if lastmod is None or not callable(lastmod):
            return [lastmod] * pages
        return [self.newest_on_page(number) for number in range(1, pages + 1)]

    def newest_on_page(self, number: int) -> LastmodValue | None:
        if self.uses_get_urls:
            return newest_lastmod(url.get("lastmod") for url in self.page_urls(number))
        lastmod = self.site.lastmod
        items = self.page_items(number)
        try:
            return newest_lastmod(lastmod(item) for item in items)
        finally:
            close_iterator(items)
