"""One IndexNow request and its answer, by ``urllib.request``: a POST that never
raises for what the network or the endpoint does, and that ends by its deadline.

urllib's ``timeout`` bounds each socket operation alone, so an endpoint (or a
proxy) that answers ``200 OK`` and then one header byte every few seconds keeps
a request alive for ever. Here the deadline is for the whole request: name
resolution, connecting, sending, the status line and headers, and the start of
the body. The request runs on a thread of its own; when the deadline passes,
the caller goes on without waiting for it, and the request's sockets are shut
down, which ends the thread too.
"""

from __future__ import annotations

import http.client
import json
import socket
import threading
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from contextlib import suppress
from dataclasses import dataclass, replace
from email.message import Message
from typing import Any

#: How much of an answer's body is read, to quote in a message.
ANSWER_BYTES = 500
# indexnow.org, "Submitting set of URLs": JSON in UTF-8, and the header that says so.
HEADERS = {
    "Content-Type": "application/json; charset=utf-8",
    "User-Agent": "django-sitemapkit",
}


@dataclass(frozen=True)
class Answer:
    """An endpoint's answer; ``status`` is ``None`` when none came."""

    status: int | None
    #: The reason phrase, or why nothing answered.
    reason: str
    #: The start of the body, for a message.
    body: str = ""
    retry_after: float | None = None

    @property
    def accepted(self) -> bool:
        # 200 OK: submitted; 202 Accepted: received, the key still to be checked.
        return self.status is not None and 200 <= self.status < 300

    @property
    def temporary(self) -> bool:
        """429 Too Many Requests, a server error, or no answer: worth another try."""
        return self.status is None or self.status == 429 or 500 <= self.status < 600

    def told_by(self, endpoint: str) -> str:
        """What happened, as a message's first words: ``<endpoint> answered 429 ...``."""
        if self.status is None:
            return f"{endpoint} could not be reached ({self.reason})"
        told = f": {self.body!r}" if self.body else ""
        return f"{endpoint} answered {self.status} {self.reason}{told}"


def post(endpoint: str, payload: Mapping[str, object], seconds: float, limit: str) -> Answer:
    """POST ``payload`` as JSON to ``endpoint``, and give up after ``seconds`` in all;
    ``limit`` names them in the answer then ("SITEMAPKIT_INDEXNOW_TIMEOUT (10 seconds)")."""
    exchange = Exchange(endpoint, json.dumps(payload, ensure_ascii=False).encode(), seconds)
    thread = threading.Thread(target=exchange.run, name="sitemapkit-indexnow", daemon=True)
    try:
        thread.start()
        thread.join(seconds)
    except BaseException:
        # Ctrl-C while waiting: the request ends as at its deadline.
        exchange.sockets.close(shut=True)
        raise
    if thread.is_alive():
        # The status line and headers decide what happens to the URLs, so they
        # count if they came whole in time, whatever the body does. Taken before
        # the sockets are shut: http.client reads the end of the connection as
        # the end of the headers, and would make an answer of half a one.
        heard = exchange.heard
        # What the thread is blocked on fails at once; a name lookup (the system
        # resolver's, which nothing can interrupt) ends by its own timeouts.
        exchange.sockets.close(shut=True)
        return heard or Answer(None, f"no whole answer within {limit}")
    exchange.sockets.close(shut=False)
    return exchange.answer


class Sockets:
    """The sockets one request opened, closed all at once when it ends."""

    def __init__(self) -> None:
        self.guard = threading.Lock()
        self.opened: list[socket.socket] = []
        self.closed = False

    def connect(
        self,
        address: tuple[str, int],
        timeout: float | None = None,
        source_address: tuple[str, int] | None = None,
    ) -> socket.socket:
        """``socket.create_connection()``, the socket kept to be shut down."""
        made = socket.create_connection(address, timeout, source_address)
        with self.guard:
            if self.closed:
                made.close()
                raise TimeoutError("the request's deadline passed while it connected")
            # A descriptor of its own on the same connection: TLS takes over the
            # socket object's (ssl.SSLSocket detaches it), and a proxy tunnel
            # goes on the same connection.
            self.opened.append(made.dup())
        return made

    def close(self, *, shut: bool) -> None:
        """Forget the sockets, shut down first (RFC 9293 section 3.6: both
        directions) when the request is still using them."""
        with self.guard:
            self.closed = True
            for opened in self.opened:
                if shut:
                    with suppress(OSError):
                        opened.shutdown(socket.SHUT_RDWR)
                opened.close()
            self.opened.clear()


def opened_by(
    sockets: Sockets, kind: type[http.client.HTTPConnection]
) -> Callable[..., http.client.HTTPConnection]:
    """``kind`` of connection whose socket ``sockets`` opens."""

    def connection(host: str, **kwargs: Any) -> http.client.HTTPConnection:
        made = kind(host, **kwargs)
        # HTTPConnection.connect() opens its socket (to the endpoint, or to the
        # proxy it tunnels through) with this attribute, which http.client sets
        # to socket.create_connection in every Python this app supports.
        vars(made)["_create_connection"] = sockets.connect
        return made

    return connection


class HTTPHandler(urllib.request.HTTPHandler):
    def __init__(self, sockets: Sockets) -> None:
        super().__init__()
        self.sockets = sockets

    def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(opened_by(self.sockets, http.client.HTTPConnection), req)


class HTTPSHandler(urllib.request.HTTPSHandler):
    def __init__(self, sockets: Sockets) -> None:
        super().__init__()
        self.sockets = sockets

    def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        # No context given: HTTPSConnection makes the default one, as urllib does.
        return self.do_open(opened_by(self.sockets, http.client.HTTPSConnection), req)


class NoRedirects(urllib.request.HTTPRedirectHandler):
    # urllib follows a 301 or 302 of a POST as a GET without the body (as RFC
    # 9110 section 15.4 lets a client do): the URLs would be lost on the way.
    # The redirect is the answer, then, and is reported.
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


class Exchange:
    """The request, run on its thread: ``answer`` once it ends, ``heard`` as soon as
    the status line and headers are read."""

    def __init__(self, endpoint: str, body: bytes, seconds: float) -> None:
        self.endpoint, self.body, self.seconds = endpoint, body, seconds
        self.sockets = Sockets()
        self.heard: Answer | None = None
        self.answer = Answer(None, "the request ended without an answer")

    def run(self) -> None:
        # The proxy environment variables are read as urllib's default opener
        # reads them; redirects are not followed.
        opener = urllib.request.build_opener(
            NoRedirects, HTTPHandler(self.sockets), HTTPSHandler(self.sockets)
        )
        try:
            request = urllib.request.Request(
                self.endpoint, data=self.body, headers=HEADERS, method="POST"
            )
            # Each socket operation is bounded as well, so a thread left behind
            # by its deadline never outlives it by much; a second later than
            # the deadline, which post() enforces, so the two never race and
            # the answer names the limit that ended the request.
            with opener.open(request, timeout=self.seconds + 1) as response:
                self.heard = Answer(response.status, response.reason)
                self.answer = replace(self.heard, body=start_of(response))
        except urllib.error.HTTPError as exc:
            with exc:
                self.heard = Answer(exc.code, str(exc.reason), retry_after=retry_after(exc.headers))
                self.answer = replace(self.heard, body=start_of(exc))
        except urllib.error.URLError as exc:
            self.answer = Answer(None, str(exc.reason))
        # OSError: a reset or a timeout while the answer is read; HTTPException:
        # an answer that is no HTTP; ValueError: an endpoint urllib cannot post
        # to. Anything else too: a thread's exception would reach no one.
        except Exception as exc:
            self.answer = Answer(None, str(exc) or type(exc).__name__)


def start_of(response: Any) -> str:
    try:
        data: bytes = response.read(ANSWER_BYTES)
    except (OSError, http.client.HTTPException):
        return ""
    return " ".join(data.decode("utf-8", "replace").split())


def retry_after(headers: Message | None) -> float | None:
    """A ``Retry-After`` in seconds (RFC 9110 section 10.2.3); ``None`` for none, or
    for the HTTP-date form, which the backoff stands in for."""
    value = headers.get("Retry-After") if headers is not None else None
    if value is None or not value.strip().isdigit():
        return None
    return float(value.strip())
