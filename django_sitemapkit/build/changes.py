"""What a build changes on a site, URL by URL: for its report (``--report``), its
guard (``--max-removed``, ``guard.py``) and IndexNow (``notify.py``), from one
reading of the documents.

What a change is, is ``indexnow/compare.py``'s rule. This reads what it
compares: the pages the build rewrote, as staged, against their published
versions and those of the pages it removes. The pages it keeps have not
changed, so a build that rewrites one page reads two, not the set. Each change
goes to the section of the page that lists it (the published page, for a
removed URL); the counts of URLs before and after are the manifests'.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass, field

from django_sitemapkit.build.destinations import Destination
from django_sitemapkit.build.manifest import Manifest
from django_sitemapkit.indexnow.compare import (
    ADDED,
    CHANGED,
    REMOVED,
    Change,
    Named,
    compare,
    states,
)
from django_sitemapkit.names import section_of

logger = logging.getLogger("django_sitemapkit")
#: What ``Change.kind`` can be, in the order the report gives them; each is the name
#: of the list of ``SectionChanges`` its changes go to.
KINDS = (ADDED, REMOVED, CHANGED)
SIDES = ("before", "after")


@dataclass
class SectionChanges:
    #: URLs its files list in the published set, and in the new one.
    before: int = 0
    after: int = 0
    added: list[Change] = field(default_factory=list)
    removed: list[Change] = field(default_factory=list)
    changed: list[Change] = field(default_factory=list)

    def counts(self, compared: bool = True) -> dict[str, int | None]:
        """Its URLs before and after, and its changes of each kind (``None`` for each
        where they could not be read)."""
        found = {kind: len(getattr(self, kind)) if compared else None for kind in KINDS}
        return {"before": self.before, "after": self.after, **found}

    def changes(self) -> Iterator[Change]:
        for kind in KINDS:
            yield from getattr(self, kind)


@dataclass
class SiteChanges:
    """A site's changes, per section, in the registry's order (then the sections only
    the published set has)."""

    #: When the published set compared with was built; ``None``: there was none
    #: the build could read, and every URL of the new set counts as added.
    previous: str | None
    sections: dict[str, SectionChanges]
    #: ``False`` when the documents could not be read (logged): only the counts
    #: of URLs before and after are known.
    compared: bool = True

    def counts(self) -> dict[str, int | None]:
        """The site's URLs before and after, and its changes of each kind (``None``
        where the documents could not be read)."""
        sections = self.sections.values()
        found = {
            kind: sum(len(getattr(section, kind)) for section in sections)
            if self.compared
            else None
            for kind in KINDS
        }
        before, after = (sum(getattr(section, side) for section in sections) for side in SIDES)
        return {"before": before, "after": after, **found}

    def states(self) -> dict[str, str]:
        """What IndexNow is told: each URL and its state, sorted by URL."""
        return states(change for section in self.sections.values() for change in section.changes())


def site_changes(
    destination: Destination,
    old: Manifest | None,
    new: Manifest,
    written: list[str],
    removed: list[str],
) -> SiteChanges:
    """What publishing ``new`` (its staged ``written`` files, less the published
    ``removed`` ones) changes against ``old``, the published set."""
    found = SiteChanges(None if old is None else old.built, counted(old, new))
    rewritten = [name for name in written if is_page(name)]
    earlier = old.names() if old is not None else set()
    replaced = [name for name in rewritten + removed if name in earlier and is_page(name)]
    try:
        for change in compare(published(destination, replaced), staged(destination, rewritten)):
            section = section_of(change.document)
            assert section is not None, change.document  # a page's name has one
            sorted_into = found.sections.setdefault(section, SectionChanges())
            getattr(sorted_into, change.kind).append(change)
    except (ValueError, OSError) as exc:
        logger.error(
            "The changes of this build could not be read (%s: %s): IndexNow is sent none of "
            "them, the report lists none, and --max-removed counts the URLs the set loses.",
            type(exc).__name__,
            exc,
        )
        return SiteChanges(found.previous, counted(old, new), compared=False)
    return found


def counted(old: Manifest | None, new: Manifest) -> dict[str, SectionChanges]:
    """Each section of the two sets, with the URLs it lists in each."""
    sections: dict[str, SectionChanges] = {}
    for side, manifest in (("after", new), ("before", old)):
        for shard in manifest.shards if manifest is not None else ():
            counts = sections.setdefault(shard.section, SectionChanges())
            urls = sum(f.urls for f in shard.files)
            setattr(counts, side, getattr(counts, side) + urls)
    return sections


def is_page(name: str) -> bool:
    """A page's ``.xml`` (its ``.gz`` holds the same URLs; the index holds none)."""
    return name.endswith(".xml") and section_of(name) is not None


def published(destination: Destination, names: list[str]) -> Iterator[Named]:
    """The published files ``names``, one at a time."""
    for name in names:
        content = destination.read(name)
        if content is not None:
            yield name, content


def staged(destination: Destination, names: list[str]) -> Iterator[Named]:
    for name in names:
        yield name, destination.read_staged(name)
