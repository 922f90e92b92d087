"""Absolute locations: the origin they are on, the sitemap's own URLs, and the
single-host rule."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import urlsplit

from django.conf import settings
from django.urls import NoReverseMatch, get_script_prefix, reverse, set_script_prefix
from django.utils import translation
from django.utils.encoding import iri_to_uri

from django_sitemapkit.exceptions import InvalidEntry
from django_sitemapkit.locations.uris import (
    strict_reference,
    without_dot_segments,
)
from django_sitemapkit.sites.base_urls import Origin
from django_sitemapkit.sites.configured import SitemapSite

# sitemaps.org protocol, "XML tag definitions": <loc> "must be less than
# 2,048 characters".
MAX_LOCATION_LENGTH = 2_048
URL_NAMESPACE = "sitemapkit"


def fixed_script_prefix() -> str:
    """The script prefix every location is built with, in a request or not.

    Django sets the prefix per request from ``SCRIPT_NAME`` unless
    ``FORCE_SCRIPT_NAME`` is set; fixing it here makes the views and anything
    rendered outside a request produce the same bytes.
    """
    prefix = settings.FORCE_SCRIPT_NAME or "/"
    return prefix if prefix.endswith("/") else prefix + "/"


@contextmanager
def stable_script_prefix() -> Iterator[None]:
    previous = get_script_prefix()
    set_script_prefix(fixed_script_prefix())
    try:
        yield
    finally:
        set_script_prefix(previous)


@contextmanager
def entry_context() -> Iterator[None]:
    """Where locations are made: inside the fixed script prefix, which URL templates
    capture, and in ``LANGUAGE_CODE`` whatever language the request activated, so
    that neither ``SCRIPT_NAME`` nor a crawler's ``Accept-Language`` changes a URL."""
    with stable_script_prefix(), translation.override(settings.LANGUAGE_CODE):
        yield


def index_path(namespace: str = URL_NAMESPACE) -> str:
    """The index's path; ``namespace`` picks the XML URLs or the HTML ones."""
    with stable_script_prefix():
        return reverse(f"{namespace}:index")


def page_path(section: str, page: int, namespace: str = URL_NAMESPACE) -> str:
    with stable_script_prefix():
        return reverse(f"{namespace}:page", kwargs={"section": section, "page": page})


def sitemap_directory() -> str:
    """The directory the index is served from; by the protocol's location rule
    ("Sitemap file location") a sitemap may only list URLs at or below it."""
    try:
        path = index_path()
    except NoReverseMatch:
        return fixed_script_prefix()
    return posixpath.dirname(path).rstrip("/") + "/"


#: A path of RFC 3986 unreserved characters and slashes, not starting "//".
PLAIN_PATH = re.compile(r"/(?!/)[A-Za-z0-9._~/-]*").fullmatch


class ForeignLocation(InvalidEntry):
    """A location on another origin than the site's base URL: refused by the
    single-host rule, with the origin it is on (``origin``), which the build's error
    and ``check --deploy`` name when it costs a section most of its URLs."""

    def __init__(self, message: str, origin: str) -> None:
        super().__init__(message)
        self.origin = origin


class LocationPolicy:
    """Turns what ``reverse()`` or ``location()`` returned into a ``<loc>``, or refuses it."""

    def __init__(self, origin: Origin, directory: str) -> None:
        self.origin = origin
        self.directory = directory
        # Computed once: absolute_path() runs for every row.
        self.origin_url = origin.url
        self.prefix = self.origin_url + directory

    @classmethod
    def for_site(cls, site: SitemapSite) -> LocationPolicy:
        return cls(site.origin, sitemap_directory())

    def absolute(self, location: str) -> str:
        if PLAIN_PATH(location) is not None and "/." not in location:
            # The common case, made cheap: a path of unreserved characters is
            # already a URI with no dot segment, which the steps below return
            # unchanged.
            url = self.origin_url + location
        else:
            url = self._uri(location)
        if not url.startswith(self.prefix):
            raise InvalidEntry(
                f"location {url!r} is outside {self.prefix!r}, the directory the sitemap "
                "is served from (sitemaps.org location rule)"
            )
        if len(url) >= MAX_LOCATION_LENGTH:
            raise InvalidEntry(
                f"location of {len(url):,} characters is too long (the protocol requires "
                f"fewer than {MAX_LOCATION_LENGTH:,}): {url[:80]!r}..."
            )
        return url

    def _uri(self, location: str) -> str:
        try:
            # RFC 3987 section 3.1: an IRI becomes a URI by percent-encoding
            # its UTF-8 bytes; controls and spaces are escaped the same way.
            uri = iri_to_uri(location)
        except UnicodeError as exc:
            raise InvalidEntry(f"location {location!r} is not valid Unicode") from exc
        if uri.startswith("/") and not uri.startswith("//"):
            path = without_dot_segments(strict_reference(uri))
        else:
            path = self._same_origin_path(uri)
        if path.startswith("//"):
            # RFC 3986 section 4.2: a reference starting "//" is a network-path
            # reference, its first segment a host. On the origin the URL stays on
            # the site, but whoever writes it as a link without the origin (the
            # HTML sitemap did) sends readers to that host; and section 3.3 allows
            # such a path only after an authority. No URL pattern of Django makes
            # one, so this is a location built from data (a slug of "..//host").
            raise InvalidEntry(
                f"location {location!r} resolves to the path {path!r}, which starts with "
                "'//' and so reads as another host in a link (RFC 3986 section 4.2)"
            )
        return self.origin.url + path

    def absolute_path(self, path: str) -> str:
        """``absolute()`` for a path ``reverse()`` returned, with its common case made cheap.

        Such a path is already a URI (``reverse()`` percent-encodes), so
        ``iri_to_uri()`` would return it unchanged; anything unusual, a path
        that may hold a dot segment included, takes the general route, with
        its error messages.
        """
        url = self.origin_url + path
        if (
            path.startswith("/")
            and not path.startswith("//")
            and url.startswith(self.prefix)
            and len(url) < MAX_LOCATION_LENGTH
            and "/." not in path
            and "/%2" not in path
        ):
            return url
        return self.absolute(path)

    def _same_origin_path(self, uri: str) -> str:
        """The path, query and fragment of an absolute ``uri`` on the site's origin,
        without dot segments; ``InvalidEntry`` if it is on another origin."""
        try:
            parts = urlsplit(uri)
        except ValueError as exc:  # an unclosed "[" of an IPv6 host, say
            raise InvalidEntry(f"location {uri!r} is not a valid URL ({exc})") from exc
        if not parts.scheme or not parts.netloc:
            raise InvalidEntry(f"location {uri!r} is relative; return a path starting with '/'")
        try:
            origin = Origin.from_parts(parts)
        except ValueError as exc:
            raise InvalidEntry(f"location {uri!r} has an invalid port") from exc
        if origin != self.origin or parts.username is not None or parts.password is not None:
            raise ForeignLocation(
                f"location {uri!r} is not on {self.origin.url!r}, the site's base URL; "
                "a sitemap lists URLs of one host only",
                origin.url,
            )
        # Rebuilt on the canonical origin (by the caller), so case and default
        # ports don't vary.
        rest = uri[len(f"{parts.scheme}://{parts.netloc}") :]
        rest = strict_reference(rest if rest.startswith("/") else "/" + rest)
        return without_dot_segments(rest)
