"""The blog's pages, robots.txt, and the sitemaps at the site root."""

from __future__ import annotations

from django.urls import include, path

from blog import views

urlpatterns = [
    path("", views.home, name="home"),
    path("about/", views.about, name="about"),
    path("posts/", views.post_list, name="post-list"),
    path("posts/<slug:category>/<slug:slug>/", views.post_detail, name="post-detail"),
    path("categories/<slug:slug>/", views.category_detail, name="category-detail"),
    path("robots.txt", views.robots_txt, name="robots-txt"),
    # The benchmark's pages (manage.py benchmark_sitemaps); each answers its slug.
    path("bench/", include("bench.urls")),
    # /sitemap.xml (the index) and /sitemap-<section>-<page>.xml
    path("", include("django_sitemapkit.urls")),
    # /sitemap-<section>.xml?p=N, the page URLs of django.contrib.sitemaps this site
    # used before: a 301 to the page that holds those URLs now. After the line above,
    # so that /sitemap-posts-2.xml stays page 2 of "posts".
    path("", include("django_sitemapkit.contrib_redirects")),
    # /sitemap.html and /sitemap-<section>-<page>.html: the same pages as tables,
    # for people (opt-in; the XML never links to them)
    path("", include("django_sitemapkit.html_urls")),
]
