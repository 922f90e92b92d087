"""The several-sites cases: the sitemap index and page 1 of ``bench`` from the
database views (``SITEMAPKIT_SERVE = "database"``), with 1 and with 100 configured
sites, for each way of configuring them:

- ``sites-dict-*``: ``SITEMAPKIT_SITES`` as a dict of names and base URLs;
- ``sites-framework-*``: ``SITEMAPKIT_SITES = "django.contrib.sites"``, one ``Site``
  row per site.

Every request is for the same host, that of the last site configured (and of the
``Site`` row with the highest pk), so a lookup that walked the sites would walk
them all; the documents of 1 and 100 sites are then the same bytes, which the
command checks. The choice of the site is one step per request (a dict lookup, or
one query on the ``Site`` table), never a step per row: 1 and 100 sites should cost
the same.

A case configures the process it runs in as a server would be, with
``override_settings``: the sites, ``ALLOWED_HOSTS`` listing each site's host (as a
project without a wildcard does; Django compares the host with each in turn) and
no ``SITEMAPKIT_BASE_URL``. The framework variant also installs
``django.contrib.sites`` (the example project does not: contrib's own views would
then take their domain from a ``Site`` row) and holds exactly its rows in the
``Site`` table while it runs (see ``SiteRows``). This module is imported only by
the process that runs one of its cases.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.core.management.color import no_style
from django.db import connection
from django.http import HttpResponseBase
from django.test import RequestFactory, override_settings
from django.urls import reverse

from bench.measuring import SITEMAP_TAG, URL_TAG, Case, Outcome, Sink, consume, streamed
from bench.sizes import Plan
from bench.sources import register_bench_source, warm_process

#: The host of every request, and the last site of every configuration.
REQUESTED_HOST = "www.example.com"
SCHEME = "https"
SITES_APP = "django.contrib.sites"
# Calls of site_for_request() timed alone in each round: a query each with the
# Sites framework (about a millisecond on PostgreSQL), a few microseconds else.
LOOKUP_ROUNDS = 5
LOOKUP_CALLS = 200


def site_hosts(count: int) -> list[str]:
    """``count`` hosts, the requested one last."""
    return [f"site-{number:03d}.example.com" for number in range(1, count)] + [REQUESTED_HOST]


def overrides(framework: bool, hosts: list[str]) -> dict[str, Any]:
    """The settings of a project that serves sitemaps for ``hosts``."""
    common: dict[str, Any] = {
        "SITEMAPKIT_SERVE": "database",
        "SITEMAPKIT_BASE_URL": None,
        "ALLOWED_HOSTS": hosts,
    }
    if framework:
        return {
            **common,
            "INSTALLED_APPS": [*settings.INSTALLED_APPS, SITES_APP],
            "SITEMAPKIT_SITES": SITES_APP,
            "SITEMAPKIT_SITE_SCHEME": SCHEME,
        }
    # Named by the host, as the Site rows' sites are: the requested site is then
    # "www.example.com" in both variants, which no section's ``sites`` names, so
    # both list the same sections (those listed on every site).
    sites = {host: f"{SCHEME}://{host}" for host in hosts}
    return {**common, "SITEMAPKIT_SITES": sites}


class SiteRows:
    """The ``Site`` table holding exactly one row per host, in their order, while a
    case runs.

    The table is created if the benchmark database has none, and dropped after; a
    table that exists (an earlier run was killed, say) has its rows set aside and
    put back. Call only once ``django.contrib.sites`` is installed.
    """

    def __init__(self, hosts: list[str]) -> None:
        self.hosts = hosts
        self.created_table = False
        self.found: list[Any] = []

    def create(self) -> None:
        from django.contrib.sites.models import Site

        self.created_table = Site._meta.db_table not in connection.introspection.table_names()
        if self.created_table:
            with connection.schema_editor() as editor:
                editor.create_model(Site)
        self.found = list(Site.objects.order_by("pk"))
        Site.objects.all().delete()
        # One INSERT; the pks follow the hosts' order, so the requested host's is the highest.
        Site.objects.bulk_create(Site(domain=host, name=host) for host in self.hosts)

    def remove(self) -> None:
        from django.contrib.sites.models import Site

        Site.objects.all().delete()
        if self.created_table:
            with connection.schema_editor() as editor:
                editor.delete_model(Site)
            return
        Site.objects.bulk_create(self.found)
        with connection.cursor() as cursor:
            # The rows put back have their own pks: move PostgreSQL's sequence past them.
            for statement in connection.ops.sequence_reset_sql(no_style(), [Site]):
                cursor.execute(statement)


class SitesCase:
    """``GET /sitemap.xml`` (``index``) or page 1 of ``bench`` (``page``) on
    ``REQUESTED_HOST``, with ``count`` sites configured."""

    def __init__(self, framework: bool, document: str, count: int, page_size: int) -> None:
        self.framework = framework
        self.document = document
        self.count = count
        self.page_size = page_size
        self.settings: override_settings | None = None
        self.rows: SiteRows | None = None

    def setup(self) -> None:
        from django_sitemapkit import hosts, views

        register_bench_source(self.page_size)
        names = site_hosts(self.count)
        self.settings = override_settings(**overrides(self.framework, names))
        self.settings.enable()
        if self.framework:
            self.rows = SiteRows(names)
            self.rows.create()
        configured = [site.base_url for site in hosts.all_sites()]
        if configured[-1:] != [f"{SCHEME}://{REQUESTED_HOST}"] or len(configured) != self.count:
            raise RuntimeError(
                f"{self.count} sites were configured, but the package sees {len(configured)}, "
                f"the last one {configured[-1:]!r}."
            )
        self.view: Callable[..., HttpResponseBase]
        if self.document == "index":
            self.view, self.kwargs, self.tag = views.index, {}, SITEMAP_TAG
            path = reverse("sitemapkit:index")
        else:
            self.view, self.tag = views.page, URL_TAG
            self.kwargs = {"section": "bench", "page": 1}
            path = reverse("sitemapkit:page", kwargs=self.kwargs)
        self.request = RequestFactory().get(path, HTTP_HOST=REQUESTED_HOST, secure=True)
        warm_process()

    def run(self, check: bool) -> Outcome:
        started = time.perf_counter()
        response = streamed(self.view(self.request, **self.kwargs))
        sink = Sink(started, check, self.tag)
        outcome = consume(response, sink)
        if check:
            off_site(sink.locs)
        return outcome

    def steps(self) -> dict[str, float]:
        """Seconds ``site_for_request()`` takes alone, the median of a few rounds of
        calls: the one step of a request that the count of sites could change."""
        from django_sitemapkit.sites.hosts import site_for_request

        rounds = []
        for _ in range(LOOKUP_ROUNDS):
            started = time.perf_counter()
            for _ in range(LOOKUP_CALLS):
                site_for_request(self.request)
            rounds.append((time.perf_counter() - started) / LOOKUP_CALLS)
        return {"lookup": statistics.median(rounds)}

    def teardown(self) -> None:
        if self.rows is not None:
            self.rows.remove()
        if self.settings is not None:
            self.settings.disable()


def off_site(locs: list[bytes]) -> None:
    """Fail if a ``<loc>`` is not on the requested site: another site's sitemap would
    have the same count of URLs."""
    base = f"{SCHEME}://{REQUESTED_HOST}/".encode()
    wrong = [loc for loc in locs if not loc.startswith(base)]
    if wrong or not locs:
        found = wrong[0].decode() if wrong else "no <loc> at all"
        raise RuntimeError(f"The document lists {found!r}, not a location on {base.decode()}.")


def sites_case(plan: Plan, variant: str, document: str, count: int) -> Case:
    """``sites-<variant>-<document>-<count>``'s case (bench/table.py names it)."""
    return SitesCase(variant == "framework", document, count, plan.serve_size)
