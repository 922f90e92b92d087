"""Content negotiation: whether a request's ``Accept-Encoding`` takes gzip."""

from __future__ import annotations

import re

# RFC 9110 section 12.4.2: qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] ).
QVALUE = re.compile(r"0(?:\.[0-9]{0,3})?|1(?:\.0{0,3})?")


def accepts_gzip(header: str | None) -> bool:
    """Whether an ``Accept-Encoding`` value (RFC 9110 section 12.5.3) takes gzip at
    least as gladly as no coding at all."""
    if header is None:
        # No header lets any coding be sent, by the letter of the RFC; but the
        # clients that send none (scripts, old tools) read plain XML best.
        return False
    weights = coding_weights(header)
    gzip = weights.get("gzip", weights.get("*", 0.0))
    # "identity" is always acceptable unless refused, but only a weight the
    # client gave it (by name or through "*") says it is preferred to gzip.
    identity = weights.get("identity", weights.get("*", 0.0))
    return gzip > 0 and gzip >= identity


def coding_weights(header: str) -> dict[str, float]:
    """Coding name (lower case) -> weight; the first of repeated names wins, and a
    member with a malformed weight is ignored."""
    weights: dict[str, float] = {}
    for member in header.split(","):
        coding, *parameters = (part.strip() for part in member.split(";"))
        if not coding:
            continue
        weight = 1.0
        for parameter in parameters:
            name, _, value = parameter.partition("=")
            if name.strip().lower() == "q":
                value = value.strip()
                weight = float(value) if QVALUE.fullmatch(value) else -1.0
        if weight < 0:
            continue
        coding = coding.lower()
        # RFC 9110 section 8.4.1.3: "x-gzip" is the same coding as "gzip".
        weights.setdefault("gzip" if coding == "x-gzip" else coding, weight)
    return weights
