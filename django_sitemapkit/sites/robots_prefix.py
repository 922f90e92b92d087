"""A group's rules made ready for the paths that start with one prefix (a URL
template's fixed start, ``/articles/``): what they say there is worked out once,
so that most paths cost nothing, and the chunks of a page are judged in C.

For paths of the prefix, a rule is one of three things. It never matches: its
first part and the prefix differ. It always matches: it is not anchored and each
of its parts is found (at its first place, as ``Rule.matches`` finds them) within
the prefix. Or it depends on the rest of the path, the remainder: then it is one
or more rules on the remainder, its residual, one for each place where the part
that is not found within the prefix may start (straddling the prefix's end, or
after it). Rules come in the order of precedence, so the first that always
matches decides wherever no rule before it matches, and every rule after it is
dropped: the rules before it are the residual. With none, a section's paths all
get one decision.

Like robots_match.py, this module knows nothing of robots.txt: it is given each
rule's parts, normalised, in the order rules take precedence.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Sequence
from functools import partial
from itertools import accumulate, compress
from typing import Generic, TypeVar

from django_sitemapkit.sites.robots_match import Matcher

T = TypeVar("T")
#: A rule on the remainder: its parts, and whether ``$`` ends it.
Residual = tuple[tuple[str, ...], bool]
#: Up to this many strings are looked for in a chunk's remainders one by one (each a
#: search in C over the chunk); a residual of more looks at every remainder.
NEEDLES = 64
#: A remainder never holds it (a normalised path percent-encodes it): it joins a chunk.
SEPARATOR = "\n"


def residuals(prefix: str, parts: tuple[str, ...], anchored: bool) -> list[Residual] | None:
    """What a rule of ``parts`` says of a path ``prefix + remainder``: ``None`` if it
    matches whatever the remainder, else the rules on the remainder one of which
    matches where it does (none: it never matches)."""
    if anchored and len(parts) > 1 and not parts[-1]:
        # "/a*$" is "/a": any characters, then the end.
        parts, anchored = parts[:-1], False
    first, end = parts[0], len(prefix)
    if len(first) > end:
        return [((first[end:], *parts[1:]), anchored)] if first.startswith(prefix) else []
    if not prefix.startswith(first):
        return []
    if len(parts) == 1:
        if anchored:
            return [(("",), True)] if len(first) == end else []
        return None
    position, last = len(first), len(parts) - 1
    for number in range(1, len(parts)):
        part = parts[number]
        if anchored and number == last:
            # The path ends with it: after the prefix, or straddling its end (the
            # remainder is then the rest of the part, the whole path the rule's).
            within = range(max(position, end - len(part)), end)
            return [(("", part), True)] + [
                ((part[end - start :],), True)
                for start in within
                if part.startswith(prefix[start:])
            ]
        found = prefix.find(part, position)
        if found < 0:
            # Not within the prefix: it starts before its end and goes on, or after it.
            rest = parts[number + 1 :]
            within = range(max(position, end - len(part) + 1), end)
            return [
                ((part[end - start :], *rest), anchored)
                for start in within
                if part.startswith(prefix[start:])
            ] + [(("", part, *rest), anchored)]
        position = found + len(part)
    return None


class Under(Generic[T]):
    """Rules, in the order they take precedence, for the paths that start with a prefix:
    the one that decides wherever the residual does not, and the residual."""

    __slots__ = ("always", "keys", "matcher", "needles", "nested", "preceding", "seek")

    def __init__(
        self,
        prefix: str,
        rules: Sequence[tuple[tuple[str, ...], bool, T]],
        wanted: Callable[[T], bool] | None = None,
    ) -> None:
        """With ``wanted``, only whether the deciding rule is wanted is asked, and which
        one where it is: where ``always`` is not, the rules after the last wanted one of
        the residual would decide as it does, and are dropped."""
        #: The first rule that matches every path of the prefix, if any.
        self.always: T | None = None
        residual: list[tuple[tuple[str, ...], bool, T]] = []
        for parts, anchored, rule in rules:
            found = residuals(prefix, parts, anchored)
            if found is None:
                self.always = rule
                break
            residual += [(rest, end, rule) for rest, end in found]
        if wanted is not None and (self.always is None or not wanted(self.always)):
            while residual and not wanted(residual[-1][2]):
                residual.pop()
        self.matcher = Matcher(residual) if residual else None
        # What a remainder holds if the residual may match it: the first part of a
        # rule that has one (sorted, and for each the index of the longest other that
        # starts it); a string each other rule needs, the end of the remainder for
        # "$" written as SEPARATOR. ``needles`` is None when there are too many.
        starts = sorted({rest[0] for rest, _, _ in residual if rest[0]})
        self.keys = starts
        self.seek = partial(bisect_right, starts)
        #: ``keys`` moved one along: the key before the place bisect_right() gives.
        self.preceding = starts[-1:] + starts
        self.nested = nested_keys(starts)
        needles = {needle(rest, end) for rest, end, _ in residual if not rest[0]}
        self.needles: list[str] | None = sorted(needles) if len(needles) <= NEEDLES else None
        if "" in needles:
            self.needles = None

    def deciding(self, remainder: str) -> T | None:
        """The rule that decides for the path of the prefix and ``remainder`` (normalised)."""
        if self.matcher is not None:
            found = self.matcher.first(remainder)
            if found is not None:
                return found
        return self.always

    def candidates(self, remainders: list[str]) -> set[int]:
        """The indexes of ``remainders`` the residual may match: every other is decided
        by ``always``. Found by searches in C over the whole list."""
        if self.matcher is None:
            return set()
        count = len(remainders)
        if self.needles is None:
            return set(range(count))
        found: set[int] = set()
        if self.keys:
            places = list(map(self.seek, remainders))
            before = map(self.preceding.__getitem__, places)
            found.update(compress(range(count), map(str.startswith, remainders, before)))
            if self.nested:
                nested = self.nested
                keys = self.keys
                for number, place in enumerate(places):
                    key = nested.get(place - 1)
                    while key is not None and number not in found:
                        if remainders[number].startswith(keys[key]):
                            found.add(number)
                        key = nested.get(key)
        if self.needles:
            found |= holding(remainders, self.needles)
        return found


def needle(parts: tuple[str, ...], anchored: bool) -> str:
    """A string a remainder joined by SEPARATOR holds where a residual of ``parts``
    (the first empty) matches it: its longest part, or its last at the end; ``""``
    for the empty remainder, which holds none."""
    if len(parts) == 1:
        return ""
    longest = max(parts[:-1] if anchored else parts, key=len)
    if anchored and len(parts[-1]) + 1 > len(longest):
        return parts[-1] + SEPARATOR if parts[-1] else ""
    return longest


def nested_keys(keys: list[str]) -> dict[int, int]:
    """For each of ``keys`` (sorted) that another starts, the index of the longest such."""
    nested: dict[int, int] = {}
    chain: list[int] = []
    for number, key in enumerate(keys):
        while chain and not key.startswith(keys[chain[-1]]):
            chain.pop()
        if chain:
            nested[number] = chain[-1]
        chain.append(number)
    return nested


def holding(remainders: list[str], needles: list[str]) -> set[int]:
    """The indexes of ``remainders`` that hold any of ``needles`` (a final SEPARATOR
    standing for the end of a remainder)."""
    text = SEPARATOR.join(remainders) + SEPARATOR
    found: set[int] = set()
    starts: list[int] | None = None
    # One search in C per character first: most needles hold one no remainder does
    # ("?" in "?utm_source=", "." in ".pdf").
    absent = {character for character in set("".join(needles)) if character not in text}
    for string in needles:
        if absent and not absent.isdisjoint(string):
            continue
        place = text.find(string)
        while place >= 0:
            if starts is None:
                starts = list(accumulate((len(r) + 1 for r in remainders), initial=0))
            number = bisect_right(starts, place) - 1
            found.add(number)
            place = text.find(string, starts[number + 1])
        if len(found) == len(remainders):
            break
    return found
