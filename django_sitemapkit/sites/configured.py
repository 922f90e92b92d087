"""The sites ``SITEMAPKIT_SITES`` configures, each a :class:`SitemapSite`: from a
mapping of names to base URLs, parsed once for each value the setting takes, or
from the ``Site`` rows of ``django.contrib.sites``, read from the database each
time. ``hosts.py`` chooses among them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from django.apps import apps
from django.core.exceptions import ImproperlyConfigured

from django_sitemapkit.conf import conf
from django_sitemapkit.names import SITE_NAME
from django_sitemapkit.sites.base_urls import (
    DEFAULT_PORTS,
    EXAMPLE,
    Origin,
    base_url_in_use,
    base_url_problem,
)
from django_sitemapkit.sites.framework import SITES_APP, UnusableSite, site_base_url

if TYPE_CHECKING:
    from django.contrib.sites.models import Site

#: The value of ``SITEMAPKIT_SITES`` that makes every ``Site`` row a site.
SITES_FRAMEWORK = SITES_APP
#: A host as requests select by it: the host without a final dot, and the port
#: where it is not the scheme's default.
HostKey = tuple[str, int | None]


@dataclass(frozen=True)
class SitemapSite:
    """One site: its name, and the base URL every location of its documents is on."""

    #: The key of ``SITEMAPKIT_SITES``, or a ``Site``'s domain; ``"default"`` for a
    #: project's only site.
    name: str
    origin: Origin
    #: The ``django.contrib.sites`` row the site comes from, if it does.
    django_site: Site | None = field(default=None, compare=False)
    #: Whether it is one of several, whose built files go in a directory of its own.
    several: bool = False

    @property
    def base_url(self) -> str:
        """``scheme://host[:port]``, as every location of the site starts."""
        return self.origin.url

    @property
    def domain(self) -> str:
        """``host[:port]`` as the base URL writes it."""
        return self.origin.authority

    @property
    def base_url_setting(self) -> str:
        """What gives the site its base URL, as a fix names it."""
        if self.django_site is not None:
            return f"the domain of the Site {self.django_site.pk!r} (and SITEMAPKIT_SITE_SCHEME)"
        if self.several:
            return f"SITEMAPKIT_SITES[{self.name!r}]"
        return "SITEMAPKIT_BASE_URL"

    def __str__(self) -> str:
        return self.name

    def key(self) -> HostKey:
        return host_key(self.origin.host, self.origin.port, self.origin.scheme)


def host_key(host: str, port: int | None, scheme: str) -> HostKey:
    host = host.removesuffix(".")
    return (host, None if port == DEFAULT_PORTS.get(scheme) else port)


def matching(
    sites: Mapping[HostKey, SitemapSite], host: str, port: int | None
) -> SitemapSite | None:
    """The site of ``host`` and ``port`` (``None`` when the request named none): a port
    must be the site's own, which a default port written out is too."""
    host = host.lower().removesuffix(".")
    site = sites.get((host, port))
    if site is None and port is not None:
        site = sites.get((host, None))
        if site is not None and site.origin.port != port:
            return None
    return site


def shared_hosts(sites: list[SitemapSite]) -> list[tuple[SitemapSite, SitemapSite]]:
    """Each site whose host (and port) an earlier one has, with that earlier site:
    the one every request for the host gets (``setting_table()`` keeps the first)."""
    first: dict[HostKey, SitemapSite] = {}
    pairs = []
    for site in sites:
        other = first.setdefault(site.key(), site)
        if other is not site:
            pairs.append((other, site))
    return pairs


# -- SITEMAPKIT_SITES = {name: base URL} ---------------------------------------

_parsed: tuple[tuple[tuple[object, object], ...], dict[str, SitemapSite]] | None = None


def setting_sites() -> dict[str, SitemapSite]:
    """The sites of the setting by name; parsed once for each value the setting takes,
    so a request does not parse a hundred base URLs to find its own."""
    global _parsed
    raw = conf.raw("SITES")
    if not isinstance(raw, Mapping):
        raise ImproperlyConfigured(
            f"SITEMAPKIT_SITES is {raw!r}; set it to a dict of site names and base URLs, "
            f"such as {{'www': {EXAMPLE}}}, or to {SITES_FRAMEWORK!r}."
        )
    items = tuple(raw.items())
    if _parsed is None or _parsed[0] != items:
        _parsed = (items, {name: parsed_site(name, url) for name, url in items})
    return _parsed[1]


def parsed_site(name: object, url: object) -> SitemapSite:
    if not isinstance(name, str) or not SITE_NAME.fullmatch(name):
        raise ImproperlyConfigured(
            f"SITEMAPKIT_SITES names a site {name!r}; a name is 1 to 64 ASCII letters, "
            "digits, '.', '-' or '_', starting with a letter or digit (it names the "
            "directory of the site's built files)."
        )
    problem = base_url_problem(url)
    if problem is not None:
        raise ImproperlyConfigured(
            f"The base URL of site {name!r} in SITEMAPKIT_SITES {problem} ({url!r}); set it "
            f"to the scheme and host the site is served on, such as {EXAMPLE}."
        )
    used = base_url_in_use(url)
    assert isinstance(used, str)
    return SitemapSite(name, Origin.from_url(used), several=True)


def setting_site_for(host: str, port: int | None) -> SitemapSite | None:
    return matching(setting_table(), host, port)


_table: tuple[dict[str, SitemapSite], dict[HostKey, SitemapSite]] | None = None


def setting_table() -> dict[HostKey, SitemapSite]:
    global _table
    sites = setting_sites()
    if _table is None or _table[0] is not sites:
        # The first site of a host wins, as the check that hosts are unique says.
        table: dict[HostKey, SitemapSite] = {}
        for site in sites.values():
            table.setdefault(site.key(), site)
        _table = (sites, table)
    return _table[1]


# -- SITEMAPKIT_SITES = "django.contrib.sites" ----------------------------------


def framework_variant() -> bool:
    value = conf.raw("SITES")
    if value == SITES_FRAMEWORK and not apps.is_installed(SITES_APP):
        raise ImproperlyConfigured(
            f"SITEMAPKIT_SITES is {SITES_FRAMEWORK!r}, but {SITES_APP} is not in "
            "INSTALLED_APPS; add it, or list the sites in SITEMAPKIT_SITES."
        )
    return value == SITES_FRAMEWORK


def framework_site(row: Site) -> SitemapSite:
    """The site of one ``Site`` row, named by its host (and port); ``UnusableSite``
    if its domain cannot be a base URL."""
    url = site_base_url(row, current=False)
    problem = base_url_problem(url)
    if problem is not None:  # SITEMAPKIT_SITE_SCHEME is neither http nor https
        raise UnusableSite(
            f"SITEMAPKIT_SITE_SCHEME is {conf.SITE_SCHEME!r}, so Site {row.pk!r} would be "
            f"served on {url!r}, which {problem}.",
            "Set SITEMAPKIT_SITE_SCHEME to 'https' or 'http'.",
        )
    origin = Origin.from_url(url)
    name = authority_name(origin)
    if name is None:
        raise UnusableSite(
            f"The domain of Site {row.pk!r}, {row.domain!r}, cannot name the directory of "
            "its built files.",
            f"Set the domain of Site {row.pk!r} to a host name such as 'www.example.com'.",
        )
    return SitemapSite(name, origin, row, several=True)


def authority_name(origin: Origin) -> str | None:
    """The name of a site made from a row (a ``Site``, a Wagtail ``Site``): its host and
    port, ``None`` if they cannot name the directory of its built files."""
    name = origin.authority.removesuffix(".")
    return name if SITE_NAME.fullmatch(name.replace(":", "_")) else None


def framework_sites() -> tuple[list[SitemapSite], list[UnusableSite]]:
    """Every ``Site`` row's site, read now, and the problem of each that has none."""
    from django.contrib.sites.models import Site

    return sites_of(Site.objects.order_by("pk"), framework_site)


def sites_of(
    rows: Iterable[Any], site: Callable[[Any], SitemapSite]
) -> tuple[list[SitemapSite], list[UnusableSite]]:
    """The site ``site()`` makes of each row (a ``Site``, a Wagtail ``Site``), and the
    problem of each row it refuses."""
    found, unusable = [], []
    for row in rows:
        try:
            found.append(site(row))
        except UnusableSite as exc:
            unusable.append(exc)
    return found, unusable


def framework_site_for(host: str, port: int | None) -> SitemapSite | None:
    """The site of the ``Site`` row with this host: one query for the few spellings
    the row may have (any case, a final dot, the port written out)."""
    from django.contrib.sites.models import Site
    from django.db.models import Q

    names = [host, f"{host}."]
    ports = [port] if port is not None else [DEFAULT_PORTS.get(conf.SITE_SCHEME)]
    spellings = names + [f"{name}:{number}" for name in names for number in ports if number]
    query = Q()
    for spelling in spellings:
        query |= Q(domain__iexact=spelling)
    table: dict[HostKey, SitemapSite] = {}
    for row in Site.objects.filter(query).order_by("pk"):
        try:
            site = framework_site(row)
        except UnusableSite:
            continue
        table.setdefault(site.key(), site)
    return matching(table, host, port)
