"""What the tests of the versioned index (test_index_versions*.py) read: the index as
served, the statements it ran, and the index as the whole reading gives it."""

from __future__ import annotations

import datetime as dt

from django.db import connection
from django.test import Client, override_settings
from django.test.utils import CaptureQueriesContext
from sitemap_xml import fetch
from testapp.models import Article

from django_sitemapkit.sources import lastmods

ARTICLES = Article._meta.db_table


def at(day: int) -> dt.datetime:
    return dt.datetime(2024, 3, day, 12, tzinfo=dt.timezone.utc)


def whole(client: Client, path: str = "/sitemap.xml") -> bytes:
    """The index as read without the record: every section walked again."""
    lastmods.clear_cache()
    with override_settings(SITEMAPKIT_CHANGES=None):
        status, body, _ = fetch(client, path)
    assert status == 200
    return body


def queried(
    client: Client, path: str = "/sitemap.xml", **headers: str
) -> tuple[int, bytes, list[str]]:
    """Status, body and the SQL of each statement of a GET."""
    with CaptureQueriesContext(connection) as queries:
        status, body, _ = fetch(client, path, **headers)
    return status, body, [query["sql"] for query in queries.captured_queries]


def reads_articles(statements: list[str]) -> list[str]:
    return [sql for sql in statements if ARTICLES in sql]


def walked(statements: list[str]) -> int:
    """The pages aggregated, of every section."""
    return sum(sql.count("COUNT(") for sql in reads_articles(statements))
