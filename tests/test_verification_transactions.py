"""The transactions each request runs in, and what keeps a view's writes inside them: a
statement that would end them refused, and a connection another thread opens held in a
transaction that never commits. ``transaction=True``: no test transaction around these
tests, so the command's transactions are the real ones, on SQLite, PostgreSQL and MariaDB."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from urllib.parse import urlencode

import pytest
from django.db import connection
from testapp import views_verify
from testapp.models import Article
from testapp.sitemaps import ArticleSource
from verified import articles, verify, verify_site  # noqa: F401 (a fixture)

from django_sitemapkit.sites.base_urls import Origin
from django_sitemapkit.sites.configured import SitemapSite
from django_sitemapkit.verification.requester import Answer, Requester, requesting
from django_sitemapkit.verification.transactions import refused

#: The tests of what a view does, on the real transactions of the site's views.
on_the_database = pytest.mark.django_db(transaction=True)
on_the_site = pytest.mark.usefixtures("verify_site")
BASE = "https://www.example.com"
REFUSED = (
    "TransactionManagementError: verify_sitemaps refused {statement}, which would end "
    "the transaction the view's writes are rolled back in: the view was not verified, "
    "and nothing it wrote was kept."
)


@pytest.fixture
def requester() -> Iterator[Requester]:
    with requesting():
        yield Requester(SitemapSite("default", Origin.from_url(BASE)))


def rows() -> list[tuple[str, str]]:
    return list(Article.objects.order_by("pk").values_list("slug", "title"))


# (what the view sends, the statement refused, the databases it is sent to: MariaDB
# commits before a BEGIN, a SET autocommit = 1 and most DDL; PostgreSQL runs two
# statements sent at once).
ENDINGS = [
    ("COMMIT", "COMMIT", None),
    ("  /* by hand */ end transaction", "end transaction", None),
    ("ROLLBACK", "ROLLBACK", None),
    ("begin", "begin", None),
    ("SET autocommit = 1", "SET autocommit = 1", "mysql"),
    ("CREATE TABLE made_by_a_view (id int)", "CREATE TABLE made_by_a_view (id int)", "mysql"),
    ("SELECT ';'; COMMIT", "COMMIT", "postgresql"),
]


@on_the_database
@on_the_site
@pytest.mark.parametrize(("sql", "statement", "vendor"), ENDINGS)
def test_a_statement_that_ends_the_transaction_is_refused(
    requester: Requester, sql: str, statement: str, vendor: str | None
) -> None:
    if vendor not in (None, connection.vendor):
        pytest.skip(f"{sql!r} ends a transaction on {vendor} alone")
    articles("committer")
    answer = requester.get(f"{BASE}/articles/committer/?{urlencode({'sql': sql})}")
    assert answer == Answer(500, {}, error=REFUSED.format(statement=repr(statement)))
    assert rows() == [("committer", "Committer")]


@on_the_database
@on_the_site
def test_a_views_thread_writes_nothing(requester: Requester) -> None:
    articles("threaded")
    answer = requester.get(f"{BASE}/articles/threaded/")
    assert answer.status == 200
    assert rows() == [("threaded", "Threaded")]


@on_the_database
@on_the_site
def test_a_views_thread_that_commits_is_refused(requester: Requester) -> None:
    articles("threaded")
    views_verify.thread_errors.clear()
    answer = requester.get(f"{BASE}/articles/threaded/?commit=1")
    refusal = REFUSED.format(statement="commit()")
    # The thread caught it, and the view answered: the URL is reported all the same.
    assert (answer, views_verify.thread_errors) == (Answer(500, {}, error=refusal), [refusal])
    assert rows() == [("threaded", "Threaded")]


@on_the_database
@on_the_site
def test_the_robots_txt_view_writes_nothing(
    sources: Callable[..., None], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Asked before the first URL, as the URLs are: in the run's rolled-back transactions.
    sources(ArticleSource)
    articles("first")
    monkeypatch.setattr(views_verify, "robots_writes", True)
    assert verify()[2] == 0
    assert rows() == [("first", "First")]


@pytest.mark.parametrize(
    ("sql", "vendor", "statement"),
    [
        ("SELECT 1", "sqlite", None),
        ('UPDATE "t" SET "a" = %s', "postgresql", None),
        # Django's own savepoints, around the view's atomic blocks.
        ('SAVEPOINT "s1_x1"', "postgresql", None),
        ('RELEASE SAVEPOINT "s1_x1"', "postgresql", None),
        ("ROLLBACK TO SAVEPOINT `s1_x1`", "mysql", None),
        ("rollback work to s1_x1", "sqlite", None),
        # Ended however it is written.
        ("commit work", "sqlite", "commit work"),
        ("-- a comment\n  END", "postgresql", "END"),
        ("ROLLBACK AND CHAIN", "mysql", "ROLLBACK AND CHAIN"),
        ("START TRANSACTION", "mysql", "START TRANSACTION"),
        ("ABORT", "postgresql", "ABORT"),
        ("PREPARE TRANSACTION 'x'", "postgresql", "PREPARE TRANSACTION 'x'"),
        ("PREPARE plan AS SELECT 1", "postgresql", None),
        ("XA START 'x'", "mysql", "XA START 'x'"),
        ("SET @@autocommit = 1", "mysql", "SET @@autocommit = 1"),
        ("SET search_path TO public", "postgresql", None),
        # DDL commits on MariaDB alone, a temporary table's on none.
        ("DROP TABLE t", "mysql", "DROP TABLE t"),
        ("CREATE TEMPORARY TABLE t (a int)", "mysql", None),
        ("CREATE TABLE t (a int)", "postgresql", None),
        # A second statement, behind what each database quotes otherwise.
        ("SELECT 'a;b'; COMMIT", "sqlite", "COMMIT"),
        ("SELECT 'it''s'; COMMIT", "postgresql", "COMMIT"),
        ("SELECT E'\\''; COMMIT", "postgresql", "COMMIT"),
        ("SELECT $q$ ; COMMIT $q$", "postgresql", None),
        ("SELECT $$ ; $$; COMMIT", "postgresql", "COMMIT"),
        ('SELECT "a;b" FROM t; COMMIT', "postgresql", "COMMIT"),
        ("SELECT 1 # ; COMMIT", "mysql", None),
        ("SELECT 1 # 2; COMMIT", "postgresql", "COMMIT"),
        ("SELECT '\\'; COMMIT'", "mysql", None),
        ("SELECT 1 /* ; COMMIT */", "sqlite", None),
        # MariaDB runs what a /*! ... */ comment holds.
        ("/*!COMMIT*/", "mysql", "COMMIT*/"),
    ],
)
def test_what_would_end_a_transaction(sql: str, vendor: str, statement: str | None) -> None:
    assert refused(sql, vendor) == statement


def test_the_savepoints_the_request_did_not_open_are_kept() -> None:
    kept = frozenset({"S1_X1"})
    assert refused('RELEASE SAVEPOINT "s1_x1"', "postgresql", kept) == 'RELEASE SAVEPOINT "s1_x1"'
    assert refused("ROLLBACK TO s1_x1", "sqlite", kept) == "ROLLBACK TO s1_x1"
    assert refused('RELEASE SAVEPOINT "s1_x2"', "postgresql", kept) is None
