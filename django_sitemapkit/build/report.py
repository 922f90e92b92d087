"""What a build wrote: its files, per section and in all, for the command's summary."""

from __future__ import annotations

from dataclasses import dataclass, field

from django_sitemapkit.names import GZIP_SUFFIX


@dataclass(frozen=True)
class BuildOptions:
    gzip: bool = True
    gzip_links: bool = False
    validate: bool = False
    #: Compress each page's gzip sibling on a second thread (``--jobs`` 2 or more).
    gzip_in_thread: bool = False


@dataclass(frozen=True)
class BuiltFile:
    name: str
    urls: int
    size: int
    gzip_size: int | None
    #: The newest ``lastmod`` in the file, for its index entry.
    newest: str | None

    def names(self) -> list[str]:
        """The file and its gzip sibling, sibling first."""
        return [self.name + GZIP_SUFFIX, self.name] if self.gzip_size is not None else [self.name]


@dataclass
class SectionBuild:
    section: str
    files: list[BuiltFile] = field(default_factory=list)
    #: Rows read, and rows that gave no URL (invalid, unreadable, or too large).
    rows: int = 0
    skipped: int = 0
    seconds: float = 0.0
    #: Numbers of the files that ended at the byte limit.
    byte_cuts: list[int] = field(default_factory=list)
    #: Pages of rows that had no valid entry, so no file.
    empty_pages: int = 0

    @property
    def urls(self) -> int:
        return sum(f.urls for f in self.files)

    @property
    def size(self) -> int:
        return sum(f.size for f in self.files)

    @property
    def gzip_size(self) -> int | None:
        sizes = [f.gzip_size for f in self.files if f.gzip_size is not None]
        return sum(sizes) if sizes else None

    @property
    def matches_views(self) -> bool:
        """Whether file N holds exactly what the view of page N serves."""
        return not self.byte_cuts and not self.empty_pages


@dataclass
class BuildResult:
    sections: list[SectionBuild]
    index: BuiltFile | None = None
    replaced: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
