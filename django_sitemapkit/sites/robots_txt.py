"""A site's robots.txt as ``SITEMAPKIT_ROBOTS`` reads it: asked of the project itself,
or read from ``SITEMAPKIT_ROBOTS_FILE``; bounded in size and time; kept for a day;
and what each answer means (RFC 9309 section 2.3.1).

The project is asked in-process, never over a socket: a GET for ``/robots.txt``
with the site's host and scheme goes through Django's handler and the project's
middleware, as a crawler's request would, on a thread of its own. Nothing of the
caller's own request (its URLconf, language, script prefix or database
connection, all per thread) is touched, and a view that hangs is left behind
after ``TIMEOUT`` seconds (``verify_sitemaps`` asks on its own thread: ``here``).
"""

from __future__ import annotations

import hashlib
import io
import logging
import os
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import unquote_to_bytes, urljoin, urlsplit

from django.conf import settings
from django.core.handlers.base import BaseHandler
from django.core.handlers.wsgi import WSGIRequest
from django.db import connections
from django.http import HttpResponseBase
from django.urls import set_script_prefix

from django_sitemapkit.conf import conf
from django_sitemapkit.sites.base_urls import Origin
from django_sitemapkit.sites.hosts import all_sites
from django_sitemapkit.sites.robots_rules import (
    MAX_BYTES,
    ROBOTS_PATH,
    Decision,
    RobotsTxt,
    parse_robots_txt,
)

logger = logging.getLogger("django_sitemapkit")

#: Seconds the project may take to answer ``/robots.txt``.
TIMEOUT = 10.0
#: RFC 9309 section 2.4: a cached robots.txt is not used for more than 24 hours.
KEPT_FOR = 24 * 3600.0
#: Seconds a robots.txt that could not be read is not asked for again.
FAILURE_KEPT_FOR = 60.0
#: RFC 9309 section 2.3.1.2: at least five consecutive redirects are followed.
REDIRECTS = 5
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
USER_AGENT = "django-sitemapkit (SITEMAPKIT_ROBOTS)"
FILE_HINT = "set SITEMAPKIT_ROBOTS_FILE to the robots.txt your web server serves"


class RobotsUnavailable(Exception):
    """A site's robots.txt could not be read, so which URLs it disallows is unknown."""


@dataclass(frozen=True)
class SiteRobots:
    """A site's robots.txt as read: where from, its rules, and the SHA-256 of the
    bytes read (what a built file and a page's ETag depend on)."""

    source: str
    rules: RobotsTxt
    digest: str
    #: What the project answered (``None``: read from a file): a 4xx is no robots.txt,
    #: every URL allowed.
    status: int | None = None

    @property
    def found(self) -> bool:
        return self.status is None or 200 <= self.status < 300

    def refusal(self, url: str, agents: tuple[str, ...]) -> Decision | None:
        """The decision of the first of ``agents`` that may not fetch ``url``."""
        return self.rules.refusal(url, agents)


_kept: dict[tuple[Origin, str | None], tuple[float, SiteRobots | str]] = {}
_lock = threading.Lock()


def site_robots(origin: Origin) -> SiteRobots:
    """The robots.txt of the site on ``origin``, read once and kept for ``KEPT_FOR``
    seconds (a failure for ``FAILURE_KEPT_FOR``); raise ``RobotsUnavailable``."""
    key = (origin, file_setting())
    now = time.monotonic()
    with _lock:
        kept = _kept.get(key)
    if kept is None or kept[0] <= now:
        # Read outside the lock: a slow robots.txt never keeps another site waiting.
        found: SiteRobots | str
        try:
            found = read_robots(origin)
        except RobotsUnavailable as exc:
            found = str(exc)
        lasts = KEPT_FOR if isinstance(found, SiteRobots) else FAILURE_KEPT_FOR
        kept = (now + lasts, found)
        with _lock:
            _kept[key] = kept
    if isinstance(kept[1], str):
        raise RobotsUnavailable(kept[1])
    return kept[1]


def forget() -> None:
    """Read every robots.txt afresh when next asked: a build reads each site's at its
    start, and a worker for each job."""
    with _lock:
        _kept.clear()


def file_setting() -> str | None:
    """``SITEMAPKIT_ROBOTS_FILE`` as a key of the kept robots.txt: another value reads
    them afresh."""
    raw = conf.ROBOTS_FILE
    return None if raw is None else repr(raw)


def read_robots(origin: Origin, *, here: bool = False) -> SiteRobots:
    """The robots.txt of the site on ``origin``, read now (on this thread if ``here``)."""
    path = robots_file(origin)
    if path is not None:
        return from_file(path)
    return through_django(origin, here)


def robots_file(origin: Origin) -> str | None:
    """The file ``SITEMAPKIT_ROBOTS_FILE`` gives the site on ``origin``; ``None`` where it
    is read through Django (the setting unset, or a dict without the site's name)."""
    raw = conf.ROBOTS_FILE
    if isinstance(raw, Mapping):
        site = next((site for site in all_sites() if site.origin == origin), None)
        raw = None if site is None else raw.get(site.name)
    return None if raw is None else os.fspath(raw)


def from_file(path: str) -> SiteRobots:
    try:
        with open(path, "rb") as file:
            data = file.read(MAX_BYTES)
    except OSError as exc:
        raise RobotsUnavailable(
            f"SITEMAPKIT_ROBOTS_FILE names {path!r}, which cannot be read: "
            f"{exc.strerror or exc}. Give the path of the site's robots.txt."
        ) from exc
    return SiteRobots(path, parse_robots_txt(data), hashlib.sha256(data).hexdigest())


@dataclass(frozen=True)
class Answer:
    """What the project answered for robots.txt, after the redirects it followed."""

    url: str
    status: int
    body: bytes = b""
    #: Where it redirected to, when that is not on the site's host.
    elsewhere: str | None = None


def through_django(origin: Origin, here: bool = False) -> SiteRobots:
    """``/robots.txt`` of ``origin``, asked of the project on a thread of its own (on
    this one if ``here``: the caller bounds its time)."""
    url = f"{origin.url}{ROBOTS_PATH}"
    if (settings.FORCE_SCRIPT_NAME or "/") != "/":
        raise RobotsUnavailable(
            f"{url} cannot be asked of the project: FORCE_SCRIPT_NAME = "
            f"{settings.FORCE_SCRIPT_NAME!r} puts it below the host's root, where robots.txt "
            f"is. To read it, {FILE_HINT}."
        )
    outcome: list[Answer | BaseException] = []
    # On the caller's thread, its deadline's Timeout and a Ctrl-C go on up.
    caught = (Exception, SystemExit) if here else BaseException

    def ask() -> None:
        try:
            outcome.append(fetch(origin))
        except caught as exc:
            outcome.append(exc)
        finally:
            if not here:
                connections.close_all()

    if here:
        ask()
    else:
        thread = threading.Thread(target=ask, name="sitemapkit-robots.txt", daemon=True)
        thread.start()
        thread.join(TIMEOUT)
    if not outcome:
        raise RobotsUnavailable(f"{url} did not answer within {TIMEOUT:g} seconds.")
    answer = outcome[0]
    if isinstance(answer, BaseException):
        raise RobotsUnavailable(
            f"{url} could not be asked of the project: {type(answer).__name__}: {answer}"
        ) from answer
    return understood(answer)


def understood(answer: Answer) -> SiteRobots:
    """What the answer means, as RFC 9309 section 2.3.1 and Google say."""
    source = f"{answer.url} (through Django)"
    if answer.elsewhere is not None:
        raise RobotsUnavailable(
            f"{answer.url} redirects to {answer.elsewhere}, on another host, which is never "
            f"asked (robots.txt is read in-process, not over the network): {FILE_HINT}."
        )
    if 200 <= answer.status < 300:
        digest = hashlib.sha256(answer.body).hexdigest()
        return SiteRobots(source, parse_robots_txt(answer.body), digest, answer.status)
    # RFC 9309 section 2.3.1.3: a 4xx is "unavailable", and a crawler may fetch
    # everything; Google takes 429 as a server error. A redirect not followed
    # (more than section 2.3.1.2's five) is taken as unavailable too, as Google does.
    if 300 <= answer.status < 500 and answer.status != 429:
        logger.warning(
            "%s answered %s, so every URL is allowed (RFC 9309 section 2.3.1.3); if your "
            "web server serves robots.txt instead, %s.",
            source,
            answer.status,
            FILE_HINT,
        )
        return SiteRobots(source, RobotsTxt({}), f"status {answer.status}", answer.status)
    # Section 2.3.1.4: a server error means "disallow everything" to a crawler.
    raise RobotsUnavailable(
        f"{answer.url} answered {answer.status}, which crawlers read as disallowing "
        "everything (RFC 9309 section 2.3.1.4)."
    )


def fetch(origin: Origin) -> Answer:
    """``/robots.txt`` through the project's handler and middleware, following up to
    ``REDIRECTS`` redirects on the site's host (another scheme or port included)."""
    handler = BaseHandler()
    handler.load_middleware()
    # As WSGIHandler does per request: robots.txt is at the root of the host.
    set_script_prefix("/")
    scheme, port, path = origin.scheme, origin.port, ROBOTS_PATH
    hops = 0
    while True:
        url = f"{scheme}://{authority(origin.host, port, scheme)}{path}"
        response = handler.get_response(WSGIRequest(environ(origin.host, port, scheme, path)))
        try:
            if response.status_code not in REDIRECT_STATUSES or hops == REDIRECTS:
                return Answer(url, response.status_code, body(response))
            target = urlsplit(urljoin(url, response.get("Location", "")))
            if target.hostname != origin.host or target.scheme not in ("http", "https"):
                return Answer(url, response.status_code, elsewhere=target.geturl())
            scheme = target.scheme
            port = target.port or (443 if scheme == "https" else 80)
            path = (target.path or "/") + (f"?{target.query}" if target.query else "")
            hops += 1
        finally:
            response.close()


def authority(host: str, port: int, scheme: str) -> str:
    return Origin(scheme, host, port).authority


def environ(host: str, port: int, scheme: str, path: str) -> dict[str, object]:
    """The WSGI environ of a GET for ``path`` (PEP 3333: ``PATH_INFO`` decoded, as
    Latin-1 text of its bytes)."""
    path_info, _, query = path.partition("?")
    return {
        "REQUEST_METHOD": "GET",
        "SCRIPT_NAME": "",
        "PATH_INFO": unquote_to_bytes(path_info).decode("latin-1"),
        "QUERY_STRING": query,
        "SERVER_NAME": host,
        "SERVER_PORT": str(port),
        "SERVER_PROTOCOL": "HTTP/1.1",
        "HTTP_HOST": authority(host, port, scheme),
        "HTTP_USER_AGENT": USER_AGENT,
        "REMOTE_ADDR": "127.0.0.1",
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": scheme,
        "wsgi.input": io.BytesIO(),
        "wsgi.errors": io.StringIO(),
        "wsgi.multithread": True,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
    }


def body(response: HttpResponseBase) -> bytes:
    """The first ``MAX_BYTES`` of the body; a streamed one is read no further."""
    if not response.streaming:
        return bytes(response.content[:MAX_BYTES])  # type: ignore[attr-defined]
    taken = bytearray()
    for chunk in response.streaming_content:  # type: ignore[attr-defined]
        taken += chunk
        if len(taken) >= MAX_BYTES:
            break
    return bytes(taken[:MAX_BYTES])
