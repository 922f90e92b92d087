"""What the drop-in gives a contrib class (``compat/served.py``): the ``site`` of
``get_urls()``, a ``Site`` row of the site served (the row of its host, else
``SITE_ID``'s) or an object like ``RequestSite`` with ``pk``, ``domain`` and
``name``; and, to a class whose ``__init__`` takes it, the request: the one
answered, or one built on the site's base URL for ``register()`` and the build; and
the site served, whose missing base URL says when the app's checks never ran."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import pytest
from django.conf import settings as django_settings
from django.contrib.sitemaps import Sitemap
from django.contrib.sites.models import Site
from django.core.management import call_command
from django.http import HttpRequest
from django.test import Client, RequestFactory, override_settings
from django.urls import include, path
from sitemap_xml import fetch, parse_urlset

from django_sitemapkit import compat
from django_sitemapkit.compat.served import OriginSite, given_site, takes_request
from django_sitemapkit.registry import registry
from django_sitemapkit.sites.base_urls import Origin
from django_sitemapkit.sites.hosts import UnknownHost, site_for_request

pytestmark = [pytest.mark.django_db, pytest.mark.urls(__name__)]
WWW = "https://www.example.com"


class SiteSitemap(Sitemap):  # type: ignore[type-arg]
    """Writes its own URL dicts, as django CMS's does, from the site it is given."""

    given: ClassVar[list[Any]] = []

    def items(self) -> list[str]:
        return ["/page/"]

    def location(self, item: str) -> str:
        return item

    def get_urls(self, page: Any = 1, site: Any = None, protocol: Any = None) -> list[Any]:
        SiteSitemap.given.append(site)
        return super().get_urls(page, site, protocol)


class RequestSitemap(Sitemap):  # type: ignore[type-arg]
    """Takes the request, as Wagtail's does, and lists the path it asked for."""

    seen: ClassVar[list[HttpRequest]] = []

    def __init__(self, request: HttpRequest | None = None) -> None:
        assert request is not None
        RequestSitemap.seen.append(request)
        self.request = request

    def items(self) -> list[str]:
        return [f"/seen{self.request.path}"]

    def location(self, item: str) -> str:
        return item


SITEMAPS = {"site": SiteSitemap, "request": RequestSitemap}
urlpatterns = [
    path("served.xml", compat.sitemap, {"sitemaps": SITEMAPS}),
    path("", include("django_sitemapkit.urls")),
]


@pytest.fixture(autouse=True)
def recorded() -> None:
    SiteSitemap.given.clear()
    RequestSitemap.seen.clear()


def served(client: Client, url: str = "/served.xml") -> list[str]:
    status, body, _ = fetch(client, url)
    assert status == 200
    return [url.loc for url in parse_urlset(body)]


def test_the_site_is_the_row_of_the_served_host() -> None:
    row = Site.objects.create(domain="WWW.example.com.", name="www")
    assert given_site(Origin.from_url(WWW)) == row


def test_else_the_row_site_id_names(client: Client) -> None:
    assert Site.objects.get(pk=1).domain == "example.com"
    assert served(client)[0] == f"{WWW}/page/"
    assert SiteSitemap.given == [Site.objects.get(pk=1)]


@override_settings(SITE_ID=None)
def test_without_a_row_an_object_like_request_site() -> None:
    found = given_site(Origin.from_url("https://www.example.com:8443"))
    assert isinstance(found, OriginSite)
    assert (found.pk, found.domain, found.name, str(found)) == (
        None,
        "www.example.com:8443",
        "www.example.com:8443",
        "www.example.com:8443",
    )


def test_without_the_sites_framework_too() -> None:
    apps = [app for app in django_settings.INSTALLED_APPS if app != "django.contrib.sites"]
    with override_settings(INSTALLED_APPS=apps):
        found = given_site(Origin.from_url(WWW))
    assert (type(found), found.pk, found.domain) == (OriginSite, None, "www.example.com")


def test_the_views_give_the_request_they_answer(client: Client) -> None:
    assert served(client) == [f"{WWW}/page/", f"{WWW}/seen/served.xml"]
    assert [request.path for request in RequestSitemap.seen] == ["/served.xml"]


def test_a_registered_section_and_the_build_give_a_request_on_the_base_url(
    client: Client, tmp_path: Path
) -> None:
    saved = registry.all()
    registry._sources = []
    compat.register({"request": RequestSitemap})
    try:
        assert served(client, "/sitemap-request-1.xml") == [f"{WWW}/seen/"]
        call_command("build_sitemaps", output=str(tmp_path), verbosity=0)
    finally:
        registry._sources = saved
    built = parse_urlset((tmp_path / "sitemap-request-1.xml").read_bytes())
    assert [url.loc for url in built] == [f"{WWW}/seen/"]
    assert {
        (request.scheme, request.get_host(), request.get_port(), request.path)
        for request in RequestSitemap.seen
    } == {("https", "www.example.com", "443", "/")}


def test_only_a_parameter_named_request_is_given_it() -> None:
    class Keyword(Sitemap):  # type: ignore[type-arg]
        def __init__(self, *, request: Any = None) -> None: ...

    class Other(Sitemap):  # type: ignore[type-arg]
        def __init__(self, *args: Any, **kwargs: Any) -> None: ...

    found = [takes_request(value) for value in (Keyword, RequestSitemap, Other, Sitemap)]
    assert found == [True, True, False, False]
    # An instance is used as it is.
    assert not takes_request(RequestSitemap(HttpRequest()))


BASE_URL_UNSET = (
    "SITEMAPKIT_BASE_URL is not set (None); set it to the scheme and host the site is served "
    "on, such as 'https://www.example.com', add django.contrib.sites to INSTALLED_APPS and set "
    "SITE_ID, or list several sites in SITEMAPKIT_SITES."
)


@pytest.mark.urls("testapp.urls_compat")
@pytest.mark.parametrize(
    ("apps", "message"),
    [
        (
            ["django.contrib.contenttypes", "testapp"],
            f"{BASE_URL_UNSET} django_sitemapkit is not in INSTALLED_APPS, so manage.py check, "
            "which reports this, does not check its settings. Add it to your settings: "
            'INSTALLED_APPS += ["django_sitemapkit"].',
        ),
        # Installed, sitemapkit.E001 says it at manage.py check.
        (["django.contrib.contenttypes", "testapp", "django_sitemapkit"], BASE_URL_UNSET),
    ],
)
def test_a_missing_base_url_names_the_setting_and_the_unchecked_app(
    apps: list[str], message: str, caplog: pytest.LogCaptureFixture
) -> None:
    # Found by following docs/migrating.md: without the app, check was clean and
    # the drop-in's first request a 500 that did not say why nothing had warned.
    client = Client(raise_request_exception=False)
    with override_settings(INSTALLED_APPS=apps, SITEMAPKIT_BASE_URL=None):
        for url in ("/compat/sitemap.xml", "/compat/sitemap-static.xml"):
            caplog.clear()
            assert client.get(url).status_code == 500
            (record,) = [r for r in caplog.records if r.name == "django.request"]
            assert record.exc_info is not None
            assert str(record.exc_info[1]) == message


@pytest.mark.parametrize(
    "sites", ["django.contrib.sites", {"www": WWW, "shop": "https://shop.example.com"}]
)
def test_the_test_client_s_host_gets_site_id_s_sitemap_on_its_base_url(
    client: Client, settings: Any, sites: Any
) -> None:
    """contrib's views give SITE_ID's Site on any host, the test client's ``testserver``
    too: a project's own sitemap tests pass unchanged. The locations are still on the
    configured site's base URL, never the request's host."""
    settings.SITEMAPKIT_SITES = sites
    settings.ALLOWED_HOSTS = ["testserver", "shop.example.com"]
    Site.objects.filter(pk=1).update(domain="www.example.com")
    Site.objects.create(domain="shop.example.com", name="shop")
    assert served(client) == [f"{WWW}/page/", f"{WWW}/seen/served.xml"]
    assert SiteSitemap.given == [Site.objects.get(pk=1)]
    # A host a site has gets that site, as before.
    status, body, _ = fetch(client, "/served.xml", host="shop.example.com")
    assert status == 200
    assert parse_urlset(body)[0].loc == "https://shop.example.com/page/"
    # Elsewhere a host no site has is still a 404.
    with pytest.raises(UnknownHost):
        site_for_request(RequestFactory().get("/"))


@override_settings(SITEMAPKIT_SITES={"shop": "https://shop.example.com"})
def test_without_a_site_for_site_id_s_row_a_host_no_site_has_is_a_404(client: Client) -> None:
    assert fetch(client, "/served.xml")[0] == 404
    with override_settings(SITE_ID=None):
        assert fetch(client, "/served.xml")[0] == 404
