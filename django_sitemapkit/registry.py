"""The sources of this project, filled by ``register`` as apps' ``sitemaps.py`` are imported."""

from __future__ import annotations

from typing import TypeVar

from django.apps import apps

from django_sitemapkit.sites.configured import SitemapSite
from django_sitemapkit.sources import BaseSource

SourceClass = TypeVar("SourceClass", bound=type[BaseSource])

#: Why a project can have no source at all, and the fix: said by the views'
#: 404, by build_sitemaps and in the log, where nothing else would tell.
WHERE_SOURCES_ARE = (
    "Sources are registered with @register (from django_sitemapkit import register) in "
    "the sitemaps.py module of an app in INSTALLED_APPS, which is imported at start-up. "
    "A sitemaps.py in the project package (beside settings.py), or in an app missing from "
    "INSTALLED_APPS, is never imported: move it into an installed app, or add its app to "
    "INSTALLED_APPS. Classes of django.contrib.sitemaps served by the drop-in views "
    "(django_sitemapkit.compat) are not sources: compat.register(sitemaps) in such a "
    "sitemaps.py makes each one a section, which build_sitemaps builds and verify_sitemaps "
    "checks."
)

#: Said wherever the app finds itself missing from INSTALLED_APPS (its views, its
#: URLconf's system check, robots.txt): its ready() is what imports every app's
#: sitemaps.py and registers its system checks, so nothing else would say it.
MISSING_APP = (
    "django_sitemapkit is not in INSTALLED_APPS, so no app's sitemaps.py is imported "
    "(no source is registered) and its system checks are not registered."
)
ADD_APP = 'Add it to your settings: INSTALLED_APPS += ["django_sitemapkit"].'
NOT_INSTALLED = f"{MISSING_APP} {ADD_APP}"


def installed() -> bool:
    """Whether the app is in ``INSTALLED_APPS``, so that its ``ready()`` has filled the
    registry."""
    return apps.is_installed("django_sitemapkit")


class Registry:
    """The sources of a project, in registration order: the class of
    :data:`django_sitemapkit.registry`."""

    def __init__(self) -> None:
        self._sources: list[BaseSource] = []
        #: Every class ever registered in this process, unregistered ones included:
        #: what sitemapkit.W064 compares an app's source classes with.
        self._classes: set[type[BaseSource]] = set()

    def register(self, source_class: SourceClass) -> SourceClass:
        """Add a source; usable as a class decorator. Duplicate names are left to the checks."""
        if not (isinstance(source_class, type) and issubclass(source_class, BaseSource)):
            raise TypeError(
                f"register() takes a SitemapSource or StaticSource subclass, not {source_class!r}."
            )
        self._sources.append(source_class())
        self._classes.add(source_class)
        return source_class

    def unregister(self, source_class: type[BaseSource]) -> None:
        """Take ``source_class`` out again (a test that registers its own sources
        leaves the registry as it found it)."""
        self._sources = [s for s in self._sources if type(s) is not source_class]

    def registered_classes(self) -> set[type[BaseSource]]:
        """Every class ``register()`` was given in this process, as it is now or was."""
        return set(self._classes) | {type(source) for source in self._sources}

    def all(self) -> list[BaseSource]:
        """Every registered source, in registration order (duplicates included)."""
        return list(self._sources)

    def get(self, name: str, site: SitemapSite | None = None) -> BaseSource | None:
        """The first source registered under ``name`` (that lists on ``site``, if given)."""
        return next((s for s in self.sections(site) if s.name == name), None)

    def sections(self, site: SitemapSite | None = None) -> list[BaseSource]:
        """One source per name: what the index lists (of ``site``, if given)."""
        seen: set[str] = set()
        unique = []
        for source in self._sources:
            if source.name not in seen and (site is None or lists_on(source, site)):
                seen.add(source.name)
                unique.append(source)
        return unique


def lists_on(source: BaseSource, site: SitemapSite) -> bool:
    """Whether ``source`` belongs to ``site``: every source does on a project's only
    site, and on each of several unless its ``sites`` leaves the site out."""
    names = type(source).sites
    return not site.several or names is None or site.name in names


#: The project's one :class:`~django_sitemapkit.registry.Registry`, which the
#: views, the checks and the commands read; :func:`~django_sitemapkit.register`
#: adds to it.
registry = Registry()
register = registry.register
