"""IndexNow submission (indexnow/__init__.py) against a real endpoint on 127.0.0.1
(indexnow_endpoint.py): batches, retries, what stays pending, what is dropped."""

from __future__ import annotations

import errno
import json
import logging
import os
import socket
import time
from http import HTTPStatus
from pathlib import Path
from typing import Any

import pytest
from django.test import override_settings
from indexnow_endpoint import KEY, Endpoint, Scripted, Tarpit, stalling

from django_sitemapkit.indexnow import REMOVED, FileRecord, Submission, submit
from django_sitemapkit.sites.base_urls import Origin
from django_sitemapkit.sites.configured import SitemapSite

SITE = SitemapSite("default", Origin.from_url("https://www.example.com"))
KEPT = "left pending for the next build."
GONE = "https://www.example.com/gone/"


@pytest.fixture
def record(tmp_path: Path) -> FileRecord:
    return FileRecord(tmp_path / "sitemapkit-indexnow.json")


class Sleeps(list[float]):
    """A ``sleep`` that records the delays instead of waiting them."""

    def __call__(self, seconds: float) -> None:
        self.append(seconds)


def urls(count: int, lastmod: str = "2024-05-01") -> dict[str, str]:
    return {f"https://www.example.com/articles/{n:05d}/": lastmod for n in range(count)}


def stored(record: FileRecord) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(record.path.read_bytes())
    return data


def test_25001_urls_go_in_three_posts_of_at_most_10000(
    endpoint: Endpoint, record: FileRecord
) -> None:
    changed = urls(25_001)
    submission = submit(SITE, changed, record, sleep=Sleeps())
    assert submission == Submission(endpoint.url, requests=3, sent=25_001, accepted=25_001)
    assert submission.summary() == (
        f"IndexNow: 25,001 URLs sent to {endpoint.url} in 3 requests, 25,001 accepted."
    )
    bodies = [request.json for request in endpoint.received]
    assert [len(body["urlList"]) for body in bodies] == [10_000, 10_000, 5_001]
    assert [url for body in bodies for url in body["urlList"]] == sorted(changed)
    assert {(body["host"], body["key"], body["keyLocation"]) for body in bodies} == {
        ("www.example.com", KEY, f"https://www.example.com/{KEY}.txt")
    }
    assert {request.content_type for request in endpoint.received} == {
        "application/json; charset=utf-8"
    }
    assert stored(record) == {"format": 1, "pending": {}, "accepted": changed}


def test_the_record_holds_the_urls_before_they_are_sent(
    endpoint: Endpoint, record: FileRecord
) -> None:
    seen: list[dict[str, dict[str, str]]] = []
    endpoint.on_request = lambda: seen.append(stored(record))
    submit(SITE, urls(2), record)
    assert seen == [{"format": 1, "pending": urls(2), "accepted": {}}]


def test_202_accepted_counts_as_accepted(endpoint: Endpoint, record: FileRecord) -> None:
    endpoint.success = 202
    assert submit(SITE, urls(3), record) == Submission(endpoint.url, requests=1, sent=3, accepted=3)


def test_429_is_retried_after_retry_after_then_accepted(
    endpoint: Endpoint, record: FileRecord, caplog: pytest.LogCaptureFixture
) -> None:
    endpoint.then(Scripted(429, {"Retry-After": "3"}), Scripted(429, {"Retry-After": "20"}))
    sleeps = Sleeps()
    with caplog.at_level(logging.WARNING, "django_sitemapkit"):
        submission = submit(SITE, urls(2), record, sleep=sleeps)
    assert submission == Submission(endpoint.url, requests=3, sent=2, accepted=2)
    assert sleeps == [3.0, 20.0]
    assert caplog.messages == [
        f"IndexNow: {endpoint.url} answered 429 Too Many Requests; trying again in "
        f"{seconds} seconds."
        for seconds in (3, 20)
    ]
    assert len(endpoint.received) == 3
    assert len({request.body for request in endpoint.received}) == 1


def test_a_retry_after_past_the_deadline_is_not_waited(
    endpoint: Endpoint, record: FileRecord
) -> None:
    endpoint.then(Scripted(429, {"Retry-After": "60"}))
    sleeps = Sleeps()
    with override_settings(SITEMAPKIT_INDEXNOW_DEADLINE=30):
        submission = submit(SITE, urls(2), record, sleep=sleeps)
    assert submission == Submission(
        endpoint.url,
        requests=1,
        sent=2,
        pending=2,
        problems=(
            f"{endpoint.url} answered 429 Too Many Requests; trying again in 60 seconds would "
            f"end past SITEMAPKIT_INDEXNOW_DEADLINE (30 seconds). 2 URLs {KEPT}",
        ),
    )
    assert sleeps == []
    assert stored(record)["pending"] == urls(2)


@pytest.mark.slow
def test_an_endpoint_that_stalls_every_answer_ends_by_the_deadline(record: FileRecord) -> None:
    with (
        stalling(Tarpit()) as tarpit,
        override_settings(
            SITEMAPKIT_INDEXNOW_KEY=KEY,
            SITEMAPKIT_INDEXNOW_ENDPOINT=tarpit.url,
            SITEMAPKIT_INDEXNOW_TIMEOUT=1,
            SITEMAPKIT_INDEXNOW_DEADLINE=1.5,
        ),
    ):
        # Real waits: the backoff's second would end past the deadline.
        submission = submit(SITE, urls(2), record)
    assert submission == Submission(
        tarpit.url,
        requests=1,
        sent=2,
        pending=2,
        problems=(
            f"{tarpit.url} could not be reached (no whole answer within "
            "SITEMAPKIT_INDEXNOW_TIMEOUT (1 second)); trying again in 1 second would end past "
            f"SITEMAPKIT_INDEXNOW_DEADLINE (1.5 seconds). 2 URLs {KEPT}",
        ),
    )
    assert tarpit.ends == ["client"]
    assert stored(record)["pending"] == urls(2)


@pytest.mark.slow
def test_a_request_has_only_what_is_left_of_the_deadline(
    endpoint: Endpoint, record: FileRecord
) -> None:
    # The first batch's answer would come after the whole deadline. The
    # deadline also covers the record's read and write of 10,001 URLs before
    # the first request: seconds, not one, so that a loaded machine still gets
    # that request out.
    endpoint.on_request = lambda: time.sleep(4.5)
    with override_settings(SITEMAPKIT_INDEXNOW_DEADLINE=3, SITEMAPKIT_INDEXNOW_TIMEOUT=5):
        submission = submit(SITE, urls(10_001), record)
    assert submission == Submission(
        endpoint.url,
        requests=1,
        sent=10_000,
        pending=10_001,
        problems=(
            f"{endpoint.url} could not be reached (no whole answer within what was left of "
            "SITEMAPKIT_INDEXNOW_DEADLINE (3 seconds)); trying again in 1 second would end past "
            f"SITEMAPKIT_INDEXNOW_DEADLINE (3 seconds). 10,001 URLs {KEPT}",
        ),
    )


def test_no_batch_is_posted_once_the_deadline_has_passed(
    endpoint: Endpoint, record: FileRecord
) -> None:
    with override_settings(SITEMAPKIT_INDEXNOW_DEADLINE=0.000_001):
        submission = submit(SITE, urls(2), record)
    message = f"SITEMAPKIT_INDEXNOW_DEADLINE (1e-06 seconds) ran out: 2 URLs {KEPT}"
    assert submission == Submission(endpoint.url, pending=2, problems=(message,))
    assert submission.summary() == f"IndexNow: nothing sent. {message} 2 URLs {KEPT}"
    assert endpoint.received == []
    assert stored(record)["pending"] == urls(2)


def test_a_5xx_leaves_the_urls_pending_and_the_next_submit_sends_them(
    endpoint: Endpoint, record: FileRecord
) -> None:
    endpoint.always = Scripted(503, body="down for maintenance")
    sleeps = Sleeps()
    assert submit(SITE, urls(2), record, sleep=sleeps) == Submission(
        endpoint.url,
        requests=4,
        sent=2,
        pending=2,
        problems=(
            f"{endpoint.url} answered 503 Service Unavailable: 'down for maintenance', 4 "
            f"times. 2 URLs {KEPT}",
        ),
    )
    assert sleeps == [1.0, 2.0, 4.0]  # no Retry-After: the backoff doubles
    assert stored(record)["pending"] == urls(2)

    endpoint.always = None
    submission = submit(SITE, {}, record, sleep=sleeps)
    assert submission == Submission(endpoint.url, requests=1, sent=2, accepted=2)
    assert endpoint.received[-1].json["urlList"] == sorted(urls(2))
    assert stored(record) == {"format": 1, "pending": {}, "accepted": urls(2)}


def test_nothing_accepted_is_sent_twice(endpoint: Endpoint, record: FileRecord) -> None:
    submit(SITE, urls(3), record)
    again = submit(SITE, urls(3), record)
    assert again == Submission(endpoint.url)
    assert again.summary() == "IndexNow: nothing to send."
    # A new lastmod is a change to tell: that URL alone goes.
    changed = {"https://www.example.com/articles/00001/": "2024-05-02"}
    assert submit(SITE, urls(3) | changed, record) == Submission(
        endpoint.url, requests=1, sent=1, accepted=1
    )
    assert [request.json["urlList"] for request in endpoint.received] == [
        sorted(urls(3)),
        list(changed),
    ]


def test_403_keeps_the_urls_pending(endpoint: Endpoint, record: FileRecord) -> None:
    endpoint.keys = set()  # the key file is not deployed yet
    sleeps = Sleeps()
    submission = submit(SITE, urls(10_001), record, sleep=sleeps)
    assert submission == Submission(
        endpoint.url,
        requests=1,
        sent=10_000,
        pending=10_001,
        problems=(
            f"{endpoint.url} answered 403 Forbidden: 'key file not found'. The key file "
            f"https://www.example.com/{KEY}.txt was not found, or does not hold the key: is "
            f"it deployed? 10,001 URLs {KEPT}",
        ),
    )
    assert sleeps == []
    assert submission.summary() == (
        f"IndexNow: 10,000 URLs sent to {endpoint.url} in 1 request, 0 accepted. 10,001 URLs {KEPT}"
    )
    endpoint.keys = {KEY}
    assert submit(SITE, {}, record).accepted == 10_001


@pytest.mark.parametrize(
    ("status", "reason"),
    # The server's reason phrase is Python's own: 422 is "Unprocessable Content"
    # from Python 3.13 on (RFC 9110), "Unprocessable Entity" before.
    [(400, "Bad Request"), (422, HTTPStatus(422).phrase)],
)
def test_400_and_422_drop_the_batch_and_log_it(
    endpoint: Endpoint,
    record: FileRecord,
    caplog: pytest.LogCaptureFixture,
    status: int,
    reason: str,
) -> None:
    endpoint.then(Scripted(status, body="refused"))
    message = (
        f"10,000 URLs refused: {endpoint.url} answered {status} {reason}: 'refused'. They are "
        "dropped: sent again, they would be refused again."
    )
    with caplog.at_level(logging.WARNING, "django_sitemapkit"):
        submission = submit(SITE, urls(10_005), record, sleep=Sleeps())
    assert submission == Submission(
        endpoint.url, requests=2, sent=10_005, accepted=5, dropped=10_000, problems=(message,)
    )
    assert caplog.messages == [f"IndexNow: {message}"]
    assert caplog.records[0].levelno == logging.ERROR
    assert stored(record) == {
        "format": 1,
        "pending": {},
        "accepted": dict(list(urls(10_005).items())[10_000:]),
    }
    assert submission.summary() == (
        f"IndexNow: 10,005 URLs sent to {endpoint.url} in 2 requests, 5 accepted. "
        "10,000 URLs dropped."
    )


def test_an_unreachable_endpoint_leaves_the_urls_pending(record: FileRecord) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}/indexnow"  # closed: nothing listens there
    refused = f"[Errno {errno.ECONNREFUSED}] {os.strerror(errno.ECONNREFUSED)}"
    sleeps = Sleeps()
    with override_settings(SITEMAPKIT_INDEXNOW_KEY=KEY, SITEMAPKIT_INDEXNOW_ENDPOINT=url):
        submission = submit(SITE, urls(2), record, sleep=sleeps)
    assert submission == Submission(
        url,
        requests=4,
        sent=2,
        pending=2,
        problems=(f"{url} could not be reached ({refused}), 4 times. 2 URLs {KEPT}",),
    )
    assert sleeps == [1.0, 2.0, 4.0]


def test_a_redirect_is_not_followed(endpoint: Endpoint, record: FileRecord) -> None:
    # urllib would repeat a redirected POST as a GET without the URLs.
    endpoint.then(Scripted(301, {"Location": endpoint.url + "/v2"}))
    submission = submit(SITE, urls(1), record)
    assert submission.problems == (
        f"{endpoint.url} answered 301 Moved Permanently, which is no IndexNow answer: is "
        f"SITEMAPKIT_INDEXNOW_ENDPOINT right? 1 URL {KEPT}",
    )
    assert len(endpoint.received) == 1


def test_a_url_of_another_host_is_never_sent(endpoint: Endpoint, record: FileRecord) -> None:
    stray = {"https://shop.example.com/cart/": "", "https://www.example.com.evil/": ""}
    submission = submit(SITE, urls(1) | stray, record)
    assert submission == Submission(
        endpoint.url,
        requests=1,
        sent=1,
        accepted=1,
        dropped=2,
        problems=(
            "2 URLs not on https://www.example.com dropped, such as "
            "'https://shop.example.com/cart/': IndexNow takes only the URLs of the site's host.",
        ),
    )
    assert endpoint.received[0].json["urlList"] == list(urls(1))


def test_nothing_is_sent_without_a_key(endpoint: Endpoint, record: FileRecord) -> None:
    with override_settings(SITEMAPKIT_INDEXNOW_KEY=None):
        submission = submit(SITE, urls(1), record)
    assert submission == Submission(endpoint.url, problems=("SITEMAPKIT_INDEXNOW_KEY is not set.",))
    assert submission.summary() == "IndexNow: nothing sent. SITEMAPKIT_INDEXNOW_KEY is not set."
    assert endpoint.received == []
    assert record.read() is None


def test_a_submission_overlapping_another_keeps_what_the_other_left_pending(
    endpoint: Endpoint, record: FileRecord
) -> None:
    # While the first submission's batch is on its way, a second one (the next
    # build's) adds a URL, which the endpoint does not take (403).
    later = {"https://www.example.com/later/": "2024-05-02"}
    overlapping: list[Submission] = []

    def second() -> None:
        endpoint.on_request = None
        endpoint.then(Scripted(403))
        overlapping.append(submit(SITE, later, record))

    endpoint.on_request = second
    assert submit(SITE, urls(2), record) == Submission(endpoint.url, requests=1, sent=2, accepted=2)
    # The second posted what was pending then: the first's URLs, and its own.
    assert [overlapping[0].sent, overlapping[0].pending] == [3, 3]
    # The first wrote its answer on the record as it was then, not as it read it.
    assert stored(record) == {"format": 1, "pending": later, "accepted": urls(2)}


@pytest.mark.slow
def test_pending_is_capped_dropping_the_removed_then_the_oldest(
    endpoint: Endpoint, record: FileRecord, caplog: pytest.LogCaptureFixture
) -> None:
    endpoint.keys = set()  # every submission refused (403): nothing leaves the record
    first = urls(99_999)
    submit(SITE, first | {GONE: REMOVED}, record)
    assert len(stored(record)["pending"]) == 100_000
    newest = {"https://www.example.com/new/a/": "", "https://www.example.com/new/b/": ""}
    caplog.clear()
    with caplog.at_level(logging.WARNING, "django_sitemapkit"):
        submission = submit(SITE, newest, record)
    message = (
        "2 pending URLs dropped (1 removed, 1 changed: the removed first, then the oldest "
        "changes), to keep 100,000 pending at most; the sitemaps still list every URL for the "
        "engines' crawlers."
    )
    assert caplog.messages[0] == f"IndexNow: {message}"
    assert (submission.pending, submission.dropped, submission.problems[0]) == (
        100_000,
        2,
        message,
    )
    assert stored(record)["pending"] == dict(list(first.items())[1:]) | newest


def test_a_removed_url_is_pending_through_three_notifications_at_most(
    endpoint: Endpoint, record: FileRecord
) -> None:
    endpoint.keys = set()  # refused every time (403)
    for _ in range(3):
        assert submit(SITE, {GONE: REMOVED}, record).pending == 1
    assert stored(record)["rounds"] == {GONE: 3}
    message = (
        f"1 removed URL dropped, such as {GONE!r}: pending through 3 notifications without "
        "being accepted. A crawler that fetches a removed URL finds it gone all the same."
    )
    assert submit(SITE, {}, record) == Submission(endpoint.url, dropped=1, problems=(message,))
    assert stored(record) == {"format": 1, "pending": {}, "accepted": {}}
    assert len(endpoint.received) == 3
    # Listed again and removed again, it is a new removal.
    submit(SITE, {GONE: "2024-06-01"}, record)
    submit(SITE, {GONE: REMOVED}, record)
    assert stored(record)["rounds"] == {GONE: 1}


def test_nothing_is_sent_with_a_key_indexnow_refuses(
    endpoint: Endpoint, record: FileRecord, caplog: pytest.LogCaptureFixture
) -> None:
    message = "SITEMAPKIT_INDEXNOW_KEY is 'short', which IndexNow refuses (sitemapkit.E044)."
    with override_settings(SITEMAPKIT_INDEXNOW_KEY="short"):
        assert submit(SITE, urls(1), record) == Submission(endpoint.url, problems=(message,))
    assert caplog.messages == [f"IndexNow: {message}"]
    assert endpoint.received == []
    assert record.read() is None
