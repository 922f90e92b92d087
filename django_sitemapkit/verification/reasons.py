"""Why a listed URL should not be in a sitemap: each reason a small value (a code, a
line for people, the detail of this URL), and the kinds in the order reports list them.

The codes are the JSON report's (``docs/verify.md``) and stay stable. Each
names one of the problems Search Console reports on a submitted sitemap's URLs
("Submitted URL not found (404)", "has redirect", "marked 'noindex'", ...).
A new kind is one row of ``KINDS`` and the check that finds it
(``inspection.py`` for what a response says; ``hreflang.py`` for what the
sitemap's entries say of each other; ``documents.py`` for the sitemap's own
documents as served).
"""

from __future__ import annotations

from typing import NamedTuple

NOT_FOUND = "not-found"
GONE = "gone"
UNAUTHORIZED = "unauthorized"
SERVER_ERROR = "server-error"
STATUS = "status"
REDIRECT = "redirect"
LOGIN = "login"
NOINDEX = "noindex"
CANONICAL = "canonical"
HREFLANG = "hreflang"
ROBOTS = "robots"
UNREADABLE = "unreadable"
TIMEOUT = "timeout"
EXITED = "exited"
SITEMAP_STATUS = "sitemap-status"
SITEMAP_EMPTY = "sitemap-empty"
SITEMAP_UNREADABLE = "sitemap-unreadable"

#: Every kind, in the order a report lists them, with its line for people.
KINDS: dict[str, str] = {
    NOT_FOUND: "not found (404)",
    GONE: "gone (410)",
    UNAUTHORIZED: "unauthorized (401) or forbidden (403)",
    SERVER_ERROR: "server error (5xx)",
    STATUS: "another status than 200",
    TIMEOUT: "no answer within the deadline",
    EXITED: "ends the process it runs in",
    LOGIN: "redirects to the login page",
    REDIRECT: "redirects",
    NOINDEX: "marked noindex",
    CANONICAL: "its canonical URL is another",
    HREFLANG: "hreflang alternate not reciprocal",
    ROBOTS: "disallowed by robots.txt",
    UNREADABLE: "a built file that cannot be read",
    SITEMAP_STATUS: "a sitemap document that does not answer 200",
    SITEMAP_EMPTY: "a sitemap document that lists no URL",
    SITEMAP_UNREADABLE: "a sitemap document that is not one",
}


class Reason(NamedTuple):
    """One problem of one listed URL."""

    code: str
    #: ``KINDS[code]``: the same for every URL of the kind.
    text: str
    #: What this URL's response (or entry) showed: a status, a target, a header.
    detail: str


def reason(code: str, detail: str) -> Reason:
    return Reason(code, KINDS[code], printable(detail))


def printable(text: str) -> str:
    """``text`` with each control character written as its escape (``\\x1b``): a detail
    repeats what a response said, and a terminal would obey an escape sequence in it."""
    if text.isprintable():
        return text
    return "".join(
        character
        if character.isprintable() or character == " "
        else character.encode("unicode_escape").decode("ascii")
        for character in text
    )
