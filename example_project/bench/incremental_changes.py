"""The incremental cases' changes to the build table, as positions and keys: rows
appended at the end, rows deleted in the middle of one page, and rows at the
start of another updated; each a page an incremental build should find changed.

Pure arithmetic on the series of bench/seeding.py (row ``n`` at position
``n - 1``): the table of cases reads it for the URLs step 3 must list, and
bench/incremental_cases.py makes and undoes the changes.
"""

from __future__ import annotations

from dataclasses import dataclass

from bench.sizes import PAGE_MAX

APPENDED = 1_000
DELETED = 100
UPDATED = 500
# The pages changed when the table has that many (a smaller one uses its last
# page; see change_page()): the third page loses rows in its middle, the tenth
# has rows updated from its start.
DELETE_PAGE = 3
UPDATE_PAGE = 10
# A page that both loses rows in its middle and has rows updated from its start
# (a table of 10 pages or fewer) must hold both ranges without overlap.
MIN_PAGE_ROWS = 2 * UPDATED
# So --build-rows must be at least this much.
MIN_ROWS = MIN_PAGE_ROWS


@dataclass(frozen=True)
class Changes:
    """The keys each change touches, in a table holding rows 1..``rows`` of the series."""

    rows: int
    deleted: range
    updated: range
    appended: range

    @property
    def net_rows(self) -> int:
        """Rows in the table once the changes are made."""
        return self.rows + len(self.appended) - len(self.deleted)


def page_span(page: int, rows: int) -> tuple[int, int]:
    """The position of the first row of 50,000-row ``page`` (from 1), and its rows."""
    first = (page - 1) * PAGE_MAX
    return first, min(PAGE_MAX, rows - first)


def change_page(wanted: int, rows: int) -> int:
    """Page ``wanted``, or the table's last page if it has fewer; the one before the
    last if the last is too short to hold the changes."""
    page = min(wanted, -(-rows // PAGE_MAX))
    if page > 1 and page_span(page, rows)[1] < MIN_PAGE_ROWS:
        page -= 1
    return page


def changes_for(rows: int) -> Changes:
    if rows < MIN_ROWS:
        raise ValueError(f"The incremental cases need {MIN_ROWS:,} rows or more, not {rows:,}.")
    first, size = page_span(change_page(DELETE_PAGE, rows), rows)
    middle = first + size // 2
    updated_first = page_span(change_page(UPDATE_PAGE, rows), rows)[0]
    # Position p holds key p + 1 in the series.
    return Changes(
        rows=rows,
        deleted=range(middle + 1, middle + 1 + DELETED),
        updated=range(updated_first + 1, updated_first + 1 + UPDATED),
        appended=range(rows + 1, rows + 1 + APPENDED),
    )
