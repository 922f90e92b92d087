"""Each URL requested through Django's WSGI handler in this process: as a crawler on the
site's host and scheme would, and with every database left as it was."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest
from django.core import signals
from django.db import close_old_connections, connection
from django.dispatch import Signal
from django.test import override_settings
from testapp import views_verify
from testapp.models import Article
from verified import articles, verify_site  # noqa: F401 (a fixture)

from django_sitemapkit.sites.base_urls import Origin
from django_sitemapkit.sites.configured import SitemapSite
from django_sitemapkit.verification.markup import Head
from django_sitemapkit.verification.requester import (
    USER_AGENT,
    Answer,
    Requester,
    requesting,
)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("verify_site")]


def site(base_url: str) -> SitemapSite:
    return SitemapSite("default", Origin.from_url(base_url))


@pytest.fixture
def requester() -> Iterator[Requester]:
    with requesting():
        yield Requester(site("https://www.example.com"))


def page(title: str, canonical: str) -> Answer:
    return Answer(200, {"Content-Type": "text/html; charset=utf-8"}, Head([], [canonical]), None)


def test_the_environ_is_a_crawlers_get_on_the_sites_origin() -> None:
    environ = Requester(site("http://shop.example.com:8080")).environ(
        "http://shop.example.com:8080/caf%C3%A9/?q=a%20b"
    )
    del environ["wsgi.input"], environ["wsgi.errors"]
    assert environ == {
        "REQUEST_METHOD": "GET",
        "SCRIPT_NAME": "",
        "PATH_INFO": "/caf\xc3\xa9/",
        "QUERY_STRING": "q=a%20b",
        "SERVER_NAME": "shop.example.com",
        "SERVER_PORT": "8080",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "127.0.0.1",
        "HTTP_HOST": "shop.example.com:8080",
        "HTTP_USER_AGENT": USER_AGENT,
        "HTTP_ACCEPT": "text/html,application/xhtml+xml;q=0.9,*/*;q=0.8",
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": "http",
        "wsgi.multithread": False,
        "wsgi.multiprocess": False,
        "wsgi.run_once": False,
    }


@pytest.mark.parametrize(
    "url", ["https://www.example.com/echo/?q=a+b", "http://shop.example.com:8080/echo/"]
)
def test_the_view_sees_the_sites_scheme_host_and_the_urls_path(url: str) -> None:
    base_url = url[: url.index("/echo/")]
    with override_settings(ALLOWED_HOSTS=["www.example.com", "shop.example.com"]), requesting():
        assert Requester(site(base_url)).get(url) == page(USER_AGENT, url)


@override_settings(FORCE_SCRIPT_NAME="/blog")
def test_the_script_name_is_not_part_of_the_path(requester: Requester) -> None:
    url = "https://www.example.com/blog/echo/"
    environ = requester.environ(url)
    assert (environ["SCRIPT_NAME"], environ["PATH_INFO"]) == ("/blog", "/echo/")
    assert requester.get(url) == page(USER_AGENT, url)


@pytest.mark.django_db(transaction=True)
def test_a_view_that_writes_leaves_no_row_behind(requester: Requester) -> None:
    # transaction=True: no test transaction around this one, so each request's
    # transactions are the real ones, on SQLite and on PostgreSQL.
    articles("writer")
    views_verify.committed.clear()
    answer = requester.get("https://www.example.com/articles/writer/")
    assert answer.status == 200
    assert list(Article.objects.values_list("slug", "title")) == [("writer", "Writer")]
    assert views_verify.committed == []


@pytest.mark.django_db(transaction=True)
def test_atomic_requests_nest_inside_and_are_rolled_back(
    requester: Requester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(connection.settings_dict, "ATOMIC_REQUESTS", True)
    articles("writer")
    views_verify.committed.clear()
    assert requester.get("https://www.example.com/articles/writer/").status == 200
    assert list(Article.objects.values_list("slug", "title")) == [("writer", "Writer")]
    assert views_verify.committed == []
    assert not connection.in_atomic_block


def test_an_exception_of_the_view_is_its_500(requester: Requester) -> None:
    articles("broken")
    answer = requester.get("https://www.example.com/articles/broken/")
    assert (answer.status, answer.error) == (500, "ValueError: the template is missing")


@override_settings(DEBUG_PROPAGATE_EXCEPTIONS=True)
def test_an_exception_django_lets_through_is_a_500_too(requester: Requester) -> None:
    articles("broken")
    answer = requester.get("https://www.example.com/articles/broken/")
    assert answer == Answer(500, {}, None, "ValueError: the template is missing")


def test_a_body_that_fails_after_its_first_bytes_is_a_500(requester: Requester) -> None:
    answer = requester.get("https://www.example.com/streamed/failing/")
    assert answer == Answer(500, {}, None, "ConnectionError: the upstream service went away")


def test_a_head_is_read_only_up_to_a_megabyte(requester: Requester) -> None:
    # The robots tag comes after 1.3 MB of the head: no crawler would read so far.
    answer = requester.get("https://www.example.com/streamed/long/")
    assert answer == Answer(200, {"Content-Type": "text/html; charset=utf-8"}, Head([], []), None)


def test_a_404_is_read_no_further() -> None:
    with requesting():
        answer = Requester(site("https://www.example.com")).get(
            "https://www.example.com/articles/nowhere/"
        )
    assert (answer.status, answer.head, answer.error) == (404, None, None)


def connected(signal: Signal) -> bool:
    """Whether ``close_old_connections`` receives ``signal`` (asked by disconnecting it,
    and connecting it again if it was)."""
    found = signal.disconnect(close_old_connections)
    if found:
        signal.connect(close_old_connections)
    return found


def test_requesting_restores_the_signals_and_the_request_log() -> None:
    def state() -> tuple[list[bool], bool]:
        both = (signals.request_started, signals.request_finished)
        return [connected(signal) for signal in both], logging.getLogger("django.request").disabled

    assert state() == ([True, True], False)
    with requesting():
        assert state() == ([False, False], True)
    assert state() == ([True, True], False)
    with requesting(request_log=True):
        assert state() == ([False, False], False)
