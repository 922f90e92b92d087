"""What keeps the project's views, run by ``verify_sitemaps``, inside the run: the
e-mail they send held, a deadline on each request, and a host the project refuses
found before anything is requested.

- E-mail: Django's locmem backend replaces every configured one while the run
  lasts (``hold_mail()``), as Django's test runner does (``MAILERS`` where the
  project has it, else ``EMAIL_BACKEND``); each request's messages are counted
  and let go (``take_mail()``), so none reaches a server and none is kept.
- A deadline: ``SIGALRM`` raises ``Timeout`` in the view's own code once it has
  run ``seconds`` (``deadline()``). ``Timeout`` is a ``BaseException``: Django's
  handler answers 500 only for an ``Exception``, so it leaves the view, its
  ``atomic`` blocks rolling back on their way out, and reaches the requester.
  Python runs a signal's handler between two bytecodes: a sleep is cut short,
  a call into C (a database query) is interrupted when it returns. Signals
  reach the main thread only; elsewhere no deadline is set. ``--jobs``
  processes are also killed by the command past the deadline and a grace
  (``workers.py``).
- After a request cut short, each database connection is left as it was found
  (``settle()``): an interruption inside Django's own transaction code could
  leave an ``atomic`` block open, and the next request would run inside it.
"""

from __future__ import annotations

import signal
import threading
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

from django.conf import settings
from django.core import mail
from django.db import DatabaseError, connections
from django.http.request import split_domain_port, validate_host

from django_sitemapkit.sites.configured import SitemapSite

LOCMEM = "django.core.mail.backends.locmem.EmailBackend"
#: Seconds between a deadline's later alarms.
AGAIN = 1.0
# What Django allows under DEBUG when ALLOWED_HOSTS is empty (HttpRequest.get_host()).
DEBUG_HOSTS = [".localhost", "127.0.0.1", "[::1]"]


class Timeout(BaseException):
    """A view that ran past its deadline (not an ``Exception``: nothing answers it)."""


@contextmanager
def hold_mail() -> Iterator[None]:
    """Every e-mail backend the project configures replaced by Django's locmem one."""
    held: object = LOCMEM
    name = "EMAIL_BACKEND"
    mailers = getattr(settings, "MAILERS", None)
    if mailers is not None:
        # Django 6.1's MAILERS, where the project has it: each alias held.
        name, held = "MAILERS", {alias: {"BACKEND": LOCMEM} for alias in mailers}
    outbox = getattr(mail, "outbox", None)
    with unwarned():
        previous = getattr(settings, name)
        setattr(settings, name, held)
    mail.outbox = []
    try:
        yield
    finally:
        with unwarned():
            setattr(settings, name, previous)
        if outbox is None:
            del mail.outbox
        else:
            mail.outbox = outbox


@contextmanager
def unwarned() -> Iterator[None]:
    """Django 6.1 deprecates ``EMAIL_BACKEND`` for ``MAILERS``, and warns whoever reads
    it outside Django; without ``MAILERS`` it is still what sends, and is replaced as
    Django's test runner replaces it."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="The EMAIL_BACKEND setting is deprecated")
        yield


def take_mail() -> int:
    """How many messages the views sent since the last call; they are let go."""
    outbox = getattr(mail, "outbox", [])
    count = len(outbox)
    outbox.clear()
    return count


class Expiry:
    """Whether a deadline has passed (a view may catch ``Timeout`` and go on)."""

    passed = False


@contextmanager
def deadline(seconds: float) -> Iterator[Expiry]:
    """``Timeout`` raised in the block once it has run ``seconds``, and again every
    ``AGAIN`` seconds after (a view that catches one gets the next); the timer is
    stopped, and the previous handler back, however the block ends."""
    expiry = Expiry()
    if (
        not hasattr(signal, "setitimer")
        or threading.current_thread() is not threading.main_thread()
    ):
        yield expiry
        return

    def expired(signum: int, frame: FrameType | None) -> None:
        expiry.passed = True
        raise Timeout

    previous = signal.signal(signal.SIGALRM, expired)
    try:
        signal.setitimer(signal.ITIMER_REAL, seconds, AGAIN)
        try:
            yield expiry
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    finally:
        signal.signal(signal.SIGALRM, previous)


def atomic_depths() -> dict[str, int]:
    """How many ``atomic`` blocks each connection is in, before a request."""
    return {alias: len(connections[alias].atomic_blocks) for alias in connections}


def settle(depths: dict[str, int]) -> None:
    """Each connection back out of any ``atomic`` block a request cut short left open
    (``depths``: as it was before), its transaction rolled back; one that cannot be
    rolled back is closed, and the next request opens another."""
    for alias, depth in depths.items():
        connection = connections[alias]
        if len(connection.atomic_blocks) <= depth and connection.in_atomic_block == bool(depth):
            continue
        del connection.atomic_blocks[depth:]
        del connection.savepoint_ids[depth:]
        connection.in_atomic_block = bool(depth)
        if depth:
            # Inside an outer block (a test's): it rolls back what the request did.
            connection.needs_rollback = True
            continue
        connection.needs_rollback = False
        try:
            connection.rollback()
            connection.set_autocommit(True)
        except DatabaseError:
            connection.close()


def refused_host(site: SitemapSite) -> str | None:
    """Why the project answers 400 to every request on ``site``'s host, if it does:
    ``ALLOWED_HOSTS`` (with ``DEBUG``'s allowance when it is empty) refuses it."""
    allowed = list(settings.ALLOWED_HOSTS)
    if settings.DEBUG and not allowed:
        allowed = DEBUG_HOSTS
    domain, _ = split_domain_port(site.origin.authority)
    if domain and validate_host(domain, allowed):
        return None
    under = (
        " (DEBUG allows only localhost while it is empty)"
        if settings.DEBUG and not settings.ALLOWED_HOSTS
        else ""
    )
    return (
        f"Site {site.name!r} is served on {site.origin.host!r}, which ALLOWED_HOSTS "
        f"{list(settings.ALLOWED_HOSTS)!r}{under} refuses: the project would answer 400 to "
        f"every URL, so none was requested. Add {site.origin.host!r} to ALLOWED_HOSTS."
    )
