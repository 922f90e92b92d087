"""Patterns of every shape a source's ``url_name`` may name, for the URL template tests."""

from __future__ import annotations

from django.urls import include, path, re_path, register_converter

from testapp.urls import page


class YearConverter:
    regex = "[0-9]{4}"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value: int) -> str:
        return f"{value:04d}"


register_converter(YearConverter, "year")

blog_patterns = (
    [
        path("<slug:slug>/", page, name="post"),
        path("tag/<str:tag>/", page, name="tag"),
    ],
    "blog",
)

urlpatterns = [
    path("", page, name="home"),
    path("a.b+c (d)/~ü/", page, name="odd-literal"),
    path("str/<str:value>/", page, name="str"),
    path("slug/<slug:value>/", page, name="slug"),
    path("int/<int:value>/", page, name="int"),
    path("uuid/<uuid:value>/", page, name="uuid"),
    path("path/<path:value>", page, name="path"),
    path("<path:value>/leading/", page, name="path-first"),
    path("two/<str:first>-<str:second>/", page, name="two"),
    path("mixed/<int:pk>/<slug:slug>/<str:title>/", page, name="mixed"),
    path("default/<str:value>/", page, {"kind": "x"}, name="with-default"),
    path("year/<year:value>/", page, name="custom"),
    re_path(r"^regex/(?P<value>[a-z]+)/$", page, name="regex"),
    path("up/../<slug:value>/", page, name="dotted-literal"),
    path("up/<str:value>/./", page, name="dotted-literal-str"),
    path("twice/<str:value>/", page, name="twice"),
    path("twice/<str:value>/<int:n>/", page, name="twice"),
    path("blog/", include(blog_patterns, namespace="news")),
    path("<slug:lang>/blog/", include(blog_patterns, namespace="localized")),
    path("", include("django_sitemapkit.urls")),
]
