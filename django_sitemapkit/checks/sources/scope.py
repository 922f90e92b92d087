"""Whether a source's URLs can fall under the directory the sitemap is served from,
where that is known without reading a row (``sitemapkit.E033``).

By the protocol's location rule ("Sitemap file location") a sitemap may list only
URLs at or below its own directory; the engine skips the others. What is known
before any query: the literal start of a ``url_name`` pattern, and the pages of a
``StaticSource``. A ``location()`` hook or ``get_absolute_url()`` may return
anything, so a source using one is never said to fall outside.
"""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import quote, urlsplit

from django.conf import settings
from django.urls import NoReverseMatch, reverse
from django.utils import translation
from django.utils.encoding import iri_to_uri

from django_sitemapkit.checks.sources.declarations import check_kinds
from django_sitemapkit.locations.policy import fixed_script_prefix, stable_script_prefix
from django_sitemapkit.locations.resolution import namespaced_resolver
from django_sitemapkit.locations.templates import PCHAR_SAFE
from django_sitemapkit.locations.uris import without_dot_segments
from django_sitemapkit.sources.declaration import (
    BaseSource,
    Declaration,
    SitemapSource,
    StaticPage,
    StaticSource,
)


def every_source_outside(sources: Sequence[BaseSource], directory: str) -> bool:
    """Whether there are sources and each is known to list no URL under ``directory``,
    reversed as the engine reverses them: in ``LANGUAGE_CODE``."""
    with translation.override(settings.LANGUAGE_CODE):
        return bool(sources) and all(falls_outside(source, directory) for source in sources)


def falls_outside(source: BaseSource, directory: str) -> bool:
    """Whether every URL of ``source`` is known to fall outside ``directory``."""
    if check_kinds(source) or type(source).i18n is not False:
        # Declarations of the wrong kind are E031's; with i18n, each language
        # may put its own prefix in front of the URL.
        return False
    if isinstance(source, SitemapSource):
        if source.url_name is None or Declaration(source).overrides("location", SitemapSource):
            return False
        starts = pattern_starts(source.url_name)
        return bool(starts) and not any(may_lead_into(start, directory) for start in starts)
    if isinstance(source, StaticSource) and not Declaration(source).overrides(
        "location", StaticSource
    ):
        paths = [static_path(item) for item in source.urls]
        if not paths or None in paths:
            return False
        return not any(path is not None and path.startswith(directory) for path in paths)
    return False


def may_lead_into(start: str, directory: str) -> bool:
    """Whether a path beginning with ``start`` can lie at or below ``directory``."""
    return start.startswith(directory) or directory.startswith(start)


def pattern_starts(url_name: str) -> list[str]:
    """The literal start of every path ``reverse(url_name)`` may return, up to its
    first argument: the script prefix, the namespaces' and the pattern's text."""
    try:
        resolver, view = namespaced_resolver(url_name)
    except NoReverseMatch:
        return []  # E010
    prefix = fixed_script_prefix()
    return [
        quote(prefix + result.split("%(")[0].replace("%%", "%"), safe=PCHAR_SAFE)
        for possibility, _pattern, _defaults, _converters in resolver.reverse_dict.getlist(view)
        for result, _params in possibility
    ]


def static_path(item: object) -> str | None:
    """The path of a ``StaticSource.urls`` item, or ``None`` where it has none
    (E010, E017 and E005 report those)."""
    try:
        page = StaticPage.from_declaration(item)
    except TypeError:
        return None
    if page.url_name is not None:
        try:
            with stable_script_prefix():
                return reverse(page.url_name, kwargs=dict(page.kwargs))
        except NoReverseMatch:
            return None
    assert page.path is not None
    try:
        # As LocationPolicy.absolute() reads it: a URI, its dot segments resolved.
        path = iri_to_uri(page.path if page.path.startswith("/") else urlsplit(page.path).path)
    except (UnicodeError, ValueError):
        return None
    return without_dot_segments(path) if path.startswith("/") else None
