"""URI syntax a location must obey before it is written: strict percent-encoding and
no dot segments (RFC 3986)."""

from __future__ import annotations

import re

# RFC 3986 section 2.4: "%" only ever starts a percent-encoding.
STRAY_PERCENT = re.compile(r"%(?![0-9A-Fa-f]{2})")
# What strict_reference() may have to encode; most locations hold none of it.
_MAY_NEED_ENCODING = re.compile(r"[%\[\]#]").search


def strict_reference(rest: str) -> str:
    """The path, query and fragment of a URI from ``iri_to_uri()``, with the three
    characters it keeps that cannot stand where they are percent-encoded.

    ``iri_to_uri()`` leaves ``%`` alone (the text may hold escapes already),
    and ``[``, ``]`` and ``#`` (they may be delimiters). But by RFC 3986 a
    ``%`` not followed by two hex digits (section 2.4), a bracket outside an
    IP literal host (section 3.2.2) and a second ``#`` (section 3.5) make the
    URI invalid, and the schema's ``xsd:anyURI`` refuses it. Encoded, they
    mean what the location said.
    """
    if _MAY_NEED_ENCODING(rest) is None:
        return rest
    rest = STRAY_PERCENT.sub("%25", rest).replace("[", "%5B").replace("]", "%5D")
    before, hash_sign, fragment = rest.partition("#")
    return before + hash_sign + fragment.replace("#", "%23")


# RFC 3986 section 3.3: a dot segment is "." or ".."; by section 6.2.2.2 a
# percent-encoded "." ("%2E", an unreserved character) is the same character.
DOT_SEGMENT = re.compile(r"(?<![^/])(?:\.|%2[eE]){1,2}(?![^/])")
_QUERY_OR_FRAGMENT = re.compile(r"[?#]").search


def without_dot_segments(reference: str) -> str:
    """The path, query and fragment ``reference`` (its path absolute) with the
    path's dot segments removed, as every URL parser resolves them.

    ``/blog/../admin/`` and ``/blog/%2e%2e/admin/`` are ``/admin/``: a
    location must meet the location rule in the form a crawler requests it.
    The query and fragment are kept as written; so is a ``%2E`` outside a dot
    segment. A path with a dot segment holds ``/.`` or ``/%2``, which most
    paths do not: they cost two substring searches.
    """
    if "/." not in reference and "/%2" not in reference:
        return reference
    end = _QUERY_OR_FRAGMENT(reference)
    cut = len(reference) if end is None else end.start()
    path = reference[:cut]
    if DOT_SEGMENT.search(path) is None:
        return reference
    path = DOT_SEGMENT.sub(lambda dots: dots[0].lower().replace("%2e", "."), path)
    return remove_dot_segments(path) + reference[cut:]


def remove_dot_segments(path: str) -> str:
    """RFC 3986 section 5.2.4, its steps A to E in order; the input buffer is
    read with an index rather than cut, and the output buffer is a list of
    segments, each with its leading ``/`` (so one ``pop()`` removes one)."""
    output: list[str] = []
    at, end = 0, len(path)
    while at < end:
        if path.startswith(("../", "./"), at):  # A: the prefix is removed
            at = path.index("/", at) + 1
        elif path.startswith("/./", at):  # B: "/./" becomes "/"
            at += 2
        elif path.startswith("/.", at) and at + 2 == end:  # B: a final "/." becomes "/"
            output.append("/")
            at = end
        elif path.startswith("/../", at):  # C: "/../" becomes "/", and a segment goes
            at += 3
            if output:
                output.pop()
        elif path.startswith("/..", at) and at + 3 == end:  # C, at the end
            if output:
                output.pop()
            output.append("/")
            at = end
        elif end - at <= 2 and path[at:] in (".", ".."):  # D
            at = end
        else:  # E: the first segment, with its "/", up to the next "/"
            next_slash = path.find("/", at + 1)
            stop = end if next_slash < 0 else next_slash
            output.append(path[at:stop])
            at = stop
    return "".join(output)
