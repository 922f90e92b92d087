"""System checks: misconfiguration found at ``manage.py check``, before a crawler finds it.

Ids are never reused; the README's table lists every one.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.core.checks import CheckMessage, Error, Warning
from django.core.exceptions import FieldDoesNotExist, FieldError, ImproperlyConfigured
from django.db import DatabaseError, models
from django.http.request import split_domain_port, validate_host
from django.middleware.gzip import GZipMiddleware
from django.urls import NoReverseMatch, get_resolver
from django.urls.resolvers import URLResolver
from django.utils.module_loading import import_string

from django_sitemapkit.conf import MAX_BYTES, MAX_URLS, SERVE_CHOICES, conf
from django_sitemapkit.exceptions import InvalidEntry
from django_sitemapkit.extensions import (
    HREFLANG,
    NEWS_LANGUAGE,
    VIDEO_COLUMNS,
    VIDEO_REQUIRED,
    News,
    Related,
    RelatedQuery,
)
from django_sitemapkit.locations import (
    Origin,
    base_url_problem,
    fixed_script_prefix,
    index_path,
    sitemap_directory,
)
from django_sitemapkit.names import SECTION_NAME
from django_sitemapkit.registry import registry
from django_sitemapkit.sources.declaration import (
    BaseSource,
    Field,
    SitemapSource,
    StaticPage,
    StaticSource,
    overrides,
)
from django_sitemapkit.sources.extended import has_alternates, language_codes
from django_sitemapkit.sources.plan import columns
from django_sitemapkit.values import CHANGEFREQS, format_lastmod, format_priority

# The smallest SITEMAPKIT_MAX_BYTES: room for the XML declaration, the root
# element and a few entries.
SMALLEST_MAX_BYTES = 1_024


def check_settings(**kwargs: Any) -> list[CheckMessage]:
    errors = check_base_url() + check_limit() + check_strict()
    if not errors:
        errors += check_allowed_hosts()
    return errors + check_file_settings() + check_news_max_age()


def check_news_max_age() -> list[CheckMessage]:
    value = conf.raw("NEWS_MAX_AGE")
    if isinstance(value, dt.timedelta) and value > dt.timedelta(0):
        return []
    return [
        Error(
            f"SITEMAPKIT_NEWS_MAX_AGE is {value!r}, not a positive timedelta.",
            hint="Set it to a datetime.timedelta such as timedelta(days=2) (Google News "
            "reads articles of the last two days), or remove it.",
            id="sitemapkit.E030",
        )
    ]


def check_base_url() -> list[CheckMessage]:
    value = conf.raw("BASE_URL")
    if value is None or value == "":
        return [
            Error(
                f"SITEMAPKIT_BASE_URL is not set ({value!r}).",
                hint="Set SITEMAPKIT_BASE_URL to the scheme and host the site is served on, "
                "such as 'https://www.example.com'.",
                id="sitemapkit.E001",
            )
        ]
    problem = base_url_problem(value)
    if problem is None:
        return []
    parts = urlsplit(value) if isinstance(value, str) else None
    if problem in ("is not an absolute http or https URL", "has an invalid port"):
        return [
            Error(
                f"SITEMAPKIT_BASE_URL {problem}: {value!r}.",
                hint="Set it to 'http://' or 'https://' followed by the site's host, such as "
                "'https://www.example.com'.",
                id="sitemapkit.E002",
            )
        ]
    assert parts is not None
    fixed = Origin.from_parts(parts).url
    hint = f"Set SITEMAPKIT_BASE_URL to {fixed!r}."
    if problem == "carries a path":
        hint += " For a site deployed under a sub-path, set FORCE_SCRIPT_NAME instead."
    return [
        Error(
            f"SITEMAPKIT_BASE_URL {problem}: {value!r}.",
            hint=hint,
            id="sitemapkit.E003",
        )
    ]


def check_allowed_hosts() -> list[CheckMessage]:
    # With DEBUG on and ALLOWED_HOSTS empty Django serves localhost only, as
    # in development: there the check would only be noise.
    if settings.DEBUG and not settings.ALLOWED_HOSTS:
        return []
    origin = Origin.from_settings()
    if validate_host(origin.host, settings.ALLOWED_HOSTS):
        return []
    return [
        Error(
            f"The host of SITEMAPKIT_BASE_URL, {origin.host!r}, is not accepted by "
            f"ALLOWED_HOSTS {settings.ALLOWED_HOSTS!r}.",
            hint=f"Add {origin.host!r} to ALLOWED_HOSTS, or set SITEMAPKIT_BASE_URL to a host "
            "the site is served on.",
            id="sitemapkit.E004",
        )
    ]


def check_sites_framework(
    databases: Iterable[str] | None = None, **kwargs: Any
) -> list[CheckMessage]:
    """Registered with the database tag: Django runs it in ``migrate`` and in
    ``check --database``, where a query is expected."""
    from django.apps import apps

    if not databases or not apps.is_installed("django.contrib.sites"):
        return []
    if base_url_problem(conf.BASE_URL) is not None:
        return []  # reported by check_settings
    from django.contrib.sites.models import Site

    try:
        domain = Site.objects.get_current().domain
    except (DatabaseError, ImproperlyConfigured, Site.DoesNotExist):
        # No table or no row yet (before the first migrate): nothing to compare.
        return []
    origin = Origin.from_settings()
    host, port = split_domain_port(domain)
    if host == origin.host and (not port or int(port) == origin.port):
        return []
    return [
        Warning(
            f"SITEMAPKIT_BASE_URL {conf.BASE_URL!r} names another host than the current "
            f"Site's domain {domain!r} (django.contrib.sites).",
            hint="Make them agree: update the Site's domain in the admin, or "
            "SITEMAPKIT_BASE_URL. Sitemaps are built on SITEMAPKIT_BASE_URL.",
            id="sitemapkit.W001",
        )
    ]


def check_limit() -> list[CheckMessage]:
    value = conf.raw("LIMIT")
    if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= MAX_URLS:
        return []
    return [
        Error(
            f"SITEMAPKIT_LIMIT is {value!r}, not a whole number from 1 to {MAX_URLS:,}.",
            hint=f"Set SITEMAPKIT_LIMIT to at most {MAX_URLS} (the protocol's cap), or remove it.",
            id="sitemapkit.E012",
        )
    ]


def check_strict() -> list[CheckMessage]:
    value = conf.raw("STRICT")
    if isinstance(value, bool):
        return []
    return [
        Error(
            f"SITEMAPKIT_STRICT is {value!r}, not True or False.",
            hint="Set SITEMAPKIT_STRICT = True to raise on invalid entries, or False to skip "
            "and log them.",
            id="sitemapkit.E016",
        )
    ]


def check_file_settings() -> list[CheckMessage]:
    """The settings of pre-rendered files: their size, where they go, gzip, serving."""
    return (
        check_max_bytes()
        + check_output_dir()
        + check_storage()
        + check_one_destination()
        + check_gzip()
        + check_serve()
    )


def check_max_bytes() -> list[CheckMessage]:
    value = conf.raw("MAX_BYTES")
    if (
        isinstance(value, int)
        and not isinstance(value, bool)
        and SMALLEST_MAX_BYTES <= value <= MAX_BYTES
    ):
        return []
    return [
        Error(
            f"SITEMAPKIT_MAX_BYTES is {value!r}, not a whole number from "
            f"{SMALLEST_MAX_BYTES:,} to {MAX_BYTES:,}.",
            hint=f"Set SITEMAPKIT_MAX_BYTES to a number of bytes from {SMALLEST_MAX_BYTES} to "
            f"{MAX_BYTES} (the protocol's 50 MiB), or remove it.",
            id="sitemapkit.E018",
        )
    ]


def check_output_dir() -> list[CheckMessage]:
    value = conf.raw("OUTPUT_DIR")
    if value is None:
        return []
    path = os.fspath(value) if isinstance(value, (str, os.PathLike)) else None
    if not isinstance(path, str):
        return [
            Error(
                f"SITEMAPKIT_OUTPUT_DIR is {value!r}, not a path.",
                hint="Set SITEMAPKIT_OUTPUT_DIR to the absolute path of a directory, as a str "
                "or a pathlib.Path, or to None.",
                id="sitemapkit.E019",
            )
        ]
    if os.path.isabs(path):
        return []
    return [
        Error(
            f"SITEMAPKIT_OUTPUT_DIR is {value!r}, a relative path, which would change with "
            "the working directory.",
            hint="Set SITEMAPKIT_OUTPUT_DIR to an absolute path, such as BASE_DIR / 'sitemaps'.",
            id="sitemapkit.E019",
        )
    ]


def check_storage() -> list[CheckMessage]:
    value = conf.raw("STORAGE")
    if value is None or (isinstance(value, str) and value in settings.STORAGES):
        return []
    return [
        Error(
            f"SITEMAPKIT_STORAGE is {value!r}, not an alias of STORAGES "
            f"{list(settings.STORAGES)!r}.",
            hint="Set SITEMAPKIT_STORAGE to one of the STORAGES aliases (add one for the "
            "sitemap files if needed), or to None.",
            id="sitemapkit.E020",
        )
    ]


def check_one_destination() -> list[CheckMessage]:
    output_dir, storage = conf.raw("OUTPUT_DIR"), conf.raw("STORAGE")
    if output_dir is None or storage is None:
        return []
    return [
        Error(
            f"SITEMAPKIT_OUTPUT_DIR ({output_dir!r}) and SITEMAPKIT_STORAGE ({storage!r}) are "
            "both set.",
            hint="Set one of them to None: SITEMAPKIT_OUTPUT_DIR to use a local directory, "
            "SITEMAPKIT_STORAGE to use a storage.",
            id="sitemapkit.E021",
        )
    ]


def check_gzip() -> list[CheckMessage]:
    errors: list[CheckMessage] = []
    hints = {
        "GZIP": "Set SITEMAPKIT_GZIP = True to write a .xml.gz file next to every file, or "
        "False to write none.",
        "GZIP_LINKS": "Set SITEMAPKIT_GZIP_LINKS = True to name the .xml.gz files in the "
        "index, or False to name the .xml files.",
    }
    for name, hint in hints.items():
        value = conf.raw(name)
        if not isinstance(value, bool):
            errors.append(
                Error(
                    f"SITEMAPKIT_{name} is {value!r}, not True or False.",
                    hint=hint,
                    id="sitemapkit.E022",
                )
            )
    if errors or not (conf.GZIP_LINKS and not conf.GZIP):
        return errors
    return [
        Error(
            f"SITEMAPKIT_GZIP_LINKS is {conf.GZIP_LINKS!r} while SITEMAPKIT_GZIP is "
            f"{conf.GZIP!r}, so the index would name .xml.gz files that build_sitemaps "
            "does not write.",
            hint="Set SITEMAPKIT_GZIP = True, or SITEMAPKIT_GZIP_LINKS = False.",
            id="sitemapkit.E023",
        )
    ]


def check_serve() -> list[CheckMessage]:
    value = conf.raw("SERVE")
    if value not in SERVE_CHOICES or not isinstance(value, str):
        return [
            Error(
                f"SITEMAPKIT_SERVE is {value!r}, not one of {', '.join(map(repr, SERVE_CHOICES))}.",
                hint="Set SITEMAPKIT_SERVE to 'database' (the default), 'files' or "
                "'files-or-database'.",
                id="sitemapkit.E024",
            )
        ]
    has_destination = conf.raw("OUTPUT_DIR") is not None or conf.raw("STORAGE") is not None
    if value == "database" or has_destination:
        return []
    return [
        Error(
            f"SITEMAPKIT_SERVE is {value!r} but neither SITEMAPKIT_OUTPUT_DIR nor "
            "SITEMAPKIT_STORAGE is set, so there are no files to serve.",
            hint="Set SITEMAPKIT_OUTPUT_DIR to the absolute path build_sitemaps writes to, or "
            "SITEMAPKIT_STORAGE to a STORAGES alias; or set SITEMAPKIT_SERVE = 'database'.",
            id="sitemapkit.E025",
        )
    ]


def check_sources(**kwargs: Any) -> list[CheckMessage]:
    errors = check_section_names(registry.all())
    for source in registry.all():
        errors += check_source(source)
    return errors


def check_section_names(sources: Iterable[BaseSource]) -> list[CheckMessage]:
    errors: list[CheckMessage] = []
    seen: dict[str, BaseSource] = {}
    for source in sources:
        name: object = source.name
        if not isinstance(name, str) or not SECTION_NAME.fullmatch(name):
            errors.append(
                Error(
                    f"{describe(source)} has the section name {source.name!r}, which cannot "
                    "appear safely in a file name.",
                    hint="Set name to 1 to 64 ASCII letters, digits, '-' or '_', starting "
                    "with a letter or digit.",
                    obj=type(source),
                    id="sitemapkit.E007",
                )
            )
            continue
        # Case-insensitive: pre-rendered files may land on a case-insensitive disk.
        other = seen.setdefault(source.name.lower(), source)
        if other is not source:
            errors.append(
                Error(
                    f"{describe(source)} has the section name {source.name!r}, already used "
                    f"by {describe(other)}.",
                    hint="Give each source its own name; names that differ only in case "
                    "count as the same.",
                    obj=type(source),
                    id="sitemapkit.E006",
                )
            )
    return errors


def check_source(source: BaseSource) -> list[CheckMessage]:
    errors = check_limit_attribute(source) + check_constants(source)
    errors += check_languages(source) + check_alternates(source)
    errors += check_items(source, "images") + check_items(source, "videos") + check_news(source)
    if isinstance(source, SitemapSource):
        errors += check_queryset_source(source)
    elif isinstance(source, StaticSource):
        errors += check_static_source(source)
    return errors


def check_languages(source: BaseSource) -> list[CheckMessage]:
    if not source.i18n:
        return []
    languages = list(language_codes(source))
    bad = [code for code in languages if not isinstance(code, str) or not HREFLANG.fullmatch(code)]
    if languages and not bad and len(set(languages)) == len(languages):
        return []
    shown = bad[0] if bad else languages
    return [
        Error(
            f"{describe(source)} declares i18n with the languages {languages!r}; "
            f"{shown!r} is not a list of distinct language codes usable as hreflang.",
            hint="Set languages to codes from LANGUAGES such as ['en', 'fr', 'pt-br'], or "
            "leave it None to use every code of LANGUAGES.",
            obj=type(source),
            id="sitemapkit.E026",
        )
    ]


def check_alternates(source: BaseSource) -> list[CheckMessage]:
    declared = type(source).alternates
    if callable(declared) or declared is False or (declared is True and source.i18n):
        if not source.x_default or has_alternates(source):
            return []
        declared = "x_default = True"
    return [
        Error(
            f"{describe(source)} declares alternates {declared!r} without languages to "
            "take them from.",
            hint="Set i18n = True with alternates = True (and x_default = True if wanted), "
            "or define an alternates(row) method returning {hreflang: location}.",
            obj=type(source),
            id="sitemapkit.E027",
        )
    ]


def check_items(source: BaseSource, attribute: str) -> list[CheckMessage]:
    """``images`` or ``videos``: a ``Related`` declaration that can be read, or a method."""
    declared = getattr(type(source), attribute)
    if declared is None or callable(declared):
        return []
    problem = related_problem(source, attribute, declared)
    if problem is None:
        return []
    names = "loc='<field path>'" if attribute == "images" else "thumbnail_loc=..., title=..."
    return [
        Error(
            f"{describe(source)} declares {attribute} {declared!r}, which {problem}.",
            hint=f"Use Related('<relation>', {names}) naming a reverse foreign key or a "
            f"many-to-many relation of the model, or define an {attribute}(row) method.",
            obj=type(source),
            id="sitemapkit.E028",
        )
    ]


def related_problem(source: BaseSource, attribute: str, declared: object) -> str | None:
    if not isinstance(declared, Related):
        return "is neither Related(...) nor a method"
    if not isinstance(source, SitemapSource) or source.queryset is None:
        return "needs a queryset source"
    names = set(declared.paths)
    if attribute == "images" and names != {"loc"}:
        return "must name exactly one value, loc"
    if attribute == "videos":
        missing = set(VIDEO_REQUIRED) - names
        unknown = names - set(VIDEO_COLUMNS)
        if unknown:
            return f"names {sorted(unknown)!r}, which are not Video fields"
        if missing or not names & {"content_loc", "player_loc"}:
            return "lacks thumbnail_loc, title, description, or content_loc/player_loc"
    try:
        queryset = source.get_queryset()
        query = RelatedQuery(queryset.model, declared, queryset.db)
        query.related_model._default_manager.values(*query.paths)
    except (FieldDoesNotExist, FieldError, TypeError) as exc:
        return f"cannot be read ({exc})"
    return None


def check_news(source: BaseSource) -> list[CheckMessage]:
    news = source.news
    if news is None:
        return []
    problem = news_problem(source, news)
    if problem is None:
        return []
    return [
        Error(
            f"{describe(source)} declares news {news!r}, which {problem}.",
            hint="Use News(name='<publication>', language='en', title='<field path>', "
            "publication_date='<date or datetime field path>') on a queryset source; "
            "language is an ISO 639 code, or zh-cn or zh-tw.",
            obj=type(source),
            id="sitemapkit.E029",
        )
    ]


def news_problem(source: BaseSource, news: object) -> str | None:
    if not isinstance(news, News):
        return "is not News(...)"
    if not isinstance(source, SitemapSource) or source.queryset is None:
        return "needs a queryset source"
    if not isinstance(news.name, str) or not news.name.strip():
        return "has no publication name"
    if not isinstance(news.language, str) or not NEWS_LANGUAGE.fullmatch(news.language):
        return f"has the language {news.language!r}, which Google News does not accept"
    try:
        field = source.get_queryset().values(news.publication_date, news.title)
    except FieldError:
        return None  # sitemapkit.E011 names the path
    output = field.query.resolve_ref(news.publication_date).output_field
    if not isinstance(output, models.DateField):
        return f"has publication_date {news.publication_date!r}, not a date or datetime field"
    return None


def check_limit_attribute(source: BaseSource) -> list[CheckMessage]:
    value = source.limit
    if value is None or (
        isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= MAX_URLS
    ):
        return []
    return [
        Error(
            f"{describe(source)} declares limit {value!r}, not a whole number from 1 to "
            f"{MAX_URLS:,}.",
            hint=f"Set limit to a number from 1 to {MAX_URLS}, or remove it to use "
            "SITEMAPKIT_LIMIT.",
            obj=type(source),
            id="sitemapkit.E014",
        )
    ]


def check_constants(source: BaseSource) -> list[CheckMessage]:
    errors: list[CheckMessage] = []
    changefreq = type(source).changefreq
    if not (changefreq is None or callable(changefreq) or isinstance(changefreq, Field)) and (
        not isinstance(changefreq, str) or changefreq not in CHANGEFREQS
    ):
        errors.append(
            Error(
                f"{describe(source)} declares changefreq {changefreq!r}, which is not a "
                "protocol value.",
                hint=f"Use one of {', '.join(map(repr, CHANGEFREQS))}, "
                "Field('<field path>'), or a changefreq(row) method.",
                obj=type(source),
                id="sitemapkit.E008",
            )
        )
    priority = type(source).priority
    if not (priority is None or callable(priority) or isinstance(priority, Field)):
        try:
            format_priority(priority)
        except InvalidEntry:
            errors.append(
                Error(
                    f"{describe(source)} declares priority {priority!r}, which is not a "
                    "number from 0.0 to 1.0.",
                    hint="Use a number from 0.0 to 1.0, Field('<field path>'), or a "
                    "priority(row) method.",
                    obj=type(source),
                    id="sitemapkit.E009",
                )
            )
    return errors + check_lastmod_constant(source)


def check_lastmod_constant(source: BaseSource) -> list[CheckMessage]:
    lastmod = type(source).lastmod
    if lastmod is None or callable(lastmod) or isinstance(lastmod, Field):
        return []
    if isinstance(source, SitemapSource) and isinstance(lastmod, str):
        return []  # a field path, checked with the others
    try:
        format_lastmod(lastmod)
    except InvalidEntry:
        return [
            Error(
                f"{describe(source)} declares lastmod {lastmod!r}, which is neither a "
                "date, a datetime, nor a field path.",
                hint="Name a date or datetime field (lastmod = 'updated_at'), or define "
                "a lastmod(row) method.",
                obj=type(source),
                id="sitemapkit.E015",
            )
        ]
    return []


def check_queryset_source(source: SitemapSource) -> list[CheckMessage]:
    if source.queryset is None:
        return [
            Error(
                f"{describe(source)} declares no queryset.",
                hint="Set queryset = Model.objects.all() (or a filtered queryset).",
                obj=type(source),
                id="sitemapkit.E013",
            )
        ]
    errors = check_field_paths(source)
    if source.url_name is not None:
        errors += check_url_name(source, source.url_name, set(source.url_kwargs))
    elif not overrides(source, "location", SitemapSource) and not hasattr(
        source.get_queryset().model, "get_absolute_url"
    ):
        errors.append(
            Error(
                f"{describe(source)} has no url_name and its model "
                f"{source.get_queryset().model._meta.label} has no get_absolute_url().",
                hint="Set url_name and url_kwargs, define get_absolute_url() on the model, "
                "or override location(row) on the source.",
                obj=type(source),
                id="sitemapkit.E013",
            )
        )
    return errors


def check_field_paths(source: SitemapSource) -> list[CheckMessage]:
    errors: list[CheckMessage] = []
    ordering = [path.removeprefix("-") for path in source.ordering]
    for path in dict.fromkeys([*columns(source, lastmod=True), *ordering]):
        try:
            source.get_queryset().values(path)
        except FieldError:
            errors.append(
                Error(
                    f"{describe(source)} names the field path {path!r}, which does not exist "
                    f"on {source.get_queryset().model._meta.label}.",
                    hint="Use a field name, or a path across relations such as 'category__slug'.",
                    obj=type(source),
                    id="sitemapkit.E011",
                )
            )
    return errors


def check_static_source(source: StaticSource) -> list[CheckMessage]:
    errors: list[CheckMessage] = []
    for item in source.urls:
        try:
            page = StaticPage.from_declaration(item)
        except TypeError as exc:
            errors.append(
                Error(
                    f"{describe(source)} lists {item!r} in urls, which is not a page.",
                    hint=str(exc).replace(f"{item!r} is not", "Use"),
                    obj=type(source),
                    id="sitemapkit.E017",
                )
            )
            continue
        if page.url_name is not None:
            errors += check_url_name(source, page.url_name, set(page.kwargs))
        elif page.path is not None:
            errors += check_fixed_url(source, page.path)
    return errors


def check_fixed_url(source: BaseSource, url: str) -> list[CheckMessage]:
    if url.startswith("/") and not url.startswith("//"):
        return []
    try:
        origin = Origin.from_parts(urlsplit(url))
        expected = Origin.from_settings()
    except (ValueError, ImproperlyConfigured):
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


def check_url_name(source: BaseSource, url_name: str, kwargs: set[str]) -> list[CheckMessage]:
    accepted = url_parameter_sets(url_name)
    if any(kwargs >= required and kwargs <= allowed for required, allowed in accepted):
        return []
    if accepted:
        expected = " or ".join(repr(sorted(allowed)) for _, allowed in accepted)
        problem = f"takes the arguments {expected}, not {sorted(kwargs)!r}"
    else:
        problem = "is not a URL name of ROOT_URLCONF"
    return [
        Error(
            f"{describe(source)} names the URL {url_name!r}, which {problem}.",
            hint="Set url_name to a name in your URLconf and url_kwargs to its arguments "
            "(URL argument -> field path).",
            obj=type(source),
            id="sitemapkit.E010",
        )
    ]


def url_parameter_sets(url_name: str) -> list[tuple[set[str], set[str]]]:
    """(required, allowed) keyword sets of every pattern ``reverse(url_name)`` may use."""
    *namespaces, name = url_name.split(":")
    resolver: URLResolver = get_resolver()
    for namespace in namespaces:
        try:
            _, resolver = resolver.namespace_dict[namespace]
        except KeyError:
            try:
                # An application namespace resolves to its default instance.
                instance = resolver.app_dict[namespace][0]
                _, resolver = resolver.namespace_dict[instance]
            except (KeyError, IndexError):
                return []
    sets = []
    for possibility, _pattern, defaults, _converters in resolver.reverse_dict.getlist(name):
        for _result, params in possibility:
            required = set(params) - set(defaults)
            sets.append((required, set(params) | set(defaults)))
    return sets


def check_urls(**kwargs: Any) -> list[CheckMessage]:
    try:
        directory = sitemap_directory_if_mounted()
    except ImproperlyConfigured:
        return []
    if directory is None:
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


def check_middleware(**kwargs: Any) -> list[CheckMessage]:
    try:
        directory = sitemap_directory_if_mounted()
    except ImproperlyConfigured:
        return []
    if directory is None:
        return []  # sitemapkit.W002
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


def sitemap_directory_if_mounted() -> str | None:
    try:
        index_path()
    except NoReverseMatch:
        return None
    return sitemap_directory()


def describe(source: BaseSource) -> str:
    cls = type(source)
    return f"Sitemap source {cls.__module__}.{cls.__qualname__}"
