"""Each listed URL requested through Django's own WSGI handler, in this process: no
socket, no server, and no change to any database.

The request is what a crawler's would be on the site: its scheme
(``wsgi.url_scheme``), host (``Host``) and port are the site's, the path and
query the URL's, under ``FORCE_SCRIPT_NAME`` as the locations were built.
The whole request, the ``request_started`` and ``request_finished`` signals
included, runs inside one transaction on every database alias, rolled back
after it (``transactions.py``, which also refuses what would end it and holds
the connections of the view's own threads): a view that writes leaves no row
behind, ``ATOMIC_REQUESTS`` nests inside it, and ``transaction.on_commit()``
hooks are discarded unrun. The site's robots.txt is asked the same way. A view
that raises ``SystemExit`` is answered as one that ended its process.
Django's ``close_old_connections`` is kept from those signals while the
requests run (``requesting()``), as the test client does: it would close a
connection inside its transaction. E-mail is held and each
request has a deadline (``containment.py``); what else lives outside the
databases (a cache, files) is not rolled back (``docs/verify.md``).
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from io import BytesIO
from typing import Any, Generic, TypeVar
from urllib.parse import unquote_to_bytes, urlsplit

from django.conf import settings
from django.core import signals
from django.core.handlers.wsgi import WSGIHandler
from django.db import close_old_connections
from django.http import HttpResponseBase

from django_sitemapkit.conf import MAX_BYTES, conf
from django_sitemapkit.sites.configured import SitemapSite
from django_sitemapkit.sites.robots_rules import ROBOTS_PATH
from django_sitemapkit.sites.robots_txt import TIMEOUT as ROBOTS_TIMEOUT
from django_sitemapkit.sites.robots_txt import RobotsUnavailable, SiteRobots, read_robots
from django_sitemapkit.verification.containment import (
    Timeout,
    atomic_depths,
    deadline,
    hold_mail,
    settle,
)
from django_sitemapkit.verification.markup import Head, read_head
from django_sitemapkit.verification.transactions import (
    refusals,
    release_threads,
    rolled_back,
    threads_held,
)

#: The most bytes of an HTML body read for its head (HTML's head comes first;
#: Google reads 15 MB of a page, but a head past 1 MiB is no head in practice).
HEAD_BYTES = 1 << 20
T = TypeVar("T")
HTML_TYPES = ("text/html", "application/xhtml+xml")
USER_AGENT = "django-sitemapkit verify_sitemaps"
# What a crawler asks for: HTML first (RFC 9110 section 12.5.1).
ACCEPT = "text/html,application/xhtml+xml;q=0.9,*/*;q=0.8"
#: The exception a view raised during the request, if one did (one request at a
#: time in a process: ``--jobs`` runs processes, never threads).
_raised: list[BaseException] = []


@dataclass(frozen=True)
class Answer:
    """What a response said, as much as the reasons need."""

    status: int
    headers: dict[str, str]
    #: The head of an HTML body of a 200 response; ``None`` otherwise.
    head: Head | None = None
    #: The exception the view raised (a 500), as ``Type: message``; or the deadline
    #: it ran past.
    error: str | None = None
    #: Whether the view was cut short at its deadline (``status`` is then 0).
    timed_out: bool = False
    #: Whether the view ended its process (``sys.exit()``; ``status`` is then 0).
    exited: bool = False
    #: The body of a 200, for a sitemap document (``Requester.document()``).
    body: bytes | None = None


def keep_exception(sender: Any, **kwargs: Any) -> None:
    """``got_request_exception``'s receiver: Django sends it from inside the ``except``
    that caught what a view raised, before it answers 500."""
    exception = sys.exc_info()[1]
    if exception is not None:
        _raised.append(exception)


@contextmanager
def requesting(request_log: bool = False) -> Iterator[None]:
    """Where the requests run: connections kept open across them, the exceptions of
    views kept for their answers, e-mail held (``containment.hold_mail()``) and,
    unless ``request_log``, the ``django.request`` logger silenced: each 404 and
    500 is in the report, and Django's default ``LOGGING`` would e-mail every 500
    to ``ADMINS``."""
    removed = [
        signal
        for signal in (signals.request_started, signals.request_finished)
        if signal.disconnect(close_old_connections)
    ]
    signals.got_request_exception.connect(keep_exception, dispatch_uid=__name__)
    request_logger = logging.getLogger("django.request")
    disabled = request_logger.disabled
    request_logger.disabled = disabled or not request_log
    try:
        with hold_mail(), threads_held():
            yield
    finally:
        request_logger.disabled = disabled
        signals.got_request_exception.disconnect(dispatch_uid=__name__)
        for signal in removed:
            signal.connect(close_old_connections)


class Requester:
    """GET requests for one site's URLs, each answered by the project's own views."""

    def __init__(self, site: SitemapSite, timeout: float | None = None) -> None:
        self.site = site
        #: Seconds a view may run (``--timeout``, else ``SITEMAPKIT_VERIFY_TIMEOUT``).
        self.timeout: float = conf.VERIFY_TIMEOUT if timeout is None else timeout
        self.handler = WSGIHandler()

    def environ(self, url: str) -> dict[str, Any]:
        """The WSGI environment of a crawler's GET of ``url`` (PEP 3333)."""
        origin = self.site.origin
        parts = urlsplit(url)
        path = parts.path or "/"
        script = (settings.FORCE_SCRIPT_NAME or "").rstrip("/")
        if script and (path == script or path.startswith(script + "/")):
            path = path[len(script) :] or "/"
        return {
            "REQUEST_METHOD": "GET",
            "SCRIPT_NAME": script,
            # PEP 3333: the path decoded, its bytes as ISO-8859-1 characters.
            "PATH_INFO": unquote_to_bytes(path).decode("iso-8859-1"),
            "QUERY_STRING": parts.query,
            "SERVER_NAME": origin.host,
            "SERVER_PORT": str(origin.port),
            "SERVER_PROTOCOL": "HTTP/1.1",
            "REMOTE_ADDR": "127.0.0.1",
            "HTTP_HOST": origin.authority,
            "HTTP_USER_AGENT": USER_AGENT,
            "HTTP_ACCEPT": ACCEPT,
            "wsgi.version": (1, 0),
            "wsgi.url_scheme": origin.scheme,
            "wsgi.input": BytesIO(),
            "wsgi.errors": sys.stderr,
            "wsgi.multithread": False,
            "wsgi.multiprocess": False,
            "wsgi.run_once": False,
        }

    def get(self, url: str) -> Answer:
        """The answer to a GET of ``url``; an exception of the view is its 500."""
        return self.requested(url, self.answer)

    def document(self, url: str) -> Answer:
        """The answer to a GET of a sitemap document, with the body of a 200."""
        return self.requested(url, read_body)

    def requested(self, url: str, read: Callable[[HttpResponseBase], Answer]) -> Answer:
        environ = self.environ(url)
        _raised.clear()
        done = contained(lambda: self.answered(environ, read), self.timeout)
        if done.late:
            return Answer(0, {}, error=f"no answer within {self.timeout:g} s", timed_out=True)
        # A view that caught a refusal answered what it would not answer in production.
        if done.refused is not None:
            return Answer(500, {}, error=f"TransactionManagementError: {done.refused}")
        assert done.value is not None
        return done.value

    def robots(self) -> SiteRobots | str:
        """The site's robots.txt, asked of the project as a URL is (on this thread,
        inside rolled-back transactions, within ``read_robots()``'s ``TIMEOUT``); else
        why it could not be read."""
        url = f"{self.site.origin.url}{ROBOTS_PATH}"

        def asked() -> SiteRobots | str:
            try:
                return read_robots(self.site.origin, here=True)
            except RobotsUnavailable as exc:
                return str(exc)

        done = contained(asked, ROBOTS_TIMEOUT)
        if done.late:
            return f"{url} did not answer within {ROBOTS_TIMEOUT:g} seconds."
        if done.refused is not None:
            return f"{url} could not be asked of the project: {done.refused}"
        assert done.value is not None
        return done.value

    def answered(
        self, environ: dict[str, Any], read: Callable[[HttpResponseBase], Answer]
    ) -> Answer:
        try:
            response = self.handler(environ, lambda status, headers: None)
        except SystemExit as exc:
            # sys.exit() in a view: a WSGI server's worker would end with no answer.
            return Answer(0, {}, error=f"SystemExit({exc.code!r})", exited=True)
        except Exception as exc:
            # DEBUG_PROPAGATE_EXCEPTIONS: Django raised it instead of answering 500.
            return Answer(500, {}, error=described(exc))
        try:
            return read(response)
        except SystemExit as exc:
            return Answer(0, {}, error=f"SystemExit({exc.code!r})", exited=True)
        except Exception as exc:
            # A streamed body that failed after its first bytes.
            return Answer(500, {}, error=described(exc))
        finally:
            response.close()

    def answer(self, response: HttpResponseBase) -> Answer:
        headers = {
            name: response[name]
            for name in ("Location", "X-Robots-Tag", "Link", "Content-Type")
            if name in response
        }
        error = described(_raised[-1]) if _raised else None
        media_type = headers.get("Content-Type", "").partition(";")[0].strip().lower()
        if response.status_code != 200 or media_type not in HTML_TYPES:
            return Answer(response.status_code, headers, error=error)
        head = read_head(iter(response), response.charset, HEAD_BYTES)
        return Answer(response.status_code, headers, head, error)


def read_body(response: HttpResponseBase) -> Answer:
    """The status and, for a 200, the body; none past the protocol's 50 MiB, and why."""
    headers = {name: response[name] for name in ("Location", "Content-Type") if name in response}
    if response.status_code != 200:
        error = described(_raised[-1]) if _raised else None
        return Answer(response.status_code, headers, error=error)
    body = bytearray()
    for chunk in response:
        body += chunk
        if len(body) > MAX_BYTES:
            return Answer(200, headers, error=f"the body is larger than {MAX_BYTES:,} bytes")
    return Answer(200, headers, body=bytes(body))


@dataclass(frozen=True)
class Contained(Generic[T]):
    """What a call inside a request's containment gave: its value, or ``late`` (no value
    within its deadline), and the first statement of the view's it refused."""

    value: T | None = None
    late: bool = False
    refused: str | None = None


def contained(call: Callable[[], T], timeout: float) -> Contained[T]:
    """``call()`` inside rolled-back transactions on every alias and within ``timeout``
    seconds, the connections of its threads released after it."""
    refusals.clear()
    depths = atomic_depths()
    try:
        with rolled_back(), deadline(timeout) as expiry:
            value = call()
    except Timeout:
        settle(depths)
        return Contained(late=True)
    finally:
        release_threads()
    # A call that caught its Timeout and went on gave its value too late.
    if expiry.passed:
        return Contained(late=True)
    return Contained(value, refused=refusals[0] if refusals else None)


def described(exception: BaseException) -> str:
    return f"{type(exception).__name__}: {exception}"
