"""django-hosts' per-host URLconfs (thirdparty/hosts.py): the blog host's sitemap,
its locations reversed in the blog host's URLconf, with Django's ``reverse()`` and
with django-hosts' own, through contrib's view and the drop-in."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.flatpages.models import FlatPage
from django.test import Client

from thirdparty.compat_side_by_side import BLOG, TWO_SITES, WWW, dropin_urls, get, on_www, own_urls

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def hosted(settings: Any) -> None:
    """django-hosts' middleware around the project's, as its docs install it; the
    two hosts sites of this app; two posts."""
    settings.MIDDLEWARE = [
        "django_hosts.middleware.HostsRequestMiddleware",
        *settings.MIDDLEWARE,
        "django_hosts.middleware.HostsResponseMiddleware",
    ]
    settings.PARENT_HOST = "example.com"
    settings.HOST_SCHEME = "https://"
    settings.SITEMAPKIT_SITES = TWO_SITES
    on_www()
    for slug in ("first", "second"):
        FlatPage._default_manager.create(url=f"/{slug}/", title=slug)


def test_paths_of_the_blog_hosts_urlconf_are_on_the_blog_host() -> None:
    """contrib writes the paths on SITE_ID's domain (www), where they do not resolve;
    the drop-in on the host it serves, the blog's."""
    client = Client()
    paths = ("/post/first/", "/post/second/")
    assert own_urls(get(client, "/own/posts.xml", BLOG)) == {f"{WWW}{p}": None for p in paths}
    assert dropin_urls(get(client, "/dropin/posts.xml", BLOG)) == {
        f"{BLOG}{p}": None for p in paths
    }


def test_django_hosts_absolute_urls_are_written_once() -> None:
    """django-hosts' ``reverse()`` gives absolute URLs: contrib prefixes them with its
    own scheme and domain, the drop-in writes them as they are, on the blog host."""
    client = Client()
    paths = ("/post/first/", "/post/second/")
    assert own_urls(get(client, "/own/hosted.xml", BLOG)) == {
        f"{WWW}{BLOG}{p}": None for p in paths
    }
    assert dropin_urls(get(client, "/dropin/hosted.xml", BLOG)) == {
        f"{BLOG}{p}": None for p in paths
    }
