"""Sections whose rows and entries come from outside the declarative vocabulary.

A ``django.contrib.sitemaps`` class registered with
``django_sitemapkit.compat.register()`` is such a section: it has a name and a
page size like any source, but its items, locations and values are read
through the class's own methods, so it compiles its own plan. This base class
is the engine's, never a project's: nothing a project declares is looked up
on it (see ``declaration.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django_sitemapkit.locations import LocationPolicy
from django_sitemapkit.sources.declaration import BaseSource

if TYPE_CHECKING:
    from django_sitemapkit.sources.plan import Plan


class AdaptedSource(BaseSource):
    """A section that compiles its own :class:`~django_sitemapkit.sources.plan.Plan`."""

    def compiled(self, policy: LocationPolicy) -> Plan:
        raise NotImplementedError
