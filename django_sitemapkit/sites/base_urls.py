"""What a base URL may be: the rules ``SITEMAPKIT_BASE_URL``, and the domain of the
current ``Site`` standing in for it, are judged by. ``manage.py check`` and the run
time ask the same functions, so nothing is accepted in one place and refused in
the other.
"""

from __future__ import annotations

import string
import unicodedata
from dataclasses import dataclass
from urllib.parse import SplitResult, urlsplit

DEFAULT_PORTS = {"http": 80, "https": 443}
# RFC 3986 section 3.2: what a host (a registered name, or an IP literal in
# brackets) and a port are written with. urlsplit() accepts far more, and
# quietly drops tabs, newlines and leading spaces, so the text is read first.
AUTHORITY_CHARACTERS = frozenset(string.ascii_letters + string.digits + "-._~!$&'()*+,;=%[]:")
#: The example base URL of every message that asks for one.
EXAMPLE = "'https://www.example.com'"
#: The scheme a Site's domain is judged with (``domain_problem()``): a Site
#: records no scheme, and ``SITEMAPKIT_SITE_SCHEME`` gives the one it is served on.
SITE_SCHEME = "https"


@dataclass(frozen=True)
class Origin:
    """Scheme, host and port of a base URL: the one host of a site's sitemaps."""

    scheme: str
    host: str
    port: int

    @classmethod
    def from_parts(cls, parts: SplitResult) -> Origin:
        scheme = parts.scheme.lower()
        # "is None", not "or": an explicit port 0 must not become the default port.
        port = parts.port if parts.port is not None else DEFAULT_PORTS.get(scheme, 0)
        return cls(scheme, (parts.hostname or "").lower(), port)

    @classmethod
    def from_url(cls, url: str) -> Origin:
        """The origin of a base URL ``base_url_problem()`` accepts."""
        used = base_url_in_use(url)
        assert isinstance(used, str)
        return cls.from_parts(urlsplit(used))

    @property
    def url(self) -> str:
        """``scheme://host[:port]`` with the default port left out."""
        return f"{self.scheme}://{self.authority}"

    @property
    def authority(self) -> str:
        """``host[:port]`` as a URL writes it: the default port left out, an IPv6
        address in brackets."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        if self.port == DEFAULT_PORTS.get(self.scheme):
            return host
        return f"{host}:{self.port}"


def base_url_in_use(value: object) -> object:
    """``SITEMAPKIT_BASE_URL`` as the run time uses it: without the whitespace around it.

    A value read from an env file or a Kubernetes secret often ends in a
    newline; dropping it keeps such a deployment serving (``sitemapkit.W008``
    tells about it). Whitespace inside the value is no typo to guess at and
    stays refused (``sitemapkit.E032``).
    """
    return value.strip() if isinstance(value, str) else value


def base_url_unset(value: object) -> bool:
    """Whether ``SITEMAPKIT_BASE_URL`` is left unset: ``None``, or nothing but whitespace."""
    used = base_url_in_use(value)
    return used is None or used == ""


def base_url_problem(value: object) -> str | None:
    """Why ``value`` cannot serve as ``SITEMAPKIT_BASE_URL``, or ``None`` if it can.

    The same answer refuses the value at ``manage.py check`` and at run time
    (``Origin.from_settings()``), both judging ``base_url_in_use(value)``:
    nothing is stripped or normalised in one place and refused in the other.
    """
    value = base_url_in_use(value)
    if not isinstance(value, str) or not value:
        return "is not set"
    unfit = unfit_characters(value)
    if unfit is not None:
        return unfit
    try:
        parts = urlsplit(value)
    except ValueError:  # an unclosed "[" of an IPv6 host
        return "is not an absolute http or https URL"
    try:
        port = parts.port  # raises ValueError on a malformed port
    except ValueError:
        return "has an invalid port"
    if port == 0:  # urlsplit() accepts it; no server listens on port 0
        return "has an invalid port"
    if parts.scheme not in DEFAULT_PORTS or not parts.hostname:
        return "is not an absolute http or https URL"
    if parts.username is not None or parts.password is not None:
        return "carries credentials"
    if parts.query or parts.fragment or value.endswith(("?", "#")):
        return "carries a query string or fragment"
    if parts.path not in ("", "/"):
        return "carries a path"
    return None


def unfit_characters(value: str) -> str | None:
    """Why ``value`` holds characters no base URL can: whitespace or control
    characters anywhere, or what a host and port cannot be written with."""
    if any(character.isspace() or unicodedata.category(character)[0] == "Z" for character in value):
        return "contains whitespace"
    if any(unicodedata.category(character)[0] == "C" for character in value):
        return "contains control characters"
    bad = [character for character in authority(value) if character not in AUTHORITY_CHARACTERS]
    if bad:
        listed = ", ".join(repr(character) for character in dict.fromkeys(bad))
        return f"has characters that cannot stand in a URL's host or port ({listed})"
    return None


def authority(value: str) -> str:
    """The host and port of ``value`` as written, credentials left out."""
    _scheme, separator, rest = value.partition("://")
    if not separator:
        return ""
    end = min((i for i in map(rest.find, "/?#") if i >= 0), default=len(rest))
    return rest[:end].rpartition("@")[2]


def trimmed(value: str) -> str:
    """``value`` without the whitespace and control characters at its ends."""

    def fit(character: str) -> bool:
        return not (character.isspace() or unicodedata.category(character)[0] in "CZ")

    start = next((i for i, c in enumerate(value) if fit(c)), len(value))
    end = next((i for i in range(len(value), start, -1) if fit(value[i - 1])), start)
    return value[start:end]


def domain_problem(domain: str) -> str | None:
    """Why a ``Site``'s domain cannot follow ``https://`` as the base URL, or ``None``
    if it can: the setting's rules, for a value that must be a host and an optional
    port alone.

    Nothing is stripped: the setting is trimmed because an env file adds a
    newline to it, while a domain is typed into the admin, whose form refuses
    whitespace; one saved around that form is a mistake to report, not to guess at.
    """
    url = f"{SITE_SCHEME}://{domain}"
    unfit = unfit_characters(url)
    if unfit is not None:
        return unfit
    if "://" in domain:
        return "starts with a scheme"
    problem = base_url_problem(url)
    if problem == "is not an absolute http or https URL":
        return "is not a host"
    return problem
