"""``register(sitemaps)``: each key of a contrib ``sitemaps`` dict becomes a section
of this app, served at this app's URLs, built by ``build_sitemaps``, listed in
the HTML sitemap and in ``robots.txt``, like a declared source."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.core.exceptions import ImproperlyConfigured
from django.db import DatabaseError

from django_sitemapkit.compat.plan import ContribSource, section_class
from django_sitemapkit.registry import registry


def register(
    sitemaps: Mapping[str, Any], *, sites: Sequence[str] | None = None
) -> list[type[ContribSource]]:
    """Register each value of ``sitemaps`` (a ``Sitemap`` class or instance) as the
    section named by its key, in the dict's order; returns the section classes
    (``registry.unregister()`` takes them back). Call it in an installed app's
    ``sitemaps.py``, which is imported at start-up.

    ``sites``, the names of sites of ``SITEMAPKIT_SITES``, lists the sections on
    those sites only, as a source's ``sites`` attribute does; ``None`` (the
    default) lists them on every site."""
    if not isinstance(sitemaps, Mapping):
        raise TypeError(
            f"register() takes the dict of sections and Sitemap classes that "
            f"django.contrib.sitemaps' views take, not {sitemaps!r}."
        )
    if isinstance(sites, str):
        # A lone name would be read letter by letter.
        raise TypeError(
            f"register(sites={sites!r}) takes a list of site names; write sites=[{sites!r}]."
        )
    try:
        # A comprehension, not list(): that would ask a lazy Mapping for its len().
        sections = [(name, declared) for name, declared in sitemaps.items()]
    except DatabaseError as exc:
        raise ImproperlyConfigured(
            f"register() reads the sections of its mapping once, at start-up, and reading "
            f"{type(sitemaps).__name__}'s raised {type(exc).__name__}: {exc}. A mapping whose "
            "sections come from the database cannot be registered (migrate on a new database "
            "would meet it before its tables exist): serve it with the drop-in views of "
            "django_sitemapkit.compat, which read it at each request, or register a dict of "
            "fixed sections."
        ) from exc
    return [registry.register(section_class(name, declared, sites)) for name, declared in sections]
