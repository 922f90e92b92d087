from __future__ import annotations

import random
import uuid
from collections.abc import Iterator
from operator import itemgetter
from typing import Any

import pytest
from django.test import override_settings
from django.urls import NoReverseMatch, get_script_prefix, reverse, set_script_prefix

from django_sitemapkit.locations.policy import MAX_LOCATION_LENGTH
from django_sitemapkit.locations.templates import UrlTemplate, quick_locator

pytestmark = pytest.mark.urls("testapp.urls_templates")

# Characters that reverse() must percent-encode, XML-escape later, or refuse.
SPECIAL = [
    *"/?#%&'\"<>;=+ ~:@!$()*,[]\\^`{|}",
    "\x00", "\t", "\n", "\x7f", "\x85", "é", "ü", "ß", "日本", "😀", "\u2028", "\ufeff",
    "\ufffe", "\uffff", "\ud800", "%2F", "%25", "..", "./", "//", "-", "_", ".",
]  # fmt: skip


def random_texts(seed: int, count: int) -> Iterator[str]:
    generator = random.Random(seed)
    alphabet = [*"abcXYZ019-_.", *SPECIAL]
    for _ in range(count):
        yield "".join(generator.choice(alphabet) for _ in range(generator.randint(0, 6)))


def outcome(call: Any) -> tuple[str, str]:
    """What a call returned, or which exception it raised."""
    try:
        return ("value", call())
    except (NoReverseMatch, UnicodeError) as exc:
        return ("raised", type(exc).__name__)


def assert_same_as_reverse(url_name: str, kwargs: dict[str, Any]) -> None:
    template = UrlTemplate.compile(url_name, list(kwargs))
    assert template is not None
    assert outcome(lambda: template.fill(kwargs)) == outcome(
        lambda: reverse(url_name, kwargs=kwargs)
    ), kwargs


@pytest.mark.parametrize(
    ("url_name", "names", "shown"),
    [
        ("home", [], "/"),
        ("odd-literal", [], "/a.b+c%20(d)/~%C3%BC/"),
        ("str", ["value"], "/str/{value}/"),
        ("int", ["value"], "/int/{value}/"),
        ("path", ["value"], "/path/{value}"),
        ("two", ["second", "first"], "/two/{first}-{second}/"),
        ("mixed", ["slug", "pk", "title"], "/mixed/{pk}/{slug}/{title}/"),
        ("with-default", ["value"], "/default/{value}/"),
        ("news:post", ["slug"], "/blog/{slug}/"),
        ("localized:tag", ["lang", "tag"], "/{lang}/blog/tag/{tag}/"),
    ],
)
def test_compile_makes_a_template_of_path_patterns(
    url_name: str, names: list[str], shown: str
) -> None:
    assert repr(UrlTemplate.compile(url_name, names)) == f"<UrlTemplate {url_name!r} {shown!r}>"


@pytest.mark.parametrize(
    ("url_name", "names"),
    [
        ("no-such-name", []),
        ("nowhere:post", ["slug"]),
        ("str", []),  # an argument missing
        ("str", ["value", "extra"]),  # an argument too many
        ("with-default", ["value", "kind"]),  # a default passed as an argument
        ("custom", ["value"]),  # a converter of the project's own
        ("regex", ["value"]),  # re_path()
        ("twice", ["value"]),  # two patterns under one name
        ("sitemapkit:page", ["section", "page"]),  # a custom converter, in a namespace
    ],
)
def test_compile_leaves_what_it_cannot_prove_to_reverse(url_name: str, names: list[str]) -> None:
    assert UrlTemplate.compile(url_name, names) is None


@pytest.mark.parametrize("url_name", ["str", "slug", "path", "path-first"])
def test_fill_equals_reverse_for_any_text(url_name: str) -> None:
    for text in random_texts(seed=len(url_name), count=3_000):
        assert_same_as_reverse(url_name, {"value": text})


@pytest.mark.parametrize("text", SPECIAL)
def test_fill_equals_reverse_for_each_special_character(text: str) -> None:
    for url_name in ("str", "slug", "path", "path-first", "int", "uuid"):
        assert_same_as_reverse(url_name, {"value": text})
        assert_same_as_reverse(url_name, {"value": f"a{text}b"})


def test_fill_equals_reverse_for_several_arguments() -> None:
    texts = list(random_texts(seed=7, count=1_500))
    generator = random.Random(8)
    for first, second in zip(texts, reversed(texts), strict=True):
        assert_same_as_reverse("two", {"first": first, "second": second})
        pk = generator.choice([0, 7, -1, 10**20, "12", "1a", 3.5, True])
        assert_same_as_reverse("mixed", {"pk": pk, "slug": second, "title": first})
        assert_same_as_reverse("localized:tag", {"lang": second, "tag": first})


@pytest.mark.parametrize(
    "value",
    [0, 42, -1, 10**30, "7", "07", "x", 1.5, True, None, uuid.UUID(int=5), "", " 1"],
)
def test_fill_equals_reverse_for_numbers_and_other_types(value: object) -> None:
    for url_name in ("int", "str", "slug", "uuid", "path"):
        assert_same_as_reverse(url_name, {"value": value})


def test_fill_equals_reverse_for_uuids() -> None:
    generator = random.Random(3)
    for _ in range(500):
        value = uuid.UUID(int=generator.getrandbits(128))
        assert_same_as_reverse("uuid", {"value": value})
        assert_same_as_reverse("uuid", {"value": str(value)})
        assert_same_as_reverse("uuid", {"value": str(value).upper()})


def test_a_leading_double_slash_is_escaped_as_reverse_does() -> None:
    template = UrlTemplate.compile("path-first", ["value"])
    assert template is not None
    assert template.fill({"value": "/evil.example"}) == "/%2Fevil.example/leading/"
    assert_same_as_reverse("path-first", {"value": "/evil.example"})


@pytest.mark.parametrize("prefix", ["/", "/sub/", "/a b%/ü/"])
def test_fill_equals_reverse_under_a_script_prefix(prefix: str) -> None:
    previous = get_script_prefix()
    set_script_prefix(prefix)
    try:
        for text in random_texts(seed=11, count=300):
            assert_same_as_reverse("str", {"value": text})
            assert_same_as_reverse("news:post", {"slug": text})
    finally:
        set_script_prefix(previous)


@override_settings(ROOT_URLCONF="testapp.urls")
def test_compile_reads_the_current_urlconf() -> None:
    template = UrlTemplate.compile("article-detail", ["slug"])
    assert repr(template) == "<UrlTemplate 'article-detail' '/articles/{slug}/'>"


ORIGIN = "https://www.example.com"
# What the quick locators of these tests answer for a row they hand to the general route.
GENERAL = "(the general route)"


def ordinary_texts(seed: int, count: int) -> Iterator[str]:
    """Slugs, the values most URLs are made of."""
    generator = random.Random(seed)
    alphabet = "abcdefghijklmnopqrstuvwxyzABCXYZ0123456789-_"
    for _ in range(count):
        yield "".join(generator.choice(alphabet) for _ in range(generator.randint(1, 12)))


def quick_for(url_name: str, names: list[str], prefix: str = ORIGIN + "/") -> Any:
    template = UrlTemplate.compile(url_name, names)
    assert template is not None
    readers = [itemgetter(slot.name) for slot in template.slots]
    return quick_locator(
        template, readers, ORIGIN, prefix, MAX_LOCATION_LENGTH, lambda row: GENERAL
    )


def assert_quick_agrees(quick: Any, url_name: str, kwargs: dict[str, Any]) -> bool:
    """The quick URL is the base URL + reverse()'s path; the general route is always allowed.

    Returns whether the quick route answered.
    """
    url = quick(kwargs)
    if url == GENERAL:
        return False
    assert url == ORIGIN + reverse(url_name, kwargs=kwargs), kwargs
    assert len(url) < MAX_LOCATION_LENGTH
    return True


@pytest.mark.parametrize("url_name", ["str", "slug", "path", "int", "uuid"])
def test_quick_urls_equal_reverse_for_any_value(url_name: str) -> None:
    quick = quick_for(url_name, ["value"])
    generator = random.Random(len(url_name))
    values: list[Any] = list(random_texts(seed=len(url_name), count=2_000))
    values += list(ordinary_texts(seed=len(url_name), count=500))
    values += [generator.randint(-5, 10**12) for _ in range(500)]
    uuids = [uuid.UUID(int=generator.getrandbits(128)) for _ in range(200)]
    values += [*uuids, *map(str, uuids)]
    values += [True, 1.5, None, "x" * 3_000, 10**300]

    answered = [assert_quick_agrees(quick, url_name, {"value": value}) for value in values]

    # The quick route answers for the ordinary values of every converter.
    assert sum(answered) > 200


def test_quick_urls_equal_reverse_for_several_arguments() -> None:
    quick = quick_for("mixed", ["slug", "pk", "title"])
    texts = [*random_texts(seed=21, count=1_000), *ordinary_texts(seed=23, count=500)]
    generator = random.Random(22)
    answered = 0
    for slug, title in zip(texts, reversed(texts), strict=True):
        pk = generator.choice([0, 7, -1, 10**20, "12", "1a", 3.5, True])
        answered += assert_quick_agrees(quick, "mixed", {"pk": pk, "slug": slug, "title": title})
    assert answered > 100


def test_a_quick_url_of_2048_characters_or_more_is_left_to_the_general_route() -> None:
    quick = quick_for("slug", ["value"])
    room = MAX_LOCATION_LENGTH - len(ORIGIN + "/slug//")
    assert quick({"value": "a" * (room - 1)}) == f"{ORIGIN}/slug/{'a' * (room - 1)}/"
    assert quick({"value": "a" * room}) == GENERAL
    two = quick_for("two", ["first", "second"])
    room = MAX_LOCATION_LENGTH - len(ORIGIN + "/two/-/")
    assert two({"first": "a" * (room - 1), "second": ""}) == GENERAL  # "" fails [^/]+
    assert two({"first": "a" * (room - 2), "second": "b"}) == f"{ORIGIN}/two/{'a' * (room - 2)}-b/"
    assert two({"first": "a" * (room - 1), "second": "b"}) == GENERAL


@pytest.mark.parametrize(
    ("url_name", "names", "prefix"),
    [
        # A leading path argument could make "//": only fill() handles that.
        ("path-first", ["value"], ORIGIN + "/"),
        # Under a sub-directory the start does not settle the location rule.
        ("str", ["value"], ORIGIN + "/str/x/"),
        ("home", [], ORIGIN + "/blog/"),
    ],
)
def test_no_quick_route_where_the_start_of_the_url_settles_nothing(
    url_name: str, names: list[str], prefix: str
) -> None:
    assert quick_for(url_name, names, prefix) is None


def test_a_quick_route_under_a_sitemap_directory_the_url_starts_in() -> None:
    quick = quick_for("news:post", ["slug"], ORIGIN + "/blog/")
    assert quick({"slug": "hello"}) == ORIGIN + "/blog/hello/"


@pytest.mark.parametrize(
    ("url_name", "value", "path"),
    [
        ("str", "..", "/str/../"),
        ("str", ".", "/str/./"),
        ("path", "..", "/path/.."),
        ("path", "a/../..", "/path/a/../.."),
        ("path", "../a", "/path/../a"),
        ("path", "./a", "/path/./a"),
        ("path", "a/.", "/path/a/."),
        ("path", "a/./b", "/path/a/./b"),
    ],
)
def test_a_value_that_makes_a_dot_segment_takes_the_general_route(
    url_name: str, value: str, path: str
) -> None:
    # reverse() keeps the dot segment ("/str/../" is "/"): the policy resolves it.
    assert reverse(url_name, kwargs={"value": value}) == path
    assert quick_for(url_name, ["value"])({"value": value}) == GENERAL


def test_dots_that_make_no_dot_segment_stay_on_the_quick_route() -> None:
    assert quick_for("str", ["value"])({"value": ".x"}) == f"{ORIGIN}/str/.x/"
    assert quick_for("str", ["value"])({"value": "..."}) == f"{ORIGIN}/str/.../"
    assert quick_for("path", ["value"])({"value": "a.b/..c/d."}) == f"{ORIGIN}/path/a.b/..c/d."
    assert quick_for("two", ["first", "second"])({"first": ".", "second": "."}) == (
        f"{ORIGIN}/two/.-./"
    )


def test_no_quick_route_for_a_pattern_whose_own_text_makes_a_dot_segment() -> None:
    assert quick_for("dotted-literal", ["value"]) is None
    assert quick_for("dotted-literal-str", ["value"]) is None
