"""Declarative sitemap sources: what to list, and how each row becomes a ``<url>``.

A source declares where its values come from. ``lastmod`` names a field
path (or is a per-row method); ``changefreq`` and ``priority`` are protocol
constants, :class:`Field` markers for a field path, or per-row methods.
``location(row)`` may be overridden for anything the declarative form
cannot say.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from itertools import islice
from operator import itemgetter
from typing import Any, ClassVar, NamedTuple

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import connections, models
from django.db.models import Count, F, Max, Min, Q, Window
from django.db.models.functions import RowNumber
from django.urls import NoReverseMatch, reverse
from django.utils import translation

from django_sitemapkit import extensions
from django_sitemapkit.conf import MAX_URLS, conf
from django_sitemapkit.encoder import Document, Entry, Extras, NewsItem, urlset
from django_sitemapkit.exceptions import InvalidEntry
from django_sitemapkit.extensions import News, Related, RelatedQuery
from django_sitemapkit.keyset import KeyColumn, from_start, ordering_key
from django_sitemapkit.locations import MAX_LOCATION_LENGTH, LocationPolicy, stable_script_prefix
from django_sitemapkit.rawrows import RawColumns, raw_rows, raw_values
from django_sitemapkit.urltemplates import UrlTemplate, quick_locator
from django_sitemapkit.values import (
    format_changefreq,
    format_lastmod,
    format_priority,
    newest_lastmod,
)

logger = logging.getLogger("django_sitemapkit")

LastmodValue = dt.date | dt.datetime
#: Per ``Related`` declaration, the values of each primary key of a chunk of rows.
RelatedValues = dict[str, dict[Any, list[tuple[Any, ...]]]]
#: A row's entry in each of its languages (``None`` when it has one URL).
LanguageEntries = list[tuple[str | None, Entry]]
#: ``(hreflang, href)`` pairs.
Links = tuple[tuple[str, str], ...]
# Column aliases of the query that finds each page's newest lastmod without a key.
ROW_NUMBER = "_sitemapkit_row"
PAGE_LASTMOD = "_sitemapkit_lastmod"


class Field:
    """Read ``changefreq``, ``priority`` (or ``lastmod``) from a field path of each row."""

    __slots__ = ("path",)

    def __init__(self, path: str) -> None:
        self.path = path

    def __repr__(self) -> str:
        return f"Field({self.path!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Field) and other.path == self.path

    def __hash__(self) -> int:
        return hash(self.path)


class PageStats(NamedTuple):
    """What one aggregate query says about a page, before any row is read."""

    rows: int
    lastmod: LastmodValue | None
    fingerprint: tuple[Any, ...]
    #: The ordering key of the page's first row, when pages are read by keyset.
    start: tuple[Any, ...] | None = None


@dataclass(frozen=True)
class Getter:
    """How one optional value is obtained: a formatted constant, a field, or a method."""

    constant: str | None = None
    path: str | None = None
    method: Callable[[Any], Any] | None = None


class BaseSource:
    """What every source shares: naming, limits, and turning rows into entries."""

    name: ClassVar[str] = ""
    #: URLs per page for this source; capped by ``SITEMAPKIT_LIMIT``.
    limit: ClassVar[int | None] = None
    lastmod: Any = None
    changefreq: Any = None
    priority: Any = None
    #: One URL per row in each of ``languages`` (default: the codes of
    #: ``LANGUAGES``), each built under ``translation.override()``, as
    #: ``django.contrib.sitemaps`` does.
    i18n: ClassVar[bool] = False
    languages: ClassVar[Sequence[str] | None] = None
    #: ``True`` (with ``i18n``): every URL of a row lists all of the row's
    #: languages as hreflang alternates. Or a per-row method returning a
    #: mapping of hreflang to location that includes the row's own location.
    alternates: Any = False
    #: With ``i18n`` alternates: an ``x-default`` alternate, the URL in ``LANGUAGE_CODE``.
    x_default: ClassVar[bool] = False
    #: Image URLs: a :class:`~django_sitemapkit.Related` declaration, or a per-row
    #: method returning an iterable of URLs.
    images: Any = None
    #: Videos: a :class:`~django_sitemapkit.Related` declaration, or a per-row
    #: method returning an iterable of :class:`~django_sitemapkit.Video`.
    videos: Any = None
    #: Makes the section a Google News sitemap (see :class:`~django_sitemapkit.News`).
    news: ClassVar[News | None] = None

    def __repr__(self) -> str:
        return f"<{type(self).__qualname__} {self.name!r}>"

    # -- paging -----------------------------------------------------------------

    def page_size(self) -> int:
        """Rows per page: as many as keep every page within its URL limit."""
        size = min(conf.LIMIT, self.limit or MAX_URLS)
        if self.news is not None:
            size = min(size, extensions.MAX_NEWS)
        return max(1, size // len(self.language_codes()))

    def url_limit(self) -> int:
        """URLs per page: each row of an ``i18n`` source is one URL per language."""
        return self.page_size() * len(self.language_codes())

    # -- extensions ---------------------------------------------------------------

    def language_codes(self) -> list[str | None]:
        """The languages each row is listed in; ``[None]`` for one URL per row."""
        if not self.i18n:
            return [None]
        if self.languages is not None:
            return list(self.languages)
        return [code for code, _ in settings.LANGUAGES]

    def has_alternates(self) -> bool:
        declared = type(self).alternates
        return callable(declared) or (declared is True and self.i18n)

    def extensions(self) -> tuple[str, ...]:
        """The extension prefixes this source's documents declare and may use."""
        used = {
            extensions.ALTERNATES: self.has_alternates(),
            extensions.IMAGES: type(self).images is not None,
            extensions.VIDEOS: type(self).videos is not None,
            extensions.NEWS: self.news is not None,
        }
        return tuple(prefix for prefix, declared in used.items() if declared)

    def urlset(self) -> Document:
        """The ``<urlset>`` of this source's pages, with only the namespaces it uses."""
        return urlset(self.extensions())

    def count(self) -> int:
        raise NotImplementedError

    def page_count(self) -> int:
        return -(-self.count() // self.page_size())

    def page_stats(self, page: int) -> PageStats:
        raise NotImplementedError

    def page_rows(self, page: int, start: tuple[Any, ...] | None = None) -> Iterator[Any]:
        """The rows of ``page``; ``start`` is ``page_stats(page).start``, saving a lookup."""
        raise NotImplementedError

    def all_rows(self) -> Iterator[Any]:
        """Every row, in page order: what ``page_rows`` returns for page 1, 2, ... in turn."""
        raise NotImplementedError

    def database(self) -> str | None:
        """The alias of the database the rows are read from, if any."""
        return None

    def page_lastmod(self, page: int) -> LastmodValue | None:
        """The newest lastmod of a page, for the index."""
        return self.page_stats(page).lastmod

    def page_lastmods(self) -> Iterator[LastmodValue | None]:
        """The newest lastmod of every page in turn: one item per page, for the index."""
        for page in range(1, self.page_count() + 1):
            yield self.page_lastmod(page)

    def page_bounds(self, page: int) -> tuple[int, int]:
        size = self.page_size()
        return (page - 1) * size, page * size

    # -- values -----------------------------------------------------------------

    def read(self, row: Any, path: str) -> Any:
        """The value of a field path on a row."""
        raise NotImplementedError

    def row_key(self, row: Any) -> str:
        """How log messages name a row."""
        raise NotImplementedError

    def location(self, row: Any) -> str:
        """A path starting with ``/`` (or an absolute URL on the base URL's host)."""
        raise NotImplementedError

    def field_path(self, attribute: str) -> str | None:
        """The field path ``attribute`` is read from, if it is declared as one."""
        declared = getattr(type(self), attribute, None)
        return declared.path if isinstance(declared, Field) else None

    def getter(self, attribute: str) -> Getter:
        declared = getattr(type(self), attribute, None)
        path = self.field_path(attribute)
        if path is not None:
            return Getter(path=path)
        if callable(declared):
            return Getter(method=getattr(self, attribute))
        if declared is None:
            return Getter()
        return self.constant_getter(attribute, declared)

    def constant_getter(self, attribute: str, value: Any) -> Getter:
        try:
            return Getter(constant=FORMATTERS[attribute](value))
        except InvalidEntry as exc:
            # The system checks report this at start-up; this is the backstop.
            raise ImproperlyConfigured(f"Source {self.name!r} declares {exc}.") from exc

    def entries(self, rows: Iterable[Any], policy: LocationPolicy) -> Generator[Entry]:
        """Valid entries for ``rows``; invalid rows are logged and skipped (raised when strict)."""
        strict = conf.STRICT
        rows = iter(rows)
        # Built inside the fixed script prefix, which URL templates capture, and
        # in LANGUAGE_CODE, whatever language the request activated: a crawler's
        # Accept-Language must not change the URLs (an i18n source then sets
        # each of its languages in turn).
        with (
            stable_script_prefix(),
            closing_iterator(rows),
            translation.override(settings.LANGUAGE_CODE),
        ):
            columns = self.raw_columns()
            key_of = self.row_keyer(columns)
            if self.i18n or self.extensions():
                yield from self.extended_entries(rows, policy, columns, key_of)
                return
            make_entry = self.entry_maker(policy, columns)
            for row in rows:
                try:
                    yield make_entry(row)
                except InvalidEntry as exc:
                    self.skip(key_of(row), exc, strict)

    def extended_entries(
        self,
        rows: Iterator[Any],
        policy: LocationPolicy,
        columns: RawColumns | None,
        key_of: Callable[[Any], str],
    ) -> Generator[Entry]:
        """``entries()`` for a source with languages or extensions: rows are taken a
        chunk at a time, so that each ``Related`` declaration costs one query per
        chunk, never one per row."""
        strict = conf.STRICT
        makers = []
        for language in self.language_codes():
            # A URL template is compiled per language (the resolver's language prefix).
            with translation.override(language):
                makers.append((language, self.entry_maker(policy, columns)))
        extend = self.extender(policy, columns)
        queries = self.related_queries()
        pk_of = self.field_reader("pk", columns) if queries else None
        chunk_size = conf.CHUNK_SIZE
        while chunk := list(islice(rows, chunk_size)):
            related = {}
            if pk_of is not None:
                keys = [pk_of(row) for row in chunk]
                related = {name: query.values(keys) for name, query in queries.items()}
            for row in chunk:
                try:
                    yield from extend(row, self.language_entries(row, makers), related, key_of)
                except InvalidEntry as exc:
                    self.skip(key_of(row), exc, strict)

    def skip(self, key: str, exc: InvalidEntry, strict: bool) -> None:
        """Log a row that makes no valid entry, or raise in strict mode."""
        message = f"Skipped {key} of source {self.name!r}: {exc}."
        if strict:
            raise InvalidEntry(message) from exc
        logger.warning(message)

    def language_entries(
        self, row: Any, makers: list[tuple[str | None, Callable[[Any], Entry]]]
    ) -> LanguageEntries:
        """The row's entry in each language, each made under ``translation.override()``."""
        if makers[0][0] is None:
            return [(None, makers[0][1](row))]
        made = []
        for language, make_entry in makers:
            with translation.override(language):
                made.append((language, make_entry(row)))
        return made

    def related_queries(self) -> dict[str, RelatedQuery]:
        """``RelatedQuery`` of each extension declared as :class:`Related`."""
        return {}

    def extender(
        self, policy: LocationPolicy, columns: RawColumns | None
    ) -> Callable[..., list[Entry]]:
        """A function giving a row's entries with their extension elements."""
        alternates_of = self.alternates_maker(policy, columns)
        images_of = self.items_reader("images", columns)
        videos_of = self.items_reader("videos", columns)
        news_of = self.news_reader(columns)
        origin = policy.origin

        def extend(
            row: Any,
            made: LanguageEntries,
            related: RelatedValues,
            key_of: Callable[[Any], str],
        ) -> list[Entry]:
            own = made[0][1].loc
            links = alternates_of(row, made)
            skipped: list[str] = []
            images = self.checked_items(
                images_of(row, related),
                extensions.MAX_IMAGES,
                "image",
                skipped,
                lambda value: extensions.resource_url(value, origin, "image"),
            )
            videos = self.checked_items(
                videos_of(row, related),
                None,
                "video",
                skipped,
                lambda value: extensions.format_video(value, origin, own),
            )
            if skipped and conf.STRICT:
                # entries() names the row and the source.
                raise InvalidEntry(skipped[0])
            for problem in skipped:
                logger.warning("Left out %s of %s of source %r.", problem, key_of(row), self.name)
            news = news_of(row)
            return [
                entry._replace(extras=Extras(links, tuple(images), tuple(videos), news))
                for _, entry in made
            ]

        return extend

    def checked_items(
        self,
        values: Iterable[Any],
        limit: int | None,
        what: str,
        skipped: list[str],
        check: Callable[[Any], Any],
    ) -> list[Any]:
        """The valid values, up to ``limit``; what is left out is described in ``skipped``."""
        items: list[Any] = []
        for value in values:
            if limit is not None and len(items) == limit:
                skipped.append(f"every {what} after the first {limit:,} (the limit per URL)")
                break
            try:
                items.append(check(value))
            except InvalidEntry as exc:
                skipped.append(f"an invalid {what} ({exc})")
        return items

    def alternates_maker(
        self, policy: LocationPolicy, columns: RawColumns | None
    ) -> Callable[[Any, LanguageEntries], Links]:
        """A function from a row (and its entries per language) to its alternates."""
        declared = type(self).alternates
        if callable(declared):
            method = self.alternates

            def mapped(row: Any, made: LanguageEntries) -> Links:
                return extensions.format_alternates(method(row), made[0][1].loc, policy)

            return mapped
        if not self.has_alternates():
            return lambda row, made: ()
        default_code = settings.LANGUAGE_CODE
        default_maker = None
        if self.x_default:
            with translation.override(default_code):
                default_maker = self.entry_maker(policy, columns)

        def reciprocal(row: Any, made: LanguageEntries) -> Links:
            # Every URL of the row lists the same set: each language's URL,
            # its own included (Google, "Tell Google about localized versions
            # of your page"), and the x-default when declared.
            links = [(str(language), entry.loc) for language, entry in made]
            if default_maker is not None:
                default = next((entry.loc for code, entry in made if code == default_code), None)
                if default is None:
                    with translation.override(default_code):
                        default = default_maker(row).loc
                links.append((extensions.X_DEFAULT, default))
            return tuple(links)

        return reciprocal

    def items_reader(
        self, attribute: str, columns: RawColumns | None
    ) -> Callable[[Any, RelatedValues], Iterable[Any]]:
        """Images or videos of a row: from the chunk's related values, or a per-row method."""
        declared = getattr(type(self), attribute)
        if declared is None:
            return lambda row, related: ()
        if isinstance(declared, Related):
            pk_of = self.field_reader("pk", columns)
            names = list(declared.paths)

            def from_related(row: Any, related: RelatedValues) -> Iterable[Any]:
                # Nothing to read for a source without a model (sitemapkit.E028).
                values = related.get(attribute, {}).get(pk_of(row), ())
                if attribute == "images":
                    return extensions.related_images(values)
                return extensions.related_videos(names, values)

            return from_related
        method = getattr(self, attribute)

        def from_method(row: Any, related: RelatedValues) -> Iterable[Any]:
            values: Iterable[Any] | None = method(row)
            if values is None:
                return ()
            if isinstance(values, (str, bytes)):
                # A single URL where a list of them was meant.
                return [values]
            return values

        return from_method

    def news_reader(self, columns: RawColumns | None) -> Callable[[Any], NewsItem | None]:
        news = self.news
        if news is None:
            return lambda row: None
        title_of = self.field_reader(news.title, columns)
        published_of = self.field_reader(news.publication_date, columns)
        return lambda row: extensions.format_news(news, title_of(row), published_of(row))

    def entry_maker(
        self, policy: LocationPolicy, columns: RawColumns | None
    ) -> Callable[[Any], Entry]:
        """A function from a row to its entry, with every per-source decision made once;
        ``columns`` is ``raw_columns()``."""
        locate = self.locator(policy, columns)
        lastmod = self.value_reader("lastmod", columns)
        changefreq = self.value_reader("changefreq", columns)
        priority = self.value_reader("priority", columns)
        # The tuple constructor itself: Entry(...) would run a Python-level
        # __new__ for every row.
        new_entry = partial(tuple.__new__, Entry)
        fixed = [self.fixed_value(name) for name in ("changefreq", "priority")]
        if all(found for found, _ in fixed):
            # The common case: both are constants (or absent), decided once.
            (_, changefreq_text), (_, priority_text) = fixed

            def make_fixed_entry(row: Any) -> Entry:
                entry: Entry = new_entry(
                    (locate(row), lastmod(row), changefreq_text, priority_text, None)
                )
                return entry

            return make_fixed_entry

        def make_entry(row: Any) -> Entry:
            entry: Entry = new_entry(
                (locate(row), lastmod(row), changefreq(row), priority(row), None)
            )
            return entry

        return make_entry

    def fixed_value(self, attribute: str) -> tuple[bool, str | None]:
        """``(True, text)`` if ``attribute`` is the same for every row, else ``(False, None)``."""
        getter = self.getter(attribute)
        if getter.method is None and getter.path is None:
            return True, getter.constant
        return False, None

    def raw_columns(self) -> RawColumns | None:
        """How to read the rows ``page_rows`` returns, if they are raw cursor rows."""
        return None

    def row_keyer(self, columns: RawColumns | None) -> Callable[[Any], str]:
        """``row_key``, for rows read as ``columns`` say."""
        return self.row_key

    def locator(self, policy: LocationPolicy, columns: RawColumns | None) -> Callable[[Any], str]:
        """A function from a row to its ``<loc>``."""
        return lambda row: policy.absolute(self.row_location(row))

    def field_reader(self, path: str, columns: RawColumns | None) -> Callable[[Any], Any]:
        """A function from a row to the value of a field path."""
        return lambda row: self.read(row, path)

    def value_reader(
        self, attribute: str, columns: RawColumns | None
    ) -> Callable[[Any], str | None]:
        """A function from a row to the formatted ``lastmod``, ``changefreq`` or ``priority``."""
        getter = self.getter(attribute)
        constant = getter.constant
        if constant is not None:
            return lambda row: constant
        if getter.method is not None:
            value_of: Callable[[Any], Any] = getter.method
        elif getter.path is not None and attribute == "lastmod" and columns is not None:
            return columns.lastmod_reader(getter.path)
        elif getter.path is not None:
            value_of = self.field_reader(getter.path, columns)
        else:
            return lambda row: None
        formatter = FORMATTERS[attribute]

        def formatted(row: Any) -> str | None:
            value = value_of(row)
            return None if value is None else formatter(value)

        return formatted

    def row_location(self, row: Any) -> str:
        try:
            location = self.location(row)
        except NoReverseMatch as exc:
            raise InvalidEntry(f"its URL does not reverse ({exc})") from exc
        except UnicodeError as exc:
            # A lone surrogate cannot be percent-encoded (RFC 3986 section 2.5: UTF-8).
            raise InvalidEntry(f"its URL cannot be encoded ({exc})") from exc
        if not isinstance(location, str):
            raise InvalidEntry(f"location {location!r} is not a string")
        return location


FORMATTERS: Mapping[str, Callable[[Any], str]] = {
    "lastmod": format_lastmod,
    "changefreq": format_changefreq,
    "priority": format_priority,
}


class SitemapSource(BaseSource):
    """URLs for the rows of a queryset.

    Locations come from ``reverse(url_name, kwargs=...)`` where ``url_kwargs``
    maps each URL keyword argument to a field path, or from the model's
    ``get_absolute_url()`` when no ``url_name`` is given, or from an
    overridden ``location(row)``.
    """

    queryset: ClassVar[models.QuerySet[Any] | None] = None
    url_name: ClassVar[str | None] = None
    url_kwargs: ClassVar[Mapping[str, str]] = {}
    #: Extra field paths that per-row methods read from the row.
    fields: ClassVar[Sequence[str]] = ()
    #: Field paths to order by; the primary key is appended so pages are stable.
    ordering: ClassVar[Sequence[str]] = ()
    #: Hand per-row methods model instances instead of dicts of field paths.
    use_instances: ClassVar[bool] = False
    #: Read rows straight from the database cursor when no per-row method needs
    #: them (see rawrows.py); False reads every row through ``values()``.
    raw_rows: ClassVar[bool] = True

    def get_queryset(self) -> models.QuerySet[Any]:
        if self.queryset is None:
            raise TypeError(f"Source {self.name!r} declares no queryset.")
        queryset: models.QuerySet[Any] = self.queryset.all()
        return queryset

    @property
    def model(self) -> type[models.Model]:
        return self.get_queryset().model

    def listed(self) -> models.QuerySet[Any]:
        """``get_queryset()``, less the rows a news section leaves out: only articles
        published within ``SITEMAPKIT_NEWS_MAX_AGE`` belong in a Google News sitemap."""
        queryset = self.get_queryset()
        if self.news is not None:
            cutoff = extensions.news_cutoff(conf.NEWS_MAX_AGE)
            queryset = queryset.filter(**{f"{self.news.publication_date}__gte": cutoff})
        return queryset

    def related_queries(self) -> dict[str, RelatedQuery]:
        return {
            attribute: RelatedQuery(self.model, declared, self.database())
            for attribute in ("images", "videos")
            if isinstance(declared := getattr(type(self), attribute), Related)
        }

    def uses_instances(self) -> bool:
        return self.use_instances or (
            self.url_name is None and type(self).location is SitemapSource.location
        )

    def order_by(self) -> list[str]:
        ordering = list(self.ordering)
        if not {
            "pk",
            "-pk",
            self.model._meta.pk.name,
            f"-{self.model._meta.pk.name}",
        } & set(ordering):
            ordering.append("pk")
        return ordering

    def field_path(self, attribute: str) -> str | None:
        # On a queryset source a plain string lastmod is a field path too.
        declared = type(self).lastmod
        if attribute == "lastmod" and isinstance(declared, str):
            return declared
        return super().field_path(attribute)

    def columns(self, *, lastmod: bool = True) -> list[str]:
        """Every field path a row needs, primary key first; with ``lastmod=False``,
        the lastmod path only if something else reads it too."""
        paths = ["pk", *self.url_kwargs.values()]
        for attribute in ("lastmod", "changefreq", "priority")[0 if lastmod else 1 :]:
            path = self.field_path(attribute)
            if path is not None:
                paths.append(path)
        if self.news is not None:
            paths.extend((self.news.title, self.news.publication_date))
        paths.extend(self.fields)
        return list(dict.fromkeys(paths))

    def ordered(self) -> models.QuerySet[Any]:
        queryset: models.QuerySet[Any] = self.listed().order_by(*self.order_by())
        return queryset

    def count(self) -> int:
        return self.listed().count()

    def key(self) -> list[KeyColumn] | None:
        """The ordering as a key to seek pages by, or ``None`` to page by offset."""
        return ordering_key(self.model, self.order_by())

    def seek(self, key: list[KeyColumn], page: int) -> tuple[Any, ...] | None:
        """The key of the first row of ``page``, or ``None`` if there is no such page.

        Only the key's columns are read (an index can answer it, no join is
        made), so this costs a fraction of reading the page's rows by offset.
        """
        first, _ = self.page_bounds(page)
        names = [column.name for column in key]
        found = list(self.ordered().values_list(*names)[first : first + 1])
        return tuple(found[0]) if found else None

    def stats_aggregates(self) -> dict[str, Any]:
        aggregates: dict[str, Any] = {"count": Count("pk"), "last_pk": Max("pk")}
        path = self.field_path("lastmod")
        if path is not None:
            aggregates["lastmod"] = Max(path)
        return aggregates

    def page_stats(self, page: int) -> PageStats:
        key = self.key()
        start = None
        if key is None or page == 1:
            first, stop = self.page_bounds(page)
            rows = self.ordered()[first:stop]
        else:
            start = self.seek(key, page)
            if start is None:
                return PageStats(0, None, (0, None, None))
            rows = self.ordered().filter(from_start(key, start))[: self.page_size()]
        stats = rows.aggregate(**self.stats_aggregates())
        lastmod = stats.get("lastmod")
        fingerprint = (stats["count"], stats["last_pk"], lastmod)
        return PageStats(stats["count"], lastmod, fingerprint, start)

    def page_lastmod(self, page: int) -> LastmodValue | None:
        # Without a lastmod field there is nothing the database can aggregate.
        return None if self.field_path("lastmod") is None else super().page_lastmod(page)

    def page_lastmods(self) -> Iterator[LastmodValue | None]:
        key = self.key()
        path = self.field_path("lastmod")
        if path is None:
            yield from super().page_lastmods()
            return
        if key is None:
            yield from self.numbered_page_lastmods(path)
            return
        # Each page starts where the previous one ended, so the whole index
        # reads every key once, where seeking each page from the top would
        # read them N/2 times on average.
        size = self.page_size()
        rows = self.ordered()
        while True:
            stats = rows[:size].aggregate(**self.stats_aggregates(), **edge_aggregate(key))
            if stats["count"] == 0:
                return
            yield stats["lastmod"]
            if stats["count"] < size:
                return
            rows = self.ordered().filter(self.after_page(key, rows, stats.get("edge")))

    def numbered_page_lastmods(self, path: str) -> Iterator[LastmodValue | None]:
        """Each page's newest lastmod from one query, numbering the rows in order.

        Without a key, an aggregate per page would skip the rows of every page
        before it by OFFSET: N pages would read N²/2 pages of rows, and one
        request for the index could keep the database busy for a minute. Here
        the database numbers the rows once (``ROW_NUMBER()``, in the pages'
        own order) and takes the ``MAX()`` of each page's numbers, as the
        per-page aggregate would. The ORM cannot group by a window function,
        so the outer query is written here around the compiled inner one.
        """
        queryset = self.ordered()
        alias = queryset.db
        connection = connections[alias]
        ordering = [
            expression for expression, _ in queryset.query.get_compiler(alias).get_order_by()
        ]
        numbered = (
            queryset.order_by()
            .annotate(**{ROW_NUMBER: Window(RowNumber(), order_by=ordering), PAGE_LASTMOD: F(path)})
            .values(ROW_NUMBER, PAGE_LASTMOD)
        )
        sql, params = numbered.query.get_compiler(alias).as_sql()
        row, lastmod, rows = map(connection.ops.quote_name, (ROW_NUMBER, PAGE_LASTMOD, "rows"))
        pages = f"SELECT ({row} - 1) / %s, MAX({lastmod}) FROM ({sql}) {rows} GROUP BY 1 ORDER BY 1"
        # The converters the ORM applies to the column (SQLite keeps datetimes as text).
        expression = numbered.query.annotations[PAGE_LASTMOD]
        converters = [
            *connection.ops.get_db_converters(expression),
            *expression.get_db_converters(connection),
        ]
        with connection.cursor() as cursor:
            cursor.execute(pages, (self.page_size(), *params))
            for _, value in cursor.fetchall():
                for converter in converters:
                    value = converter(value, expression, connection)
                yield value

    def after_page(self, key: list[KeyColumn], page: models.QuerySet[Any], edge: Any) -> Q:
        """The rows after the page that ``page[:page_size()]`` holds."""
        if len(key) == 1:
            # Ordered by the primary key alone: the page's last key is its edge.
            lookup = "lt" if key[0].descending else "gt"
            return Q(**{f"pk__{lookup}": edge})
        names = [column.name for column in key]
        size = self.page_size()
        following = list(page.values_list(*names)[size : size + 1])
        return from_start(key, tuple(following[0])) if following else Q(pk__in=[])

    def row_queryset(self) -> models.QuerySet[Any]:
        """Ordered rows: raw tuples of the needed columns when ``reads_raw_rows()``,
        else dicts of them, or instances if the methods want them."""
        queryset: models.QuerySet[Any] = self.ordered()
        if self.reads_raw_rows():
            return raw_values(queryset, self.columns(lastmod=False), self.field_path("lastmod"))
        if not self.uses_instances():
            queryset = queryset.values(*self.columns())
        return queryset

    def page_rows(self, page: int, start: tuple[Any, ...] | None = None) -> Iterator[Any]:
        key = self.key()
        if key is None or page == 1:
            first, stop = self.page_bounds(page)
            sliced = self.row_queryset()[first:stop]
        else:
            if start is None:
                start = self.seek(key, page)
            if start is None:
                return iter(())
            sliced = self.row_queryset().filter(from_start(key, start))[: self.page_size()]
        return self.fetch(sliced)

    def all_rows(self) -> Iterator[Any]:
        return self.fetch(self.row_queryset())

    def database(self) -> str:
        return self.get_queryset().db

    def reads_raw_rows(self) -> bool:
        """Whether rows come straight from the cursor: only when no method of the
        project's own sees them, since those are promised dicts or instances."""
        return (
            self.raw_rows
            and not self.uses_instances()
            and type(self).location is SitemapSource.location
            and type(self).read is SitemapSource.read
            and type(self).row_key is SitemapSource.row_key
            and all(self.getter(name).method is None for name in FORMATTERS)
            and not any(
                callable(getattr(type(self), name)) for name in ("alternates", "images", "videos")
            )
        )

    def raw_columns(self) -> RawColumns | None:
        return RawColumns(self.row_queryset()) if self.reads_raw_rows() else None

    def fetch(self, queryset: models.QuerySet[Any]) -> Iterator[Any]:
        """The rows of a ``row_queryset()``, raw or through the ORM."""
        if self.reads_raw_rows():
            return raw_rows(queryset, conf.CHUNK_SIZE)
        rows: Iterator[Any] = queryset.iterator(chunk_size=conf.CHUNK_SIZE)
        return rows

    def field_reader(self, path: str, columns: RawColumns | None) -> Callable[[Any], Any]:
        if columns is not None:
            return columns.reader(path)
        if self.uses_instances():
            return super().field_reader(path, columns)
        # Rows are dicts keyed by field path (see row_queryset()).
        return itemgetter(path)

    def locator(self, policy: LocationPolicy, columns: RawColumns | None) -> Callable[[Any], str]:
        template = None
        if self.url_name is not None and type(self).location is SitemapSource.location:
            template = UrlTemplate.compile(self.url_name, self.url_kwargs)
        if template is None:
            return super().locator(policy, columns)
        general = self.template_locator(template, policy, columns)
        readers = [
            self.field_reader(self.url_kwargs[slot.name], columns) for slot in template.slots
        ]
        quick = quick_locator(
            template, readers, policy.origin_url, policy.prefix, MAX_LOCATION_LENGTH, general
        )
        return general if quick is None else quick

    def template_locator(
        self, template: UrlTemplate, policy: LocationPolicy, columns: RawColumns | None
    ) -> Callable[[Any], str]:
        """A row's ``<loc>`` through the template, with ``reverse()``'s answer and errors."""
        fill = template.fill
        readers = [
            (kwarg, path, self.field_reader(path, columns))
            for kwarg, path in self.url_kwargs.items()
        ]

        def locate(row: Any) -> str:
            kwargs = {}
            for kwarg, path, read in readers:
                value = read(row)
                if value is None:
                    raise InvalidEntry(f"URL argument {kwarg!r} (field {path!r}) is None")
                kwargs[kwarg] = value
            try:
                location = fill(kwargs)
            except NoReverseMatch as exc:
                raise InvalidEntry(f"its URL does not reverse ({exc})") from exc
            except UnicodeError as exc:
                raise InvalidEntry(f"its URL cannot be encoded ({exc})") from exc
            return policy.absolute_path(location)

        return locate

    def read(self, row: Any, path: str) -> Any:
        if isinstance(row, dict):
            return row[path]
        if isinstance(row, (tuple, list)):
            # A raw row; only an invalid entry's log message comes this way.
            return RawColumns(self.row_queryset()).reader(path)(row)
        value = row
        for name in path.split("__"):
            value = getattr(value, name)
            if value is None:
                return None
        return value

    def row_key(self, row: Any) -> str:
        return f"pk={self.read(row, 'pk')!r}"

    def row_keyer(self, columns: RawColumns | None) -> Callable[[Any], str]:
        if columns is None:
            return self.row_key
        # Compiled once, not for every skipped row as read() would.
        pk = columns.reader("pk")
        return lambda row: f"pk={pk(row)!r}"

    def location(self, row: Any) -> str:
        if self.url_name is None:
            url: str = row.get_absolute_url()
            return url
        kwargs = {}
        for kwarg, path in self.url_kwargs.items():
            value = self.read(row, path)
            if value is None:
                raise InvalidEntry(f"URL argument {kwarg!r} (field {path!r}) is None")
            kwargs[kwarg] = value
        return reverse(self.url_name, kwargs=kwargs)


def edge_aggregate(key: list[KeyColumn]) -> dict[str, Any]:
    """The last primary key of a page ordered by the primary key alone."""
    if len(key) != 1:
        return {}
    return {"edge": Min("pk") if key[0].descending else Max("pk")}


class StaticPage(NamedTuple):
    """One fixed page of a :class:`StaticSource`: a URL name with kwargs, or a path."""

    url_name: str | None
    kwargs: Mapping[str, Any]
    path: str | None

    @classmethod
    def from_declaration(cls, item: Any) -> StaticPage:
        if isinstance(item, StaticPage):
            return item
        if isinstance(item, str):
            if item.startswith("/") or "://" in item:
                return cls(None, {}, item)
            return cls(item, {}, None)
        if isinstance(item, tuple) and len(item) == 2:
            return cls(item[0], dict(item[1]), None)
        raise TypeError(
            f"{item!r} is not a URL name, a (URL name, kwargs) pair, or a path starting with '/'."
        )

    def __str__(self) -> str:
        if self.path is not None:
            return self.path
        if self.kwargs:
            return f"{self.url_name} {dict(self.kwargs)!r}"
        return str(self.url_name)


class StaticSource(BaseSource):
    """Pages that are not model rows: URL names (with kwargs) or fixed paths.

    ``urls = ["home", "about", ("category", {"slug": "shoes"}), "/legal/"]``
    """

    urls: ClassVar[Sequence[Any]] = ()

    def pages(self) -> list[StaticPage]:
        return [StaticPage.from_declaration(item) for item in self.urls]

    def count(self) -> int:
        return len(self.urls)

    def page_rows(self, page: int, start: tuple[Any, ...] | None = None) -> Iterator[StaticPage]:
        first, stop = self.page_bounds(page)
        return iter(self.pages()[first:stop])

    def all_rows(self) -> Iterator[StaticPage]:
        return iter(self.pages())

    def page_stats(self, page: int) -> PageStats:
        pages = list(self.page_rows(page))
        getter = self.getter("lastmod")
        values = [type(self).lastmod] if getter.method is None else map(getter.method, pages)
        # Invalid values are reported (and skipped) when the entries are written.
        lastmod = newest_lastmod(values)
        return PageStats(len(pages), lastmod, (tuple(pages), lastmod))

    def read(self, row: Any, path: str) -> Any:
        raise InvalidEntry(f"static pages have no field {path!r}")

    def row_key(self, row: Any) -> str:
        return f"page {str(row)!r}"

    def location(self, row: StaticPage) -> str:
        if row.path is not None:
            return row.path
        assert row.url_name is not None
        return reverse(row.url_name, kwargs=dict(row.kwargs))


@contextmanager
def closing_iterator(rows: Iterator[Any]) -> Iterator[None]:
    """Close a row iterator as soon as the entries stop, however they stop.

    A queryset's ``.iterator()`` may hold a server-side cursor (PostgreSQL);
    left to the garbage collector, it would be closed at an arbitrary moment,
    possibly in the middle of another query on the same connection.
    """
    try:
        yield
    finally:
        close = getattr(rows, "close", None)
        if close is not None:
            close()
