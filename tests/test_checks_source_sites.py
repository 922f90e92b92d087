"""Checks of the sites a source lists on (checks/sites/source_sites.py): the names of
``sites`` (E043, W015), their kind and get_site_queryset's (E031), and a
StaticSource's absolute URLs against each site's host (E005)."""

from __future__ import annotations

from collections.abc import Callable
from io import StringIO
from typing import Any, ClassVar

import pytest
from django.core.checks import Error, Warning
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.test import override_settings
from testapp.sitemaps import ArticleSource, PagesSource

from django_sitemapkit import StaticSource
from django_sitemapkit.checks import check_sources

Sources = Callable[..., None]
SOURCE = f"Sitemap source {__name__}"
SITES = {
    "www": "https://www.example.com",
    "shop": "https://shop.example.com",
    "Blog": "https://blog.example.com",
}
SEVERAL = override_settings(
    SITEMAPKIT_BASE_URL=None, SITEMAPKIT_SITES=SITES, ALLOWED_HOSTS=[".example.com"]
)


def on(*names: str, base: type[Any] = ArticleSource) -> type[Any]:
    return type("OnSites", (base,), {"sites": list(names), "__module__": __name__})


def e043(source: type[Any], names: str, hint: str) -> Error:
    return Error(
        f"{SOURCE}.{source.__name__} declares sites {list(source.sites)!r}: {names}.",
        hint=hint,
        obj=source,
        id="sitemapkit.E043",
    )


@SEVERAL
def test_quiet_for_known_names(sources: Sources) -> None:
    sources(on("www", "Blog"), PagesSource)
    assert check_sources() == []


@SEVERAL
@pytest.mark.parametrize(
    ("names", "found", "hint"),
    [
        (
            ("www", "Shop"),
            "'Shop' is not a site of SITEMAPKIT_SITES",
            "Set sites = ['www', 'shop']: a site's name is matched exactly.",
        ),
        (
            ("blog", "shop."),
            "'blog', 'shop.' are not a site of SITEMAPKIT_SITES",
            "Set sites = ['Blog', 'shop']: a site's name is matched exactly.",
        ),
        (
            ("www", "store"),
            "'store' is not a site of SITEMAPKIT_SITES",
            "Name sites of SITEMAPKIT_SITES: 'www', 'shop', 'Blog'.",
        ),
    ],
)
def test_e043_a_name_sitemapkit_sites_does_not_have(
    sources: Sources, names: tuple[str, ...], found: str, hint: str
) -> None:
    source = on(*names)
    sources(source)
    assert check_sources() == [e043(source, found, hint)]


@SEVERAL
def test_e043_is_registered(sources: Sources) -> None:
    sources(on("store"))
    with pytest.raises(SystemCheckError, match=r"sitemapkit\.E043\) Sitemap source .*'store'"):
        call_command("check")


def test_w015_sites_without_sitemapkit_sites(sources: Sources) -> None:
    source = on("www")
    sources(source)
    w015 = Warning(
        f"{SOURCE}.OnSites declares sites ['www'], but SITEMAPKIT_SITES is not set: the "
        "project has one site, and the source is listed on it.",
        hint="Remove sites from the source, or list the project's sites in SITEMAPKIT_SITES.",
        obj=source,
        id="sitemapkit.W015",
    )
    assert check_sources() == [w015]
    out = StringIO()
    call_command("check", stdout=out, stderr=out)
    assert "(sitemapkit.W015) Sitemap source" in out.getvalue()


@override_settings(SITEMAPKIT_BASE_URL=None, SITEMAPKIT_SITES="django.contrib.sites")
def test_names_of_site_rows_are_left_to_the_database_check(sources: Sources) -> None:
    # No django_db mark: a query would fail the test.
    sources(on("store"))
    assert check_sources() == []


# -- E031: the kinds of sites and get_site_queryset -----------------------------------


def e031(source: type[Any], attribute: str, shown: str, expected: str, hint: str) -> Error:
    return Error(
        f"{SOURCE}.{source.__name__} declares {attribute} {shown}, not {expected}.",
        hint=hint,
        obj=source,
        id="sitemapkit.E031",
    )


class OneString(ArticleSource):
    name = "one"
    sites: ClassVar[Any] = "www"


class NotNames(ArticleSource):
    name = "not-names"
    sites: ClassVar[Any] = ["www", 3]


class HookShadowed(ArticleSource):
    name = "shadowed"
    get_site_queryset: Any = None


@SEVERAL
def test_e031_sites_and_get_site_queryset(sources: Sources) -> None:
    sources(OneString, NotNames, HookShadowed)
    names = "a list or tuple of site names (str) or None"
    assert check_sources() == [
        e031(
            OneString,
            "sites",
            "'www'",
            names,
            "Set sites = ['www']: a list of site names, not one string.",
        ),
        e031(
            NotNames,
            "sites",
            "['www', 3]",
            names,
            "Set sites to a list of the names of the sites that list the source, such as "
            "['www'], or to None to list it on every site.",
        ),
        e031(
            HookShadowed,
            "get_site_queryset",
            "None",
            "a method",
            "Define get_site_queryset(self, site) as a method returning a queryset, or remove "
            "it to list the rows of get_queryset() on every site.",
        ),
    ]


# -- E005: absolute URLs against each site's host -------------------------------------


class Fixed(StaticSource):
    name = "fixed"
    urls = ["/about/", "https://shop.example.com/cart/"]


def e005(source: type[Any], missed: str, hint: str) -> Error:
    return Error(
        f"{SOURCE}.{source.__name__} lists the URL 'https://shop.example.com/cart/', which is "
        f"not on the base URL of {missed} of SITEMAPKIT_SITES.",
        hint="A sitemap lists URLs of its own host only: list a path starting with '/', or " + hint,
        obj=source,
        id="sitemapkit.E005",
    )


ONLY_SHOP = "set sites = ['shop'] to list the source on that host only."


@SEVERAL
@pytest.mark.parametrize(
    ("names", "missed"),
    [
        (None, "sites 'www' ('https://www.example.com'), 'Blog' ('https://blog.example.com')"),
        (["shop", "Blog"], "site 'Blog' ('https://blog.example.com')"),
    ],
)
def test_e005_a_url_not_on_every_site_of_the_source(
    sources: Sources, names: list[str] | None, missed: str
) -> None:
    source = type("Fixed", (Fixed,), {"sites": names, "__module__": __name__})
    sources(source)
    assert check_sources() == [e005(source, missed, ONLY_SHOP)]


@SEVERAL
def test_e005_a_url_on_no_site(sources: Sources) -> None:
    source = type(
        "Fixed", (Fixed,), {"urls": ["https://shop.example.com/cart/"], "__module__": __name__}
    )
    with override_settings(SITEMAPKIT_SITES={"www": "https://www.example.com"}):
        sources(source)
        assert check_sources() == [
            e005(source, "site 'www' ('https://www.example.com')", "remove the URL.")
        ]


@SEVERAL
def test_e005_quiet_on_the_sites_of_its_host(sources: Sources) -> None:
    sources(type("Fixed", (Fixed,), {"sites": ["shop"], "__module__": __name__}))
    assert check_sources() == []
    assert "sitemapkit" not in call_command_output()


def call_command_output() -> str:
    out = StringIO()
    call_command("check", stdout=out, stderr=out)
    return out.getvalue()
