"""System checks: misconfiguration found at ``manage.py check``, before a crawler finds it.

Grouped like the code, one module per subject; ``apps.py`` registers the entry
points below. Ids are never reused; docs/checks.md lists every one.

- ``setting_values``: each setting's type and range, written from the rules of
  the settings table (``conf.Settings``) and run by the subject's module below
  (E012, E016, E018, E019, E022, E024, E030, E041, E044, E046, E047, E049-E053);
- ``settings``: the ``SITEMAPKIT_*`` settings of every site (E012, E016, E030);
- ``sites/``, which site:

  - ``base_url``: ``SITEMAPKIT_BASE_URL``, or ``SITE_ID`` where it is unset
    (E001-E004, E032, E034, W005, W007, W008);
  - ``framework``: the base URL against ``django.contrib.sites``, in the database
    (W001, W009, W010);
  - ``hosts``: ``SITEMAPKIT_SITES``, each site's name and base URL
    (E035-E040, W012), with ``served_hosts`` for ``SITEMAPKIT_SITE_SCHEME``,
    ``ALLOWED_HOSTS`` and HTTPS (E041, E042, W013, W014);
  - ``site_rows``: the ``Site`` rows of ``SITEMAPKIT_SITES = "django.contrib.sites"``,
    in the database (W016-W020);
  - ``source_sites``: the sites a source lists on and the host of its absolute
    URLs (E005, E043, W015);
  - ``wagtail_sites``: ``SITEMAPKIT_SITES = "wagtail"`` (E105), its Wagtail
    ``Site`` rows and the sites a ``WagtailSource`` lists on, in the database
    (W050-W053);

- ``sources/``, what a project declares:

  - ``discovery``: no source registered, and the stray sitemaps.py to blame (W006);
  - ``strays``: a source class never registered (W064), contrib's names on a source
    (W065);
  - ``values``: each source's declarations (E006-E011, E013, E014, E017);
  - ``lastmod``: a ``lastmod`` constant or field that is no date (E015, E063);
  - ``indexes``: a ``lastmod`` column without a database index (I001);
  - ``losses``: with ``--deploy``, a section whose first rows mostly make no URL
    (E118), or raise (E119);
  - ``computed``: ``noindex``, ``canonical`` and a ``lastmod`` expression (E065-E067);
  - ``declarations``: the kind of each documented declaration and hook (E031);
  - ``extensions``: languages, alternates, images, videos, news (E026-E029);
  - ``scope``: which sources fall under the sitemap's directory (for ``urls``);

- ``urls``: the URLconf and middleware the sitemap is served through (E033,
  W002-W004), an earlier pattern that answers the app's URLs (W062), and the app
  missing from ``INSTALLED_APPS`` (E064, run by the patterns of its URLconfs, not
  registered);
- ``files``: the settings of pre-rendered files (E018-E025);
- ``compat``: the drop-in views' URL patterns (W011), and whether any routes to
  them (which quiets W002 and W006);
- ``compat_classes``: the third-party classes the drop-in serves: django CMS's
  without ``SITE_ID`` (E100), a Wagtail ``Site`` off its site's base URL (W046), a
  ``lastmod`` that is no date (W066, with ``--deploy``);
- ``indexnow``: the ``SITEMAPKIT_INDEXNOW_*`` settings (E044-E046, W021) and the
  route of the key file (W022, W023);
- ``distributed``: the settings of distributed builds and of the database the rows
  are read from (E048-E053);
- ``changes``: the ``SITEMAPKIT_CHANGES*`` settings (E110, E111), each source's
  ``depends_on`` (E112), and a source whose model the capture cannot tell (W060);
- ``refresh_engines``: the engine ``SITEMAPKIT_CHANGES`` sends its refresh task to:
  Celery or a Tasks framework not installed (E115, E116), ``SITEMAPKIT_TASK_BACKEND``
  not a backend of ``TASKS`` (E117), a backend that runs no task on a worker (W063);
- ``robots``: the ``SITEMAPKIT_ROBOTS*`` settings (E070-E073, W033), and, with
  ``check --deploy``, each site's robots.txt against its sitemap (W030-W032).
"""

from __future__ import annotations

from django_sitemapkit.checks.changes import check_changes
from django_sitemapkit.checks.compat import check_compat_templates
from django_sitemapkit.checks.compat_classes import (
    check_dropin_cms_site_id,
    check_dropin_lastmods,
    check_dropin_wagtail_sites,
)
from django_sitemapkit.checks.distributed import check_distributed
from django_sitemapkit.checks.indexnow import check_indexnow, check_indexnow_route
from django_sitemapkit.checks.refresh_engines import check_refresh_engines
from django_sitemapkit.checks.robots import check_robots, check_robots_txt
from django_sitemapkit.checks.settings import check_settings
from django_sitemapkit.checks.sites.framework import check_sites_framework
from django_sitemapkit.checks.sites.hosts import check_site_settings
from django_sitemapkit.checks.sites.site_rows import check_site_rows
from django_sitemapkit.checks.sites.wagtail_sites import check_wagtail_sites
from django_sitemapkit.checks.sources.discovery import check_discovery
from django_sitemapkit.checks.sources.indexes import check_lastmod_indexes
from django_sitemapkit.checks.sources.losses import check_section_losses
from django_sitemapkit.checks.sources.strays import check_strays
from django_sitemapkit.checks.sources.values import check_sources
from django_sitemapkit.checks.urls import check_middleware, check_urls

__all__ = [
    "check_changes",
    "check_compat_templates",
    "check_discovery",
    "check_distributed",
    "check_dropin_cms_site_id",
    "check_dropin_lastmods",
    "check_dropin_wagtail_sites",
    "check_indexnow",
    "check_indexnow_route",
    "check_lastmod_indexes",
    "check_middleware",
    "check_refresh_engines",
    "check_robots",
    "check_robots_txt",
    "check_section_losses",
    "check_settings",
    "check_site_rows",
    "check_site_settings",
    "check_sites_framework",
    "check_sources",
    "check_strays",
    "check_urls",
    "check_wagtail_sites",
]
