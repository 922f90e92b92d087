"""``include("django_sitemapkit.urls")`` serves the index and every page, as
``.xml`` and as ``.xml.gz``, and the IndexNow key file while a key is set."""

from __future__ import annotations

from django.core.checks import CheckMessage
from django.urls import URLPattern, path, register_converter

from django_sitemapkit import views
from django_sitemapkit.checks.urls import check_installed
from django_sitemapkit.conf import conf
from django_sitemapkit.names import INDEXNOW_KEY_PATTERN, SECTION_PATTERN
from django_sitemapkit.views.key_file import indexnow_key


class SectionConverter:
    # The section names the system checks allow (sitemapkit.E007).
    regex = SECTION_PATTERN

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


class PageConverter:
    # ASCII digits without a leading zero, at most nine of them: a 20-digit
    # page must never reach the database as an overflowing OFFSET.
    regex = "[1-9][0-9]{0,8}"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value: int) -> str:
        return str(value)


class IndexNowKeyConverter:
    """Matches the current ``SITEMAPKIT_INDEXNOW_KEY`` alone, read on every request.

    Any other name of the key's shape (``llms-full``, ``humans``) makes
    ``to_python()`` raise ``ValueError``, on which Django goes on to the
    project's next pattern: the key file never hides another ``.txt`` URL.
    """

    regex = INDEXNOW_KEY_PATTERN

    def to_python(self, value: str) -> str:
        if value != conf.INDEXNOW_KEY:
            raise ValueError(value)
        return value

    def to_url(self, value: str) -> str:
        # Raising here makes reverse() refuse any other name (NoReverseMatch).
        return self.to_python(value)


class InstalledCheckPattern(URLPattern):
    """A pattern of the app's URLconfs whose system check also reports the app missing
    from ``INSTALLED_APPS`` (sitemapkit.E064).

    Django checks every pattern of ``ROOT_URLCONF`` (``check_url_config``),
    whatever is installed; the app's own checks are registered by its
    ``ready()``, which never runs without it. One pattern per URLconf carries
    it, so the message comes once for each URLconf included.
    """

    def __init__(self, pattern: URLPattern, urlconf: str) -> None:
        super().__init__(pattern.pattern, pattern.callback, pattern.default_args, pattern.name)
        self.urlconf = urlconf

    def check(self) -> list[CheckMessage]:
        return [*super().check(), *check_installed(self.urlconf)]


register_converter(SectionConverter, "sitemapkit_section")
register_converter(PageConverter, "sitemapkit_page")
register_converter(IndexNowKeyConverter, "sitemapkit_indexnow_key")

app_name = "sitemapkit"
urlpatterns = [
    InstalledCheckPattern(path("sitemap.xml", views.index, name="index"), __name__),
    path("sitemap.xml.gz", views.index_gz, name="index_gz"),
    path(
        "sitemap-<sitemapkit_section:section>-<sitemapkit_page:page>.xml",
        views.page,
        name="page",
    ),
    path(
        "sitemap-<sitemapkit_section:section>-<sitemapkit_page:page>.xml.gz",
        views.page_gz,
        name="page_gz",
    ),
    path("<sitemapkit_indexnow_key:key>.txt", indexnow_key, name="indexnow_key"),
]
