"""Django's cache framework around django_sitemapkit.compat's views, as Django's
documentation wraps contrib's (``cache_page(86400)(sitemap)``): a real locmem cache,
the drop-in against contrib's views on the same classes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from contrib_side_by_side import serve_side_by_side, tricky_articles
from django.contrib.sitemaps import views as contrib
from django.core.cache import cache
from django.db.models import QuerySet
from django.http import HttpResponseBase
from django.test import RequestFactory
from django.views.decorators.cache import cache_page
from testapp.contrib_sitemaps import ArticleSitemap
from testapp.models import Article

from django_sitemapkit import compat

pytestmark = [pytest.mark.django_db, pytest.mark.urls("testapp.urls_compat")]


class CountedSitemap(ArticleSitemap):
    """ArticleSitemap, counting the calls of its ``items()``."""

    calls = 0

    def items(self) -> QuerySet[Article]:
        CountedSitemap.calls += 1
        return super().items()


@pytest.fixture(autouse=True)
def cached(settings: Any) -> None:
    serve_side_by_side(settings)
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    cache.clear()
    tricky_articles()
    CountedSitemap.calls = 0


def served(view: Callable[..., HttpResponseBase], rf: RequestFactory, **kwargs: Any) -> Any:
    response = view(rf.get("/sitemap.xml", {"p": "2"}, secure=True), **kwargs)
    render = getattr(response, "render", None)
    if render is not None:
        render()
    return response


@pytest.mark.parametrize(
    ("view", "theirs", "ours_kwargs", "their_kwargs"),
    [
        (compat.sitemap, contrib.sitemap, {"section": "articles"}, {"section": "articles"}),
        (
            compat.index,
            contrib.index,
            {"sitemap_url_name": "compat-section"},
            {"sitemap_url_name": "contrib-section"},
        ),
    ],
    ids=["sitemap", "index"],
)
def test_cache_page_keeps_caching_as_around_contribs_views(
    rf: RequestFactory,
    view: Callable[..., HttpResponseBase],
    theirs: Callable[..., HttpResponseBase],
    ours_kwargs: dict[str, Any],
    their_kwargs: dict[str, Any],
) -> None:
    sitemaps = {"articles": CountedSitemap}
    cached_view = cache_page(60)(view)
    first = served(cached_view, rf, sitemaps=sitemaps, **ours_kwargs)
    assert first.status_code == 200
    called = CountedSitemap.calls
    assert called >= 1
    # The second request is the cache's: items() is not called again.
    second = served(cached_view, rf, sitemaps=sitemaps, **ours_kwargs)
    assert CountedSitemap.calls == called
    assert second.content == first.content
    assert (second["Cache-Control"], second["ETag"]) == ("max-age=60", first["ETag"])
    # The headers the cache adds are those it adds to contrib's answer.
    cache.clear()
    contribs = served(cache_page(60)(theirs), rf, sitemaps=sitemaps, **their_kwargs)
    assert (first["Cache-Control"], "Expires" in first) == (contribs["Cache-Control"], True)
    assert "Expires" in contribs


def test_the_content_can_be_read_as_contribs_can(rf: RequestFactory) -> None:
    sitemaps = {"articles": CountedSitemap}
    ours = served(compat.sitemap, rf, sitemaps=sitemaps, section="articles")
    theirs = served(contrib.sitemap, rf, sitemaps=sitemaps, section="articles")
    assert (ours.streaming, theirs.streaming) == (False, False)
    assert ours.content.count(b"<url>") == theirs.content.count(b"<url>") == 3
