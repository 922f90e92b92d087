"""A group's rules compiled into a tree (sites/robots_match.py) decide as every rule
tried in turn does: the reference below matches each rule as a regular expression
(any placement of each ``*``, a final ``$`` the end) and takes the first match in
the order of precedence. What a path costs is counted, not timed: the operations
on it stay within a bound of its length, whatever the number of rules."""

from __future__ import annotations

import random
import re
from typing import Any, SupportsIndex

from hypothesis import given, settings
from hypothesis import strategies as st

from django_sitemapkit.sites.robots_rules import (
    Decision,
    Group,
    Rule,
    compared_path,
    normalised,
    parse_robots_txt,
    precedence,
)


def reference(rules: list[Rule], path: str) -> Rule | None:
    """The rule that decides for ``path`` (normalised), every rule tried."""
    matching = [
        rule
        for rule in rules
        if re.match(
            ".*".join(map(re.escape, rule.parts)) + (r"\Z" if rule.anchored else ""),
            path,
            re.DOTALL,
        )
    ]
    return min(matching, key=precedence, default=None)


def tried_in_turn(rules: tuple[Rule, ...], path: str) -> Rule | None:
    """The same with each rule's own matcher, as the group did before it was a tree
    (linear in a pattern of many ``*``, where a regular expression backtracks)."""
    return min((rule for rule in rules if rule.matches(path)), key=precedence, default=None)


def compiled(rules: list[tuple[bool, str]]) -> list[Rule]:
    """The rules of a group from its second line on, in the order the parser gives
    them (``precedence()``)."""
    found = [Rule.compile(allow, pattern, line) for line, (allow, pattern) in enumerate(rules, 2)]
    return sorted(found, key=precedence)


# Pieces of patterns and paths: wildcards, the anchor, escapes that normalise to
# one character ("%61" is "a") or stay escaped ("%2F"), UTF-8 and its escapes.
PIECES = ["/", "a", "b", "ab", "abab", ".", "?", "*", "$", "%61", "%2F", "%2f", "é", "%C3%A9"]
PATTERN = st.lists(st.sampled_from(PIECES), max_size=8).map("".join)
PATH = st.lists(st.sampled_from([p for p in PIECES if p != "*"]), max_size=12).map(
    lambda pieces: "/" + "".join(pieces)
)


@settings(max_examples=300)
@given(
    rules=st.lists(st.tuples(st.booleans(), PATTERN), max_size=30),
    paths=st.lists(PATH, min_size=1, max_size=8),
)
def test_the_tree_decides_as_every_rule_tried(
    rules: list[tuple[bool, str]], paths: list[str]
) -> None:
    """Ties between Allow and Disallow of one length, ``$`` and ``*`` anywhere (at the
    ends, doubled), escapes, empty patterns, a rule repeated."""
    group_rules = compiled(rules + rules[:3])
    group = Group.of(tuple(group_rules))
    for path in paths:
        compared = normalised(path)
        assert group.deciding(compared) == reference(group_rules, compared)


def random_rules(seed: int, count: int) -> list[tuple[bool, str]]:
    """``count`` rules that share first parts and parts after ``*`` (so that the tree's
    nodes hold more next parts than it looks for one by one), some longer than the
    table's pieces."""
    chooser = random.Random(seed)
    words = ["", "a", "ab", "b", "ba", "abab", "babab", "aabba", "abba.b", "%2F", "é", "ab%61"]

    def part() -> str:
        return "".join(chooser.choice(words) for _ in range(chooser.randint(0, 3)))

    rules = []
    for _ in range(count):
        parts = [chooser.choice(["/", "/a", "/ab", "/b", ""]) + part()]
        parts += [part() for _ in range(chooser.choice([0, 0, 1, 1, 2, 3]))]
        anchor = "$" if chooser.random() < 0.3 else ""
        rules.append((chooser.random() < 0.5, "*".join(parts) + anchor))
    return rules


def test_large_generated_groups_decide_as_every_rule_tried() -> None:
    chooser = random.Random(44)
    letters = ["a", "b", ".", "/", "é", "%2F", "%61"]
    paths = ["/"] + [
        "/" + "".join(chooser.choice(letters) for _ in range(chooser.randint(0, 24)))
        for _ in range(300)
    ]
    for seed in range(6):
        rules = compiled(random_rules(seed, 400))
        group = Group.of(tuple(rules))
        for path in map(normalised, paths):
            assert group.deciding(path) == reference(rules, path), (seed, path)


def test_a_parsed_robots_txt_decides_as_every_rule_tried() -> None:
    """Through the parser and ``decide()``: the whole decision, for URLs as given."""
    rules = random_rules(7, 300)
    text = "User-agent: *\n" + "".join(
        f"{'Allow' if allow else 'Disallow'}: {pattern}\n" for allow, pattern in rules
    )
    # An empty value is no rule (RFC 9309 section 2.2.2): the parser leaves it out.
    kept = compiled([(allow, pattern) for allow, pattern in rules])
    kept = [rule for rule in kept if rule.pattern]
    robots_txt = parse_robots_txt(text)
    chooser = random.Random(9)
    for _ in range(300):
        url = "/" + "".join(
            chooser.choice(["a", "b", "/", "é", "%61", "?", "."]) for _ in range(12)
        )
        # A URL starting "//" is a host's: its path is judged.
        path = compared_path(url)
        assert path is not None
        rule = reference(kept, path)
        decision = Decision(rule is None or rule.allow, "Googlebot", rule)
        assert robots_txt.decide(url, "Googlebot") == decision


class CountedPath(str):
    """A path that counts what is done with it: each slice, search and comparison of
    its text."""

    operations = 0

    def __getitem__(self, key: SupportsIndex | slice) -> str:
        CountedPath.operations += 1
        return str.__getitem__(self, key)

    def startswith(self, *args: Any) -> bool:
        CountedPath.operations += 1
        return str.startswith(self, *args)

    def endswith(self, *args: Any) -> bool:
        CountedPath.operations += 1
        return str.endswith(self, *args)

    def find(self, *args: Any) -> int:
        CountedPath.operations += 1
        return str.find(self, *args)


def shop_rules(count: int) -> tuple[Rule, ...]:
    """A robots.txt's worth of a shop's rules, ``count`` of each kind: plain prefixes,
    wildcards after a shared first part and after ``/``, anchored ones."""
    kinds = [
        "Disallow: /shop/{}/",
        "Allow: /shop/{}",
        "Disallow: /shop/*?sort={}",
        "Allow: /*/p{}*$",
        "Disallow: /*{}.html$",
        "Disallow: /*color={}&",
    ]
    lines = [kind.format(number) for number in range(count) for kind in kinds]
    lines.append("Disallow: /" + "*a" * 5_000)
    return parse_robots_txt("User-agent: *\n" + "\n".join(lines)).rules_for("*")


def test_a_paths_cost_is_bounded_by_its_length_not_by_the_rules() -> None:
    """Every rule tried in turn costs a path an operation a rule at least; the tree, a
    few for each of its characters, as many with 60,000 rules as with 60."""
    paths = [
        "/shop/123/item.html?sort=5",
        "/shop/77/",
        "/a/p77/b",
        "/shop/9/list?color=9&size=2",
        "/other/page",
        "/" + "a" * 40,
    ]
    for count in (10, 1_000, 10_000):
        rules = shop_rules(count)
        group = Group.of(rules)
        for path in paths:
            compared = compared_path(path)
            assert compared is not None
            CountedPath.operations = 0
            decided = group.deciding(CountedPath(compared))
            assert decided == tried_in_turn(rules, compared), (count, path)
            assert CountedPath.operations <= 8 * len(path), (count, path)


class ComparedRule(Rule):
    """A rule that counts its comparisons with another."""

    comparisons = 0

    def __eq__(self, other: object) -> bool:
        ComparedRule.comparisons += 1
        return super().__eq__(other)

    __hash__ = Rule.__hash__


def test_compiling_a_group_compares_no_two_rules() -> None:
    """A group is compiled in one pass over its rules: none is looked for among the
    others (each such search costs every rule before it)."""
    rules = tuple(
        ComparedRule.compile(number % 2 == 0, f"/{number}/" + "*" * (number % 3 == 0), number)
        for number in range(2_000)
    )
    ComparedRule.comparisons = 0
    group = Group.of(rules)
    assert ComparedRule.comparisons == 0
    assert group.deciding("/3/x") == rules[3]
