"""A group's rules compiled once for many paths: the rule RFC 9309 section 2.2.2 says
decides ("the most specific match"), found at a cost that grows with the path's
length, not with the number of rules (a robots.txt of 500 KiB holds some 50,000).

A rule is its literal parts, the pattern cut at each ``*``, and whether ``$`` ends
it. It matches a path that starts with its first part and holds each next part
after the one before, each found at its first place (that matches whenever any
placement does); a final ``$`` puts the last part at the path's end. The rules
make a tree of parts: rules that share their first parts share a node, which a
path reaches once, at the place those parts end. A node's next parts are looked
for all at once (``Strings``), and a node none of whose rules could beat the
rule found so far is not visited.

This module knows nothing of robots.txt: it is given each rule's parts in the
order rules take precedence, and answers the first of them that matches.
"""

from __future__ import annotations

import sys
from typing import Generic, TypeVar

T = TypeVar("T")

#: Up to this many strings are looked for one by one: so many ``str.find`` (in C)
#: cost less than the table's lookups, a few per character of the path.
FEW = 32
#: The table reads a path this many characters at a time.
GRAM = 4
#: The rank of no rule: every rule's rank is lower (ranks are positions in a list).
NONE = sys.maxsize


class Grams(Generic[T]):
    """Strings cut into pieces of ``GRAM`` characters, the last one shorter, each
    piece a key: the strings found at a place of a path take one lookup per
    length of piece, per piece read (at most ``GRAM`` each), however many strings
    there are."""

    __slots__ = ("lengths", "pieces")

    def __init__(self) -> None:
        #: A piece, the value of the string it ends, and the table of the strings
        #: that go on past it (only a piece of ``GRAM`` characters has one).
        self.pieces: dict[str, tuple[T | None, Grams[T] | None]] = {}
        self.lengths: tuple[int, ...] = ()

    def add(self, string: str, value: T) -> None:
        table: Grams[T] = self
        while len(string) > GRAM:
            piece, string = string[:GRAM], string[GRAM:]
            ending, rest = table.pieces.get(piece, (None, None))
            if rest is None:
                rest = Grams()
                table.pieces[piece] = (ending, rest)
            table = rest
        rest = table.pieces.get(string, (None, None))[1]
        table.pieces[string] = (value, rest)

    def freeze(self) -> None:
        # Without recursion: a string of 500 KiB makes a chain of 128,000 tables.
        pending: list[Grams[T]] = [self]
        while pending:
            table = pending.pop()
            table.lengths = tuple(sorted({len(piece) for piece in table.pieces}))
            pending += [rest for _, rest in table.pieces.values() if rest is not None]

    def at(self, path: str, start: int, found: list[tuple[T, int]]) -> None:
        """Append the value of each string found at ``start`` in ``path``, and where it
        ends there."""
        table: Grams[T] | None = self
        end = len(path)
        while table is not None:
            pieces, rest = table.pieces, None
            for length in table.lengths:
                stop = start + length
                if stop > end:
                    return
                entry = pieces.get(path[start:stop])
                if entry is not None:
                    if entry[0] is not None:
                        found.append((entry[0], stop))
                    rest = entry[1]
            table, start = rest, start + GRAM


class Strings(Generic[T]):
    """Strings with a value each, to look for in paths: at their start, or anywhere
    after a place."""

    __slots__ = ("empty", "table", "values")

    def __init__(self) -> None:
        self.values: dict[str, T] = {}
        #: The value of ``""``, found everywhere.
        self.empty: T | None = None
        #: Built by ``freeze()`` when there are more than ``FEW``.
        self.table: Grams[T] | None = None

    def __bool__(self) -> bool:
        return bool(self.values) or self.empty is not None

    def freeze(self) -> None:
        self.empty = self.values.pop("", None)
        if len(self.values) > FEW:
            self.table = Grams()
            for string, value in self.values.items():
                self.table.add(string, value)
            self.table.freeze()

    def every(self) -> list[T]:
        return [*self.values.values(), *([] if self.empty is None else [self.empty])]

    def starting(self, path: str) -> list[tuple[T, int]]:
        """The value of each string ``path`` starts with, and the string's length."""
        found: list[tuple[T, int]] = [] if self.empty is None else [(self.empty, 0)]
        if self.table is not None:
            self.table.at(path, 0, found)
        else:
            found += [(value, len(s)) for s, value in self.values.items() if path.startswith(s)]
        return found

    def after(self, path: str, start: int) -> list[tuple[T, int]]:
        """The value of each string found in ``path`` from ``start`` on, and where its
        first occurrence there ends."""
        found: list[tuple[T, int]] = [] if self.empty is None else [(self.empty, start)]
        if self.table is None:
            for string, value in self.values.items():
                place = path.find(string, start)
                if place >= 0:
                    found.append((value, place + len(string)))
            return found
        # The pieces of the table's first level in the path, one set of each length (in
        # C but for the slices), then the first place of each: most strings end there.
        table, end = self.table, len(path)
        pieces = table.pieces
        hits: set[str] = set()
        for length in table.lengths:
            if length > end - start:
                break
            hits |= pieces.keys() & {path[i : i + length] for i in range(start, end - length + 1)}
        deeper: list[tuple[T, int]] = []
        for piece in hits:
            ending, rest = pieces[piece]
            place = path.find(piece, start)
            if ending is not None:
                found.append((ending, place + len(piece)))
            # A longer string may go on after any of the piece's places, the first first.
            while rest is not None and place >= 0:
                rest.at(path, place + GRAM, deeper)
                place = path.find(piece, place + 1)
        seen: set[int] = set()
        for longer, stop in deeper:
            if id(longer) not in seen:
                seen.add(id(longer))
                found.append((longer, stop))
        return found


class Node(Generic[T]):
    """The rules whose parts start with the same parts, reached at the place in a path
    where those parts end."""

    __slots__ = ("children", "end_lengths", "ends", "more", "rank", "rule", "top")

    def __init__(self) -> None:
        #: The rule whose parts are these, without ``$``, and its rank.
        self.rank = NONE
        self.rule: T | None = None
        #: The rules of these parts and one more with ``$``: by that last part.
        self.ends: dict[str, tuple[int, T]] = {}
        self.end_lengths: tuple[int, ...] = ()
        #: The nodes of the rules of these parts and more, by their next part.
        self.children: Strings[Node[T]] = Strings()
        #: Whether it has children (read per path: an attribute, not a call).
        self.more = False
        #: The best rank of a rule of this node or below: none beats it.
        self.top = NONE

    def freeze(self) -> None:
        self.end_lengths = tuple(sorted({len(last) for last in self.ends}))
        self.children.freeze()
        self.more = bool(self.children)


class Matcher(Generic[T]):
    """Rules, in the order they take precedence, made ready for many paths."""

    __slots__ = ("exact", "firsts")

    def __init__(self, rules: list[tuple[tuple[str, ...], bool, T]]) -> None:
        """``rules``: each rule's parts, whether it ends with ``$``, and the rule."""
        #: The rules of one part and ``$``: a path that is that part.
        self.exact: dict[str, tuple[int, T]] = {}
        self.firsts: Strings[Node[T]] = Strings()
        for rank, (parts, anchored, rule) in enumerate(rules):
            if anchored and len(parts) == 1:
                self.exact.setdefault(parts[0], (rank, rule))
                continue
            last = parts[-1] if anchored else None
            self.place(rank, parts[:-1] if anchored else parts, rule, last)
        self.firsts.freeze()
        # Without recursion: a rule of many "*" makes a chain of as many nodes.
        pending = self.firsts.every()
        while pending:
            node = pending.pop()
            node.freeze()
            pending += node.children.every()

    def place(self, rank: int, parts: tuple[str, ...], rule: T, last: str | None) -> None:
        """Put the rule of ``parts`` (and ``last`` after ``$``) at its node. Rules come
        in rank order, so the first at a place is the one that decides there."""
        strings, node = self.firsts, None
        for part in parts:
            node = strings.values.get(part)
            if node is None:
                node = strings.values[part] = Node()
            node.top = min(node.top, rank)
            strings = node.children
        assert node is not None, "a rule has a first part"
        if last is None:
            if node.rule is None:
                node.rank, node.rule = rank, rule
        else:
            node.ends.setdefault(last, (rank, rule))

    def first(self, path: str) -> T | None:
        """The first rule, in the order of precedence, that matches ``path``."""
        rank, rule = self.exact.get(path, (NONE, None))
        end = len(path)
        # Deepest first: the longest first part is most often the best rule.
        pending = self.firsts.starting(path)
        while pending:
            node, place = pending.pop()
            if node.top >= rank:
                continue
            if node.rank < rank:
                rank, rule = node.rank, node.rule
            if node.ends:
                room = end - place
                for length in node.end_lengths:
                    if length > room:
                        break
                    found = node.ends.get(path[end - length :])
                    if found is not None and found[0] < rank:
                        rank, rule = found
            if node.more:
                pending += [
                    found for found in node.children.after(path, place) if found[0].top < rank
                ]
        return rule
