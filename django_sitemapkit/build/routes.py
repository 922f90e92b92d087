"""What a section's locations resolve through: the URL patterns, as a fingerprint.

The same rows give the same files only with the same URLconf: a worker
whose ``ROOT_URLCONF`` (or an included module, or a converter) differs from
the coordinator's would write other URLs under the same fingerprints of
code and settings. A section whose locations are reversed from a URL name
depends on the patterns ``reverse()`` may take for that name, and only on
those; one whose ``location()`` makes them may reverse any name, so it
depends on the whole URLconf.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from django.urls import NoReverseMatch, URLPattern, URLResolver, get_resolver, get_urlconf

from django_sitemapkit.build.manifest import fingerprint
from django_sitemapkit.locations.policy import entry_context
from django_sitemapkit.locations.resolution import namespaced_resolver
from django_sitemapkit.sources.plan import Plan


def urls_fingerprint(plan: Plan) -> str:
    """The URL patterns ``plan``'s locations are reversed through, hashed: read where
    its locations are made (``LANGUAGE_CODE``: translated routes and language prefixes
    depend on it)."""
    with entry_context():
        if plan.url_name is not None:
            return fingerprint({"name": plan.url_name, "patterns": reversals(plan.url_name)})
        return fingerprint({"urlconf": list(every_pattern(get_resolver(get_urlconf())))})


def reversals(url_name: str) -> list[Any]:
    """Each way ``reverse(url_name)`` may go: its format strings and arguments, the
    pattern's regular expression, its defaults and its converters' classes."""
    try:
        resolver, view = namespaced_resolver(url_name)
    except NoReverseMatch as exc:
        return [f"no such name: {exc}"]
    return [
        [forms, pattern, sorted(map(repr, defaults.items())), classes(converters)]
        for forms, pattern, defaults, converters in resolver.reverse_dict.getlist(view)
    ]


def every_pattern(resolver: URLResolver) -> Iterator[list[Any]]:
    """Every pattern of ``resolver``, and of each one it includes, in order."""
    for entry in resolver.url_patterns:
        pattern = [str(entry.pattern), classes(entry.pattern.converters)]
        if isinstance(entry, URLResolver):
            yield ["include", *pattern, entry.namespace, entry.app_name]
            yield from every_pattern(entry)
            yield ["end"]
        elif isinstance(entry, URLPattern):
            yield ["path", *pattern, entry.name, sorted(map(repr, entry.default_args.items()))]


def classes(converters: dict[str, Any]) -> list[list[str]]:
    """Converters by the class of each, not the instance (whose repr holds its address)."""
    found = sorted(converters.items())
    return [[name, f"{type(each).__module__}.{type(each).__qualname__}"] for name, each in found]
