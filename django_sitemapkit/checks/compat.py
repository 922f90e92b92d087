"""System check of the URL patterns that serve the drop-in views of
``django_sitemapkit.compat``: a ``template_name`` they cannot honour (W011).

The drop-in writes its documents with the encoder, as every view here does,
so a template a project passes changes nothing in what the URL serves. A
project that kept contrib's template for its output (a stylesheet line, extra
elements) must hear that before a crawler reads the documents without it.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from django.conf import settings
from django.core.checks import CheckMessage, Warning
from django.urls import URLPattern, URLResolver, get_resolver

#: contrib's default template of each view: passing it names what the view
#: would use anyway, and the documents are what contrib's template writes.
CONTRIB_TEMPLATES = {"index": "sitemap_index.xml", "sitemap": "sitemap.xml"}


def check_compat_templates(**kwargs: Any) -> list[CheckMessage]:
    if not getattr(settings, "ROOT_URLCONF", None):
        return []  # Django's own checks say so
    # Imported here: a project that does not use the drop-in does not load it
    # at start-up for this check.
    from django_sitemapkit.compat import index, sitemap

    views = {innermost(index): "index", innermost(sitemap): "sitemap"}
    messages: list[CheckMessage] = []
    for route, pattern, arguments in routes(get_resolver().url_patterns):
        view = views.get(innermost(pattern.callback))
        if view is None or "template_name" not in arguments:
            continue
        template = arguments["template_name"]
        if template == CONTRIB_TEMPLATES[view]:
            continue
        named = f" [name={pattern.name!r}]" if pattern.name else ""
        messages.append(
            Warning(
                f"The URL pattern {route!r}{named} passes template_name={template!r} to "
                f"django_sitemapkit.compat.{view}, which renders no template.",
                hint="The URL serves the same documents without it: the engine writes them "
                "and the template is not used. Remove template_name, or keep "
                f"django.contrib.sitemaps.views.{view} for that URL if the template's output "
                "is needed.",
                id="sitemapkit.W011",
            )
        )
    return messages


def routes(
    patterns: Iterable[URLPattern | URLResolver],
    prefix: str = "",
    inherited: Mapping[str, Any] | None = None,
) -> Iterator[tuple[str, URLPattern, dict[str, Any]]]:
    """Every pattern below ``patterns`` with its whole route and the keyword
    arguments its view is called with: an ``include()``'s own, then the pattern's,
    which win (as ``URLResolver.resolve()`` merges them)."""
    for entry in patterns:
        route = prefix + str(entry.pattern)
        if isinstance(entry, URLResolver):
            yield from routes(
                entry.url_patterns, route, {**(inherited or {}), **entry.default_kwargs}
            )
        else:
            yield route, entry, {**(inherited or {}), **entry.default_args}


def innermost(view: Callable[..., Any]) -> object:
    """The function under a view's decorators (``require_safe``, a project's own
    ``cache_page(...)``), so that a decorated drop-in view is still recognised."""
    try:
        return inspect.unwrap(view)
    except ValueError:  # a cycle of __wrapped__
        return view
