from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.urls import include, path, re_path

from django_sitemapkit.robots import robots_txt


def page(request: HttpRequest, **kwargs: object) -> HttpResponse:
    return HttpResponse("page")


urlpatterns = [
    path("", page, name="home"),
    path("about/", page, name="about"),
    path("articles/<str:slug>/", page, name="article-detail"),
    path("by-id/<int:pk>/", page, name="article-by-pk"),
    # A pattern reverse() alone can fill: no URL template is compiled for it.
    re_path(r"^re/(?P<slug>[^/]+)/$", page, name="article-by-regex"),
    path("c/<str:category>/<str:slug>/", page, name="article-in-category"),
    path("c/<slug:category>/", page, name="category-detail"),
    path("robots.txt", robots_txt),
    path("", include("django_sitemapkit.urls")),
]
