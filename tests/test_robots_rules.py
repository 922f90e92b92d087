"""The robots.txt parser and matcher, against code nobody here wrote: Protego, the
maintained parser Scrapy uses, must decide every URL of the corpus below as the
matcher does, and as Google's documentation says. Where Protego differs from
RFC 9309 or Google's documentation, the matcher follows the documents: each
such case is listed in ``DIFFERENCES`` with the rule it follows, and Protego is
shown to decide it the other way (should Protego change, the case moves to the
corpus)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from protego import Protego

from django_sitemapkit.sites.robots_rules import (
    MAX_BYTES,
    Decision,
    RobotsTxt,
    Rule,
    normalised,
    parse_robots_txt,
)

FISH = ["/fish", "/fish.html", "/fish/salmon.html", "/fishheads", "/fishheads/yummy.html"]
PHP = ["/index.php", "/filename.php", "/folder/filename.php", "/folder/filename.php?parameters"]
# Google, "How Google interprets the robots.txt specification", "URL matching based
# on path values": each path value, the URLs it matches and those it does not.
GOOGLE_PATH_VALUES = {
    "/": (["/", "/fish", "/a/b?c"], []),
    "/*": (["/", "/fish", "/a/b?c"], []),
    "/$": (["/"], ["/fish", "/?id=1"]),
    "/fish": (
        [*FISH, "/fish.php?id=anything"],
        ["/Fish.asp", "/catfish", "/?id=fish", "/desert/fish"],
    ),
    "/fish*": (
        [*FISH, "/fish.php?id=anything"],
        ["/Fish.asp", "/catfish", "/?id=fish", "/desert/fish"],
    ),
    "/fish/": (
        ["/fish/", "/fish/?id=anything", "/fish/salmon.htm"],
        ["/fish", "/fish.html", "/animals/fish/", "/Fish/Salmon.asp"],
    ),
    "/*.php": (
        [*PHP, "/folder/any.php.file.html", "/filename.php/"],
        ["/", "/windows.PHP"],
    ),
    "/*.php$": (
        ["/filename.php", "/folder/filename.php"],
        ["/filename.php?parameters", "/filename.php/", "/filename.php5", "/windows.PHP"],
    ),
    "/fish*.php": (["/fish.php", "/fishheads/catfish.php?parameters"], ["/Fish.PHP"]),
}

# The same page, "Order of precedence for rules": the URL, the group's rules, and
# the rule that applies.
GOOGLE_PRECEDENCE = [
    ("https://example.com/page", ["Allow: /p", "Disallow: /"], "Allow: /p"),
    ("https://example.com/folder/page", ["Allow: /folder", "Disallow: /folder"], "Allow: /folder"),
    ("https://example.com/page.htm", ["Allow: /page", "Disallow: /*.htm"], "Disallow: /*.htm"),
    ("https://example.com/page.php5", ["Allow: /page", "Disallow: /*.ph"], "Allow: /page"),
    ("https://example.com/", ["Allow: /$", "Disallow: /"], "Allow: /$"),
    ("https://example.com/page.htm", ["Allow: /$", "Disallow: /"], "Disallow: /"),
]

# Its "Order of precedence for user agents" and "Grouping of lines and rules".
GOOGLE_AGENTS = """\
user-agent: googlebot-news
disallow: /fish

user-agent: *
disallow: /carrots

user-agent: googlebot
disallow: /shrimp

user-agent: googlebot-news
disallow: /shrimp
"""

# (robots.txt, crawler, URL, allowed): Protego and the matcher agree on each.
CORPUS = [
    # Groups: found without case, merged when an agent has several, "*" only for
    # a crawler without its own (Google's example above).
    (GOOGLE_AGENTS, "Googlebot-News", "/fish/1", False),
    (GOOGLE_AGENTS, "Googlebot-News", "/shrimp", False),
    (GOOGLE_AGENTS, "Googlebot-News", "/carrots", True),
    (GOOGLE_AGENTS, "Googlebot", "/shrimp", False),
    (GOOGLE_AGENTS, "Googlebot", "/fish", True),
    (GOOGLE_AGENTS, "Googlebot", "/carrots", True),
    (GOOGLE_AGENTS, "Storebot-Google", "/carrots", False),
    (GOOGLE_AGENTS, "Storebot-Google", "/shrimp", True),
    ("User-Agent: GOOGLEBOT\nDisallow: /x\n", "googlebot", "/x", False),
    # Google's example: a sitemap line does not end a group, so both a and b obey.
    ("user-agent: a\nsitemap: https://example.com/sitemap.xml\n\nuser-agent: b\ndisallow: /\n",
     "a", "/page", False),
    # A group with no rules is still the agent's own: "*" does not apply to it.
    ("User-agent: *\nDisallow: /\n\nUser-agent: Examplebot\n", "Examplebot", "/page", True),
    # A blank line does not end a group's user-agent lines.
    ("User-agent: Examplebot\n\nUser-agent: *\nDisallow: /\n", "Examplebot", "/page", False),
    ("User-agent: *\nDisallow: /\n", "Bingbot", "/page", False),
    # No group for the crawler and no "*": no rule applies; nor in an empty file.
    ("User-agent: Bingbot\nDisallow: /\n", "Googlebot", "/page", True),
    ("", "Googlebot", "/page", True),
    # Rules before any user-agent line belong to no group.
    ("Disallow: /\nUser-agent: *\nAllow: /x\n", "Googlebot", "/page", True),
    # An empty Disallow allows everything; /robots.txt is always allowed.
    ("User-agent: *\nDisallow:\n", "Googlebot", "/page", True),
    ("User-agent: *\nDisallow: /\n", "Googlebot", "/robots.txt", True),
    # Comments, whitespace, and CR LF or CR line ends.
    ("User-agent: * # all\r\n  Disallow:   /private   # no\r\n", "Googlebot", "/private/1", False),
    ("User-agent: *\rDisallow: /private\r", "Googlebot", "/private/1", False),
    # Longest match, Allow on a tie, wildcards anywhere, the anchor.
    ("User-agent: *\nDisallow: /shop\nAllow: /shop/public\n", "Googlebot", "/shop/public/1", True),
    ("User-agent: *\nDisallow: /shop/public\nAllow: /shop\n", "Googlebot", "/shop/public/1", False),
    ("User-agent: *\nDisallow: /*?print=\n", "Googlebot", "/article/1?print=1", False),
    ("User-agent: *\nDisallow: /*?print=\n", "Googlebot", "/article/1?x=1&print=1", True),
    ("User-agent: *\nDisallow: /*print=\n", "Googlebot", "/article/1?x=1&print=1", False),
    ("User-agent: *\nDisallow: /*/edit$\n", "Googlebot", "/a/b/edit", False),
    ("User-agent: *\nDisallow: /*/edit$\n", "Googlebot", "/a/b/edit/", True),
    ("User-agent: *\nDisallow: /a**b\n", "Googlebot", "/a/x/b", False),
    ("User-agent: *\nDisallow: /\nAllow: /*.css$\n", "Googlebot", "/static/site.css", True),
    # Percent-encoding (RFC 9309 section 2.2.2): UTF-8 and its escapes are one path,
    # in either case; an escaped unreserved character is that character.
    ("User-agent: *\nDisallow: /foo/bar/ツ\n", "Googlebot", "/foo/bar/%E3%83%84", False),
    ("User-agent: *\nDisallow: /foo/bar/ツ\n", "Googlebot", "/foo/bar/%e3%83%84", False),
    ("User-agent: *\nDisallow: /foo/bar/%E3%83%84\n", "Googlebot", "/foo/bar/ツ", False),
    ("User-agent: *\nDisallow: /foo/bar/%62%61%7A\n", "Googlebot", "/foo/bar/baz", False),
    ("User-agent: *\nDisallow: /foo/bar/baz\n", "Googlebot", "/foo/bar/%62%61%7A", False),
    ("User-agent: *\nDisallow: /a/b\n", "Googlebot", "/a%2Fb", True),
    # RFC 9309 section 2.2.3: "%2A" and "%24" are the characters "*" and "$".
    ("User-agent: *\nDisallow: /path/file-with-a-%2A.html\n", "Googlebot",
     "/path/file-with-a-*.html", False),
    ("User-agent: *\nDisallow: /path/file-with-a-%2A.html\n", "Googlebot",
     "/path/file-with-a-x.html", True),
    ("User-agent: *\nDisallow: /path/foo-%24\n", "Googlebot", "/path/foo-$", False),
    # Absolute URLs: the path and query are judged, the fragment is not.
    ("User-agent: *\nDisallow: /fish\n", "Googlebot", "https://example.com/fish#x", False),
    ("User-agent: *\nDisallow: /*?\n", "Googlebot", "https://example.com/?", False),
]  # fmt: skip

# (robots.txt, crawler, URL, allowed by the matcher, the rule it follows): Protego
# decides each the other way.
DIFFERENCES = [
    # The grammar of RFC 9309 section 2.2 has no other field names and needs the colon;
    # Google's documentation lists these four fields. (Google's own parser salvages
    # a few misspellings, as Protego does; the documents do not.)
    ("User-agent: *\nDissallow: /x\n", "Googlebot", "/x", True, "RFC 9309 2.2: fields"),
    ("User-agent: *\nDisallow /x\n", "Googlebot", "/x", True, "RFC 9309 2.2: the colon"),
    # Google: "rules other than allow, disallow, and user-agent are ignored", so a
    # crawl-delay line (or any other) does not end the group's user-agent lines.
    ("User-agent: a\nCrawl-delay: 5\nUser-agent: b\nDisallow: /\n", "a", "/x", False, "Google"),
    ("User-agent: a\nNoindex: /\nUser-agent: b\nDisallow: /\n", "a", "/x", False, "Google"),
    # RFC 9309 section 2.2.1: the group is the crawler's product token's, matched
    # whole: "Google" is not Googlebot's group, "Googlebot/2.1" is.
    ("User-agent: Google\nDisallow: /\n", "Googlebot", "/x", True, "RFC 9309 2.2.1"),
    ("User-agent: Googlebot/2.1\nDisallow: /\n", "Googlebot", "/x", False, "RFC 9309 2.2.1"),
    # RFC 9309 section 2.2.3: "$" ends the pattern; Protego also reads it as the
    # character "$" and so disallows "/a$b".
    ("User-agent: *\nDisallow: /a$\n", "Googlebot", "/a$b", True, "RFC 9309 2.2.3"),
    # RFC 9309 section 2.2.2: an escaped reserved character stays escaped, and is
    # not the delimiter itself ("?", "=").
    ("User-agent: *\nDisallow: /a?b\n", "Googlebot", "/a%3Fb", True, "RFC 9309 2.2.2"),
    ("User-agent: *\nDisallow: /a=b\n", "Googlebot", "/a%3Db", True, "RFC 9309 2.2.2"),
    # Protego reads "Allow: .../index.html" as allowing ".../" too; neither document does.
    ("User-agent: *\nAllow: /index.html\nDisallow: /\n", "Googlebot", "/", False, "RFC 9309"),
    # A UTF-8 byte order mark is not part of the first field name (Google skips it).
    ("\ufeffUser-agent: *\nDisallow: /\n", "Googlebot", "/x", False, "Google"),
    # RFC 9309 section 2.2: lines end with CR, LF or CR LF only, not a form feed.
    ("User-agent: *\x0cDisallow: /\n", "Googlebot", "/x", True, "RFC 9309 2.2: EOL"),
    # Google reads the first 500 KiB and ignores what follows.
    ("User-agent: *\n" + "#" * MAX_BYTES + "\nDisallow: /\n", "Googlebot", "/x", True, "Google"),
]


def protego_allows(robots_txt: str, agent: str, url: str) -> bool:
    return Protego.parse(robots_txt).can_fetch(url, agent)


@pytest.mark.parametrize(
    ("pattern", "url", "matches"),
    [
        (pattern, url, matches)
        for pattern, (yes, no) in GOOGLE_PATH_VALUES.items()
        for urls, matches in ((yes, True), (no, False))
        for url in urls
    ],
)
def test_googles_path_values(pattern: str, url: str, matches: bool) -> None:
    robots_txt = f"User-agent: *\nDisallow: {pattern}\n"
    decision = parse_robots_txt(robots_txt).decide(url, "Googlebot")
    rule = Rule.compile(False, pattern, 2)
    assert decision == (
        Decision(False, "Googlebot", rule) if matches else Decision(True, "Googlebot")
    )
    assert protego_allows(robots_txt, "Googlebot", url) is not matches


@pytest.mark.parametrize(("url", "rules", "applies"), GOOGLE_PRECEDENCE)
def test_googles_order_of_precedence(url: str, rules: list[str], applies: str) -> None:
    robots_txt = "\n".join(["User-agent: *", *rules])
    decision = parse_robots_txt(robots_txt).decide(url, "Googlebot")
    assert str(decision.rule) == applies
    assert decision.allowed is applies.startswith("Allow")
    assert protego_allows(robots_txt, "Googlebot", url) is decision.allowed


@pytest.mark.parametrize(("robots_txt", "agent", "url", "allowed"), CORPUS)
def test_protego_agrees(robots_txt: str, agent: str, url: str, allowed: bool) -> None:
    assert parse_robots_txt(robots_txt).allowed(url, agent) is allowed
    assert protego_allows(robots_txt, agent, url) is allowed


@pytest.mark.parametrize(("robots_txt", "agent", "url", "allowed", "rule"), DIFFERENCES)
def test_where_protego_differs_the_documents_are_followed(
    robots_txt: str, agent: str, url: str, allowed: bool, rule: str
) -> None:
    assert parse_robots_txt(robots_txt).allowed(url, agent) is allowed, rule
    assert protego_allows(robots_txt, agent, url) is not allowed


PATTERN = st.text("/ab.*", min_size=1, max_size=6).map(lambda text: "/" + text) | st.just("/")


@given(
    rules=st.lists(st.tuples(st.booleans(), PATTERN, st.booleans()), min_size=1, max_size=5),
    paths=st.lists(st.text("/ab.", max_size=8).map(lambda text: "/" + text), max_size=5),
)
def test_protego_agrees_on_any_wildcards(
    rules: list[tuple[bool, str, bool]], paths: list[str]
) -> None:
    """Any rules of "/", "a", "b", "." and "*", some anchored with "$", over such paths."""
    lines = [
        f"{'Allow' if allow else 'Disallow'}: {pattern}{'$' if anchored else ''}"
        for allow, pattern, anchored in rules
    ]
    robots_txt = "\n".join(["User-agent: *", *lines])
    ours = parse_robots_txt(robots_txt)
    for path in paths:
        assert ours.allowed(path, "Googlebot") is protego_allows(robots_txt, "Googlebot", path)


def test_the_deciding_rule_is_named_with_its_line() -> None:
    robots_txt = parse_robots_txt(
        "User-agent: *\nDisallow: /private/\nAllow: /private/press/\nDisallow: /*?print=\n"
    )
    assert robots_txt.decide("/public/1?print=1", "Googlebot") == Decision(
        False, "Googlebot", Rule.compile(False, "/*?print=", 4)
    )
    decision = robots_txt.decide("/private/press/1", "Googlebot")
    assert decision == Decision(True, "Googlebot", Rule.compile(True, "/private/press/", 3))
    assert str(decision.rule) == "Allow: /private/press/"
    assert robots_txt.decide("/public", "Googlebot") == Decision(True, "Googlebot", None)


def test_the_groups_and_sitemaps() -> None:
    robots_txt = parse_robots_txt(
        "Sitemap: https://example.com/sitemap.xml\nUser-agent: Googlebot\nUser-agent: Bingbot\n"
        "Disallow: /a\nCrawl-delay: 10\nUser-agent: *\nAllow: /\nsitemap:\n"
    )
    a = Rule.compile(False, "/a", 4)
    assert robots_txt == RobotsTxt(
        {"googlebot": (a,), "bingbot": (a,), "*": (Rule.compile(True, "/", 7),)},
        ("https://example.com/sitemap.xml",),
    )


def test_only_the_first_500_kib_are_read() -> None:
    rules = b"User-agent: *\nDisallow: /early\n"
    padding = b"#" * (MAX_BYTES - len(rules) - len(b"\nDisallow: /la"))
    # The line the limit cuts is read as far as it goes, as Google reads it.
    robots_txt = parse_robots_txt(rules + padding + b"\nDisallow: /late\nDisallow: /later\n")
    assert robots_txt.rules_for("Googlebot") == (
        Rule.compile(False, "/early", 2),
        Rule.compile(False, "/la", 4),
    )


def test_bytes_that_are_not_utf8_are_compared_as_escapes() -> None:
    robots_txt = parse_robots_txt(b"User-agent: *\nDisallow: /caf\xe9\n")
    assert not robots_txt.allowed("/caf%E9", "Googlebot")
    assert robots_txt.allowed("/caf%C3%A9", "Googlebot")


@pytest.mark.parametrize(
    ("text", "compared"),
    [
        # RFC 9309 section 2.2.2's table.
        ("/foo/bar?baz=quz", "/foo/bar?baz=quz"),
        ("/foo/bar?baz=https%3A%2F%2Ffoo.bar", "/foo/bar?baz=https%3A%2F%2Ffoo.bar"),
        ("/foo/bar/ツ", "/foo/bar/%E3%83%84"),
        ("/foo/bar/%E3%83%84", "/foo/bar/%E3%83%84"),
        ("/foo/bar/%62%61%7A", "/foo/bar/baz"),
        # Lower-case escapes, characters no URI holds as they are, a lone "%".
        ("/a%2fb%7e", "/a%2Fb~"),
        ('/a b"<>', "/a%20b%22%3C%3E"),
        ("/100%", "/100%25"),
        ("/a*b$", "/a%2Ab%24"),
    ],
)
def test_normalised(text: str, compared: str) -> None:
    assert normalised(text) == compared


def test_many_wildcards_match_in_linear_time() -> None:
    # A backtracking matcher would try every placement of the nine wildcards.
    rule = Rule.compile(False, "/" + "*a" * 9 + "*b", 1)
    assert not rule.matches("/" + "a" * 5_000)
    assert rule.matches("/" + "a" * 5_000 + "b")
