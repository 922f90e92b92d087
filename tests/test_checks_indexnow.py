"""Checks of IndexNow (checks/indexnow.py): the SITEMAPKIT_INDEXNOW_* settings and
the route of the key file."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.checks import Error, Warning
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.test import override_settings

from django_sitemapkit.checks import check_indexnow, check_indexnow_route

KEY = "4f1b6e0c2a9d4e8f"
KEY_HINT = (
    "Set SITEMAPKIT_INDEXNOW_KEY to 8 to 128 ASCII letters, digits and '-', such as "
    "secrets.token_hex(16) makes, or to None to turn IndexNow off."
)


@pytest.mark.parametrize("value", [None, KEY, "a" * 8, "A-b-C-1-" * 16])
def test_e044_key_of_the_schema(value: str | None) -> None:
    with override_settings(SITEMAPKIT_INDEXNOW_KEY=value):
        assert check_indexnow() == []


@pytest.mark.parametrize("value", [12345678, b"4f1b6e0c2a9d4e8f", ["4f1b6e0c2a9d4e8f"]])
def test_e044_key_not_a_str(value: object) -> None:
    with override_settings(SITEMAPKIT_INDEXNOW_KEY=value):
        assert check_indexnow() == [
            Error(
                f"SITEMAPKIT_INDEXNOW_KEY is {value!r}, not a str.",
                hint=KEY_HINT,
                id="sitemapkit.E044",
            )
        ]


@pytest.mark.parametrize(
    "value", ["", "short", "a" * 129, "4f1b_6e0c2a9d", "clé-1234567", KEY + "/"]
)
def test_e044_key_not_of_the_schema(value: str) -> None:
    with override_settings(SITEMAPKIT_INDEXNOW_KEY=value):
        assert check_indexnow() == [
            Error(
                f"SITEMAPKIT_INDEXNOW_KEY is {value!r}, not 8 to 128 ASCII letters, digits and "
                "'-': IndexNow refuses any other key.",
                hint=KEY_HINT,
                id="sitemapkit.E044",
            )
        ]


@override_settings(SITEMAPKIT_INDEXNOW_KEY=f"{KEY}\n")
def test_e044_key_with_a_newline_gives_the_key_without_it() -> None:
    assert check_indexnow() == [
        Error(
            f"SITEMAPKIT_INDEXNOW_KEY is '{KEY}\\n', not 8 to 128 ASCII letters, digits and "
            "'-': IndexNow refuses any other key.",
            hint=f"Remove the whitespace around it: SITEMAPKIT_INDEXNOW_KEY = '{KEY}'.",
            id="sitemapkit.E044",
        )
    ]


@pytest.mark.parametrize(
    "value",
    [
        "https://api.indexnow.org/indexnow",
        "https://www.bing.com/indexnow",
        "http://127.0.0.1:8765/indexnow",
        "http://localhost/indexnow",
        "http://[::1]:8080/indexnow",
    ],
)
def test_e045_endpoint_accepted(value: str) -> None:
    with override_settings(SITEMAPKIT_INDEXNOW_ENDPOINT=value):
        assert check_indexnow() == []


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        (None, "not a str"),
        ("api.indexnow.org/indexnow", "not an absolute http or https URL"),
        ("ftp://api.indexnow.org/indexnow", "not an absolute http or https URL"),
        ("https:///indexnow", "not an absolute http or https URL"),
        ("https://api.indexnow.org:99999/indexnow", "not an absolute http or https URL"),
        (
            "https://api.indexnow.org/indexnow\n",
            "not an absolute http or https URL (it contains whitespace or control characters)",
        ),
    ],
)
def test_e045_endpoint_refused(value: object, problem: str) -> None:
    with override_settings(SITEMAPKIT_INDEXNOW_ENDPOINT=value):
        assert check_indexnow() == [
            Error(
                f"SITEMAPKIT_INDEXNOW_ENDPOINT is {value!r}, {problem}.",
                hint="Set SITEMAPKIT_INDEXNOW_ENDPOINT to the URL of an IndexNow endpoint, such "
                "as 'https://api.indexnow.org/indexnow' (the default), or remove it.",
                id="sitemapkit.E045",
            )
        ]


@override_settings(SITEMAPKIT_INDEXNOW_ENDPOINT="http://yandex.com/indexnow")
def test_w021_plain_http_endpoint() -> None:
    assert check_indexnow() == [
        Warning(
            "SITEMAPKIT_INDEXNOW_ENDPOINT is 'http://yandex.com/indexnow', plain http: the key "
            "and the URLs would cross the network unencrypted, and could be changed on the way.",
            hint="Use https: SITEMAPKIT_INDEXNOW_ENDPOINT = 'https://yandex.com/indexnow'.",
            id="sitemapkit.W021",
        )
    ]


@pytest.mark.parametrize("value", [10, 0.5, 60])
def test_e046_timeout_accepted(value: float) -> None:
    with override_settings(SITEMAPKIT_INDEXNOW_TIMEOUT=value):
        assert check_indexnow() == []


@pytest.mark.parametrize("value", [0, -1, "10", None, True, float("inf"), float("nan")])
def test_e046_timeout_refused(value: object) -> None:
    with override_settings(SITEMAPKIT_INDEXNOW_TIMEOUT=value):
        assert check_indexnow() == [
            Error(
                f"SITEMAPKIT_INDEXNOW_TIMEOUT is {value!r}, not a positive number of seconds.",
                hint="Set SITEMAPKIT_INDEXNOW_TIMEOUT to a number of seconds such as 10 (the "
                "default), or remove it.",
                id="sitemapkit.E046",
            )
        ]


@pytest.mark.parametrize("value", [60, 10, 0.5, 600])
def test_e054_deadline_accepted(value: float) -> None:
    with override_settings(SITEMAPKIT_INDEXNOW_DEADLINE=value, SITEMAPKIT_INDEXNOW_TIMEOUT=0.5):
        assert check_indexnow() == []


@pytest.mark.parametrize("value", [0, -1, "60", None, True, float("inf")])
def test_e054_deadline_refused(value: object) -> None:
    with override_settings(SITEMAPKIT_INDEXNOW_DEADLINE=value):
        assert check_indexnow() == [
            Error(
                f"SITEMAPKIT_INDEXNOW_DEADLINE is {value!r}, not a positive number of seconds.",
                hint="Set SITEMAPKIT_INDEXNOW_DEADLINE to a number of seconds such as 60 (the "
                "default), or remove it.",
                id="sitemapkit.E054",
            )
        ]


def test_w024_a_request_longer_than_the_whole_submission() -> None:
    with override_settings(SITEMAPKIT_INDEXNOW_TIMEOUT=120):
        assert check_indexnow() == [
            Warning(
                "SITEMAPKIT_INDEXNOW_TIMEOUT is 120 seconds, more than "
                "SITEMAPKIT_INDEXNOW_DEADLINE (60): no request can take longer than the "
                "deadline of the whole submission, which leaves no time for a retry.",
                hint="Set SITEMAPKIT_INDEXNOW_TIMEOUT to a few seconds (10 by default), or "
                "raise SITEMAPKIT_INDEXNOW_DEADLINE to several times it (60 by default).",
                id="sitemapkit.W024",
            )
        ]


@pytest.mark.parametrize("value", [None, "short"])
def test_route_not_checked_without_a_usable_key(value: str | None) -> None:
    with override_settings(
        SITEMAPKIT_INDEXNOW_KEY=value, ROOT_URLCONF="testapp.urls_without_sitemaps"
    ):
        assert check_indexnow_route() == []


@pytest.mark.parametrize("urlconf", ["testapp.urls", "testapp.urls_text_files"])
def test_route_served_at_the_root(urlconf: str) -> None:
    with override_settings(SITEMAPKIT_INDEXNOW_KEY=KEY, ROOT_URLCONF=urlconf):
        assert check_indexnow_route() == []


@override_settings(SITEMAPKIT_INDEXNOW_KEY=KEY, ROOT_URLCONF="testapp.urls_without_sitemaps")
def test_w022_urls_not_included() -> None:
    assert check_indexnow_route() == [
        Warning(
            "SITEMAPKIT_INDEXNOW_KEY is set, but django_sitemapkit.urls is not included in "
            f"ROOT_URLCONF, so the key file /{KEY}.txt is not served: the engines refuse every "
            "submission (403) until they find it.",
            hint="Add path('', include('django_sitemapkit.urls')) to your urlpatterns, or have "
            f"your web server answer /{KEY}.txt with the key.",
            id="sitemapkit.W022",
        )
    ]


@override_settings(SITEMAPKIT_INDEXNOW_KEY=KEY, ROOT_URLCONF="testapp.urls_text_files_first")
def test_w022_key_file_taken_by_an_earlier_pattern() -> None:
    assert check_indexnow_route() == [
        Warning(
            f"SITEMAPKIT_INDEXNOW_KEY is set, but /{KEY}.txt is answered by "
            "'testapp.urls_text_files.text_file', an earlier pattern of ROOT_URLCONF, not by "
            "the key file: the engines refuse every submission (403) until they find it.",
            hint="Move path('', include('django_sitemapkit.urls')) before that pattern.",
            id="sitemapkit.W022",
        )
    ]


@override_settings(SITEMAPKIT_INDEXNOW_KEY=KEY, ROOT_URLCONF="testapp.urls_subpath")
def test_w023_key_file_under_a_sub_path() -> None:
    assert check_indexnow_route() == [
        Warning(
            "SITEMAPKIT_INDEXNOW_KEY is set, and django_sitemapkit.urls serves its key file at "
            f"'/shop/{KEY}.txt', not at the root: IndexNow then accepts only the URLs under "
            "that path.",
            hint="Include django_sitemapkit.urls at the root of your URLconf: "
            "path('', include('django_sitemapkit.urls')).",
            id="sitemapkit.W023",
        )
    ]


@override_settings(
    SITEMAPKIT_INDEXNOW_KEY=KEY, ROOT_URLCONF="testapp.urls", FORCE_SCRIPT_NAME="/blog"
)
def test_route_at_the_root_of_a_script_prefix() -> None:
    assert check_indexnow_route() == []


@pytest.mark.parametrize(
    ("setting", "value", "check_id"),
    [
        ("SITEMAPKIT_INDEXNOW_KEY", "short", "E044"),
        ("SITEMAPKIT_INDEXNOW_ENDPOINT", "indexnow", "E045"),
        ("SITEMAPKIT_INDEXNOW_TIMEOUT", 0, "E046"),
        ("SITEMAPKIT_INDEXNOW_DEADLINE", 0, "E054"),
    ],
)
def test_indexnow_errors_are_registered(setting: str, value: object, check_id: str) -> None:
    with (
        override_settings(**{setting: value}),
        pytest.raises(SystemCheckError, match=rf"\(sitemapkit\.{check_id}\) {setting} is "),
    ):
        call_command("check")


@pytest.mark.parametrize(
    ("settings", "check_id"),
    [
        ({"SITEMAPKIT_INDEXNOW_ENDPOINT": "http://yandex.com/indexnow"}, "W021"),
        ({"ROOT_URLCONF": "testapp.urls_text_files_first"}, "W022"),
        ({"ROOT_URLCONF": "testapp.urls_subpath"}, "W023"),
        ({"SITEMAPKIT_INDEXNOW_TIMEOUT": 90}, "W024"),
    ],
)
def test_indexnow_warnings_are_registered(settings: dict[str, object], check_id: str) -> None:
    out = StringIO()
    with override_settings(SITEMAPKIT_INDEXNOW_KEY=KEY, **settings):
        # The test URLconfs lack the URL names of the test sources (E010): those
        # errors are printed, not raised.
        call_command("check", stdout=out, stderr=out, fail_level="CRITICAL")
    assert f"?: (sitemapkit.{check_id}) SITEMAPKIT_INDEXNOW_" in out.getvalue()
