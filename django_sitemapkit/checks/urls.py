"""System checks of the URLconf and middleware the sitemap is served through, and of
the app those URLconfs need in ``INSTALLED_APPS``."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import CheckMessage, Error, Warning
from django.core.exceptions import ImproperlyConfigured
from django.middleware.gzip import GZipMiddleware
from django.urls import NoReverseMatch, Resolver404, ResolverMatch, get_resolver
from django.utils import translation
from django.utils.module_loading import import_string

from django_sitemapkit.checks.compat import dropin_routed, dropin_views, innermost
from django_sitemapkit.checks.sources.declarations import describe
from django_sitemapkit.checks.sources.scope import every_source_outside
from django_sitemapkit.locations.policy import (
    URL_NAMESPACE,
    fixed_script_prefix,
    index_path,
    sitemap_directory,
)
from django_sitemapkit.names import GZIP_SUFFIX, INDEX_FILENAME, page_filename
from django_sitemapkit.registry import ADD_APP, MISSING_APP, installed, registry


def check_urls(**kwargs: Any) -> list[CheckMessage]:
    # The directory is read in the language the sources' URLs are (scope.py),
    # LANGUAGE_CODE as in the engine: inside i18n_patterns, the language a
    # command happens to run in would put the two under different prefixes.
    with translation.override(settings.LANGUAGE_CODE):
        return [*mount_messages(), *shadowed_messages()]


def mount_messages() -> list[CheckMessage]:
    try:
        directory = sitemap_directory_if_mounted()
    except ImproperlyConfigured:
        return []
    if directory is None:
        if dropin_routed() and not registry.all():
            # The drop-in serves the sitemap (docs/migrating.md, Step 1), and no
            # section waits for this app's URLs.
            return []
        return [
            Warning(
                "django_sitemapkit.urls is not included in ROOT_URLCONF, so the sitemap "
                "index and pages have no URL.",
                hint="Add path('', include('django_sitemapkit.urls')) to your urlpatterns.",
                id="sitemapkit.W002",
            )
        ]
    if directory == fixed_script_prefix():
        return []
    sources = registry.sections()
    if every_source_outside(sources, directory):
        # One clear message: E033 says all W003 would, and that it happens.
        return [
            Error(
                f"django_sitemapkit.urls is mounted under {directory!r}, and the URLs of every "
                f"source fall outside it ({', '.join(describe(s) for s in sources)}): by the "
                "protocol's location rule every entry is skipped, and the index lists pages "
                "that all answer 404.",
                hint="Include django_sitemapkit.urls at the root of your URLconf: "
                "path('', include('django_sitemapkit.urls')).",
                id="sitemapkit.E033",
            )
        ]
    return [
        Warning(
            f"django_sitemapkit.urls is mounted under {directory!r}: by the protocol's "
            "location rule the sitemap may then list only URLs under that path, and other "
            "entries are skipped.",
            hint="Include django_sitemapkit.urls at the root of your URLconf: "
            "path('', include('django_sitemapkit.urls')).",
            id="sitemapkit.W003",
        )
    ]


def shadowed_messages() -> list[CheckMessage]:
    """W062: an earlier pattern of ``ROOT_URLCONF`` answers URLs of
    ``django_sitemapkit.urls``: a sample of each (the index, page 1 of every
    registered section, and their ``.gz``, named by the grammar of ``names.py``)
    is resolved as a request would be, and the view that answers it is compared
    with the app's own. Every site shares ``ROOT_URLCONF``, so its sample is
    every site's sections."""
    directory = directory_to_check()
    if directory is None:
        return []
    caught: dict[str, tuple[ResolverMatch, list[str]]] = {}
    for path, name in sample_paths(directory.removeprefix(fixed_script_prefix())):
        try:
            match = get_resolver().resolve(path)
        except Resolver404:
            continue
        if URL_NAMESPACE in match.app_names and match.url_name == name:
            continue
        caught.setdefault(match.route, (match, []))[1].append(path)
    return [shadowed(match, paths) for match, paths in caught.values()]


def sample_paths(directory: str) -> list[tuple[str, str]]:
    """Paths of the app's URLs, below the script prefix, with the name of the app's
    pattern that should answer each."""
    names = [(INDEX_FILENAME, "index")] + [
        (page_filename(source.name, 1), "page") for source in registry.sections()
    ]
    return [
        (f"/{directory}{file}{suffix}", name + kind)
        for file, name in names
        for suffix, kind in (("", ""), (GZIP_SUFFIX, "_gz"))
    ]


def shadowed(match: ResolverMatch, paths: list[str]) -> Warning:
    others = len(paths) - 1
    more = f" (and {others} other sitemap URL{'s' if others > 1 else ''})" if others else ""
    function = innermost(match.func)
    view = f"{getattr(function, '__module__', '?')}.{getattr(function, '__qualname__', '?')}"
    if function in dropin_views() or view.startswith("django.contrib.sitemaps."):
        fix = (
            f"Remove the pattern {match.route!r} from your urlpatterns: django_sitemapkit.urls "
            "serves the sitemap now, and path('', include('django_sitemapkit.contrib_redirects')),"
            " placed after it, answers the old page URLs (docs/migrating.md, Step 2)."
        )
    else:
        fix = (
            "Move path('', include('django_sitemapkit.urls')) above the pattern "
            f"{match.route!r} in your urlpatterns."
        )
    return Warning(
        f"The URL pattern {match.route!r} ({view}) comes before "
        f"django_sitemapkit.urls in ROOT_URLCONF and answers {paths[0]!r}{more}, which "
        "django_sitemapkit.urls serves: the sitemap's own view is never reached there.",
        hint=fix,
        id="sitemapkit.W062",
    )


def check_middleware(**kwargs: Any) -> list[CheckMessage]:
    directory = directory_to_check()
    if directory is None:
        return []
    return [
        Warning(
            f"MIDDLEWARE lists {entry!r}, which compresses responses without regard to their "
            "type: the sitemap's .xml.gz files (application/gzip) would be gzipped a second "
            "time.",
            hint="Remove it from MIDDLEWARE and compress in the web server or CDN instead, by "
            "content type (application/xml, not application/gzip).",
            id="sitemapkit.W004",
        )
        for entry in settings.MIDDLEWARE
        if is_gzip_middleware(entry)
    ]


def is_gzip_middleware(entry: object) -> bool:
    if not isinstance(entry, str):
        return False
    try:
        middleware = import_string(entry)
    except Exception:
        # Django reports a middleware it cannot import when it loads them;
        # this check must not fail in its place, or hide its message.
        return False
    return isinstance(middleware, type) and issubclass(middleware, GZipMiddleware)


def directory_to_check() -> str | None:
    """The sitemap's directory, or None where there is none to check: not mounted
    (sitemapkit.W002 says so) or not readable (the check that reads it says why)."""
    try:
        return sitemap_directory_if_mounted()
    except ImproperlyConfigured:
        return None


def sitemap_directory_if_mounted() -> str | None:
    try:
        index_path()
    except NoReverseMatch:
        return None
    return sitemap_directory()


def check_installed(urlconf: str) -> list[CheckMessage]:
    """E064 while the app is missing from ``INSTALLED_APPS``: run by the patterns of
    its URLconfs (``urls.InstalledCheckPattern``), since Django checks every pattern
    of ``ROOT_URLCONF`` whatever is installed, and the checks above are registered
    by the app's ``ready()``."""
    if installed():
        return []
    return [
        Error(
            f"{urlconf} is included in the URLconf, but {MISSING_APP} Every sitemap URL "
            "answers 500 (ImproperlyConfigured) until it is added.",
            hint=ADD_APP,
            id="sitemapkit.E064",
        )
    ]
