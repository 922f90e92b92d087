"""``verify_sitemaps`` keeps the views it runs inside the run: the e-mail they send is held
(a real SMTP server on 127.0.0.1 receives nothing), a view that does not return is a
``timeout`` and the run goes on (a ``--jobs`` process that does not answer is killed
and replaced), and a host the project refuses is one message."""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path
from typing import Any

import django
import pytest
from django.core.mail import send_mail
from django.db import connection, transaction
from django.test import override_settings
from processes import manage
from smtp_server import smtp_server
from testapp.models import Article
from testapp.sitemaps import ArticleSource
from verified import TIMINGS, articles, verify, verify_site  # noqa: F401 (a fixture)

from django_sitemapkit.verification.containment import atomic_depths, settle

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("verify_site")]
BASE = "https://www.example.com"
INDEX_AND_ONE_PAGE = "sitemap.xml: the index and 1 page requested, 0 problems (S s)\n"
SMTP = "django.core.mail.backends.smtp.EmailBackend"
#: What "it did not hang" means here: far below the views' 60 s, far above the deadline.
BOUND = 40


def smtp_settings(port: int) -> dict[str, Any]:
    """The settings that send mail to ``port`` of 127.0.0.1: ``MAILERS`` from Django 6.1
    (which deprecates ``EMAIL_BACKEND``), else ``EMAIL_BACKEND`` and its host and port."""
    if django.VERSION >= (6, 1):
        options = {"host": "127.0.0.1", "port": port}
        return {"MAILERS": {"default": {"BACKEND": SMTP, "OPTIONS": options}}}
    return {"EMAIL_BACKEND": SMTP, "EMAIL_HOST": "127.0.0.1", "EMAIL_PORT": port}


@pytest.mark.slow
def test_mail_a_view_sends_is_held_and_counted(sources: Any, tmp_path: Path) -> None:
    sources(ArticleSource)
    articles("first", "mailer")
    report = tmp_path / "report.json"
    with (
        smtp_server() as (port, delivered),
        override_settings(**smtp_settings(port)),
    ):
        # The server and the settings are real: a message sent here is delivered.
        send_mail("Before", "Sent by the test.", "test@example.com", ["before@example.com"])
        outcome = verify(json=str(report))
        # And the project's backend is back once the run is over.
        send_mail("After", "Sent by the test.", "test@example.com", ["after@example.com"])
    assert [recipients for recipients, _ in delivered.messages] == [
        ["before@example.com"],
        ["after@example.com"],
    ]
    assert outcome == (
        INDEX_AND_ONE_PAGE + "articles: 2 of 2 URLs requested, 0 problems (S s)\n"
        "No problem found.\n"
        "The views sent 1 e-mail message: held by Django's locmem backend, none was "
        "delivered.\n"
        "2 URLs requested in S s, S ms a URL.\n",
        "",
        0,
    )
    assert json.loads(report.read_text())["emails"] == 1


@pytest.mark.slow
def test_a_view_that_sleeps_is_a_timeout_and_the_run_goes_on(sources: Any) -> None:
    sources(ArticleSource)
    # "stubborn" catches the first Timeout and sleeps again: the next one stops it.
    articles("first", "sleeper", "stubborn", "last")
    started = time.monotonic()
    assert verify("--timeout", "1") == (
        INDEX_AND_ONE_PAGE + "articles: 4 of 4 URLs requested, 2 problems (S s)\n"
        "Found 2 problems:\n"
        "articles, no answer within the deadline: 2 URLs\n"
        f"  {BASE}/articles/sleeper/  no answer within 1 s\n"
        f"  {BASE}/articles/stubborn/  no answer within 1 s\n"
        "4 URLs requested in S s, S ms a URL.\n",
        "CommandError: 2 problems found, more than --max-problems 0.\n",
        1,
    )
    assert time.monotonic() - started < BOUND
    # What the view wrote in its transaction before it slept is rolled back, and the
    # connection serves the next request ("last" was requested after it) and this one.
    assert list(Article.objects.values_list("slug", "title")) == [
        ("first", "First"),
        ("sleeper", "Sleeper"),
        ("stubborn", "Stubborn"),
        ("last", "Last"),
    ]


@pytest.mark.slow
def test_jobs_replace_a_stuck_process_and_one_a_view_ended(tmp_path: Path) -> None:
    # "sleeper" sleeps 60 s (its process's deadline cuts it short); "stuck" blocks
    # SIGALRM first, as a view blocked in C code is, so its process is killed; "killed"
    # kills its own process. A new process requests the rest each time, and the
    # report is written.
    env = {"SITEMAPKIT_TEST_VERIFY_DATABASE": str(tmp_path / "verify.sqlite3")}
    assert manage("migrate", "-v", "0", settings="verify", env=env).returncode == 0
    create = (
        "from testapp.models import Article; Article.objects.bulk_create("
        "Article(slug=slug, title=slug.title()) for slug in "
        "('first', 'sleeper', 'stuck', 'killed', 'last'))"
    )
    assert manage("shell", "-c", create, settings="verify", env=env).returncode == 0
    report = tmp_path / "report.json"
    started = time.monotonic()
    done = manage(
        "verify_sitemaps", "--jobs", "2", "--timeout", "1", "--json", str(report),
        settings="verify", env=env,
    )  # fmt: skip
    assert time.monotonic() - started < BOUND
    assert (TIMINGS.sub(r"S \1", done.stdout), done.stderr, done.returncode) == (
        "sitemap.xml: the index and 2 pages requested, 0 problems (S s)\n"
        "articles: 5 of 5 URLs requested, 3 problems (S s)\n"
        "pages: 2 of 2 URLs requested, 0 problems (S s)\n"
        "Found 3 problems:\n"
        "articles, no answer within the deadline: 2 URLs\n"
        f"  {BASE}/articles/sleeper/  no answer within 1 s\n"
        f"  {BASE}/articles/stuck/  no answer within 1 s; its process was killed\n"
        "articles, ends the process it runs in: 1 URL\n"
        f"  {BASE}/articles/killed/  its process was killed by SIGKILL\n"
        "7 URLs requested in S s, S ms a URL.\n",
        "CommandError: 3 problems found, more than --max-problems 0.\n",
        1,
    )
    assert [
        (problem["url"], problem["reason"])
        for problem in json.loads(report.read_text())["problems"]
    ] == [
        (f"{BASE}/articles/sleeper/", "timeout"),
        (f"{BASE}/articles/stuck/", "timeout"),
        (f"{BASE}/articles/killed/", "exited"),
    ]


def test_a_refused_host_is_one_message(sources: Any, caplog: pytest.LogCaptureFixture) -> None:
    # startproject's settings: DEBUG = True, ALLOWED_HOSTS = [].
    sources(ArticleSource)
    articles("first", "second")
    with override_settings(DEBUG=True, ALLOWED_HOSTS=[]), caplog.at_level(logging.ERROR):
        assert verify() == (
            "",
            "CommandError: Site 'default' is served on 'www.example.com', which "
            "ALLOWED_HOSTS [] (DEBUG allows only localhost while it is empty) refuses: the "
            "project would answer 400 to every URL, so none was requested. Add "
            "'www.example.com' to ALLOWED_HOSTS.\n",
            1,
        )
    assert caplog.records == []


def test_a_host_allowed_under_debug_is_verified(sources: Any) -> None:
    sources(ArticleSource)
    articles("first")
    with override_settings(
        DEBUG=True, ALLOWED_HOSTS=[], SITEMAPKIT_BASE_URL="http://localhost:8000"
    ):
        assert verify() == (
            INDEX_AND_ONE_PAGE + "articles: 1 of 1 URLs requested, 0 problems (S s)\n"
            "No problem found.\n"
            "1 URL requested in S s, S ms a URL.\n",
            "",
            0,
        )


@pytest.mark.django_db(transaction=True)
def test_a_transaction_left_open_by_a_view_cut_short_is_rolled_back() -> None:
    # What an interruption inside Django's own transaction code can leave: an atomic
    # block entered and never left, with a row written in it.
    depths = atomic_depths()
    transaction.atomic().__enter__()
    Article.objects.create(slug="written-in-an-open-block")
    assert connection.in_atomic_block
    settle(depths)
    assert (connection.in_atomic_block, connection.get_autocommit()) == (False, True)
    assert list(Article.objects.values_list("slug", flat=True)) == []
