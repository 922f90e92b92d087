"""The IndexNow key file: ``/<key>.txt``, which answers the key itself, so that the
engines a submission reaches can tell it comes from the site's owner."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_safe

from django_sitemapkit.sites.hosts import several_sites, site_for_request
from django_sitemapkit.views.decorators import sitemap_view

# indexnow.org, "Verify ownership via a key": the file holds the key, as UTF-8 text.
CONTENT_TYPE = "text/plain; charset=utf-8"


@require_safe
@sitemap_view
def indexnow_key(request: HttpRequest, key: str) -> HttpResponse:
    """The key, on the host of every configured site and on no other (a 404).

    ``key`` is the current ``SITEMAPKIT_INDEXNOW_KEY``: the URL's converter
    matches nothing else, so this view is reached only for the key's own file.
    """
    if several_sites():
        # UnknownHost, a 404, for a host no site has: as every sitemap URL.
        site_for_request(request)
    return HttpResponse(key, content_type=CONTENT_TYPE)
