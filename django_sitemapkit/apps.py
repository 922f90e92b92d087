from __future__ import annotations

from importlib.util import find_spec

from django.apps import AppConfig
from django.core import checks
from django.utils.module_loading import autodiscover_modules


class SitemapkitConfig(AppConfig):
    name = "django_sitemapkit"
    verbose_name = "Sitemaps"

    def ready(self) -> None:
        from django_sitemapkit import checks as sitemap_checks

        # Like the admin: every installed app's sitemaps.py registers its sources.
        autodiscover_modules("sitemaps")
        from django_sitemapkit.changes.capture import install
        from django_sitemapkit.conf import conf

        if conf.CHANGES is not None:
            # Each committed save or delete of a row a section reads is recorded.
            install()
        checks.register(sitemap_checks.check_settings)
        checks.register(sitemap_checks.check_site_settings)
        checks.register(sitemap_checks.check_sources)
        # A suggestion for scale, not a fault: with --deploy only.
        checks.register(sitemap_checks.check_lastmod_indexes, deploy=True)
        checks.register(sitemap_checks.check_discovery)
        checks.register(sitemap_checks.check_strays)
        checks.register(sitemap_checks.check_urls, checks.Tags.urls)
        checks.register(sitemap_checks.check_middleware, checks.Tags.urls)
        checks.register(sitemap_checks.check_compat_templates, checks.Tags.urls)
        checks.register(sitemap_checks.check_indexnow)
        checks.register(sitemap_checks.check_distributed)
        checks.register(sitemap_checks.check_robots)
        checks.register(sitemap_checks.check_changes)
        checks.register(sitemap_checks.check_refresh_engines)
        # It asks the project for robots.txt and reads rows: only at deploy time.
        checks.register(sitemap_checks.check_robots_txt, deploy=True)
        # It reads each section's first rows: only at deploy time.
        checks.register(sitemap_checks.check_section_losses, deploy=True)
        checks.register(sitemap_checks.check_indexnow_route, checks.Tags.urls)
        checks.register(sitemap_checks.check_sites_framework, checks.Tags.database)
        checks.register(sitemap_checks.check_site_rows, checks.Tags.database)
        checks.register(sitemap_checks.check_wagtail_sites, checks.Tags.database)
        # The third-party classes the drop-in serves: their URL patterns, and the
        # Wagtail Site rows those classes read.
        checks.register(sitemap_checks.check_dropin_cms_site_id, checks.Tags.urls)
        checks.register(sitemap_checks.check_dropin_wagtail_sites, checks.Tags.database)
        # It calls the classes' items(), which read rows: only at deploy time.
        checks.register(sitemap_checks.check_dropin_lastmods, checks.Tags.urls, deploy=True)
        if find_spec("celery") is not None:
            # The shard task of distributed builds and the refresh task of
            # SITEMAPKIT_CHANGES = "celery", registered with the project's Celery
            # app(s) so its workers run them (docs/distributed.md,
            # docs/changes.md); Celery is imported only by a project that has it.
            import django_sitemapkit.distributed.celery_engine
            import django_sitemapkit.distributed.celery_refresh  # noqa: F401
