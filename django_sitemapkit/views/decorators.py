"""What every view of the app does around its answer: it refuses to answer without
the app in ``INSTALLED_APPS``, and names in ``Vary`` the request headers that
chose the site."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Concatenate, ParamSpec

from django.core.exceptions import ImproperlyConfigured
from django.core.handlers.exception import response_for_exception
from django.http import Http404, HttpRequest, HttpResponseBase
from django.utils.cache import patch_vary_headers

from django_sitemapkit.registry import NOT_INSTALLED, installed
from django_sitemapkit.sites.hosts import site_headers

Arguments = ParamSpec("Arguments")
View = Callable[Concatenate[HttpRequest, Arguments], HttpResponseBase]


def chosen_by_host(view: View[Arguments]) -> View[Arguments]:
    """``view``, its response naming the headers ``site_for_request()`` read in ``Vary``
    (RFC 9110 section 12.5.5): with several sites the same URL answers each host
    its own document, and a cache that keys on the URL and ``Host`` alone would
    otherwise store one site's answer, chosen by ``X-Forwarded-Host``, under
    another's URL. A 404 is cacheable too (RFC 9110 section 15.5.5) and differs
    per host (a host no site has), so it is made here, as Django would make it
    (the project's ``handler404``), to carry the header."""

    @wraps(view)
    def answer(
        request: HttpRequest, /, *args: Arguments.args, **kwargs: Arguments.kwargs
    ) -> HttpResponseBase:
        headers = site_headers()
        if not headers:
            return view(request, *args, **kwargs)
        try:
            response = view(request, *args, **kwargs)
        except Http404 as exc:
            response = response_for_exception(request, exc)
        patch_vary_headers(response, headers)
        return response

    return answer


def sitemap_view(view: View[Arguments]) -> View[Arguments]:
    """A view of the app's URLconfs: ``chosen_by_host``, and an ``ImproperlyConfigured``
    naming the fix while the app is not installed. (The drop-in's views read no
    registry, and work without it: docs/migrating.md, Step 1.)

    Without the app its ``ready()`` never runs: no ``sitemaps.py`` is imported,
    so every sitemap would be a 404 blaming the project's sources, and no
    system check is registered to say why. A 500 with the reason is what a
    Django project gets for a missing app elsewhere; it is logged with the
    fix, and a crawler comes back for the sitemap where a 404 would drop it.
    """
    varied = chosen_by_host(view)

    @wraps(view)
    def answer(
        request: HttpRequest, /, *args: Arguments.args, **kwargs: Arguments.kwargs
    ) -> HttpResponseBase:
        if not installed():
            raise ImproperlyConfigured(NOT_INSTALLED)
        return varied(request, *args, **kwargs)

    return answer
