"""A group's rules made ready for the paths of one prefix (sites/robots_prefix.py)
decide as the whole group does for the whole path, for any prefix, rules and rest:
literals that straddle the prefix's end, ``$``, ``*`` anywhere, escapes. The rows a
chunk's search leaves out are those the rule that always matches decides."""

from __future__ import annotations

from collections.abc import Callable

from hypothesis import example, given, settings
from hypothesis import strategies as st
from test_robots_match import PIECES, compiled

from django_sitemapkit.sites.robots_prefix import NEEDLES, Under, residuals
from django_sitemapkit.sites.robots_rules import (
    Group,
    Rule,
    compared_path,
    compared_pieces,
    normalised,
)

PATTERN = st.lists(st.sampled_from(PIECES), max_size=6).map(lambda pieces: "/" + "".join(pieces))
TEXT = st.lists(st.sampled_from([p for p in PIECES if p != "*"]), max_size=6).map("".join)
RULES = st.lists(st.tuples(st.booleans(), PATTERN), max_size=20)


def check(rules: list[tuple[bool, str]], prefix: str, rests: list[str]) -> None:
    """Every decision as the group's for the whole path; and, as ``refusing()`` asks,
    whether it disallows, and by which rule."""
    group = Group.of(tuple(compiled(rules)))
    prefix = normalised("/" + prefix)
    remainders = [normalised(rest) for rest in rests]

    def disallowing(rule: Rule | None) -> Rule | None:
        return rule if rule is not None and not rule.allow else None

    def itself(rule: Rule | None) -> Rule | None:
        return rule

    whole: Callable[[Rule | None], Rule | None]
    for under, whole in (
        (Under(prefix, group.ordered), itself),
        (group.refusing(prefix), disallowing),
    ):
        candidates = under.candidates(remainders)
        for number, remainder in enumerate(remainders):
            expected = whole(group.deciding(prefix + remainder))
            assert whole(under.deciding(remainder)) == expected, (prefix, remainder)
            if number not in candidates:
                assert expected == whole(under.always), (prefix, remainder)


@settings(max_examples=400)
@given(rules=RULES, prefix=TEXT, rests=st.lists(TEXT, min_size=1, max_size=6))
# A literal straddling the prefix's end, at one of two places; "$" after it.
@example(rules=[(False, "/a*abab"), (True, "/a*bab$")], prefix="aba", rests=["b", "bab", "ab"])
# "$" on a part the prefix ends within; the remainder empty.
@example(rules=[(False, "/*ba$"), (True, "/ab$")], prefix="ab", rests=["", "a", "ba"])
# An escape of the rule's ("%61" is "a") across the end; "%2F" is no "/".
@example(rules=[(False, "/%61b*%2F"), (True, "/ab/")], prefix="a", rests=["b%2F", "b/", "b%2f"])
# "/a*$" is "/a"; a rule ending in "*"; one Allow and one Disallow of one length.
@example(rules=[(False, "/a*$"), (True, "/b*"), (False, "/b*")], prefix="", rests=["a", "b"])
def test_the_rules_under_a_prefix_decide_as_the_group_does(
    rules: list[tuple[bool, str]], prefix: str, rests: list[str]
) -> None:
    check(rules, prefix, rests)


def test_a_rule_that_always_matches_drops_those_after_it() -> None:
    rules = compiled(
        [(False, "/articles/*-draft/"), (True, "/articles/"), (False, "/art"), (False, "/*.pdf$")]
    )
    under = Under("/articles/", [(rule.parts, rule.anchored, rule) for rule in rules])
    assert str(under.always) == "Allow: /articles/"
    # Only the rule before it is left, on the remainder: "*-draft/" ("/*.pdf$" is after).
    assert (under.keys, under.needles) == ([], ["-draft/"])
    assert under.candidates(["a/", "b-draft/", "c-draft"]) == {1}
    assert str(under.deciding("b-draft/")) == "Disallow: /articles/*-draft/"
    assert under.deciding("c-draft") == under.always


def test_what_a_rule_says_of_the_paths_of_a_prefix() -> None:
    # Diverges, always matches, goes on past the prefix, straddles its end, or ends it.
    assert residuals("/ab/", ("/x",), False) == []
    assert residuals("/ab/", ("/a", "/"), False) is None
    assert residuals("/ab/", ("/ab/cd",), False) == [(("cd",), False)]
    assert residuals("/ab/", ("/", "b/c"), False) == [(("c",), False), (("", "b/c"), False)]
    assert residuals("/ab/", ("/", "/"), True) == [(("", "/"), True), (("",), True)]
    assert residuals("/ab/", ("/ab/",), True) == [(("",), True)]


def test_to_tell_refusals_the_allows_after_the_last_disallow_are_dropped() -> None:
    group = Group.of(tuple(compiled([(True, "/a/*xx"), (False, "/a/*y$"), (True, "/a/*z")])))
    # "/a/*xx" ties with "/a/*y$" and wins: it is kept; "/a/*z" decides as no rule would.
    assert group.refusing("/a/").needles == ["xx", "y\n"]
    assert Under("/a/", group.ordered).needles == ["xx", "y\n", "z"]


def test_too_many_needles_look_at_every_remainder() -> None:
    rules = compiled([(False, f"/*x{number}") for number in range(NEEDLES + 1)])
    under = Under("/a/", [(rule.parts, rule.anchored, rule) for rule in rules])
    assert under.needles is None
    assert under.candidates(["b", "c"]) == {0, 1}


@given(
    pieces=st.lists(TEXT, min_size=1, max_size=3),
    values=st.lists(st.text("ab-_~09", max_size=4), min_size=3, max_size=3),
)
@example(pieces=["/a%", "41", ""], values=["", "", ""])
@example(pieces=["/a%4", "b", "#x"], values=["1", "", ""])
def test_pieces_normalised_apart_make_the_path_normalised_whole(
    pieces: list[str], values: list[str]
) -> None:
    """Where ``compared_pieces()`` takes the pieces, the path of them and values between
    them normalises as they do one by one, ``/robots.txt`` aside."""
    pieces = ["/" + pieces[0], *pieces[1:]]
    compared = compared_pieces(pieces)
    between = values[: len(pieces) - 1]
    raw = pieces[0] + "".join(v + p for v, p in zip(between, pieces[1:], strict=True))
    if compared is None:
        assert pieces[0][:2] == "//" or any("#" in p or "%" in p for p in pieces)
        return
    joined = compared[0] + "".join(v + p for v, p in zip(between, compared[1:], strict=True))
    assert compared_path(raw) in (joined, None)
