"""System check of the URL patterns that serve the drop-in views of
``django_sitemapkit.compat``: a ``template_name`` they cannot honour (W011);
and whether any pattern routes to them, which quiets W002 and W006 while the
drop-in serves the sitemap (docs/migrating.md, Step 1).

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
    views = dropin_views()
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


def dropin_views() -> dict[object, str]:
    """The drop-in's views, undecorated, by their names."""
    # Imported here: a project that does not use the drop-in does not load it
    # at start-up for these checks.
    from django_sitemapkit.compat import index, sitemap

    return {innermost(index): "index", innermost(sitemap): "sitemap"}


def dropin_routed() -> bool:
    """Whether a pattern of ``ROOT_URLCONF`` (or of what it includes) routes to a
    drop-in view: the project's sitemap is then served by the drop-in, with no
    source registered and ``django_sitemapkit.urls`` not included."""
    if not getattr(settings, "ROOT_URLCONF", None):
        return False
    views = dropin_views()
    try:
        found = routes(get_resolver().url_patterns)
        return any(innermost(pattern.callback) in views for _, pattern, _ in found)
    except Exception:
        # Django's own URL checks report a URLconf that fails to import; this
        # must not fail in their place.
        return False


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
