"""How ``reverse()`` finds a URL name: the one home of the namespace walk, used by the
URL templates, the compiled reversal and the system checks (``sitemapkit.E010``)."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any, NamedTuple

from django.urls import NoReverseMatch, get_urlconf
from django.urls.resolvers import URLResolver, get_ns_resolver, get_resolver


class Reversal(NamedTuple):
    """The one way a name can be reversed: ``reverse()``'s format string and its
    arguments, the pattern's regular expression, defaults and converters."""

    result: str
    params: list[str]
    pattern: str
    defaults: Any
    converters: Any


def only_reversal(url_name: str, names: Collection[str]) -> Reversal | None:
    """The reversal of ``url_name`` with keyword arguments ``names``, or ``None`` where
    the name is unknown or has more than one pattern or form."""
    try:
        resolver, view = namespaced_resolver(url_name)
    except NoReverseMatch:
        return None
    possibilities = resolver.reverse_dict.getlist(view)
    if len(possibilities) != 1:
        return None
    forms, pattern, defaults, converters = possibilities[0]
    if len(forms) != 1:
        return None
    result, params = forms[0]
    if sorted(params) != sorted(names) or len(set(params)) != len(params):
        return None
    return Reversal(result, list(params), pattern, defaults, converters)


def namespaced_resolver(url_name: str) -> tuple[URLResolver, str]:
    """The resolver ``reverse(url_name)`` asks, and the name within it: its namespace
    walk without a ``current_app`` (an application namespace picks its default instance)."""
    resolver = get_resolver(get_urlconf())
    *namespaces, view = url_name.split(":")
    pattern = ""
    namespace_converters: dict[str, Any] = {}
    for namespace in namespaces:
        instances = resolver.app_dict.get(namespace)
        if instances and namespace not in instances:
            namespace = instances[0]
        try:
            extra, resolver = resolver.namespace_dict[namespace]
        except KeyError:
            raise NoReverseMatch(f"{namespace!r} is not a registered namespace") from None
        pattern += extra
        namespace_converters.update(resolver.pattern.converters)
    if pattern:
        resolver = get_ns_resolver(pattern, resolver, tuple(namespace_converters.items()))
    return resolver, view
