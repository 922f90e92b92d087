from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

import django_sitemapkit
from django_sitemapkit.registry import registry
from django_sitemapkit.sources import BaseSource


def pytest_report_header() -> str:
    # tox runs the suite against the built wheel: show which copy is imported.
    return f"django_sitemapkit: {django_sitemapkit.__file__}"


@pytest.fixture
def sources() -> Iterator[Callable[..., None]]:
    """Replace the registered sources for one test: ``sources(ArticleSource, ...)``."""
    saved = registry.all()

    def use(*classes: type[BaseSource]) -> None:
        registry._sources = []
        for cls in classes:
            registry.register(cls)

    yield use
    registry._sources = saved
