"""An IndexNow endpoint on 127.0.0.1, for the client to talk to over real HTTP.

It follows indexnow.org's documentation ("Submitting set of URLs", "Response
format"): a JSON body in UTF-8 with ``host``, ``key``, ``keyLocation`` and
``urlList``, at most 10,000 URLs, all on the host. It answers 200 OK, or 400
for a body not in that format, 422 for URLs (or a key location) off the host
or a key not of the schema, 403 for a key whose file it was not told it found
(``keys``). A test can script answers ahead of these (``then()``), or one for
every request (``always``), and reads every request it received. A ``Tarpit``
answers nothing whole: it sends the start of an answer, then a byte at a time.
"""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from django.test import override_settings

# The protocol's key schema, written out here rather than taken from the app.
KEY_SCHEMA = re.compile(r"[a-zA-Z0-9-]{8,128}")
MAX_URLS = 10_000
PATH = "/indexnow"
#: The key the tests' endpoint found a key file for.
KEY = "4f1b6e0c2a9d4e8f"


@dataclass(frozen=True)
class Scripted:
    status: int
    headers: dict[str, str] = field(default_factory=dict)
    body: str = ""


@dataclass(frozen=True)
class Received:
    """One request as it arrived."""

    content_type: str
    body: bytes

    @property
    def json(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(self.body)
        return data


@dataclass
class Endpoint:
    #: The keys whose key file the endpoint found; any other is answered 403.
    keys: set[str]
    #: What a valid submission is answered: 200 OK, or 202 Accepted.
    success: int = 200
    #: Answers given, in order, before the protocol's own.
    script: list[Scripted] = field(default_factory=list)
    #: An answer given to every request, while set.
    always: Scripted | None = None
    #: Called as each request arrives, before it is answered.
    on_request: Callable[[], object] | None = None
    received: list[Received] = field(default_factory=list)
    port: int = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}{PATH}"

    def then(self, *answers: Scripted) -> None:
        self.script.extend(answers)

    def answer(self, path: str, content_type: str, body: bytes) -> Scripted:
        self.received.append(Received(content_type, body))
        if self.on_request is not None:
            self.on_request()
        if self.always is not None:
            return self.always
        if self.script:
            return self.script.pop(0)
        if path != PATH:
            return Scripted(404, body="Not Found")
        return self.judge(content_type, body)

    def judge(self, content_type: str, body: bytes) -> Scripted:
        if content_type != "application/json; charset=utf-8":
            return Scripted(400, body=f"Content-Type {content_type!r}")
        try:
            data = json.loads(body.decode("utf-8"))
        except ValueError:
            return Scripted(400, body="not JSON in UTF-8")
        host, key, location, urls = (
            data.get(name) for name in ("host", "key", "keyLocation", "urlList")
        )
        if not (
            isinstance(host, str)
            and isinstance(key, str)
            and isinstance(location, str)
            and isinstance(urls, list)
            and urls
            and all(isinstance(url, str) for url in urls)
        ):
            return Scripted(400, body="host, key, keyLocation or urlList missing")
        if len(urls) > MAX_URLS:
            return Scripted(400, body=f"{len(urls)} URLs")
        if not KEY_SCHEMA.fullmatch(key):
            return Scripted(422, body="key not of the schema")
        if any(urlsplit(url).hostname != host for url in [location, *urls]):
            return Scripted(422, body="URLs not of the host")
        if key not in self.keys or urlsplit(location).path != f"/{key}.txt":
            return Scripted(403, body="key file not found")
        return Scripted(self.success)


def handler(endpoint: Endpoint) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            answer = endpoint.answer(self.path, self.headers.get("Content-Type", ""), body)
            data = answer.body.encode()
            self.send_response(answer.status)
            for name, value in answer.headers.items():
                self.send_header(name, value)
            self.send_header("Content-Type", "text/plain; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            pass  # the tests read endpoint.received

    return Handler


@contextmanager
def running(endpoint: Endpoint) -> Iterator[Endpoint]:
    """``endpoint`` served on a free port of 127.0.0.1 while the block runs."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler(endpoint))
    endpoint.port = server.server_address[1]
    # A short poll, so that shutdown() does not wait the default half second.
    thread = threading.Thread(target=server.serve_forever, args=(0.01,), daemon=True)
    thread.start()
    try:
        yield endpoint
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@contextmanager
def configured(key: str) -> Iterator[Endpoint]:
    """An endpoint that found ``key``'s file, running, and the settings that post to it."""
    with (
        running(Endpoint(keys={key})) as endpoint,
        override_settings(SITEMAPKIT_INDEXNOW_KEY=key, SITEMAPKIT_INDEXNOW_ENDPOINT=endpoint.url),
    ):
        yield endpoint


@dataclass
class Tarpit:
    """A server on 127.0.0.1 that reads a request, sends ``opening`` at once, then one
    byte every ``interval`` seconds, never finishing the answer: as an endpoint, or a
    proxy, that accepted the connection and then stalls. Each connection stops after
    ``most`` bytes, so that a client with no deadline still ends (a test's bound).
    ``ends`` says, per connection, who ended it: ``"client"`` (the client closed it,
    so the trickle failed) or ``"tarpit"`` (it gave up after ``most`` bytes)."""

    opening: bytes = b"HTTP/1.1 200 OK\r\n"
    interval: float = 0.2
    most: int = 25
    #: Called with each connection, before its first byte is sent.
    on_connection: Callable[[], object] | None = None
    ends: list[str] = field(default_factory=list)
    requests: list[bytes] = field(default_factory=list)
    port: int = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}{PATH}"

    def stall(self, connection: socket.socket) -> None:
        with connection:
            self.requests.append(connection.recv(65_536))
            if self.on_connection is not None:
                self.on_connection()
            try:
                connection.sendall(self.opening)
                for _ in range(self.most):
                    time.sleep(self.interval)
                    connection.sendall(b"X")
            except OSError:  # the client shut the connection down
                self.ends.append("client")
                return
            self.ends.append("tarpit")


@contextmanager
def stalling(tarpit: Tarpit) -> Iterator[Tarpit]:
    """``tarpit`` listening on a free port of 127.0.0.1 while the block runs."""
    listener = socket.create_server(("127.0.0.1", 0))
    tarpit.port = listener.getsockname()[1]
    threads: list[threading.Thread] = []

    def accept() -> None:
        while True:
            try:
                connection, _ = listener.accept()
            except OSError:  # closed: the block is over
                return
            thread = threading.Thread(target=tarpit.stall, args=(connection,), daemon=True)
            threads.append(thread)
            thread.start()

    acceptor = threading.Thread(target=accept, daemon=True)
    acceptor.start()
    try:
        yield tarpit
    finally:
        listener.shutdown(socket.SHUT_RDWR)
        listener.close()
        acceptor.join()
        for thread in threads:
            thread.join()
