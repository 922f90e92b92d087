"""A response judged as a search engine judges a URL its sitemap submits: the reasons
it should not be listed, or none.

Only a ``200`` is indexable (Search Console's "Submitted URL not found (404)",
"has redirect", "returns unauthorized request (401)", "seems to be a Soft
404", "Server error (5xx)"); a redirect to ``settings.LOGIN_URL`` is told
apart from another, as it means the URL needs a login. A ``200`` can still
keep itself out: a ``noindex`` (``X-Robots-Tag`` or a robots meta tag), or a
canonical URL that is another ("Duplicate, submitted URL not selected as
canonical"). Each rule is one function of ``CHECKS`` or ``INDEXABLE_CHECKS``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

from django.conf import settings
from django.shortcuts import resolve_url
from django.urls import NoReverseMatch
from django.utils.encoding import iri_to_uri

from django_sitemapkit.conf import conf
from django_sitemapkit.sites.base_urls import DEFAULT_PORTS
from django_sitemapkit.sites.configured import SitemapSite
from django_sitemapkit.sites.robots_txt import SiteRobots
from django_sitemapkit.verification.markup import SHOWN, canonical_links, noindex_for
from django_sitemapkit.verification.reasons import (
    CANONICAL,
    EXITED,
    GONE,
    LOGIN,
    NOINDEX,
    NOT_FOUND,
    REDIRECT,
    ROBOTS,
    SERVER_ERROR,
    STATUS,
    TIMEOUT,
    UNAUTHORIZED,
    Reason,
    reason,
)
from django_sitemapkit.verification.requester import Answer, Requester

# RFC 9110 section 15.4: the redirections that carry a Location.
REDIRECTS = frozenset({301, 302, 303, 307, 308})
STATUS_REASONS = {404: NOT_FOUND, 410: GONE, 401: UNAUTHORIZED, 403: UNAUTHORIZED}
# RFC 3986 section 6.2.2.2: an escape of an unreserved character is that
# character, and hex digits are compared without their case.
ESCAPE = re.compile(r"%([0-9A-Fa-f]{2})")
UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")


@dataclass(frozen=True)
class SiteFacts:
    """What the checks know of a site beyond a response, found once per run: where
    its login page is, and its robots.txt."""

    #: ``settings.LOGIN_URL`` as a URL or path (a URL name reversed), if it is one.
    login: str | None
    #: The site's robots.txt, read afresh as ``SITEMAPKIT_ROBOTS`` reads it (asked of
    #: the project, or ``SITEMAPKIT_ROBOTS_FILE``); else why it could not be read.
    robots: SiteRobots | str
    #: ``SITEMAPKIT_ROBOTS_AGENTS``: a URL any of them may not fetch is reported.
    agents: tuple[str, ...]

    @classmethod
    def found(cls, site: SitemapSite, requester: Requester | None = None) -> SiteFacts:
        """The facts of ``site``, its robots.txt asked of the project by ``requester``
        (as a URL is: in rolled-back transactions, under a deadline)."""
        try:
            login: str | None = str(resolve_url(settings.LOGIN_URL))
        except NoReverseMatch:
            login = None
        robots = (requester or Requester(site)).robots()
        return cls(login, robots, tuple(conf.ROBOTS_AGENTS))


def robots_reasons(url: str, answer: Answer, site: SiteFacts) -> list[Reason]:
    """A URL robots.txt keeps a crawler from fetching, whatever the page says: the
    engine never reads it. A robots.txt that cannot be read is said for each URL, as
    Google stops crawling a site whose robots.txt fails (a 5xx) for long."""
    if isinstance(site.robots, str):
        return [reason(ROBOTS, f"robots.txt could not be read: {site.robots}"[:SHOWN])]
    decision = site.robots.refusal(url, site.agents)
    if decision is None:
        return []
    rule = decision.rule
    assert rule is not None, "a disallowing decision names its rule"
    return [reason(ROBOTS, f"{decision.agent}: {rule}, line {rule.line}"[:SHOWN])]


def status_reasons(url: str, answer: Answer, site: SiteFacts) -> list[Reason]:
    status = answer.status
    if status == 200:
        return []
    if status in REDIRECTS:
        location = answer.headers.get("Location")
        if location is None:
            return [reason(REDIRECT, f"{status} without a Location header")]
        target = urljoin(url, location)
        if site.login is not None and same_url(target, urljoin(url, site.login), query=False):
            return [reason(LOGIN, f"{status} to {target}")]
        return [reason(REDIRECT, f"{status} to {target}")]
    if status >= 500:
        detail = str(status) if answer.error is None else f"{status}, {answer.error}"
        return [reason(SERVER_ERROR, detail[:SHOWN])]
    return [reason(STATUS_REASONS.get(status, STATUS), str(status))]


def noindex_reasons(url: str, answer: Answer, site: SiteFacts) -> list[Reason]:
    found = []
    header = answer.headers.get("X-Robots-Tag")
    if header is not None and noindex_for(header) is not None:
        found.append(f"X-Robots-Tag: {header[:SHOWN]}")
    if answer.head is not None:
        found += answer.head.noindex
    return [reason(NOINDEX, "; ".join(found))] if found else []


def canonical_reasons(url: str, answer: Answer, site: SiteFacts) -> list[Reason]:
    """A canonical URL (resolved against ``url``, as RFC 3986 section 5 says a
    relative reference is) that is not ``url`` itself."""
    header = answer.headers.get("Link")
    named = [(target, "Link header") for target in canonical_links(header or "")]
    if answer.head is not None:
        named += [(href, '<link rel="canonical">') for href in answer.head.canonicals]
    others = [
        f"{urljoin(url, href)[:SHOWN]} ({where})"
        for href, where in named
        if not same_url(urljoin(url, href), url)
    ]
    return [reason(CANONICAL, "; ".join(others))] if others else []


Check = Callable[[str, Answer, SiteFacts], list[Reason]]
#: What every answer is checked for, in order.
CHECKS: tuple[Check, ...] = (robots_reasons, status_reasons)
#: What a 200 is checked for too.
INDEXABLE_CHECKS: tuple[Check, ...] = (noindex_reasons, canonical_reasons)


def inspected(url: str, answer: Answer, site: SiteFacts) -> list[Reason]:
    """Every reason ``answer`` gives not to list ``url``; a view cut short at its
    deadline, or one that ended its process, gives that one alone, as it gave no
    answer to judge."""
    if answer.timed_out:
        return [reason(TIMEOUT, answer.error or "")]
    if answer.exited:
        return [reason(EXITED, answer.error or "")]
    found = []
    for check in CHECKS + (INDEXABLE_CHECKS if answer.status == 200 else ()):
        found += check(url, answer, site)
    return found


def same_url(one: str, other: str, *, query: bool = True) -> bool:
    """Whether two absolute URLs are the same after RFC 3986 section 6.2.2's
    normalizations (case, escapes, the default port, an empty path); a fragment
    never counts (a crawler drops it)."""
    return normalized(one, query) == normalized(other, query)


def normalized(url: str, query: bool) -> tuple[object, ...]:
    parts = urlsplit(iri_to_uri(url))
    scheme = parts.scheme.lower()
    try:
        port = parts.port
    except ValueError:
        return (url,)
    if port == DEFAULT_PORTS.get(scheme):
        port = None
    path = unescaped(parts.path) or "/"
    return (scheme, (parts.hostname or "").lower(), port, path, query and unescaped(parts.query))


def unescaped(text: str) -> str:
    def one(match: re.Match[str]) -> str:
        character = chr(int(match[1], 16))
        return character if character in UNRESERVED else "%" + match[1].upper()

    return ESCAPE.sub(one, text)
