"""IndexNow submission (indexnow/__init__.py) against a real endpoint on 127.0.0.1
(indexnow_endpoint.py): batches, retries, what stays pending, what is dropped."""

from __future__ import annotations

import errno
import json
import logging
import os
import socket
from http import HTTPStatus
from pathlib import Path

import pytest
from django.test import override_settings
from indexnow_endpoint import KEY, Endpoint, Scripted

from django_sitemapkit.indexnow import FileRecord, Submission, submit
from django_sitemapkit.sites.base_urls import Origin
from django_sitemapkit.sites.configured import SitemapSite

SITE = SitemapSite("default", Origin.from_url("https://www.example.com"))
KEPT = "left pending for the next build."


@pytest.fixture
def record(tmp_path: Path) -> FileRecord:
    return FileRecord(tmp_path / "sitemapkit-indexnow.json")


class Sleeps(list[float]):
    """A ``sleep`` that records the delays instead of waiting them."""

    def __call__(self, seconds: float) -> None:
        self.append(seconds)


def urls(count: int, lastmod: str = "2024-05-01") -> dict[str, str]:
    return {f"https://www.example.com/articles/{n:05d}/": lastmod for n in range(count)}


def stored(record: FileRecord) -> dict[str, dict[str, str]]:
    data: dict[str, dict[str, str]] = json.loads(record.path.read_bytes())
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
    endpoint.then(Scripted(429, {"Retry-After": "3"}), Scripted(429, {"Retry-After": "3600"}))
    sleeps = Sleeps()
    with caplog.at_level(logging.WARNING, "django_sitemapkit"):
        submission = submit(SITE, urls(2), record, sleep=sleeps)
    assert submission == Submission(endpoint.url, requests=3, sent=2, accepted=2)
    # Retry-After in seconds, held to a minute.
    assert sleeps == [3.0, 60.0]
    assert caplog.messages == [
        f"IndexNow: {endpoint.url} answered 429 Too Many Requests; trying again in "
        f"{seconds} seconds."
        for seconds in (3, 60)
    ]
    assert len(endpoint.received) == 3
    assert len({request.body for request in endpoint.received}) == 1


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
