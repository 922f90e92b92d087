"""The HTML sitemap's templates (encoding/html.py): a site's own override from a real
template directory, the page extending the site's base template, and the
``Content-Security-Policy`` that lets that layout load its style sheet."""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import django
import pytest
from django.core.exceptions import ImproperlyConfigured
from django.test import Client
from factories import ArticleFactory
from html_pages import Link, document, found, index_sections, page_rows, text
from sitemap_xml import fetch
from testapp.sitemaps import ArticleSource

pytestmark = [pytest.mark.django_db, pytest.mark.urls("testapp.urls_html")]
Sources = Callable[..., None]

SITE_BASE = """<!DOCTYPE html>
<html lang="en"><head><title>{% block title %}{% endblock %} | Example blog</title>
<link rel="stylesheet" href="/static/site.css"></head>
<body><header>Example blog, for {{ request.path }}</header>
{% block content %}{% endblock %}
<footer><a href="/sitemap.html">Sitemap</a></footer></body></html>
"""
# docs/html-sitemap.md's worked example, as a site writes it.
OVERRIDES = {
    "django_sitemapkit/sitemap_page.html": """{% extends "base.html" %}
{% block title %}{{ sitemap.title }}{% endblock %}
{% block content %}{% include "django_sitemapkit/page_content.html" %}{% endblock %}
""",
    "django_sitemapkit/sitemap_index.html": """{% extends "base.html" %}
{% block title %}{{ sitemap.title }}{% endblock %}
{% block content %}{% include "django_sitemapkit/index_content.html" %}{% endblock %}
""",
    "django_sitemapkit/sitemap_row.html": (
        '<li class="post"><a href="{{ row.href }}">{{ row.title }}</a> <small>{{ row.url }}</small>'
        "</li>\n"
    ),
}


def write_templates(directory: Path, files: dict[str, str]) -> None:
    for name, content in files.items():
        (directory / name).parent.mkdir(parents=True, exist_ok=True)
        (directory / name).write_text(content)


@pytest.fixture
def site_templates(tmp_path: Path, settings: Any) -> Path:
    """A project's own template directory, searched before the apps' templates."""
    directory = tmp_path / "templates"
    write_templates(directory, {"base.html": SITE_BASE, **OVERRIDES})
    settings.TEMPLATES = [
        {
            "BACKEND": "django.template.backends.django.DjangoTemplates",
            "DIRS": [directory],
            "APP_DIRS": True,
            "OPTIONS": {"context_processors": ["django.template.context_processors.request"]},
        }
    ]
    return directory


def test_a_site_s_templates_extend_its_own_base_template(
    client: Client, sources: Sources, settings: Any, site_templates: Path
) -> None:
    settings.SITEMAPKIT_HTML_CSP = "default-src 'none'; style-src 'self'"
    sources(ArticleSource)
    ArticleFactory.create(slug="a", title="A")
    status, body, headers = fetch(client, "/sitemap-articles-1.html")
    assert status == 200
    page = document(body)
    assert text(found(page, "//header")[0]) == "Example blog, for /sitemap-articles-1.html"
    assert text(found(page, "//title")[0]) == "Articles · Sitemap | Example blog"
    assert found(page, "//style") == []
    assert [text(item) for item in found(page, "//li[@class='post']")] == [
        "/articles/a/ https://www.example.com/articles/a/"
    ]
    assert headers["Content-Security-Policy"] == "default-src 'none'; style-src 'self'"
    index = document(fetch(client, "/sitemap.html")[1])
    assert text(found(index, "//header")[0]) == "Example blog, for /sitemap.html"
    assert index_sections(index)[0].pages == [Link("1", "/sitemap-articles-1.html")]


def test_the_app_s_templates_serve_a_project_with_no_template_engine(
    client: Client, sources: Sources, settings: Any
) -> None:
    assert not getattr(settings, "TEMPLATES", [])
    sources(ArticleSource)
    ArticleFactory.create(slug="a")
    page = document(fetch(client, "/sitemap-articles-1.html")[1])
    assert [row.link.href for row in page_rows(page)] == ["/articles/a/"]


def test_a_page_template_must_say_where_the_rows_go(
    client: Client, sources: Sources, site_templates: Path
) -> None:
    write_templates(
        site_templates,
        {
            "django_sitemapkit/sitemap_page.html": '{% extends "base.html" %}{% block content %}x'
            "{% endblock %}"
        },
    )
    sources(ArticleSource)
    ArticleFactory.create()
    with pytest.raises(ImproperlyConfigured) as raised:
        fetch(client, "/sitemap-articles-1.html")
    assert str(raised.value) == (
        "The template 'django_sitemapkit/sitemap_page.html' writes {{ sitemap_rows }} 0 times; "
        "it must write it exactly once, where the rows go."
    )
    # Found before the response, not after its first bytes: the index's too.
    index = "{% extends 'base.html' %}{% block content %}{{ sitemap_rows }}{{ sitemap_rows }}"
    write_templates(
        site_templates, {"django_sitemapkit/sitemap_index.html": index + "{% endblock %}"}
    )
    with pytest.raises(ImproperlyConfigured) as raised:
        client.get("/sitemap.html")
    assert str(raised.value).startswith(
        "The template 'django_sitemapkit/sitemap_index.html' writes {{ sitemap_rows }} 2 times;"
    )


def test_the_policy_names_the_style_sheet_the_page_includes(
    client: Client, sources: Sources, settings: Any
) -> None:
    settings.SITEMAPKIT_HTML_CSP = "default-src 'none'; style-src {style} https://cdn.example"
    sources(ArticleSource)
    ArticleFactory.create()
    response = client.get("/sitemap.html")
    (style,) = found(document(b"".join(response.streaming_content)), "//style")  # type: ignore[attr-defined]
    digest = base64.b64encode(hashlib.sha256((style.text or "").encode()).digest()).decode()
    assert response["Content-Security-Policy"] == (
        f"default-src 'none'; style-src 'sha256-{digest}' https://cdn.example"
    )


def test_none_leaves_the_policy_to_django_s_middleware(
    client: Client, sources: Sources, settings: Any
) -> None:
    settings.SITEMAPKIT_HTML_CSP = None
    sources(ArticleSource)
    ArticleFactory.create()
    assert "Content-Security-Policy" not in client.get("/sitemap.html")
    if django.VERSION < (6, 0):
        pytest.skip("Django's ContentSecurityPolicyMiddleware is new in Django 6.0")
    settings.MIDDLEWARE = ["django.middleware.csp.ContentSecurityPolicyMiddleware"]
    settings.SECURE_CSP = {"default-src": ["'self'"]}
    # A new client: one loads the middleware once, at its first request.
    assert Client().get("/sitemap.html")["Content-Security-Policy"] == "default-src 'self'"


def test_an_unusable_policy_sends_the_default(
    client: Client, sources: Sources, settings: Any
) -> None:
    sources(ArticleSource)
    ArticleFactory.create()
    default = client.get("/sitemap.html")["Content-Security-Policy"]
    settings.SITEMAPKIT_HTML_CSP = "default-src *\r\nSet-Cookie: a=b"
    assert client.get("/sitemap.html")["Content-Security-Policy"] == default
