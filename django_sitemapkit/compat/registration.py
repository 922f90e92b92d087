"""``register(sitemaps)``: each key of a contrib ``sitemaps`` dict becomes a section
of this app, served at this app's URLs, built by ``build_sitemaps``, listed in
the HTML sitemap and in ``robots.txt``, like a declared source."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django_sitemapkit.compat.plan import ContribSource, section_class
from django_sitemapkit.registry import registry


def register(sitemaps: Mapping[str, Any]) -> list[type[ContribSource]]:
    """Register each value of ``sitemaps`` (a ``Sitemap`` class or instance) as the
    section named by its key, in the dict's order; returns the section classes
    (``registry.unregister()`` takes them back). Call it in an installed app's
    ``sitemaps.py``, which is imported at start-up."""
    if not isinstance(sitemaps, Mapping):
        raise TypeError(
            f"register() takes the dict of sections and Sitemap classes that "
            f"django.contrib.sitemaps' views take, not {sitemaps!r}."
        )
    registered = []
    for name, declared in sitemaps.items():
        registered.append(registry.register(section_class(name, declared)))
    return registered
