"""robots.txt: the line that announces the sitemap index, and a minimal file for
projects that have none."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_safe

from django_sitemapkit.locations import Origin, index_path

# RFC 9309 section 2.3: robots.txt is UTF-8 plain text.
CONTENT_TYPE = "text/plain; charset=utf-8"


def sitemap_lines() -> list[str]:
    """``Sitemap:`` lines for a robots.txt (sitemaps.org protocol, "Informing search
    engine crawlers"): the absolute URL of the index, built on SITEMAPKIT_BASE_URL
    and never on the request, like every location in the sitemap."""
    return [f"Sitemap: {Origin.from_settings().url}{index_path()}"]


@require_safe
def robots_txt(request: HttpRequest) -> HttpResponse:
    """A robots.txt that allows every crawler everywhere and names the sitemap index."""
    # RFC 9309 section 2.2.2: a URL no rule matches is allowed, and an empty
    # Disallow matches none. Section 2.2.4: Sitemap is a record of its own,
    # read whatever the user agent.
    lines = ["User-agent: *", "Disallow:", "", *sitemap_lines()]
    return HttpResponse("".join(f"{line}\n" for line in lines), content_type=CONTENT_TYPE)
