"""``include("django_sitemapkit.contrib_redirects")``: the page URLs of
``django.contrib.sitemaps`` (``/sitemap-<section>.xml?p=N``) answered with a
permanent redirect to the page of the same section and number here
(``/sitemap-<section>-<N>.xml``).

Search engines keep the page URLs they were given for a while after a site
moves to this app's URLs. A redirect, not a second copy of each page: a
sitemap URL then has one document, and a crawler that follows it learns the
new URL (the sitemaps.org protocol says nothing of redirects; Google has said
a 301 from an old sitemap URL to its new one is fine). The number is kept as
it was: both number pages from 1 in listing order, so ``?p=3`` of a section
goes to its page 3, and a page that no longer exists here answers 404 when
fetched.

Include it after ``django_sitemapkit.urls``: ``sitemap-posts-2.xml`` is this
app's page 2 of "posts", and must not be read as contrib's section "posts-2".
"""

from __future__ import annotations

import re

from django.http import Http404, HttpRequest, HttpResponseBase, HttpResponsePermanentRedirect
from django.urls import path
from django.views.decorators.http import require_safe

from django_sitemapkit.locations.policy import page_path
from django_sitemapkit.registry import registry
from django_sitemapkit.sites.hosts import site_for_request

# Importing the URLconf registers the converters the pattern below uses.
from django_sitemapkit.urls import InstalledCheckPattern, PageConverter
from django_sitemapkit.views.decorators import sitemap_view
from django_sitemapkit.views.http import answered

# Contrib 404s a p that is not a whole number. The page converter's pattern
# is stricter (no leading zero, at most nine digits): a number it refuses
# would only be redirected to a URL that does not resolve.
PAGE = re.compile(PageConverter.regex)


@require_safe
@sitemap_view
def contrib_page(request: HttpRequest, section: str) -> HttpResponseBase:
    """301 to this app's page ``p`` (default 1) of ``section``; 404 for a section
    not registered here or a ``p`` contrib would not have served either."""
    if registry.get(section) is None:
        raise Http404(f"No sitemap section {section!r} is registered.")
    number = request.GET.get("p", "1")
    if not PAGE.fullmatch(number):
        raise Http404(f"No page {number!r} of sitemap section {section!r}.")

    def respond() -> HttpResponseBase:
        # The absolute URL on the configured origin, never on the request's Host
        # (as every location this app writes); the host only selects the site.
        site = site_for_request(request)
        if registry.get(section, site) is None:
            raise Http404(f"No sitemap section {section!r} on site {site.name!r}.")
        target = site.base_url + page_path(section, int(number))
        return HttpResponsePermanentRedirect(target)

    # As for the page it leads to: a Site that cannot give the origin is a 503.
    return answered(
        request, f"The redirect to page {number} of sitemap source {section!r}", respond
    )


urlpatterns = [
    InstalledCheckPattern(
        path(
            "sitemap-<sitemapkit_section:section>.xml", contrib_page, name="sitemapkit-contrib-page"
        ),
        __name__,
    ),
]
