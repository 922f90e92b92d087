"""What a project declares: the documented vocabulary of a source, and nothing else.

A source class is the user's namespace. Like a model, whose machinery lives
in ``_meta`` so that a field may be called ``count`` or ``key``, a source
holds only the attributes and hooks the README documents; the engine compiles
it into a :class:`~django_sitemapkit.sources.plan.Plan` of its own and never
looks up any other name on it. A subclass may therefore name its helpers and
constants anything that is not documented.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, NamedTuple

from django.db import models
from django.urls import reverse

from django_sitemapkit.exceptions import InvalidEntry
from django_sitemapkit.sites.configured import SitemapSite

#: The attributes a source may declare, and the hooks it may override: the
#: README's tables. Everything else on a subclass belongs to the project.
DECLARED = (
    "name",
    "sites",
    "limit",
    "lastmod",
    "changefreq",
    "priority",
    "i18n",
    "languages",
    "alternates",
    "x_default",
    "images",
    "videos",
    "news",
)
QUERYSET_DECLARED = (
    "queryset",
    "url_name",
    "url_kwargs",
    "fields",
    "ordering",
    "use_instances",
    "raw_rows",
    "noindex",
    "canonical",
    "depends_on",
    "title",
)
STATIC_DECLARED = ("urls",)
#: The methods the engine calls; a subclass overrides them with methods.
HOOKS = ("location", "get_queryset", "get_site_queryset")


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


class BaseSource:
    """The vocabulary every source shares; see the README's "Declaring sources"."""

    #: The section's name, in its file names (``sitemap-<name>-<page>.xml``): 1 to 64
    #: ASCII letters, digits, ``-`` or ``_``. Required, and unique in the project.
    name: ClassVar[str] = ""
    #: The names of the sites (``SITEMAPKIT_SITES``) whose sitemaps list this
    #: source; ``None`` lists it on every site.
    sites: ClassVar[Sequence[str] | None] = None
    #: URLs per page for this source; capped by ``SITEMAPKIT_LIMIT``.
    limit: ClassVar[int | None] = None
    #: When each URL last changed: a field path (a ``DateTimeField`` or ``DateField``),
    #: a query expression the database computes per row, a fixed ``date`` or
    #: ``datetime`` (a ``StaticSource``), or a per-row method. ``None`` writes no
    #: ``<lastmod>``.
    lastmod: Any = None
    #: One of ``always hourly daily weekly monthly yearly never``, a
    #: :class:`~django_sitemapkit.Field`, or a per-row method; ``None`` writes none.
    changefreq: Any = None
    #: A number from 0.0 to 1.0, a :class:`~django_sitemapkit.Field`, or a per-row
    #: method; ``None`` writes none.
    priority: Any = None
    #: One URL per row in each of ``languages`` (default: the codes of
    #: ``LANGUAGES``), each built under ``translation.override()``, as
    #: ``django.contrib.sitemaps`` does.
    i18n: ClassVar[bool] = False
    #: The language codes of ``i18n`` (default: the codes of ``LANGUAGES``).
    languages: ClassVar[Sequence[str] | None] = None
    #: ``True`` (with ``i18n``): every URL of a row lists all of the row's
    #: languages as hreflang alternates. Or a per-row method returning a
    #: mapping of hreflang to location that includes the row's own location.
    alternates: Any = False
    #: With ``i18n`` alternates: an ``x-default`` alternate, the URL in ``LANGUAGE_CODE``.
    x_default: ClassVar[bool] = False
    #: A :class:`~django_sitemapkit.Related` declaration, or a per-row method.
    images: Any = None
    #: A :class:`~django_sitemapkit.Related` declaration, or a per-row method.
    videos: Any = None
    #: Makes the section a Google News sitemap (see :class:`~django_sitemapkit.News`).
    news: ClassVar[Any] = None

    def __repr__(self) -> str:
        return f"<{type(self).__qualname__} {type(self).name!r}>"

    def location(self, row: Any) -> str:
        """A path starting with ``/`` (or an absolute URL on the base URL's host)."""
        raise NotImplementedError


class SitemapSource(BaseSource):
    """URLs for the rows of a queryset.

    Locations come from ``reverse(url_name, kwargs=...)`` where ``url_kwargs``
    maps each URL keyword argument to a field path, or from the model's
    ``get_absolute_url()`` when no ``url_name`` is given, or from an
    overridden ``location(row)``.
    """

    #: The rows to list, cloned on every use (see :meth:`get_queryset`).
    queryset: ClassVar[models.QuerySet[Any] | None] = None
    #: The URL pattern name each row's location is reversed from; without it, the
    #: model's ``get_absolute_url()``.
    url_name: ClassVar[str | None] = None
    #: Each keyword argument of ``url_name`` and the field path of the row that
    #: fills it (``{"slug": "slug"}``); a path may cross relations.
    url_kwargs: ClassVar[Mapping[str, str]] = {}
    #: Extra field paths that per-row methods read from the row.
    fields: ClassVar[Sequence[str]] = ()
    #: Field paths to order by; the primary key is appended so pages are stable.
    ordering: ClassVar[Sequence[str]] = ()
    #: Hand per-row methods model instances instead of dicts of field paths.
    use_instances: ClassVar[bool] = False
    #: Read rows straight from the database cursor when no per-row method needs
    #: them; ``False`` reads every row through ``values()``.
    raw_rows: ClassVar[bool] = True
    #: Rows not to list: a boolean field path, a ``Q``, or a boolean expression, applied
    #: in SQL; a NULL (or an expression's NULL) counts as indexable.
    noindex: ClassVar[Any] = None
    #: A text field path: a row whose value is set (neither NULL nor "") and is not the
    #: row's own location (absolute, or its path) is not listed.
    canonical: ClassVar[str | None] = None
    #: The other models the entries read, each with the lookup from this source's model
    #: to it (``{Comment: "comments"}``): with ``SITEMAPKIT_CHANGES``, a save or delete
    #: of one of their rows marks the rows of this source that reach it as changed.
    depends_on: ClassVar[Mapping[Any, str]] = {}
    #: The field path of each row's title, shown by the HTML sitemap for visitors
    #: (``html_urls``) and never written to the XML; ``None`` shows the URL's path.
    title: ClassVar[str | None] = None

    def get_queryset(self) -> models.QuerySet[Any]:
        """The rows to list: a fresh clone of ``queryset`` (override to compute it)."""
        queryset = type(self).queryset
        if queryset is None:
            raise TypeError(f"Source {type(self).name!r} declares no queryset.")
        fresh: models.QuerySet[Any] = queryset.all()
        return fresh

    def get_site_queryset(self, site: SitemapSite) -> models.QuerySet[Any]:
        """The rows to list on ``site`` (a :class:`~django_sitemapkit.SitemapSite`):
        ``get_queryset()`` unless overridden, the same rows on every site."""
        return self.get_queryset()

    def location(self, row: Any) -> str:
        """The row's location: ``reverse(url_name, kwargs=...)`` with ``url_kwargs``
        read from the row, or its ``get_absolute_url()`` without a ``url_name``.
        Override it for anything else, returning a path starting with ``/`` or an
        absolute URL on the base URL's host, and name the columns it reads in
        ``fields``."""
        url_name = type(self).url_name
        if url_name is None:
            url: str = row.get_absolute_url()
            return url
        kwargs = {}
        for kwarg, path in type(self).url_kwargs.items():
            value = field_value(row, path)
            if value is None:
                raise InvalidEntry(f"URL argument {kwarg!r} (field {path!r}) is None")
            kwargs[kwarg] = value
        return reverse(url_name, kwargs=kwargs)


class StaticPage(NamedTuple):
    """One fixed page of a :class:`StaticSource`: a URL name with kwargs, or a path."""

    #: The URL pattern name to reverse, or ``None`` for a path.
    url_name: str | None
    #: The keyword arguments ``url_name`` is reversed with (``{}`` for a path).
    kwargs: Mapping[str, Any]
    #: The page's path, starting with ``/`` (or an absolute URL), or ``None``.
    path: str | None

    @classmethod
    def from_declaration(cls, item: Any) -> StaticPage:
        """An item of ``StaticSource.urls`` as a page: a URL name, a pair, or a path."""
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

    #: URL names, ``(URL name, kwargs)`` pairs, paths starting with ``/``, or
    #: :class:`StaticPage` items, one page each.
    urls: ClassVar[Sequence[Any]] = ()

    def location(self, row: StaticPage) -> str:
        """The page's path, or its URL name (and kwargs) reversed."""
        if row.path is not None:
            return row.path
        assert row.url_name is not None
        return reverse(row.url_name, kwargs=dict(row.kwargs))


def field_value(row: Any, path: str) -> Any:
    """The value of a field path on a row handed to the project's code: a dict of
    field paths (``values()``), or a model instance."""
    if isinstance(row, dict):
        return row[path]
    value = row
    for name in path.split("__"):
        value = getattr(value, name)
        if value is None:
            return None
    return value


def documented(source: BaseSource) -> tuple[type[BaseSource], tuple[str, ...]]:
    """The documented class ``source`` derives from, and the attributes it may declare."""
    if isinstance(source, SitemapSource):
        return SitemapSource, DECLARED + QUERYSET_DECLARED
    if isinstance(source, StaticSource):
        return StaticSource, DECLARED + STATIC_DECLARED
    return BaseSource, DECLARED


class Declaration:
    """What a source's class declares, read once, as ``Model._meta`` is for a model:
    a plan is compiled from this snapshot and never looks a name up on the class
    again. Only the documented names are read (``DECLARED``, the names of its
    kind, and ``HOOKS``), so the rest of the class stays the project's."""

    __slots__ = ("_hooks", "_values", "base", "name", "source")

    def __init__(self, source: BaseSource) -> None:
        cls = type(source)
        self.base, names = documented(source)
        self.source = source
        self.name: str = cls.name
        self._values: dict[str, Any] = {name: getattr(cls, name) for name in names}
        self._hooks: dict[str, Any] = {hook: getattr(cls, hook, None) for hook in HOOKS}

    def __getitem__(self, attribute: str) -> Any:
        """What the class declares for ``attribute`` (a method stays a function)."""
        return self._values[attribute]

    def hook(self, name: str) -> Any:
        """What the class has for the hook ``name`` (``None`` if nothing)."""
        return self._hooks[name]

    def overrides(self, hook: str, base: type[BaseSource]) -> bool:
        """Whether the project's class replaces ``base``'s ``hook``."""
        return self._hooks[hook] is not getattr(base, hook)
