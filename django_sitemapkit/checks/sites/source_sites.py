"""System checks of the sites a source lists on: the names its ``sites`` gives
(sitemapkit.E043, W015), and its absolute URLs against the host of each such
site (sitemapkit.E005). Names of ``Site`` rows are in the database, and judged
by a database check (``site_rows``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from urllib.parse import urlsplit

from django.core.checks import CheckMessage, Error, Warning
from django.core.exceptions import ImproperlyConfigured

from django_sitemapkit.checks.sites.hosts import usable_sites
from django_sitemapkit.checks.sources.declarations import describe
from django_sitemapkit.conf import conf
from django_sitemapkit.sites.base_urls import Origin
from django_sitemapkit.sites.framework import uses_site
from django_sitemapkit.sites.hosts import default_site, several_sites
from django_sitemapkit.sources.declaration import BaseSource


def check_source_sites(source: BaseSource) -> list[CheckMessage]:
    """E043 for names ``SITEMAPKIT_SITES`` does not have, W015 for ``sites`` with no
    ``SITEMAPKIT_SITES`` to choose from. Run once ``sites``'s kind is right (E031)."""
    names = type(source).sites
    value = conf.raw("SITES")
    if names is None:
        return []
    if value is None:
        return [
            Warning(
                f"{describe(source)} declares sites {names!r}, but SITEMAPKIT_SITES is not "
                "set: the project has one site, and the source is listed on it.",
                hint="Remove sites from the source, or list the project's sites in "
                "SITEMAPKIT_SITES.",
                obj=type(source),
                id="sitemapkit.W015",
            )
        ]
    if not isinstance(value, Mapping) or not value:
        return []  # Site rows are judged in the database; a bad value is E035
    unknown = [name for name in names if name not in value]
    if not unknown:
        return []
    return [
        Error(
            f"{describe(source)} declares sites {names!r}: {listing(unknown)} "
            f"{'is' if len(unknown) == 1 else 'are'} not a site of SITEMAPKIT_SITES.",
            hint=names_fix(names, [name for name in value if isinstance(name, str)]),
            obj=type(source),
            id="sitemapkit.E043",
        )
    ]


def names_fix(names: Sequence[str], known: list[str]) -> str:
    """The ``sites`` meant, where each unknown name differs from a known one in case
    alone (or a final dot); else the names there are."""
    corrected = [name if name in known else spelled(name, known) for name in names]
    if all(name is not None for name in corrected):
        return f"Set sites = {corrected!r}: a site's name is matched exactly."
    return f"Name sites of SITEMAPKIT_SITES: {listing(known)}."


def spelled(name: str, known: list[str]) -> str | None:
    def folded(text: str) -> str:
        return text.lower().removesuffix(".")

    matches = [other for other in known if folded(other) == folded(name)]
    return matches[0] if len(matches) == 1 else None


def listing(names: Iterable[str], limit: int = 10) -> str:
    shown = list(names)
    text = ", ".join(repr(name) for name in shown[:limit])
    return text + (f" and {len(shown) - limit} more" if len(shown) > limit else "")


def check_fixed_url(source: BaseSource, url: str) -> list[CheckMessage]:
    """E005: an absolute URL of a ``StaticSource`` that is not on the base URL of a site
    the source lists on, where the run time would skip it."""
    if url.startswith("/") and not url.startswith("//"):
        return []
    if several_sites():
        return check_url_on_sites(source, url)
    if uses_site():
        # The host to compare with is the Site's, in the database, which this
        # check must not read; the run time still skips a URL on another host.
        return []
    try:
        origin = url_origin(url)
        expected = default_site().origin
    except ImproperlyConfigured:
        origin, expected = None, None
    if origin is not None and origin == expected:
        return []
    return [
        Error(
            f"{describe(source)} lists the URL {url!r}, which is not on SITEMAPKIT_BASE_URL "
            f"{conf.BASE_URL!r}.",
            hint="A sitemap lists URLs of one host only: list a path starting with '/', "
            "or remove the URL.",
            obj=type(source),
            id="sitemapkit.E005",
        )
    ]


def url_origin(url: str) -> Origin | None:
    try:
        return Origin.from_parts(urlsplit(url))
    except ValueError:
        return None


def check_url_on_sites(source: BaseSource, url: str) -> list[CheckMessage]:
    """E005 with ``SITEMAPKIT_SITES`` a dict: the URL must be on every site the source
    lists on. Site rows are in the database, where this check does not look."""
    sites = usable_sites()
    names = type(source).sites
    origin = url_origin(url)
    missed = [
        site
        for site in sites
        if (names is None or site.name in names) and (origin is None or site.origin != origin)
    ]
    if not missed:
        return []
    on = ", ".join(f"{site.name!r} ({site.base_url!r})" for site in missed)
    home = [site.name for site in sites if origin is not None and site.origin == origin]
    other = (
        f"set sites = {home!r} to list the source on that host only" if home else ("remove the URL")
    )
    hint = f"A sitemap lists URLs of its own host only: list a path starting with '/', or {other}."
    return [
        Error(
            f"{describe(source)} lists the URL {url!r}, which is not on the base URL of "
            f"{'site' if len(missed) == 1 else 'sites'} {on} of SITEMAPKIT_SITES.",
            hint=hint,
            obj=type(source),
            id="sitemapkit.E005",
        )
    ]
