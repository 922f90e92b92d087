"""A robots.txt read as RFC 9309 and Google's documentation ("How Google interprets
the robots.txt specification") say, and the question it answers: may this crawler
fetch this URL, and which rule says so.

``parse_robots_txt()`` reads the text once; ``RobotsTxt.decide()`` judges a path
(with its query) or an absolute URL for one crawler's product token. Only what
those two documents describe is read: a line is ``field: value`` (the grammar of
RFC 9309 section 2.2), and the fields are ``user-agent``, ``allow``, ``disallow``
and ``sitemap``. Misspelt fields and lines without a colon, which some parsers
salvage, are ignored like every other line, and no ignored line ends a group
(Google: "rules other than allow, disallow, and user-agent are ignored").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from django_sitemapkit.sites.robots_match import Matcher
from django_sitemapkit.sites.robots_prefix import Under

#: Google reads the first 500 KiB of a robots.txt and ignores the rest (RFC 9309
#: section 2.5: a parsing limit of at least 500 kibibytes).
MAX_BYTES = 500 * 1024
#: The path RFC 9309 section 2.2.2 always allows, whatever the rules say.
ROBOTS_PATH = "/robots.txt"

# RFC 9309 section 2.2: lines end with CR, LF or CR LF, and nothing else.
LINE_END = re.compile(rb"\r\n|\r|\n")
UTF8_BOM = b"\xef\xbb\xbf"
# RFC 9309 section 2.2.1: a product token is letters, "_" and "-"; Google reads
# the token at the start of the value ("Googlebot/2.1" is Googlebot's group).
PRODUCT_TOKEN = re.compile(r"[A-Za-z_-]*")
GLOBAL_AGENT = "*"

# RFC 3986 section 2.3: what a URI may hold unencoded with the same meaning;
# an escape of one of these is the character itself (RFC 9309 section 2.2.2).
UNRESERVED = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
# What else a path and query keep as written: the delimiters and sub-delimiters
# of RFC 3986 but "*" and "$", which RFC 9309 section 2.2.3 gives a meaning in
# rules and so compares in their encoded form ("%2A", "%24") when in a URL.
KEPT = UNRESERVED | frozenset(b"/?:@!&'()+,;=")
HEX_DIGITS = frozenset(b"0123456789ABCDEFabcdef")
# The text most paths are: nothing in it to normalise.
PLAIN = re.compile(r"[A-Za-z0-9._~/?:@!&'()+,;=-]*").fullmatch
OPEN_ESCAPE = re.compile(r"%(?![0-9A-Fa-f]{2})")


def normalised(text: str) -> str:
    """``text`` as rules and URLs are compared (RFC 9309 section 2.2.2): octets outside
    ASCII, and those a URI cannot hold as they are, percent-encoded; an escape of an
    unreserved character decoded; every other escape kept, in upper case."""
    if PLAIN(text):
        return text
    data = text.encode("utf-8", "surrogateescape")
    out: list[str] = []
    i, end = 0, len(data)
    while i < end:
        octet = data[i]
        if octet == 0x25 and i + 2 < end and set(data[i + 1 : i + 3]) <= HEX_DIGITS:
            value = int(data[i + 1 : i + 3], 16)
            out.append(chr(value) if value in UNRESERVED else f"%{value:02X}")
            i += 3
            continue
        out.append(chr(octet) if octet in KEPT else f"%{octet:02X}")
        i += 1
    return "".join(out)


def path_of(url: str) -> str:
    """The path and query of ``url`` (an absolute URL, or a path that may have a query),
    without the fragment: what rules match (RFC 9309 section 2.2.2)."""
    url = url.partition("#")[0]
    if url.startswith("/") and not url.startswith("//"):
        return url
    parts = urlsplit(url)
    query = f"?{parts.query}" if "?" in url else ""
    return (parts.path or "/") + query


@dataclass(frozen=True)
class Rule:
    """One ``Allow`` or ``Disallow`` line: its pattern as written, and as compared."""

    allow: bool
    #: The value as the file writes it.
    pattern: str
    line: int
    #: The normalised pattern cut at each ``*``, and whether it ends with ``$``.
    parts: tuple[str, ...] = field(repr=False, compare=False)
    anchored: bool = field(repr=False, compare=False)
    #: RFC 9309 section 2.2.2: "the most specific match", that of the most octets.
    priority: int = field(repr=False, compare=False)

    @classmethod
    def compile(cls, allow: bool, pattern: str, line: int) -> Rule:
        # RFC 9309 section 2.2.3: "$" ends a pattern only as its last character,
        # "*" stands for any characters; anywhere else "$" is itself, as in a URL.
        anchored = pattern.endswith("$")
        body = pattern[:-1] if anchored else pattern
        parts = tuple(normalised(part) for part in body.split("*"))
        priority = len("*".join(parts)) + anchored
        return cls(allow, pattern, line, parts, anchored, priority)

    def __str__(self) -> str:
        return f"{'Allow' if self.allow else 'Disallow'}: {self.pattern}"

    def matches(self, path: str) -> bool:
        """Whether the pattern matches ``path`` (normalised) from its start. Each part
        between two ``*`` is found at its first place after the one before, which
        matches whenever any placement does, in linear time per part."""
        parts = self.parts
        first = parts[0]
        if not path.startswith(first):
            return False
        if len(parts) == 1:
            return len(path) == len(first) if self.anchored else True
        position, end = len(first), len(path)
        middle = parts[1:]
        if self.anchored:
            last = parts[-1]
            end -= len(last)
            if end < position or not path.endswith(last):
                return False
            middle = parts[1:-1]
        for part in middle:
            found = path.find(part, position, end)
            if found < 0:
                return False
            position = found + len(part)
        return True


@dataclass(frozen=True)
class Decision:
    """Whether ``agent`` may fetch a URL, and the rule that decided; ``rule`` is
    ``None`` where none matched (RFC 9309 section 2.2.2: the URL is allowed)."""

    allowed: bool
    agent: str
    rule: Rule | None = None


@dataclass(frozen=True)
class Group:
    """A group's rules made ready for many paths (``robots_match``): what a path costs
    grows with its length, not with the number of rules; and for the paths of each
    prefix asked (``refusing()``), from each rule's parts in the order of precedence."""

    matcher: Matcher[Rule]
    ordered: tuple[tuple[tuple[str, ...], bool, Rule], ...] = ()
    _under: dict[str, Under[Rule]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    @classmethod
    def of(cls, rules: tuple[Rule, ...]) -> Group:
        ordered = tuple((rule.parts, rule.anchored, rule) for rule in sorted(rules, key=precedence))
        return cls(Matcher(list(ordered)), ordered)

    def refusing(self, prefix: str) -> Under[Rule]:
        """The rules made ready to tell which paths of ``prefix`` they disallow, and how."""
        if prefix not in self._under:
            self._under[prefix] = Under(prefix, self.ordered, lambda rule: not rule.allow)
        return self._under[prefix]

    def deciding(self, path: str) -> Rule | None:
        """The rule that decides for ``path`` (normalised): the first that matches in
        the order of ``precedence()``."""
        return self.matcher.first(path)


@dataclass(frozen=True)
class RobotsTxt:
    """The groups of a robots.txt, by product token in lower case (``"*"`` for the
    group every crawler without one of its own obeys), each with its rules from the
    most specific; and its ``Sitemap:`` URLs."""

    groups: dict[str, tuple[Rule, ...]]
    sitemaps: tuple[str, ...] = ()
    #: The groups each tuple of crawlers obeys, made ready when first asked.
    _obeyed: dict[tuple[str, ...], list[tuple[str, Group]]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    def rules_for(self, agent: str) -> tuple[Rule, ...]:
        """The one group ``agent`` obeys (RFC 9309 section 2.2.1): its own, found without
        case, else the ``*`` group, else none (no rule applies)."""
        token = agent.lower()
        if token in self.groups:
            return self.groups[token]
        return self.groups.get(GLOBAL_AGENT, ())

    def decide(self, url: str, agent: str) -> Decision:
        """Whether ``agent`` (a product token such as ``"Googlebot"``) may fetch ``url``,
        a path with its query or an absolute URL, and the rule that decided."""
        path = compared_path(url)
        ((_, group),) = self.obeyed((agent,))
        rule = None if path is None else group.deciding(path)
        return Decision(True, agent) if rule is None else Decision(rule.allow, agent, rule)

    def allowed(self, url: str, agent: str) -> bool:
        return self.decide(url, agent).allowed

    def refusal(self, url: str, agents: tuple[str, ...]) -> Decision | None:
        """The decision of the first of ``agents`` that may not fetch ``url``; ``None``
        if every one may."""
        path = compared_path(url)
        if path is None:
            return None
        for agent, group in self.obeyed(agents):
            rule = group.deciding(path)
            if rule is not None and not rule.allow:
                return Decision(False, agent, rule)
        return None

    def obeyed(self, agents: tuple[str, ...]) -> list[tuple[str, Group]]:
        """Each group one of ``agents`` obeys, once, with the first agent obeying it."""
        found = self._obeyed.get(agents)
        if found is None:
            groups: dict[int, tuple[str, Group]] = {}
            for agent in agents:
                rules = self.rules_for(agent)
                groups.setdefault(id(rules), (agent, Group.of(rules)))
            found = self._obeyed[agents] = list(groups.values())
        return found


def compared_path(url: str) -> str | None:
    """The path and query of ``url`` as rules are matched against it; ``None`` for
    ``/robots.txt``, which every crawler may fetch."""
    if url[:1] != "/" or url[:2] == "//" or "#" in url:
        url = path_of(url)
    if url.startswith(ROBOTS_PATH) and url[len(ROBOTS_PATH) : len(ROBOTS_PATH) + 1] in ("", "?"):
        return None
    return normalised(url)


def compared_pieces(pieces: list[str]) -> tuple[str, ...] | None:
    """The literal pieces of paths (the first their start; between them, text with nothing
    to normalise) each normalised: joined, what ``compared_path()`` gives such a path, but
    ``/robots.txt``. ``None`` where a piece holds a fragment or a "%" that what follows
    may make an escape of (``OPEN_ESCAPE``), or the paths do not start with one "/"."""
    if pieces[0][:1] != "/" or pieces[0][:2] == "//" or any(map(OPEN_ESCAPE.search, pieces)):
        return None
    return None if any("#" in piece for piece in pieces) else tuple(map(normalised, pieces))


def parse_robots_txt(content: bytes | str) -> RobotsTxt:
    """The rules of a robots.txt: its first ``MAX_BYTES`` bytes (a line cut there is read
    as far as it goes, as Google does), less a UTF-8 byte order mark."""
    data = content.encode("utf-8", "surrogateescape") if isinstance(content, str) else content
    data = data[:MAX_BYTES].removeprefix(UTF8_BOM)
    groups: dict[str, list[Rule]] = {}
    sitemaps: list[str] = []
    agents: list[str] = []
    # Whether the group's user-agent lines have ended: the next one starts a new
    # group (RFC 9309 section 2.1: a group is its user-agent lines, then rules).
    in_rules = False
    for number, raw in enumerate(LINE_END.split(data), 1):
        text = raw.decode("utf-8", "surrogateescape").partition("#")[0]
        key, colon, value = text.partition(":")
        if not colon:
            continue
        key, value = key.strip().lower(), value.strip()
        if key == "user-agent":
            if in_rules:
                agents, in_rules = [], False
            token = agent_token(value)
            if token:
                agents.append(token)
                groups.setdefault(token, [])
        elif key in ("allow", "disallow") and agents:
            in_rules = True
            # An empty value matches nothing (RFC 9309 section 2.2.2).
            if value:
                rule = Rule.compile(key == "allow", value, number)
                for token in agents:
                    groups[token].append(rule)
        elif key == "sitemap" and value:
            sitemaps.append(value)
    return RobotsTxt(
        {token: tuple(sorted(rules, key=precedence)) for token, rules in groups.items()},
        tuple(sitemaps),
    )


def agent_token(value: str) -> str:
    """The product token of a ``User-agent`` value, in lower case; ``"*"`` alone, or
    followed by a space, is every crawler's."""
    if value == GLOBAL_AGENT or (value[:1] == GLOBAL_AGENT and value[1:2].isspace()):
        return GLOBAL_AGENT
    token = PRODUCT_TOKEN.match(value)
    return token.group().lower() if token else ""


def precedence(rule: Rule) -> tuple[int, bool, int]:
    """The order rules are tried in: the most specific first, Allow before Disallow."""
    return (-rule.priority, not rule.allow, rule.line)
