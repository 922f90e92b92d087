"""A project whose robots.txt is a view of its own, answering what the settings of a
test say: ``TEST_ROBOTS_TXT`` (the body), ``TEST_ROBOTS_STATUS``,
``TEST_ROBOTS_REDIRECT`` (a Location to answer 301 with), ``TEST_ROBOTS_STREAMED``,
``TEST_ROBOTS_HOLD`` (wait for ``RELEASE`` first) and ``TEST_ROBOTS_RAISE``."""

from __future__ import annotations

import threading
from collections.abc import Iterator

from django.conf import settings
from django.http import (
    HttpRequest,
    HttpResponse,
    HttpResponseBase,
    HttpResponsePermanentRedirect,
    StreamingHttpResponse,
)
from django.urls import include, path

#: Each request the view answered: its absolute URI, as the project saw it.
asked: list[str] = []
#: Set by a test to let a held answer go.
RELEASE = threading.Event()


def robots_txt(request: HttpRequest) -> HttpResponseBase:
    asked.append(request.build_absolute_uri())
    if getattr(settings, "TEST_ROBOTS_HOLD", False):
        RELEASE.wait(30)
    if getattr(settings, "TEST_ROBOTS_RAISE", False):
        raise RuntimeError("the robots.txt view failed")
    location = getattr(settings, "TEST_ROBOTS_REDIRECT", None)
    if location is not None and request.path == "/robots.txt":
        return HttpResponsePermanentRedirect(location)
    body: str = getattr(settings, "TEST_ROBOTS_TXT", "User-agent: *\nDisallow:\n")
    status: int = getattr(settings, "TEST_ROBOTS_STATUS", 200)
    if getattr(settings, "TEST_ROBOTS_STREAMED", False):

        def lines() -> Iterator[bytes]:
            while True:
                yield body.encode()

        return StreamingHttpResponse(lines(), status=status, content_type="text/plain")
    return HttpResponse(body, status=status, content_type="text/plain; charset=utf-8")


urlpatterns = [
    path("robots.txt", robots_txt),
    path("moved/robots.txt", robots_txt),
    path("", include("testapp.urls")),
    path("", include("django_sitemapkit.html_urls")),
]
