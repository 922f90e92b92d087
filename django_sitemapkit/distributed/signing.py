"""Jobs and results signed with the project's ``SECRET_KEY``.

A worker renders only a job a coordinator of this project sent, and a
coordinator takes only a result a worker of it returned: whoever can write to
the broker or the result backend, but does not know ``SECRET_KEY``, can drop,
delay or repeat messages, never make one. The signature is Django's
(``django.core.signing``: HMAC-SHA256 of the JSON, salted by the kind of
message), so ``SECRET_KEY_FALLBACKS`` keeps a rotation from failing the
builds in flight.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from django.core.signing import BadSignature, Signer

SALT = "django_sitemapkit.distributed"
SIGNATURE = "signature"
Kind = Literal["job", "result"]


def canonical(payload: dict[str, Any], kind: Kind) -> str:
    """The text signed: ``payload`` as JSON, keys sorted, with what kind it is (a job's
    signature is no result's)."""
    return json.dumps({**payload, "kind": kind}, sort_keys=True, separators=(",", ":"))


def signed(payload: dict[str, Any], kind: Kind) -> dict[str, Any]:
    return {**payload, SIGNATURE: Signer(salt=SALT).signature(canonical(payload, kind))}


def verified(payload: dict[str, Any], kind: Kind) -> dict[str, Any] | None:
    """``payload`` without its signature, if a process with this project's ``SECRET_KEY``
    (or one of ``SECRET_KEY_FALLBACKS``) signed it; else ``None``."""
    signature = payload.get(SIGNATURE)
    rest = {key: value for key, value in payload.items() if key != SIGNATURE}
    if not isinstance(signature, str):
        return None
    signer = Signer(salt=SALT)
    try:
        signer.unsign(f"{canonical(rest, kind)}{signer.sep}{signature}")
    except (BadSignature, TypeError, ValueError):
        return None
    return rest
