"""The rows a queryset section lists, as one query: the project's queryset on a site,
less what its declaration keeps out, with a ``lastmod`` expression computed per row.

Everything a declaration adds here is a clause of the query every path reads
(``QueryPager.ordered`` and its ``row_queryset``): a view's pages and their
seeks, the index's counts and page lastmods (``lastmods.py``), the build's key
ranges and their stats (``ranges.py``), the HTML sitemap and the distributed
workers' shards. So all of them see the same rows and cut the same pages, and
a row kept out costs the database a condition, not a row read and dropped.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import EmptyResultSet, ImproperlyConfigured
from django.db import models
from django.db.models import OuterRef, Q, QuerySet, Subquery, Value
from django.db.models.functions import Coalesce

from django_sitemapkit import extensions
from django_sitemapkit.conf import conf
from django_sitemapkit.locations.policy import LocationPolicy
from django_sitemapkit.sites.configured import SitemapSite
from django_sitemapkit.sources.canonical import canonical_rows
from django_sitemapkit.sources.declaration import Declaration, SitemapSource
from django_sitemapkit.sources.entries import field_path

#: What a ``lastmod`` expression is selected as: no model field of a project's may
#: share a name with an annotation, so it is named in the package's own prefix.
LASTMOD_ALIAS = "_sitemapkit_lastmod_of_row"
#: What ``per_row()`` resolves an expression under, and its subquery selects.
VALUE_ALIAS = "_sitemapkit_value"


def is_expression(value: object) -> bool:
    """A query expression (``F``, ``Greatest(...)``, ``Max(...)``, ``Subquery(...)``), not
    a field path and not a ``Q``."""
    return hasattr(value, "resolve_expression") and not isinstance(value, (str, Q))


def lastmod_expression(declaration: Declaration) -> Any:
    """The declared ``lastmod`` if it is an expression, else ``None``."""
    value = declaration["lastmod"]
    return value if is_expression(value) else None


def columns(declaration: Declaration, *, lastmod: bool) -> list[str]:
    """Every field path a row needs, primary key first; with ``lastmod=False``,
    the lastmod path only if something else reads it too."""
    paths = ["pk", *declaration["url_kwargs"].values()]
    for attribute in ("lastmod", "changefreq", "priority")[0 if lastmod else 1 :]:
        path = field_path(declaration, attribute, True)
        if path is not None:
            paths.append(path)
    news = declaration["news"]
    if news is not None:
        paths.extend((news.title, news.publication_date))
    paths.extend(declaration["fields"])
    return list(dict.fromkeys(paths))


def present(paths: Sequence[str | None]) -> list[str]:
    """``paths`` less ``None`` and repeats, in order."""
    return list(dict.fromkeys(path for path in paths if path is not None))


def declared_paths(declaration: Declaration) -> list[str]:
    """The field paths ``noindex``, ``canonical`` and ``title`` name, for the check of
    paths (E011)."""
    named = (declaration["noindex"], declaration["canonical"], declaration["title"])
    return [path for path in named if isinstance(path, str)]


def listed(declaration: Declaration, site: SitemapSite) -> QuerySet[Any]:
    """``get_site_queryset(site)``, less the rows a news section leaves out: only
    articles published within ``SITEMAPKIT_NEWS_MAX_AGE`` belong in a Google News
    sitemap."""
    source = declaration.source
    assert isinstance(source, SitemapSource), source
    queryset = source.get_site_queryset(site)
    if conf.DATABASE is not None:
        # A read replica for every section: the plan of a build and its
        # shards then read the same database (docs/distributed.md).
        queryset = queryset.using(conf.DATABASE)
    news = declaration["news"]
    if news is not None:
        cutoff = extensions.news_cutoff(conf.NEWS_MAX_AGE)
        queryset = queryset.filter(**{f"{news.publication_date}__gte": cutoff})
    return queryset


def without_noindex(queryset: QuerySet[Any], noindex: Any) -> QuerySet[Any]:
    """``queryset`` less the rows ``noindex`` is true for.

    ``exclude()`` keeps the rows whose nullable column is NULL (Django writes
    ``NOT (col = true AND col IS NOT NULL)``), and a multi-valued relation's
    condition becomes a subquery; an expression's NULL is made false to match,
    and an aggregate (``GreaterThan(Count("reports"), 5)``) is each row's own.
    """
    if isinstance(noindex, str):
        condition = Q(**{noindex: True})
    elif isinstance(noindex, Q):
        condition = noindex
    else:
        condition = Q(Coalesce(per_row(queryset, noindex), Value(False)))
    kept: QuerySet[Any] = queryset.exclude(condition)
    return kept


def per_row(queryset: QuerySet[Any], expression: Any) -> Any:
    """``expression`` as one value per row of ``queryset``.

    An aggregate over related rows (``Max("comments__updated_at")``) would group
    the section's query, and a grouped query can neither be counted per page
    nor aggregated again (``MAX()`` of each page's lastmods); as a subquery of
    the row's own primary key it is one value of each row, which the pages,
    the ranges and the index aggregate like a column.
    """
    resolved = queryset.annotate(**{VALUE_ALIAS: expression}).query.annotations[VALUE_ALIAS]
    if not resolved.contains_aggregate:
        return expression
    own = queryset.model._base_manager.filter(pk=OuterRef("pk")).order_by().values("pk")
    return Subquery(own.annotate(**{VALUE_ALIAS: expression}).values(VALUE_ALIAS))


@dataclass(frozen=True)
class Listing:
    """What a source's declaration adds to its queryset, compiled once: the rows
    ``noindex`` keeps out, the rows a ``canonical`` keeps where SQL can tell, and a
    ``lastmod`` expression."""

    noindex: Any = None
    lastmod: Any = None
    canonical: str | None = None
    #: The rows ``canonical`` keeps, in SQL (``canonical.py``); ``None`` with a
    #: ``canonical``: each row is compared with its locations as it is written.
    canonical_rows: Q | None = None

    @property
    def per_row_canonical(self) -> str | None:
        """The ``canonical`` path compared row by row, if it is not in SQL."""
        return self.canonical if self.canonical_rows is None else None

    def lastmod_path(self, declaration: Declaration) -> str | None:
        """What a row's ``lastmod`` is selected as: the expression's alias, or the path."""
        if self.lastmod is not None:
            return LASTMOD_ALIAS
        return field_path(declaration, "lastmod", True)

    def applied(self, queryset: QuerySet[Any]) -> QuerySet[Any]:
        if self.noindex is not None:
            queryset = without_noindex(queryset, self.noindex)
        if self.canonical_rows is not None:
            queryset = queryset.filter(self.canonical_rows)
        if self.lastmod is not None:
            queryset = queryset.annotate(**{LASTMOD_ALIAS: per_row(queryset, self.lastmod)})
        return queryset

    def fingerprint(self, model: type[models.Model]) -> str | None:
        """The SQL these add to a query of ``model``, and where ``canonical`` is compared:
        what a build's files depend on beyond their rows' stats (a row kept out per row,
        or a new lastmod expression, changes no count); ``None`` if they add nothing."""
        if self == Listing():
            return None
        try:
            sql = str(self.applied(model._base_manager.values("pk")).query)
        except EmptyResultSet:  # a noindex true for every row
            sql = "no rows"
        return f"{sql}; canonical compared per row: {self.per_row_canonical!r}"


def compile_listing(
    declaration: Declaration,
    queryset: QuerySet[Any],
    policy: LocationPolicy,
    languages: Sequence[str | None],
    located_by_hook: bool,
) -> Listing:
    """The ``Listing`` of a queryset source's declaration, for the rows of ``queryset``."""
    noindex, canonical = declaration["noindex"], declaration["canonical"]
    if not (noindex is None or isinstance(noindex, (str, Q)) or is_expression(noindex)):
        # The system checks report this at start-up (sitemapkit.E065); this is the backstop.
        raise ImproperlyConfigured(
            f"Source {declaration.name!r} declares noindex {noindex!r}, which is neither a "
            "field path, a Q nor an expression."
        )
    if canonical is None:
        return Listing(noindex, lastmod_expression(declaration))
    rows = canonical_rows(declaration, queryset, policy, languages, located_by_hook)
    return Listing(noindex, lastmod_expression(declaration), canonical, rows)
