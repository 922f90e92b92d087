from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
from collections.abc import Callable
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.contrib.sites.models import Site
from django.core.checks import Error, Warning
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.middleware.gzip import GZipMiddleware
from django.test import override_settings
from testapp.models import Article, Category
from testapp.sitemaps import ArticleSource, PagesSource

from django_sitemapkit import Field, News, Related, SitemapSource, StaticSource
from django_sitemapkit.checks import (
    check_middleware,
    check_settings,
    check_sites_framework,
    check_sources,
    check_urls,
)

Sources = Callable[..., None]
TESTS = Path(__file__).parent
SOURCE = "Sitemap source test_checks"


def test_valid_configuration_has_no_messages() -> None:
    assert check_settings() == []
    assert check_sources() == []
    assert check_urls() == []


# -- settings ----------------------------------------------------------------------


@pytest.mark.parametrize("value", [None, ""])
def test_e001_base_url_missing(value: str | None) -> None:
    with override_settings(SITEMAPKIT_BASE_URL=value):
        assert check_settings() == [
            Error(
                f"SITEMAPKIT_BASE_URL is not set ({value!r}).",
                hint="Set SITEMAPKIT_BASE_URL to the scheme and host the site is served on, "
                "such as 'https://www.example.com'.",
                id="sitemapkit.E001",
            )
        ]


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("www.example.com", "is not an absolute http or https URL"),
        ("ftp://www.example.com", "is not an absolute http or https URL"),
        ("https://www.example.com:http", "has an invalid port"),
    ],
)
def test_e002_base_url_not_absolute_http(value: str, problem: str) -> None:
    with override_settings(SITEMAPKIT_BASE_URL=value):
        assert check_settings() == [
            Error(
                f"SITEMAPKIT_BASE_URL {problem}: {value!r}.",
                hint="Set it to 'http://' or 'https://' followed by the site's host, such as "
                "'https://www.example.com'.",
                id="sitemapkit.E002",
            )
        ]


@pytest.mark.parametrize(
    ("value", "problem", "extra"),
    [
        ("https://www.example.com/?utm=1", "carries a query string or fragment", ""),
        ("https://www.example.com#top", "carries a query string or fragment", ""),
        ("https://me:pw@www.example.com", "carries credentials", ""),
        (
            "https://www.example.com/blog",
            "carries a path",
            " For a site deployed under a sub-path, set FORCE_SCRIPT_NAME instead.",
        ),
    ],
)
def test_e003_base_url_with_more_than_an_origin(value: str, problem: str, extra: str) -> None:
    with override_settings(SITEMAPKIT_BASE_URL=value):
        assert check_settings() == [
            Error(
                f"SITEMAPKIT_BASE_URL {problem}: {value!r}.",
                hint="Set SITEMAPKIT_BASE_URL to 'https://www.example.com'." + extra,
                id="sitemapkit.E003",
            )
        ]


@override_settings(ALLOWED_HOSTS=["example.com"], DEBUG=False)
def test_e004_host_not_allowed() -> None:
    assert check_settings() == [
        Error(
            "The host of SITEMAPKIT_BASE_URL, 'www.example.com', is not accepted by "
            "ALLOWED_HOSTS ['example.com'].",
            hint="Add 'www.example.com' to ALLOWED_HOSTS, or set SITEMAPKIT_BASE_URL to a host "
            "the site is served on.",
            id="sitemapkit.E004",
        )
    ]


@pytest.mark.parametrize(
    "allowed", [[".example.com"], ["*"], ["www.example.com"], ["WWW.EXAMPLE.COM"]]
)
def test_e004_host_allowed(allowed: list[str]) -> None:
    with override_settings(ALLOWED_HOSTS=allowed):
        assert check_settings() == []


@override_settings(ALLOWED_HOSTS=[], DEBUG=True)
def test_e004_is_quiet_in_development() -> None:
    assert check_settings() == []


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("domain", "expected"), [("www.example.com", []), ("WWW.example.com:443", []), ("shop", 1)]
)
def test_w001_sites_framework(domain: str, expected: object) -> None:
    Site.objects.update_or_create(pk=1, defaults={"domain": domain, "name": "x"})
    Site.objects.clear_cache()
    messages = check_sites_framework(databases=["default"])
    if expected == []:
        assert messages == []
    else:
        assert messages == [
            Warning(
                f"SITEMAPKIT_BASE_URL 'https://www.example.com' names another host than the "
                f"current Site's domain {domain!r} (django.contrib.sites).",
                hint="Make them agree: update the Site's domain in the admin, or "
                "SITEMAPKIT_BASE_URL. Sitemaps are built on SITEMAPKIT_BASE_URL.",
                id="sitemapkit.W001",
            )
        ]


def test_w001_runs_only_with_database_checks() -> None:
    assert check_sites_framework() == []


@pytest.mark.django_db
def test_w001_is_registered_as_a_database_check() -> None:
    Site.objects.update_or_create(pk=1, defaults={"domain": "example.com", "name": "x"})
    Site.objects.clear_cache()
    out = StringIO()
    call_command("check", databases=["default"], stdout=out, stderr=out)
    assert "(sitemapkit.W001) SITEMAPKIT_BASE_URL 'https://www.example.com' names" in out.getvalue()


@pytest.mark.parametrize("value", [0, 50_001, "100", 1.5, True, None])
def test_e012_limit(value: object) -> None:
    with override_settings(SITEMAPKIT_LIMIT=value):
        assert check_settings() == [
            Error(
                f"SITEMAPKIT_LIMIT is {value!r}, not a whole number from 1 to 50,000.",
                hint="Set SITEMAPKIT_LIMIT to at most 50000 (the protocol's cap), or remove it.",
                id="sitemapkit.E012",
            )
        ]


@override_settings(SITEMAPKIT_STRICT="yes")
def test_e016_strict_not_a_bool() -> None:
    assert check_settings() == [
        Error(
            "SITEMAPKIT_STRICT is 'yes', not True or False.",
            hint="Set SITEMAPKIT_STRICT = True to raise on invalid entries, or False to skip "
            "and log them.",
            id="sitemapkit.E016",
        )
    ]


# -- settings of pre-rendered files -----------------------------------------------------


@pytest.mark.parametrize("value", [1_024, 52_428_800])
def test_e018_max_bytes_in_range(value: int) -> None:
    with override_settings(SITEMAPKIT_MAX_BYTES=value):
        assert check_settings() == []


@pytest.mark.parametrize("value", [1_023, 52_428_801, 0, -1, "1024", 1024.0, True, None])
def test_e018_max_bytes(value: object) -> None:
    with override_settings(SITEMAPKIT_MAX_BYTES=value):
        assert check_settings() == [
            Error(
                f"SITEMAPKIT_MAX_BYTES is {value!r}, not a whole number from 1,024 to 52,428,800.",
                hint="Set SITEMAPKIT_MAX_BYTES to a number of bytes from 1024 to 52428800 "
                "(the protocol's 50 MiB), or remove it.",
                id="sitemapkit.E018",
            )
        ]


@pytest.mark.parametrize("value", [None, "/srv/sitemaps", Path("/srv/sitemaps")])
def test_e019_output_dir_absolute(value: object) -> None:
    with override_settings(SITEMAPKIT_OUTPUT_DIR=value):
        assert check_settings() == []


@pytest.mark.parametrize("value", [42, b"/srv/sitemaps", ["/srv/sitemaps"]])
def test_e019_output_dir_not_a_path(value: object) -> None:
    with override_settings(SITEMAPKIT_OUTPUT_DIR=value):
        assert check_settings() == [
            Error(
                f"SITEMAPKIT_OUTPUT_DIR is {value!r}, not a path.",
                hint="Set SITEMAPKIT_OUTPUT_DIR to the absolute path of a directory, as a str "
                "or a pathlib.Path, or to None.",
                id="sitemapkit.E019",
            )
        ]


@pytest.mark.parametrize("value", ["sitemaps", "./public/sitemaps", Path("sitemaps"), ""])
def test_e019_output_dir_relative(value: object) -> None:
    with override_settings(SITEMAPKIT_OUTPUT_DIR=value):
        assert check_settings() == [
            Error(
                f"SITEMAPKIT_OUTPUT_DIR is {value!r}, a relative path, which would change with "
                "the working directory.",
                hint="Set SITEMAPKIT_OUTPUT_DIR to an absolute path, such as "
                "BASE_DIR / 'sitemaps'.",
                id="sitemapkit.E019",
            )
        ]


@pytest.mark.parametrize("value", [None, "default", "staticfiles"])
def test_e020_storage_alias(value: str | None) -> None:
    with override_settings(SITEMAPKIT_STORAGE=value):
        assert check_settings() == []


@pytest.mark.parametrize("value", ["sitemaps", "", 42, ["default"]])
def test_e020_storage_not_an_alias(value: object) -> None:
    with override_settings(SITEMAPKIT_STORAGE=value):
        assert check_settings() == [
            Error(
                f"SITEMAPKIT_STORAGE is {value!r}, not an alias of STORAGES "
                "['default', 'staticfiles'].",
                hint="Set SITEMAPKIT_STORAGE to one of the STORAGES aliases (add one for the "
                "sitemap files if needed), or to None.",
                id="sitemapkit.E020",
            )
        ]


@override_settings(SITEMAPKIT_OUTPUT_DIR="/srv/sitemaps", SITEMAPKIT_STORAGE="default")
def test_e021_output_dir_and_storage() -> None:
    assert check_settings() == [
        Error(
            "SITEMAPKIT_OUTPUT_DIR ('/srv/sitemaps') and SITEMAPKIT_STORAGE ('default') are "
            "both set.",
            hint="Set one of them to None: SITEMAPKIT_OUTPUT_DIR to use a local directory, "
            "SITEMAPKIT_STORAGE to use a storage.",
            id="sitemapkit.E021",
        )
    ]


@override_settings(SITEMAPKIT_GZIP="yes", SITEMAPKIT_GZIP_LINKS=1)
def test_e022_gzip_settings_not_booleans() -> None:
    assert check_settings() == [
        Error(
            "SITEMAPKIT_GZIP is 'yes', not True or False.",
            hint="Set SITEMAPKIT_GZIP = True to write a .xml.gz file next to every file, or "
            "False to write none.",
            id="sitemapkit.E022",
        ),
        Error(
            "SITEMAPKIT_GZIP_LINKS is 1, not True or False.",
            hint="Set SITEMAPKIT_GZIP_LINKS = True to name the .xml.gz files in the index, or "
            "False to name the .xml files.",
            id="sitemapkit.E022",
        ),
    ]


@pytest.mark.parametrize(("gzip", "links"), [(True, True), (True, False), (False, False)])
def test_e023_gzip_links_with_gzip(gzip: bool, links: bool) -> None:
    with override_settings(SITEMAPKIT_GZIP=gzip, SITEMAPKIT_GZIP_LINKS=links):
        assert check_settings() == []


@override_settings(SITEMAPKIT_GZIP=False, SITEMAPKIT_GZIP_LINKS=True)
def test_e023_gzip_links_without_gzip() -> None:
    assert check_settings() == [
        Error(
            "SITEMAPKIT_GZIP_LINKS is True while SITEMAPKIT_GZIP is False, so the index would "
            "name .xml.gz files that build_sitemaps does not write.",
            hint="Set SITEMAPKIT_GZIP = True, or SITEMAPKIT_GZIP_LINKS = False.",
            id="sitemapkit.E023",
        )
    ]


@pytest.mark.parametrize("value", ["file", "Files", "", None, ["files"]])
def test_e024_serve(value: object) -> None:
    with override_settings(SITEMAPKIT_SERVE=value):
        assert check_settings() == [
            Error(
                f"SITEMAPKIT_SERVE is {value!r}, not one of 'database', 'files', "
                "'files-or-database'.",
                hint="Set SITEMAPKIT_SERVE to 'database' (the default), 'files' or "
                "'files-or-database'.",
                id="sitemapkit.E024",
            )
        ]


@pytest.mark.parametrize(
    "place",
    [{"SITEMAPKIT_OUTPUT_DIR": "/srv/sitemaps"}, {"SITEMAPKIT_STORAGE": "default"}],
)
@pytest.mark.parametrize("value", ["database", "files", "files-or-database"])
def test_e025_serving_files_with_a_place_to_read(value: str, place: dict[str, str]) -> None:
    with override_settings(SITEMAPKIT_SERVE=value, **place):
        assert check_settings() == []


@pytest.mark.parametrize("value", ["files", "files-or-database"])
def test_e025_serving_files_from_nowhere(value: str) -> None:
    with override_settings(SITEMAPKIT_SERVE=value):
        assert check_settings() == [
            Error(
                f"SITEMAPKIT_SERVE is {value!r} but neither SITEMAPKIT_OUTPUT_DIR nor "
                "SITEMAPKIT_STORAGE is set, so there are no files to serve.",
                hint="Set SITEMAPKIT_OUTPUT_DIR to the absolute path build_sitemaps writes to, "
                "or SITEMAPKIT_STORAGE to a STORAGES alias; or set SITEMAPKIT_SERVE = "
                "'database'.",
                id="sitemapkit.E025",
            )
        ]


# -- sources ------------------------------------------------------------------------


class OtherHost(StaticSource):
    name = "elsewhere"
    urls = ["/fine/", "https://www.example.com/fine/", "https://cdn.example.net/file/"]


def test_e005_fixed_url_on_another_host(sources: Sources) -> None:
    sources(OtherHost)
    assert check_sources() == [
        Error(
            f"{SOURCE}.OtherHost lists the URL 'https://cdn.example.net/file/', which is not on "
            "SITEMAPKIT_BASE_URL 'https://www.example.com'.",
            hint="A sitemap lists URLs of one host only: list a path starting with '/', "
            "or remove the URL.",
            obj=OtherHost,
            id="sitemapkit.E005",
        )
    ]


class Duplicate(ArticleSource):
    name = "Articles"


def test_e006_duplicate_section_names(sources: Sources) -> None:
    sources(ArticleSource, PagesSource, Duplicate)
    assert check_sources() == [
        Error(
            f"{SOURCE}.Duplicate has the section name 'Articles', already used by "
            "Sitemap source testapp.sitemaps.ArticleSource.",
            hint="Give each source its own name; names that differ only in case count as the same.",
            obj=Duplicate,
            id="sitemapkit.E006",
        )
    ]


@pytest.mark.parametrize("name", ["", "../etc", "a/b", "a b", "-lead", "\u00e9t\u00e9", "x" * 65])
def test_e007_unsafe_section_name(sources: Sources, name: str) -> None:
    unsafe = type("Unsafe", (PagesSource,), {"name": name, "__module__": __name__})
    sources(unsafe)
    assert check_sources() == [
        Error(
            f"{SOURCE}.Unsafe has the section name {name!r}, which cannot appear safely in a "
            "file name.",
            hint="Set name to 1 to 64 ASCII letters, digits, '-' or '_', starting with a "
            "letter or digit.",
            obj=unsafe,
            id="sitemapkit.E007",
        )
    ]


class BadChangefreq(ArticleSource):
    changefreq = "Weekly"


def test_e008_changefreq(sources: Sources) -> None:
    sources(BadChangefreq)
    assert check_sources() == [
        Error(
            f"{SOURCE}.BadChangefreq declares changefreq 'Weekly', which is not a protocol value.",
            hint="Use one of 'always', 'hourly', 'daily', 'weekly', 'monthly', 'yearly', "
            "'never', Field('<field path>'), or a changefreq(row) method.",
            obj=BadChangefreq,
            id="sitemapkit.E008",
        )
    ]


@pytest.mark.parametrize("value", [1.5, -0.1, "0.5"])
def test_e009_priority(sources: Sources, value: object) -> None:
    bad = type("BadPriority", (ArticleSource,), {"priority": value, "__module__": __name__})
    sources(bad)
    assert check_sources() == [
        Error(
            f"{SOURCE}.BadPriority declares priority {value!r}, which is not a number from "
            "0.0 to 1.0.",
            hint="Use a number from 0.0 to 1.0, Field('<field path>'), or a priority(row) method.",
            obj=bad,
            id="sitemapkit.E009",
        )
    ]


class UnknownUrl(ArticleSource):
    url_name = "no-such-url"


class WrongKwargs(ArticleSource):
    url_kwargs = {"pk": "pk"}


class StaticWrongKwargs(StaticSource):
    name = "static"
    urls = ["home", ("category-detail", {})]


@pytest.mark.parametrize(
    ("source", "problem"),
    [
        (UnknownUrl, "names the URL 'no-such-url', which is not a URL name of ROOT_URLCONF"),
        (
            WrongKwargs,
            "names the URL 'article-detail', which takes the arguments ['slug'], not ['pk']",
        ),
        (
            StaticWrongKwargs,
            "names the URL 'category-detail', which takes the arguments ['category'], not []",
        ),
    ],
)
def test_e010_url_name_does_not_reverse(sources: Sources, source: type, problem: str) -> None:
    sources(source)
    assert check_sources() == [
        Error(
            f"{SOURCE}.{source.__name__} {problem}.",
            hint="Set url_name to a name in your URLconf and url_kwargs to its arguments "
            "(URL argument -> field path).",
            obj=source,
            id="sitemapkit.E010",
        )
    ]


class Namespaced(ArticleSource):
    url_name = "sitemapkit:page"
    url_kwargs = {"section": "slug", "page": "pk"}


def test_e010_accepts_namespaced_url_names(sources: Sources) -> None:
    sources(Namespaced)
    assert check_sources() == []


class BadPaths(SitemapSource):
    name = "bad-paths"
    queryset = Article.objects.all()
    url_name = "article-detail"
    url_kwargs = {"slug": "category__nope"}
    lastmod = "modified"
    priority = Field("weight")
    ordering = ("-rank",)


def test_e011_field_paths(sources: Sources) -> None:
    sources(BadPaths)
    assert check_sources() == [
        Error(
            f"{SOURCE}.BadPaths names the field path {path!r}, which does not exist on "
            "testapp.Article.",
            hint="Use a field name, or a path across relations such as 'category__slug'.",
            obj=BadPaths,
            id="sitemapkit.E011",
        )
        for path in ["category__nope", "modified", "weight", "rank"]
    ]


class NoQueryset(SitemapSource):
    name = "none"


class NoLocation(SitemapSource):
    name = "no-location"
    queryset = Category.objects.all()


def test_e013_no_queryset_or_no_way_to_locate(sources: Sources) -> None:
    sources(NoQueryset, NoLocation)
    hint = (
        "Set url_name and url_kwargs, define get_absolute_url() on the model, "
        "or override location(row) on the source."
    )
    assert check_sources() == [
        Error(
            f"{SOURCE}.NoQueryset declares no queryset.",
            hint="Set queryset = Model.objects.all() (or a filtered queryset).",
            obj=NoQueryset,
            id="sitemapkit.E013",
        ),
        Error(
            f"{SOURCE}.NoLocation has no url_name and its model testapp.Category has no "
            "get_absolute_url().",
            hint=hint,
            obj=NoLocation,
            id="sitemapkit.E013",
        ),
    ]


@pytest.mark.parametrize("value", [0, 50_001, "10", True])
def test_e014_source_limit(sources: Sources, value: object) -> None:
    bad = type("BadLimit", (ArticleSource,), {"limit": value, "__module__": __name__})
    sources(bad)
    assert check_sources() == [
        Error(
            f"{SOURCE}.BadLimit declares limit {value!r}, not a whole number from 1 to 50,000.",
            hint="Set limit to a number from 1 to 50000, or remove it to use SITEMAPKIT_LIMIT.",
            obj=bad,
            id="sitemapkit.E014",
        )
    ]


class BadStaticLastmod(StaticSource):
    name = "static"
    urls = ["home"]
    lastmod: Any = "2024-01-01"


def test_e015_lastmod_constant(sources: Sources) -> None:
    sources(BadStaticLastmod)
    assert check_sources() == [
        Error(
            f"{SOURCE}.BadStaticLastmod declares lastmod '2024-01-01', which is neither a "
            "date, a datetime, nor a field path.",
            hint="Name a date or datetime field (lastmod = 'updated_at'), or define a "
            "lastmod(row) method.",
            obj=BadStaticLastmod,
            id="sitemapkit.E015",
        )
    ]


class GoodStaticLastmod(BadStaticLastmod):
    lastmod = dt.date(2024, 1, 1)


def test_e015_accepts_a_date(sources: Sources) -> None:
    sources(GoodStaticLastmod)
    assert check_sources() == []


class BadStaticItem(StaticSource):
    name = "static"
    urls = ["home", 42]


def test_e017_static_item(sources: Sources) -> None:
    sources(BadStaticItem)
    assert check_sources() == [
        Error(
            f"{SOURCE}.BadStaticItem lists 42 in urls, which is not a page.",
            hint="Use a URL name, a (URL name, kwargs) pair, or a path starting with '/'.",
            obj=BadStaticItem,
            id="sitemapkit.E017",
        )
    ]


# -- URLconf ---------------------------------------------------------------------------


@override_settings(ROOT_URLCONF="testapp.urls_without_sitemaps")
def test_w002_urls_not_included() -> None:
    assert check_urls() == [
        Warning(
            "django_sitemapkit.urls is not included in ROOT_URLCONF, so the sitemap index and "
            "pages have no URL.",
            hint="Add path('', include('django_sitemapkit.urls')) to your urlpatterns.",
            id="sitemapkit.W002",
        )
    ]


@override_settings(ROOT_URLCONF="testapp.urls_subpath")
def test_w003_mounted_under_a_sub_path() -> None:
    assert check_urls() == [
        Warning(
            "django_sitemapkit.urls is mounted under '/shop/': by the protocol's location rule "
            "the sitemap may then list only URLs under that path, and other entries are "
            "skipped.",
            hint="Include django_sitemapkit.urls at the root of your URLconf: "
            "path('', include('django_sitemapkit.urls')).",
            id="sitemapkit.W003",
        )
    ]


@override_settings(ROOT_URLCONF="testapp.urls_subpath", FORCE_SCRIPT_NAME="/shop")
def test_w003_quiet_when_the_whole_site_is_under_the_prefix() -> None:
    # Mounted at the root of a site deployed under /shop/shop/... is still a
    # sub-path; mounted at the root of the URLconf is not.
    assert check_urls()[0].id == "sitemapkit.W003"
    with override_settings(ROOT_URLCONF="testapp.urls"):
        assert check_urls() == []


# -- middleware ----------------------------------------------------------------------


class CompressingMiddleware(GZipMiddleware):
    pass


def not_a_class(get_response: object) -> object:
    return get_response


GZIP_HINT = (
    "Remove it from MIDDLEWARE and compress in the web server or CDN instead, by content "
    "type (application/xml, not application/gzip)."
)


def w004(entry: str) -> Warning:
    return Warning(
        f"MIDDLEWARE lists {entry!r}, which compresses responses without regard to their type: "
        "the sitemap's .xml.gz files (application/gzip) would be gzipped a second time.",
        hint=GZIP_HINT,
        id="sitemapkit.W004",
    )


@override_settings(
    MIDDLEWARE=[
        "django.middleware.common.CommonMiddleware",
        "no.such.Middleware",
        "testapp.NoSuchMiddleware",
        f"{__name__}.not_a_class",
        "django.middleware.gzip.GZipMiddleware",
        f"{__name__}.CompressingMiddleware",
    ]
)
def test_w004_gzip_middleware_and_its_subclasses() -> None:
    assert check_middleware() == [
        w004("django.middleware.gzip.GZipMiddleware"),
        w004(f"{__name__}.CompressingMiddleware"),
    ]


def test_w004_survives_a_middleware_whose_module_fails_to_import(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "broken_middleware.py").write_text("raise RuntimeError('needs a setting')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    middleware = ["broken_middleware.Middleware", "django.middleware.gzip.GZipMiddleware"]
    with override_settings(MIDDLEWARE=middleware):
        assert check_middleware() == [w004("django.middleware.gzip.GZipMiddleware")]


@override_settings(MIDDLEWARE=["django.middleware.common.CommonMiddleware"])
def test_w004_quiet_without_it() -> None:
    assert check_middleware() == []


@override_settings(
    MIDDLEWARE=["django.middleware.gzip.GZipMiddleware"],
    ROOT_URLCONF="testapp.urls_without_sitemaps",
)
def test_w004_quiet_when_the_sitemap_is_not_mounted() -> None:
    assert check_middleware() == []


# -- registration -------------------------------------------------------------------


@override_settings(SITEMAPKIT_BASE_URL="ftp://www.example.com")
def test_checks_are_registered() -> None:
    with pytest.raises(SystemCheckError, match=r"sitemapkit\.E002"):
        call_command("check")


@pytest.mark.parametrize(
    ("setting", "value", "check_id"),
    [
        ("SITEMAPKIT_MAX_BYTES", 100, "E018"),
        ("SITEMAPKIT_OUTPUT_DIR", "sitemaps", "E019"),
        ("SITEMAPKIT_STORAGE", "sitemaps", "E020"),
        ("SITEMAPKIT_GZIP", "no", "E022"),
        ("SITEMAPKIT_SERVE", "file", "E024"),
        ("SITEMAPKIT_SERVE", "files", "E025"),
    ],
)
def test_file_settings_checks_are_registered(setting: str, value: object, check_id: str) -> None:
    with (
        override_settings(**{setting: value}),
        pytest.raises(SystemCheckError, match=rf"\(sitemapkit\.{check_id}\) {setting} is "),
    ):
        call_command("check")


@override_settings(
    SITEMAPKIT_OUTPUT_DIR="/srv/sitemaps",
    SITEMAPKIT_STORAGE="default",
    SITEMAPKIT_GZIP=False,
    SITEMAPKIT_GZIP_LINKS=True,
)
def test_combination_checks_are_registered() -> None:
    with pytest.raises(SystemCheckError) as info:
        call_command("check")
    assert "(sitemapkit.E021) SITEMAPKIT_OUTPUT_DIR ('/srv/sitemaps')" in str(info.value)
    assert "(sitemapkit.E023) SITEMAPKIT_GZIP_LINKS is True" in str(info.value)


@override_settings(MIDDLEWARE=["django.middleware.gzip.GZipMiddleware"])
def test_middleware_check_is_registered() -> None:
    out = StringIO()
    call_command("check", stdout=out, stderr=out)
    assert (
        "?: (sitemapkit.W004) MIDDLEWARE lists 'django.middleware.gzip.GZipMiddleware', "
        "which compresses responses" in out.getvalue()
    )


def test_manage_py_check_fails_on_a_bad_setting() -> None:
    env = {
        **os.environ,
        "PYTHONPATH": str(TESTS),
        "DJANGO_SETTINGS_MODULE": "settings_bad_base_url",
    }
    result = subprocess.run(
        [sys.executable, "-m", "django", "check"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert result.returncode == 1
    assert result.stdout == ""
    assert (
        "?: (sitemapkit.E002) SITEMAPKIT_BASE_URL is not an absolute http or https URL: "
        "'ftp://www.example.com'." in result.stderr
    )
    assert "System check identified 1 issue (0 silenced)." in result.stderr


# -- extensions ---------------------------------------------------------------------


class GoodExtensions(ArticleSource):
    name = "good-extensions"
    i18n = True
    languages = ["en", "pt-br", "zh-Hant"]
    alternates = True
    x_default = True
    images = Related("photos", loc="file")
    videos = Related(
        "clips",
        thumbnail_loc="thumbnail",
        title="title",
        description="description",
        content_loc="file_url",
        duration="seconds",
    )
    news = News(name="Times", language="zh-cn", title="title", publication_date="published_on")


def test_valid_extensions_have_no_messages(sources: Sources) -> None:
    sources(GoodExtensions)
    assert check_sources() == []


@pytest.mark.parametrize(
    ("languages", "shown"),
    [([], "[]"), (["en", "en_US"], "'en_US'"), (["en", "en"], "['en', 'en']")],
)
def test_e026_languages(sources: Sources, languages: list[str], shown: str) -> None:
    bad = type(
        "BadLanguages",
        (ArticleSource,),
        {"i18n": True, "languages": languages, "__module__": __name__},
    )
    sources(bad)
    assert check_sources() == [
        Error(
            f"{SOURCE}.BadLanguages declares i18n with the languages {languages!r}; {shown} "
            "is not a list of distinct language codes usable as hreflang.",
            hint="Set languages to codes from LANGUAGES such as ['en', 'fr', 'pt-br'], or "
            "leave it None to use every code of LANGUAGES.",
            obj=bad,
            id="sitemapkit.E026",
        )
    ]


@pytest.mark.parametrize(
    ("attributes", "shown"),
    [
        ({"alternates": True}, "True"),
        ({"alternates": {"en": "/"}}, "{'en': '/'}"),
        ({"i18n": True, "x_default": True}, "'x_default = True'"),
    ],
)
def test_e027_alternates_without_languages(
    sources: Sources, attributes: dict[str, object], shown: str
) -> None:
    bad = type("BadAlternates", (ArticleSource,), {**attributes, "__module__": __name__})
    sources(bad)
    assert check_sources() == [
        Error(
            f"{SOURCE}.BadAlternates declares alternates {shown} without languages to take "
            "them from.",
            hint="Set i18n = True with alternates = True (and x_default = True if wanted), "
            "or define an alternates(row) method returning {hreflang: location}.",
            obj=bad,
            id="sitemapkit.E027",
        )
    ]


@pytest.mark.parametrize(
    ("attribute", "value", "problem"),
    [
        ("images", "photos", "is neither Related(...) nor a method"),
        ("images", Related("photos", url="url"), "must name exactly one value, loc"),
        (
            "images",
            Related("category", loc="slug"),
            "cannot be read (Article.category is not a reverse foreign key or a many-to-many "
            "relation)",
        ),
        (
            "images",
            Related("photos", loc="nope"),
            "cannot be read (Photo has no field named 'nope')",
        ),
        (
            "videos",
            Related("clips", thumbnail_loc="thumbnail", title="title", description="description"),
            "lacks thumbnail_loc, title, description, or content_loc/player_loc",
        ),
        (
            "videos",
            Related("clips", tags="title"),
            "names ['tags'], which are not Video fields",
        ),
    ],
)
def test_e028_images_and_videos(
    sources: Sources, attribute: str, value: object, problem: str
) -> None:
    bad = type("BadItems", (ArticleSource,), {attribute: value, "__module__": __name__})
    sources(bad)
    names = "loc='<field path>'" if attribute == "images" else "thumbnail_loc=..., title=..."
    assert check_sources() == [
        Error(
            f"{SOURCE}.BadItems declares {attribute} {value!r}, which {problem}.",
            hint=f"Use Related('<relation>', {names}) naming a reverse foreign key or a "
            f"many-to-many relation of the model, or define an {attribute}(row) method.",
            obj=bad,
            id="sitemapkit.E028",
        )
    ]


def test_e028_related_needs_a_queryset_source(sources: Sources) -> None:
    bad = type(
        "StaticImages",
        (PagesSource,),
        {"images": Related("photos", loc="url"), "__module__": __name__},
    )
    sources(bad)
    assert [(error.id, error.msg.rsplit(", which ", 1)[1]) for error in check_sources()] == [
        ("sitemapkit.E028", "needs a queryset source.")
    ]


NEWS = {"name": "Times", "language": "en", "title": "title", "publication_date": "updated_at"}


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"name": " "}, "has no publication name"),
        ({"language": "en-US"}, "has the language 'en-US', which Google News does not accept"),
        ({"publication_date": "slug"}, "has publication_date 'slug', not a date or datetime field"),
    ],
)
def test_e029_news(sources: Sources, change: dict[str, str], problem: str) -> None:
    news = News(**{**NEWS, **change})
    bad = type("BadNews", (ArticleSource,), {"news": news, "__module__": __name__})
    sources(bad)
    assert check_sources() == [
        Error(
            f"{SOURCE}.BadNews declares news {news!r}, which {problem}.",
            hint="Use News(name='<publication>', language='en', title='<field path>', "
            "publication_date='<date or datetime field path>') on a queryset source; "
            "language is an ISO 639 code, or zh-cn or zh-tw.",
            obj=bad,
            id="sitemapkit.E029",
        )
    ]


def test_e029_leaves_a_missing_field_path_to_e011(sources: Sources) -> None:
    news = News(**{**NEWS, "title": "headline"})
    bad = type("MissingNewsField", (ArticleSource,), {"news": news, "__module__": __name__})
    sources(bad)
    assert [(error.id, error.msg.split(", which")[0]) for error in check_sources()] == [
        (
            "sitemapkit.E011",
            f"{SOURCE}.MissingNewsField names the field path 'headline'",
        )
    ]


@pytest.mark.parametrize("value", [dt.timedelta(0), 2, "2 days", None])
def test_e030_news_max_age(value: object) -> None:
    with override_settings(SITEMAPKIT_NEWS_MAX_AGE=value):
        assert check_settings() == [
            Error(
                f"SITEMAPKIT_NEWS_MAX_AGE is {value!r}, not a positive timedelta.",
                hint="Set it to a datetime.timedelta such as timedelta(days=2) (Google News "
                "reads articles of the last two days), or remove it.",
                id="sitemapkit.E030",
            )
        ]


def test_extension_checks_are_registered(sources: Sources) -> None:
    bad = type("BadRegistered", (ArticleSource,), {"alternates": True, "__module__": __name__})
    sources(bad)
    with pytest.raises(SystemCheckError, match=r"\(sitemapkit\.E027\) Sitemap source "):
        call_command("check")
