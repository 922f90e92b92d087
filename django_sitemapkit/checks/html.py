"""System checks of the HTML sitemap for visitors' settings: its page size (E114,
from the settings table's rule) and its ``Content-Security-Policy`` (W061)."""

from __future__ import annotations

from django.core.checks import CheckMessage, Warning

from django_sitemapkit.checks.setting_values import check_values
from django_sitemapkit.conf import conf
from django_sitemapkit.encoding.html import usable_policy


def check_html_settings() -> list[CheckMessage]:
    return check_values("HTML_PAGE_SIZE") + check_html_csp()


def check_html_csp() -> list[CheckMessage]:
    """W061: a policy that cannot be sent as a header. A warning, not an error: the
    pages then send the default policy, the strictest, so nothing is loosened."""
    value = conf.raw("HTML_CSP")
    if value is None or usable_policy(value):
        return []
    return [
        Warning(
            f"SITEMAPKIT_HTML_CSP is {value!r}, not None or a header value (a str of "
            "printable ASCII, with no line break); the HTML sitemap sends the default "
            "policy instead.",
            hint="Set SITEMAPKIT_HTML_CSP to a policy such as \"default-src 'none'; style-src "
            "{style} https://static.example.com\" ({style} is the default style sheet's "
            "hash), to None to send none of the app's own (Django's SECURE_CSP then "
            "applies), or remove it for the default.",
            id="sitemapkit.W061",
        )
    ]
