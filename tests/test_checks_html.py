"""The checks of the HTML sitemap's settings (checks/html.py): E114 and W061, run by
``manage.py check``."""

from __future__ import annotations

import io

import pytest
from django.core.checks import Error, Warning
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.test import override_settings

from django_sitemapkit.checks.html import check_html_settings

CSP_HINT = (
    "Set SITEMAPKIT_HTML_CSP to a policy such as \"default-src 'none'; style-src {style} "
    "https://static.example.com\" ({style} is the default style sheet's hash), to None to "
    "send none of the app's own (Django's SECURE_CSP then applies), or remove it for the "
    "default."
)


@pytest.mark.parametrize("value", [0, 50_001, "1000", 2.5, True])
def test_a_page_size_that_is_no_whole_number_in_range(value: object) -> None:
    with override_settings(SITEMAPKIT_HTML_PAGE_SIZE=value):
        assert check_html_settings() == [
            Error(
                f"SITEMAPKIT_HTML_PAGE_SIZE is {value!r}, not a whole number from 1 to 50,000.",
                hint="Set SITEMAPKIT_HTML_PAGE_SIZE to a whole number from 1 to 50000, such "
                "as 1000 (the default), or remove it.",
                id="sitemapkit.E114",
            )
        ]


@pytest.mark.parametrize("value", [["default-src 'none'"], "default-src *\nX: y", "style-src é"])
def test_a_policy_that_cannot_be_a_header(value: object) -> None:
    with override_settings(SITEMAPKIT_HTML_CSP=value):
        assert check_html_settings() == [
            Warning(
                f"SITEMAPKIT_HTML_CSP is {value!r}, not None or a header value (a str of "
                "printable ASCII, with no line break); the HTML sitemap sends the default "
                "policy instead.",
                hint=CSP_HINT,
                id="sitemapkit.W061",
            )
        ]


@pytest.mark.parametrize("value", [None, "default-src 'self'", "style-src {style}"])
def test_good_values(value: object) -> None:
    with override_settings(SITEMAPKIT_HTML_CSP=value, SITEMAPKIT_HTML_PAGE_SIZE=50_000):
        assert check_html_settings() == []


def test_manage_py_check_runs_them() -> None:
    out = io.StringIO()
    with (
        override_settings(SITEMAPKIT_HTML_PAGE_SIZE=0, SITEMAPKIT_HTML_CSP=5),
        pytest.raises(SystemCheckError) as raised,
    ):
        call_command("check", stdout=out, stderr=out)
    assert "sitemapkit.E114" in str(raised.value)
    assert "sitemapkit.W061" in str(raised.value)
