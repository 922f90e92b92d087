"""The IndexNow key file, ``/<key>.txt`` (views/key_file.py, urls.py): the key on
every site's host, and every other ``.txt`` name left to the project's patterns."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.sites.models import Site
from django.test import Client, override_settings

from django_sitemapkit.indexnow import key_location
from django_sitemapkit.sites.base_urls import Origin
from django_sitemapkit.sites.configured import SitemapSite

KEY = "4f1b6e0c-2a9d-4e8f"
SITE = SitemapSite("default", Origin.from_url("https://www.example.com"))


@pytest.fixture(autouse=True)
def key(settings: Any) -> None:
    settings.SITEMAPKIT_INDEXNOW_KEY = KEY
    settings.ROOT_URLCONF = "testapp.urls_text_files"


def test_the_key_file_answers_the_key(client: Client) -> None:
    response = client.get(f"/{KEY}.txt")
    assert response.status_code == 200
    assert response.content == KEY.encode()
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    head = client.head(f"/{KEY}.txt")
    assert (head.status_code, head.content) == (200, b"")


@pytest.mark.parametrize("method", ["post", "put", "delete"])
def test_other_methods_are_not_allowed(client: Client, method: str) -> None:
    response = getattr(client, method)(f"/{KEY}.txt")
    assert response.status_code == 405
    assert response["Allow"] == "GET, HEAD"


@pytest.mark.parametrize("name", ["llms-full", "0123456789abcdef", KEY.upper(), KEY[:-1]])
def test_another_name_falls_through_to_the_projects_patterns(client: Client, name: str) -> None:
    response = client.get(f"/{name}.txt")
    assert (response.status_code, response.content) == (200, f"the project's {name}.txt".encode())
    assert response.resolver_match is not None
    assert response.resolver_match.url_name in ("llms-full", "text-file")


def test_the_key_file_follows_the_setting(client: Client, settings: Any) -> None:
    settings.SITEMAPKIT_INDEXNOW_KEY = "a-new-key-1234"
    assert client.get("/a-new-key-1234.txt").content == b"a-new-key-1234"
    assert client.get(f"/{KEY}.txt").content == f"the project's {KEY}.txt".encode()


def test_no_key_file_without_a_key(client: Client, settings: Any) -> None:
    settings.SITEMAPKIT_INDEXNOW_KEY = None
    settings.ROOT_URLCONF = "testapp.urls"
    assert client.get(f"/{KEY}.txt").status_code == 404


def test_the_key_file_is_served_on_every_site(client: Client, settings: Any) -> None:
    settings.SITEMAPKIT_BASE_URL = None
    settings.SITEMAPKIT_SITES = {
        "www": "https://www.example.com",
        "shop": "https://shop.example.com",
        "de": "https://example.de:8443",
    }
    settings.ALLOWED_HOSTS = ["www.example.com", "shop.example.com", "example.de", "other.test"]
    for host in ("www.example.com", "shop.example.com", "example.de:8443"):
        response = client.get(f"/{KEY}.txt", headers={"host": host})
        assert (response.status_code, response.content) == (200, KEY.encode())
    # A host no site has is answered as for the sitemap: 404.
    assert client.get(f"/{KEY}.txt", headers={"host": "other.test"}).status_code == 404


@pytest.mark.django_db
def test_the_key_file_is_served_on_every_site_row(client: Client, settings: Any) -> None:
    settings.SITEMAPKIT_BASE_URL = None
    settings.SITEMAPKIT_SITES = "django.contrib.sites"
    settings.ALLOWED_HOSTS = ["www.example.com", "shop.example.com", "other.test"]
    Site.objects.all().delete()
    Site.objects.create(domain="www.example.com", name="www")
    Site.objects.create(domain="shop.example.com", name="shop")
    for host in ("www.example.com", "shop.example.com"):
        assert client.get(f"/{KEY}.txt", headers={"host": host}).content == KEY.encode()
    assert client.get(f"/{KEY}.txt", headers={"host": "other.test"}).status_code == 404


def test_key_location_is_where_the_key_file_is_served() -> None:
    assert key_location(SITE, KEY) == f"https://www.example.com/{KEY}.txt"
    with override_settings(ROOT_URLCONF="testapp.urls_subpath"):
        assert key_location(SITE, KEY) == f"https://www.example.com/shop/{KEY}.txt"
    with override_settings(ROOT_URLCONF="testapp.urls_subpath", FORCE_SCRIPT_NAME="/blog"):
        assert key_location(SITE, KEY) == f"https://www.example.com/blog/shop/{KEY}.txt"
    # Not served by the app: a web server may serve it at the root.
    with override_settings(ROOT_URLCONF="testapp.urls_without_sitemaps"):
        assert key_location(SITE, KEY) == f"https://www.example.com/{KEY}.txt"
