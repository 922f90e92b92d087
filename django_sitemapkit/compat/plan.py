"""A ``django.contrib.sitemaps`` class as a section of the engine: compiled into a
plan like any source, so that the views, the HTML sitemap, ``build_sitemaps``
and the drop-in views read it through the same document pipeline."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from django.db.models import QuerySet
from django.http import HttpRequest

from django_sitemapkit.compat.classes import ContribClass
from django_sitemapkit.compat.entries import ContribWriter
from django_sitemapkit.compat.pages import ContribPager
from django_sitemapkit.conf import MAX_URLS, conf
from django_sitemapkit.encoding.encoder import urlset
from django_sitemapkit.locations.policy import LocationPolicy
from django_sitemapkit.sources.entries import RowFormat
from django_sitemapkit.sources.plan import AdaptedSource, Plan


class ContribSource(AdaptedSource):
    """A section made of one value of a contrib ``sitemaps`` dict (a class or an
    instance), under its key. Made by ``register()`` and by the drop-in views."""

    contrib: ClassVar[Any] = None

    def __init__(self, request: HttpRequest | None = None) -> None:
        #: The request the drop-in views answer, given to a class that takes one
        #: (``served.py``); ``None`` for a section of ``register()``.
        self.request = request

    def compiled(self, policy: LocationPolicy) -> Plan:
        return contrib_plan(self, policy)


def section_class(
    name: str, declared: Any, sites: Sequence[str] | None = None
) -> type[ContribSource]:
    """The section class of ``sitemaps[name]`` (listed on ``sites``, or on every site),
    named after the contrib class, so a system check's message names the class the
    project wrote."""
    named = declared if isinstance(declared, type) else type(declared)
    return type(
        ContribSource.__name__,
        (ContribSource,),
        {
            "name": name,
            "sites": None if sites is None else list(sites),
            "contrib": declared,
            "__module__": named.__module__,
            "__qualname__": f"{named.__qualname__} (sitemaps[{name!r}])",
        },
    )


def contrib_source(name: str, declared: Any, request: HttpRequest | None = None) -> ContribSource:
    return section_class(name, declared)(request)


def contrib_plan(source: ContribSource, policy: LocationPolicy) -> Plan:
    name = type(source).name
    contrib = ContribClass(name, type(source).contrib, policy.origin, source.request)
    # Pages as contrib's: ``limit`` units each (capped by the protocol's 50,000),
    # so page N holds the same URLs under contrib's URLs and this app's; or as many
    # as the class's own paginator puts on a page.
    limit = contrib.site.paginator.per_page if contrib.own_paging else contrib.site.limit
    page_size = max(1, min(int(limit), MAX_URLS))
    pager = ContribPager(name, contrib, page_size, conf.CHUNK_SIZE)
    writer = ContribWriter(contrib, policy, conf.STRICT)
    items = None if contrib.own_urls else contrib.items
    return Plan(
        source=source,
        section=name,
        page_size=page_size,
        # A get_urls() page may hold more URLs than ``limit``; the protocol caps it.
        url_limit=MAX_URLS,
        languages=(None,),
        # contrib's template declares xhtml in every <urlset>, alternates or not; an
        # unused namespace declaration is valid, so the drop-in's documents do too.
        document=urlset(("xhtml",)),
        pager=pager,
        row_format=RowFormat.INSTANCE,
        writer=writer,
        database=items.db if isinstance(items, QuerySet) else None,
        lastmods=pager.page_lastmods,
    )
