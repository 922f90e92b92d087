"""One IndexNow request (indexnow/endpoint.py) against servers on 127.0.0.1 that
never finish their answer: the deadline is for the whole request, and the
request's connection is shut when it passes."""

from __future__ import annotations

import threading

import pytest
from indexnow_endpoint import Tarpit, stalling

from django_sitemapkit.indexnow.endpoint import Answer, post

PAYLOAD = {"host": "www.example.com", "urlList": ["https://www.example.com/"]}
LIMIT = "SITEMAPKIT_INDEXNOW_TIMEOUT (1 second)"

pytestmark = pytest.mark.slow


def test_headers_a_byte_at_a_time_end_at_the_deadline() -> None:
    # One byte every 0.2 seconds: no read ever waits a whole second, which is
    # all urllib's own timeout would bound.
    with stalling(Tarpit()) as tarpit:
        answer = post(tarpit.url, PAYLOAD, 1.0, LIMIT)
        assert answer == Answer(None, f"no whole answer within {LIMIT}")
    # The request's connection was shut by the client, not given up by the tarpit.
    assert tarpit.ends == ["client"]
    assert [thread.name for thread in threading.enumerate()].count("sitemapkit-indexnow") == 0


def test_a_body_a_byte_at_a_time_keeps_the_status_that_came_whole() -> None:
    opening = b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n"
    with stalling(Tarpit(opening=opening)) as tarpit:
        assert post(tarpit.url, PAYLOAD, 1.0, LIMIT) == Answer(200, "OK")
    assert tarpit.ends == ["client"]


def test_a_proxy_that_stalls_its_tunnel_ends_at_the_deadline(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # An https endpoint through a proxy (https_proxy, as urllib reads it): the
    # proxy answers CONNECT a byte at a time, before any TLS.
    opening = b"HTTP/1.1 200 Connection established\r\n"
    with stalling(Tarpit(opening=opening)) as proxy:
        monkeypatch.setenv("https_proxy", f"http://127.0.0.1:{proxy.port}")
        monkeypatch.setenv("no_proxy", "")
        answer = post("https://indexnow.example/indexnow", PAYLOAD, 1.0, LIMIT)
        assert answer == Answer(None, f"no whole answer within {LIMIT}")
    # http.client asks for the tunnel in HTTP/1.1 since Python 3.12, in 1.0 before.
    request_line = proxy.requests[0].split(b"\r\n", 1)[0]
    assert request_line in (
        b"CONNECT indexnow.example:443 HTTP/1.0",
        b"CONNECT indexnow.example:443 HTTP/1.1",
    )
    assert proxy.ends == ["client"]
