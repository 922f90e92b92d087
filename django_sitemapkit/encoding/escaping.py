"""XML escaping of text and attribute values, as the sitemaps.org protocol asks."""

from __future__ import annotations

import re

# sitemaps.org protocol, "Entity escaping": these five, and only once
# ("&" first, so no entity is escaped again).
_ESCAPES = (("&", "&amp;"), ("'", "&apos;"), ('"', "&quot;"), (">", "&gt;"), ("<", "&lt;"))

#: Whether a text holds a character to escape (a search in C, far cheaper than a rewrite).
NEEDS_ESCAPE = re.compile("[&'\"><]").search


def escape(text: str) -> str:
    # Most locations need no escaping: one search in C settles it, far
    # cheaper than rewriting the string.
    if NEEDS_ESCAPE(text) is None:
        return text
    for char, entity in _ESCAPES:
        text = text.replace(char, entity)
    return text
