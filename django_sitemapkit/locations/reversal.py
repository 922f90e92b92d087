"""``reverse()`` for one URL name, with its lookups done once.

A pattern that ``urltemplates.UrlTemplate`` cannot prove to be literal pieces
and converter slots (a ``re_path()``, a custom converter) is still filled the
way ``reverse()`` fills it. ``reverse()`` finds the resolver, the name's
possibilities and the pattern's regular expression on every call; for a name
with one pattern and one form, this does so once, and each call repeats only
the per-value steps of ``URLResolver._reverse_with_prefix()``: the converters'
``to_url()`` (or ``str()``), the substitution, the match of the whole
candidate against the pattern, and the quoting. Anything else (a value the
pattern does not match, a name with several patterns) goes to ``reverse()``
itself, which answers or raises as it always does.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping
from typing import Any
from urllib.parse import quote

from django.urls import get_script_prefix, reverse
from django.utils.http import RFC3986_SUBDELIMS, escape_leading_slashes

from django_sitemapkit.locations.resolution import only_reversal

Fill = Callable[[Mapping[str, Any]], str]


def compiled_reverse(url_name: str, names: Collection[str]) -> Fill | None:
    """``reverse(url_name, kwargs=...)`` for kwargs named ``names``, or ``None`` where
    the name has more than one way to be reversed. Build it where ``reverse()`` would
    run: it reads the current URLconf, script prefix and (through the resolver) language."""
    reversal = only_reversal(url_name, names)
    if reversal is None or reversal.defaults:
        return None
    result, _, pattern, _, converters = reversal
    prefix = get_script_prefix()
    candidate = prefix.replace("%", "%%") + result
    matches = re.compile(f"^{re.escape(prefix)}{pattern}").search
    safe = RFC3986_SUBDELIMS + "/~:@"
    # What quote() leaves as it is: most URLs, which then need no quoting at all.
    unquoted = re.compile(f"[A-Za-z0-9_.~{re.escape(safe)}-]*").fullmatch

    def fill(kwargs: Mapping[str, Any]) -> str:
        texts = {}
        for name, value in kwargs.items():
            converter = converters.get(name)
            if converter is None:
                texts[name] = str(value)
                continue
            try:
                texts[name] = converter.to_url(value)
            except ValueError:
                return reverse(url_name, kwargs=dict(kwargs))
        url = candidate % texts
        if matches(url) is None:
            return reverse(url_name, kwargs=dict(kwargs))
        if unquoted(url) is None:
            url = quote(url, safe=safe)
        return escape_leading_slashes(url)

    return fill
