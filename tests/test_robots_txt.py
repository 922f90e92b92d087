"""A site's robots.txt, as SITEMAPKIT_ROBOTS reads it: asked of the project itself,
in-process, with the site's host and scheme (through the real handler and the
project's middleware, on a thread of its own), or read from a file; bounded in
size and time; kept; and what each answer means."""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.test import override_settings
from django.urls import get_urlconf, set_urlconf
from django.utils import translation
from testapp import urls_robots

from django_sitemapkit.sites import robots_txt
from django_sitemapkit.sites.base_urls import Origin
from django_sitemapkit.sites.robots_rules import MAX_BYTES, RobotsTxt, Rule, parse_robots_txt
from django_sitemapkit.sites.robots_txt import (
    RobotsUnavailable,
    SiteRobots,
    forget,
    read_robots,
    site_robots,
)

SITE = Origin("https", "www.example.com", 443)
URL = "https://www.example.com/robots.txt"
RULES = "User-agent: *\nDisallow: /private/\n"


@pytest.fixture(autouse=True)
def project(robots_project: None) -> Iterator[None]:
    with override_settings(TEST_ROBOTS_TXT=RULES):
        yield


def logged(caplog: pytest.LogCaptureFixture) -> list[tuple[str, str]]:
    return [(r.levelname, r.getMessage()) for r in caplog.records if r.name == "django_sitemapkit"]


def test_asked_of_the_project_with_the_sites_host_and_scheme() -> None:
    body = RULES.encode()
    assert read_robots(SITE) == SiteRobots(
        f"{URL} (through Django)", parse_robots_txt(body), hashlib.sha256(body).hexdigest(), 200
    )
    assert urls_robots.asked == [URL]
    with override_settings(ALLOWED_HOSTS=["localhost"]):
        read_robots(Origin("http", "localhost", 8000))
    assert urls_robots.asked[-1] == "http://localhost:8000/robots.txt"


def test_the_callers_thread_is_untouched() -> None:
    """The request runs on a thread of its own: the URLconf, the language and the script
    prefix of the caller's request stay as they are."""
    set_urlconf("testapp.urls_subpath")
    try:
        with translation.override("fr"):
            read_robots(SITE)
            assert translation.get_language() == "fr"
        assert get_urlconf() == "testapp.urls_subpath"
    finally:
        set_urlconf(None)


@override_settings(TEST_ROBOTS_TXT="User-agent: *\nDisallow: /a\n" + "#" * MAX_BYTES)
def test_only_the_first_500_kib_are_read() -> None:
    robots = read_robots(SITE)
    expected = ("User-agent: *\nDisallow: /a\n" + "#" * MAX_BYTES).encode()[:MAX_BYTES]
    assert robots.digest == hashlib.sha256(expected).hexdigest()


@override_settings(TEST_ROBOTS_STREAMED=True)
def test_a_streamed_answer_is_read_no_further_than_500_kib() -> None:
    # The view streams its body again and again, for ever: reading stops at the limit.
    robots = read_robots(SITE)
    streamed = RULES.encode() * (MAX_BYTES // len(RULES) + 1)
    assert robots.digest == hashlib.sha256(streamed[:MAX_BYTES]).hexdigest()
    assert robots.rules.rules_for("Googlebot")[0] == Rule.compile(False, "/private/", 2)


@pytest.mark.parametrize("status", [404, 410, 401, 403])
def test_a_4xx_is_no_robots_txt_and_allows_everything(
    status: int, caplog: pytest.LogCaptureFixture
) -> None:
    with override_settings(TEST_ROBOTS_STATUS=status):
        robots = read_robots(SITE)
    assert robots == SiteRobots(
        f"{URL} (through Django)", RobotsTxt({}), f"status {status}", status
    )
    assert not robots.found
    assert logged(caplog) == [
        (
            "WARNING",
            f"{URL} (through Django) answered {status}, so every URL is allowed (RFC 9309 "
            "section 2.3.1.3); if your web server serves robots.txt instead, set "
            "SITEMAPKIT_ROBOTS_FILE to the robots.txt your web server serves.",
        )
    ]


@pytest.mark.parametrize("status", [500, 503, 429])
def test_a_server_error_is_unavailable(status: int) -> None:
    with override_settings(TEST_ROBOTS_STATUS=status), pytest.raises(RobotsUnavailable) as raised:
        read_robots(SITE)
    assert str(raised.value) == (
        f"{URL} answered {status}, which crawlers read as disallowing everything (RFC 9309 "
        "section 2.3.1.4)."
    )


@override_settings(TEST_ROBOTS_RAISE=True)
def test_a_view_that_fails_is_a_500(caplog: pytest.LogCaptureFixture) -> None:
    with pytest.raises(RobotsUnavailable, match=r"answered 500, which crawlers read"):
        read_robots(SITE)


def test_a_view_that_hangs_is_left_behind(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(robots_txt, "TIMEOUT", 0.2)
    urls_robots.RELEASE.clear()
    try:
        with override_settings(TEST_ROBOTS_HOLD=True), pytest.raises(RobotsUnavailable) as raised:
            read_robots(SITE)
    finally:
        urls_robots.RELEASE.set()
        # The thread left behind ends before the next test changes the settings it reads.
        for thread in threading.enumerate():
            if thread.name == "sitemapkit-robots.txt":
                thread.join(10)
    assert str(raised.value) == f"{URL} did not answer within 0.2 seconds."


@override_settings(TEST_ROBOTS_REDIRECT="http://www.example.com/moved/robots.txt")
def test_redirects_on_the_sites_host_are_followed() -> None:
    robots = read_robots(SITE)
    assert robots.source == "http://www.example.com/moved/robots.txt (through Django)"
    assert robots.rules == parse_robots_txt(RULES)
    assert urls_robots.asked == [URL, "http://www.example.com/moved/robots.txt"]


@override_settings(TEST_ROBOTS_REDIRECT="https://cdn.example.net/robots.txt")
def test_a_redirect_to_another_host_is_unavailable() -> None:
    with pytest.raises(RobotsUnavailable) as raised:
        read_robots(SITE)
    assert str(raised.value) == (
        f"{URL} redirects to https://cdn.example.net/robots.txt, on another host, which is "
        "never asked (robots.txt is read in-process, not over the network): set "
        "SITEMAPKIT_ROBOTS_FILE to the robots.txt your web server serves."
    )


@override_settings(TEST_ROBOTS_REDIRECT="/robots.txt")
def test_more_than_five_redirects_are_no_robots_txt() -> None:
    # RFC 9309 section 2.3.1.2: five are followed; then it is taken as unavailable.
    robots = read_robots(SITE)
    assert (robots.found, robots.status, len(urls_robots.asked)) == (False, 301, 6)


@override_settings(FORCE_SCRIPT_NAME="/blog/")
def test_a_project_below_the_hosts_root_is_not_asked() -> None:
    with pytest.raises(RobotsUnavailable) as raised:
        read_robots(SITE)
    assert str(raised.value) == (
        f"{URL} cannot be asked of the project: FORCE_SCRIPT_NAME = '/blog/' puts it below "
        "the host's root, where robots.txt is. To read it, set SITEMAPKIT_ROBOTS_FILE to the "
        "robots.txt your web server serves."
    )
    assert urls_robots.asked == []


def test_a_file(tmp_path: Path) -> None:
    file = tmp_path / "robots.txt"
    file.write_bytes(b"User-agent: *\nDisallow: /from-file\n")
    with override_settings(SITEMAPKIT_ROBOTS_FILE=file):
        robots = read_robots(SITE)
    assert robots.source == str(file)
    assert robots.status is None
    assert robots.found
    assert not robots.rules.allowed("/from-file", "Googlebot")
    assert urls_robots.asked == []


def test_a_file_per_site(tmp_path: Path) -> None:
    shop = tmp_path / "shop.txt"
    shop.write_bytes(b"User-agent: *\nDisallow: /cart\n")
    sites = {"www": "https://www.example.com", "shop": "https://shop.example.com"}
    with override_settings(
        SITEMAPKIT_BASE_URL=None, SITEMAPKIT_SITES=sites, SITEMAPKIT_ROBOTS_FILE={"shop": shop}
    ):
        assert read_robots(Origin("https", "shop.example.com", 443)).source == str(shop)
        # A site the dict leaves out is asked of the project.
        assert read_robots(SITE).source == f"{URL} (through Django)"


def test_a_file_that_cannot_be_read(tmp_path: Path) -> None:
    missing = tmp_path / "missing.txt"
    with override_settings(SITEMAPKIT_ROBOTS_FILE=missing), pytest.raises(RobotsUnavailable) as e:
        read_robots(SITE)
    assert str(e.value) == (
        f"SITEMAPKIT_ROBOTS_FILE names {str(missing)!r}, which cannot be read: No such file or "
        "directory. Give the path of the site's robots.txt."
    )


def test_read_once_then_kept_until_forgotten() -> None:
    first = site_robots(SITE)
    with override_settings(TEST_ROBOTS_TXT="User-agent: *\nDisallow: /\n"):
        assert site_robots(SITE) is first
        forget()
        assert site_robots(SITE).rules == parse_robots_txt("User-agent: *\nDisallow: /\n")
    assert urls_robots.asked == [URL, URL]


def test_a_failure_is_kept_for_a_minute(monkeypatch: pytest.MonkeyPatch) -> None:
    with override_settings(TEST_ROBOTS_STATUS=503):
        with pytest.raises(RobotsUnavailable):
            site_robots(SITE)
        with pytest.raises(RobotsUnavailable, match="answered 503"):
            site_robots(SITE)
    assert len(urls_robots.asked) == 1
    # After FAILURE_KEPT_FOR it is asked again.
    monkeypatch.setattr(robots_txt, "FAILURE_KEPT_FOR", 0.0)
    forget()
    with override_settings(TEST_ROBOTS_STATUS=503), pytest.raises(RobotsUnavailable):
        site_robots(SITE)
    assert site_robots(SITE).found
    assert len(urls_robots.asked) == 3


def test_many_threads_read_it_and_none_waits_on_a_lock() -> None:
    found: list[SiteRobots] = []
    threads = [threading.Thread(target=lambda: found.append(site_robots(SITE))) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [robots.rules for robots in found] == [parse_robots_txt(RULES)] * 4
