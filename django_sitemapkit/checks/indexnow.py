"""System checks of IndexNow: the ``SITEMAPKIT_INDEXNOW_*`` settings, and the route
of the key file the engines fetch to trust a submission."""

from __future__ import annotations

import unicodedata
from typing import Any
from urllib.parse import urlsplit

from django.core.checks import CheckMessage, Error, Warning
from django.core.exceptions import ImproperlyConfigured
from django.urls import NoReverseMatch, Resolver404, resolve, reverse

from django_sitemapkit.checks.setting_values import KEY_HINT, check_values
from django_sitemapkit.conf import conf
from django_sitemapkit.locations.policy import (
    URL_NAMESPACE,
    fixed_script_prefix,
    stable_script_prefix,
)
from django_sitemapkit.names import INDEXNOW_KEY
from django_sitemapkit.views.key_file import indexnow_key

#: The hosts a plain-http endpoint may be on: this machine, where nothing crosses a network.
LOCAL_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
INCLUDE = "path('', include('django_sitemapkit.urls'))"


def check_indexnow(**kwargs: Any) -> list[CheckMessage]:
    return check_key() + check_endpoint() + check_durations()


def check_durations() -> list[CheckMessage]:
    """E046, E054: the table's; W024: a request allowed longer than the whole submission."""
    errors = check_values("INDEXNOW_TIMEOUT") + check_values("INDEXNOW_DEADLINE")
    timeout, deadline = conf.INDEXNOW_TIMEOUT, conf.INDEXNOW_DEADLINE
    if errors or timeout <= deadline:
        return errors
    return [
        Warning(
            f"SITEMAPKIT_INDEXNOW_TIMEOUT is {timeout!r} seconds, more than "
            f"SITEMAPKIT_INDEXNOW_DEADLINE ({deadline!r}): no request can take longer than "
            "the deadline of the whole submission, which leaves no time for a retry.",
            hint="Set SITEMAPKIT_INDEXNOW_TIMEOUT to a few seconds (10 by default), or raise "
            "SITEMAPKIT_INDEXNOW_DEADLINE to several times it (60 by default).",
            id="sitemapkit.W024",
        )
    ]


def check_key() -> list[CheckMessage]:
    """E044: a key IndexNow refuses; a value that is no str is the table's
    (``setting_values``)."""
    errors = check_values("INDEXNOW_KEY")
    value = conf.INDEXNOW_KEY
    if errors or value is None or INDEXNOW_KEY.fullmatch(value):
        return errors
    stripped = value.strip()
    # A key read from an env file or a secret often ends in a newline.
    hint = (
        f"Remove the whitespace around it: SITEMAPKIT_INDEXNOW_KEY = {stripped!r}."
        if stripped != value and INDEXNOW_KEY.fullmatch(stripped)
        else KEY_HINT
    )
    return [
        Error(
            f"SITEMAPKIT_INDEXNOW_KEY is {value!r}, not 8 to 128 ASCII letters, digits and "
            "'-': IndexNow refuses any other key.",
            hint=hint,
            id="sitemapkit.E044",
        )
    ]


def endpoint_problem(value: object) -> str | None:
    """Why ``value`` cannot be posted to, or ``None`` if it can."""
    if not isinstance(value, str):
        return "not a str"
    if any(unicodedata.category(c)[0] in "CZ" or c.isspace() for c in value):
        return "not an absolute http or https URL (it contains whitespace or control characters)"
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 -- raises ValueError on a malformed port
    except ValueError:
        return "not an absolute http or https URL"
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return "not an absolute http or https URL"
    return None


def check_endpoint() -> list[CheckMessage]:
    value = conf.raw("INDEXNOW_ENDPOINT")
    problem = endpoint_problem(value)
    if problem is not None:
        return [
            Error(
                f"SITEMAPKIT_INDEXNOW_ENDPOINT is {value!r}, {problem}.",
                hint="Set SITEMAPKIT_INDEXNOW_ENDPOINT to the URL of an IndexNow endpoint, such "
                f"as {conf.defaults['INDEXNOW_ENDPOINT']!r} (the default), or remove it.",
                id="sitemapkit.E045",
            )
        ]
    assert isinstance(value, str)
    parts = urlsplit(value)
    if parts.scheme == "https" or parts.hostname in LOCAL_HOSTS:
        return []
    secure = parts._replace(scheme="https").geturl()
    return [
        Warning(
            f"SITEMAPKIT_INDEXNOW_ENDPOINT is {value!r}, plain http: the key and the URLs "
            "would cross the network unencrypted, and could be changed on the way.",
            hint=f"Use https: SITEMAPKIT_INDEXNOW_ENDPOINT = {secure!r}.",
            id="sitemapkit.W021",
        )
    ]


def check_indexnow_route(**kwargs: Any) -> list[CheckMessage]:
    """The key file must answer at the root of each host: the engines look for it at
    ``https://<host>/<key>.txt``, and a key file under a path vouches only for the
    URLs under that path (indexnow.org, "Verify ownership via a key")."""
    key = conf.raw("INDEXNOW_KEY")
    if not isinstance(key, str) or not INDEXNOW_KEY.fullmatch(key):
        return []  # IndexNow is off, or sitemapkit.E044
    root = f"{fixed_script_prefix()}{key}.txt"
    try:
        with stable_script_prefix():
            served = reverse(f"{URL_NAMESPACE}:indexnow_key", kwargs={"key": key})
        match = resolve(f"/{key}.txt")
    except NoReverseMatch:
        return [not_routed(key)]
    except Resolver404:
        match = None
    except ImproperlyConfigured:
        return []  # Django's own URL checks report a broken URLconf
    if served != root:
        return [under_a_path(key, served)]
    if match is None or match.func is not indexnow_key:
        return [shadowed(key, match._func_path if match else None)]
    return []


def not_routed(key: str) -> CheckMessage:
    return Warning(
        f"SITEMAPKIT_INDEXNOW_KEY is set, but django_sitemapkit.urls is not included in "
        f"ROOT_URLCONF, so the key file /{key}.txt is not served: the engines refuse every "
        "submission (403) until they find it.",
        hint=f"Add {INCLUDE} to your urlpatterns, or have your web server answer "
        f"/{key}.txt with the key.",
        id="sitemapkit.W022",
    )


def shadowed(key: str, view: str | None) -> CheckMessage:
    return Warning(
        f"SITEMAPKIT_INDEXNOW_KEY is set, but /{key}.txt is answered by {view!r}, an earlier "
        "pattern of ROOT_URLCONF, not by the key file: the engines refuse every submission "
        "(403) until they find it.",
        hint=f"Move {INCLUDE} before that pattern.",
        id="sitemapkit.W022",
    )


def under_a_path(key: str, served: str) -> CheckMessage:
    return Warning(
        f"SITEMAPKIT_INDEXNOW_KEY is set, and django_sitemapkit.urls serves its key file at "
        f"{served!r}, not at the root: IndexNow then accepts only the URLs under that path.",
        hint=f"Include django_sitemapkit.urls at the root of your URLconf: {INCLUDE}.",
        id="sitemapkit.W023",
    )
