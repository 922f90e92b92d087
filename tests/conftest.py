from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from django.test import override_settings
from hypothesis import settings
from indexnow_endpoint import KEY, Endpoint, configured

import django_sitemapkit
from django_sitemapkit.changes.index import clear_cache as clear_index
from django_sitemapkit.registry import registry
from django_sitemapkit.sources import BaseSource
from django_sitemapkit.sources.lastmods import clear_cache
from django_sitemapkit.sources.stored_lastmods import clear_warnings
from django_sitemapkit.sources.unanswered import forget as forget_unanswered

# tests/thirdparty runs apart, with its own settings (Wagtail, django CMS and
# FeinCMS installed): pytest --ds=thirdparty.settings tests/thirdparty.
collect_ignore = (
    [] if os.environ.get("DJANGO_SETTINGS_MODULE") == "thirdparty.settings" else ["thirdparty"]
)

# redis_server, s3_server and s3_bucket: servers on 127.0.0.1 for the tests.
pytest_plugins = ["service_fixtures"]

# The property tests (test_properties.py): tox runs them with a fixed seed
# ("ci"), so a run can be repeated; "thorough" tries twenty times as many
# examples, for a developer hunting for new ones.
settings.register_profile("default", max_examples=100)
settings.register_profile("ci", max_examples=100, derandomize=True, database=None)
settings.register_profile("thorough", max_examples=2_000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


#: pytest-django's fixtures that give a test the database.
DATABASE_FIXTURES = {
    "db",
    "transactional_db",
    "django_db_reset_sequences",
    "django_db_serialized_rollback",
    "live_server",
}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # The "database" marker (pyproject.toml), on every test that uses the
    # database: CI's PostgreSQL pass runs these only, the others doing the same
    # on any database (pytest-django blocks the database to them).
    for item in items:
        fixtures = set(getattr(item, "fixturenames", ()))
        if item.get_closest_marker("django_db") or fixtures & DATABASE_FIXTURES:
            item.add_marker(pytest.mark.database)


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


@pytest.fixture
def out(tmp_path: Path) -> Path:
    """A build's output directory: the symbolic link to the current build, which the
    build puts in ``tmp_path`` beside its directory of builds (``.out.builds``)."""
    return tmp_path / "out"


@pytest.fixture(autouse=True)
def fresh_page_lastmods() -> Iterator[None]:
    """Each test starts without the index's kept page lastmods: a test database reuses
    primary keys after a rollback, so two tests' sections can share a fingerprint; and
    without the newest lastmods that are no date logged already."""
    clear_cache()
    clear_index()
    forget_unanswered()
    clear_warnings()
    yield
    clear_cache()
    clear_index()
    forget_unanswered()
    clear_warnings()


@pytest.fixture
def endpoint() -> Iterator[Endpoint]:
    """An IndexNow endpoint on 127.0.0.1 that found the key file of ``KEY``, and the
    settings that send to it."""
    with configured(KEY) as started:
        yield started


@pytest.fixture
def robots_project() -> Iterator[None]:
    """The project of testapp/urls_robots.py, whose robots.txt is a view answering what
    a test's settings say; each site's robots.txt read afresh."""
    from testapp import urls_robots

    from django_sitemapkit.sites.robots_txt import forget

    forget()
    urls_robots.asked.clear()
    with override_settings(ROOT_URLCONF="testapp.urls_robots"):
        yield
    forget()
