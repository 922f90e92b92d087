"""What a source class holds that the engine never reads: W064, a source class of an
installed app's ``sitemaps.py`` that is never registered; W065, a name of
``django.contrib.sitemaps.Sitemap`` on a source (``items()``, ``get_urls()``...),
which the engine ignores (``sources/declaration.py`` reads the documented names
only), with what to declare instead.

A class is taken for a base, not a forgotten section, when it has no ``name``
or a registered class subclasses it.
"""

from __future__ import annotations

import sys
from typing import Any

from django.apps import apps
from django.core.checks import CheckMessage, Warning

from django_sitemapkit.registry import registry
from django_sitemapkit.sources.declaration import BaseSource, SitemapSource, StaticSource
from django_sitemapkit.sources.plan import AdaptedSource

#: contrib's names a source does not have, and what to declare instead.
CONTRIB_NAMES = {
    "items": (
        "Declare queryset = Model.objects.filter(...) (or override get_queryset()); on a "
        "StaticSource, list the pages in urls."
    ),
    "get_urls": (
        "Declare lastmod, changefreq and priority (constants, field paths or per-row "
        "methods), and override location(row) for the URL."
    ),
    "paginator": "Declare limit = <URLs per page>.",
    "protocol": (
        "The base URL gives the scheme: SITEMAPKIT_BASE_URL, or SITEMAPKIT_SITE_SCHEME "
        "with django.contrib.sites."
    ),
    "get_protocol": (
        "The base URL gives the scheme: SITEMAPKIT_BASE_URL, or SITEMAPKIT_SITE_SCHEME "
        "with django.contrib.sites."
    ),
    "get_domain": (
        "The base URL gives the host: SITEMAPKIT_BASE_URL, or the Site's domain with "
        "django.contrib.sites."
    ),
    "get_latest_lastmod": (
        "The index dates each page by the newest lastmod of its rows: declare lastmod."
    ),
    "get_languages_for_item": "Declare languages, or alternates as a per-row method.",
}


def check_strays(**kwargs: Any) -> list[CheckMessage]:
    findings: list[CheckMessage] = []
    for cls in dict.fromkeys(type(source) for source in registry.all()):
        if not issubclass(cls, AdaptedSource):  # compat.register()'s: contrib's own
            findings += contrib_names(cls)
    for cls in unregistered(registry.registered_classes()):
        findings.append(
            Warning(
                f"{describe_class(cls)} is a source class of {cls.__module__!r} that is "
                "never registered: its section is in no sitemap.",
                hint="Decorate it with @register (from django_sitemapkit import register), "
                "or, if it is a base of other sources, give it no name.",
                obj=cls,
                id="sitemapkit.W064",
            )
        )
        findings += contrib_names(cls)
    return findings


def unregistered(registered: set[type[BaseSource]]) -> list[type[BaseSource]]:
    """The named source classes defined in the ``sitemaps.py`` of an installed app that
    no class ever registered is, or derives from."""
    found = []
    for config in apps.get_app_configs():
        module = sys.modules.get(f"{config.name}.sitemaps")
        if module is None:
            continue
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and issubclass(value, BaseSource)
                and value.__module__ == module.__name__
                and value not in (SitemapSource, StaticSource)
                and isinstance(value.name, str)
                and value.name
                and not any(issubclass(cls, value) for cls in registered)
            ):
                found.append(value)
    return found


def contrib_names(cls: type[BaseSource]) -> list[CheckMessage]:
    """W065 for each of contrib's names a source class (or a base of the project's)
    defines: the engine never reads it."""
    own = [klass for klass in cls.__mro__ if not klass.__module__.startswith("django_sitemapkit")]
    findings: list[CheckMessage] = []
    for name, fix in CONTRIB_NAMES.items():
        if any(name in vars(klass) for klass in own):
            kind = "a method" if callable(getattr(cls, name)) else "an attribute"
            findings.append(
                Warning(
                    f"{describe_class(cls)} defines {name!r}, {kind} of "
                    "django.contrib.sitemaps.Sitemap that a source does not have: the engine "
                    "never reads it.",
                    hint=f"{fix} If {name!r} is a helper of your own, silence "
                    "sitemapkit.W065 (SILENCED_SYSTEM_CHECKS).",
                    obj=cls,
                    id="sitemapkit.W065",
                )
            )
    return findings


def describe_class(cls: type[BaseSource]) -> str:
    return f"Sitemap source {cls.__module__}.{cls.__qualname__}"
