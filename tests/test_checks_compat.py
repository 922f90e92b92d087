"""The check of the drop-in views' URL patterns (checks/compat.py)."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.checks import Warning
from django.core.management import call_command
from django.test import override_settings

from django_sitemapkit.checks import check_compat_templates


def w011(pattern: str, template: object, view: str) -> Warning:
    return Warning(
        f"The URL pattern {pattern} passes template_name={template!r} to "
        f"django_sitemapkit.compat.{view}, which renders no template.",
        hint="The URL serves the same documents without it: the engine writes them and the "
        "template is not used. Remove template_name, or keep "
        f"django.contrib.sitemaps.views.{view} for that URL if the template's output is "
        "needed.",
        id="sitemapkit.W011",
    )


@override_settings(ROOT_URLCONF="testapp.urls_compat_templates")
def test_w011_a_template_the_drop_in_does_not_use() -> None:
    assert check_compat_templates() == [
        w011("'sitemap.xml'", "custom_index.xml", "index"),
        w011("'shop/sitemap-<section>.xml' [name='shop-section']", "shop/sitemap.xml", "sitemap"),
        w011("'^news/all.xml'", ["news.xml", "sitemap.xml"], "sitemap"),
    ]


@pytest.mark.parametrize("urlconf", ["testapp.urls_compat", "testapp.urls"])
def test_w011_quiet_without_a_template(urlconf: str) -> None:
    with override_settings(ROOT_URLCONF=urlconf):
        assert check_compat_templates() == []


@override_settings(ROOT_URLCONF="testapp.urls_compat_templates")
def test_w011_is_registered() -> None:
    out = StringIO()
    call_command("check", stdout=out, stderr=out)
    assert (
        "?: (sitemapkit.W011) The URL pattern 'sitemap.xml' passes "
        "template_name='custom_index.xml' to django_sitemapkit.compat.index" in out.getvalue()
    )
