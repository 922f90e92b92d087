"""What the demo's checks share: the sites they check, HTTP requests to the one
server with each site's ``Host`` header, and the schemas shipped in the package.

The example serves its sites from one runserver on 127.0.0.1 (demo.sh): a site's
base URL, such as ``http://www.localhost:8000``, names a host that need not
resolve, so every request is sent to the server's address and carries the URL's
host in its ``Host`` header, as ``curl --resolve`` would, and as a browser does
for ``*.localhost``. That header is what chooses the site.
"""

from __future__ import annotations

import argparse
import os
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from email.message import Message
from http import HTTPStatus
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from lxml import etree

NAMESPACE = "http://www.sitemaps.org/schemas/sitemap/0.9"
NS = {"sm": NAMESPACE}
USER_AGENT = "django-sitemapkit-demo/1.0"


class CheckFailed(Exception):
    """A check did not pass; the message says which and what was seen."""


@dataclass(frozen=True)
class Site:
    """One site of the example: its name (``SITEMAPKIT_SITES``' key) and base URL."""

    name: str
    base_url: str

    @property
    def host(self) -> str:
        """``host:port`` as the ``Host`` header carries it."""
        return urlsplit(self.base_url).netloc

    def files(self, output_dir: Path, several: bool) -> Path:
        """Where ``build_sitemaps`` writes this site's files: a directory named after
        it when there are several sites, the output directory itself otherwise."""
        return output_dir / self.name if several else output_dir


def site_argument(value: str) -> Site:
    """``--site NAME=BASE_URL``."""
    name, equals, base_url = value.partition("=")
    if not equals or not name or not base_url.startswith(("http://", "https://")):
        raise argparse.ArgumentTypeError(f"{value!r} is not NAME=BASE_URL")
    return Site(name, base_url.rstrip("/"))


@dataclass
class Response:
    url: str
    status: int
    headers: Message
    body: bytes
    seconds: float

    def header(self, name: str) -> str | None:
        return self.headers.get(name)

    def describe(self) -> str:
        status = f"{self.status} {reason(self.status)}"
        return f"{status}, {len(self.body):,} bytes, {self.seconds:.2f} s"


def reason(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return ""


class NoRedirects(urllib.request.HTTPRedirectHandler):
    """A redirect is an answer to check (contrib's old page URLs), not to follow."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


# Straight to the server, whatever the *_proxy variables say.
OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}), NoRedirects)
#: ``http://127.0.0.1:PORT``: where every request goes (``connect_to()``).
_server: str | None = None


def connect_to(server: str) -> None:
    """Send every request to ``server``, with the URL's host in the ``Host`` header."""
    global _server
    _server = server.rstrip("/")


def fetch(url: str, headers: dict[str, str] | None = None, timeout: float = 60) -> Response:
    """GET ``url``; any HTTP status is returned, not raised (a 304 or a 301 is an answer too)."""
    parts = urlsplit(url)
    sent = {"User-Agent": USER_AGENT, **(headers or {})}
    target = url
    if _server is not None:
        target = _server + parts.path + (f"?{parts.query}" if parts.query else "")
        sent["Host"] = parts.netloc
    request = urllib.request.Request(target, headers=sent)
    started = time.perf_counter()
    try:
        with OPENER.open(request, timeout=timeout) as answer:
            body = answer.read()
            return Response(url, answer.status, answer.headers, body, time.perf_counter() - started)
    except urllib.error.HTTPError as error:
        body = error.read()
        return Response(url, error.code, error.headers, body, time.perf_counter() - started)


def wait_until_up(base_url: str, server_pid: int | None, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    last_error = ""
    while time.monotonic() < deadline:
        if server_pid is not None and not process_alive(server_pid):
            raise CheckFailed(f"the server process {server_pid} exited before answering")
        try:
            response = fetch(base_url + "/robots.txt", timeout=2)
        except (urllib.error.URLError, OSError) as exc:
            last_error = str(exc)
            time.sleep(0.2)
            continue
        if response.status != 200:
            raise CheckFailed(f"GET /robots.txt answered {response.status}, expected 200")
        print(f"Server is up at {_server or base_url} (answered /robots.txt for {base_url}).")
        return
    raise CheckFailed(f"no answer from {base_url} within {timeout:.0f} s ({last_error})")


def process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def load_schema(filename: str) -> etree.XMLSchema:
    """One of the XML schemas that ship inside the django_sitemapkit package."""
    schema_file = resources.files("django_sitemapkit") / "schemas" / filename
    with resources.as_file(schema_file) as path:
        return etree.XMLSchema(etree.parse(str(path)))
