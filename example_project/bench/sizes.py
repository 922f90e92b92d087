"""The sizes every process of ``manage.py benchmark_sitemaps`` derives from the same
options: the parent, to seed and check, and each child, to make its case."""

from __future__ import annotations

from dataclasses import dataclass

# The protocol's cap, and what both django.contrib.sitemaps and this package
# put on one page by default.
PAGE_MAX = 50_000
# The blog posts the verify cases request in each run: enough that the once-a-run
# work (the middleware loaded, robots.txt read) is a small part of a URL's time.
VERIFY_URLS = 300
# The pages of the Wagtail site the third-party cases serve (bench/wagtail_cases.py).
WAGTAIL_PAGES = 10_000
# The django CMS pages of the drop-in's CMSSitemap cases (bench/cms_cases.py): a home and
# its children, made with django CMS's own API.
CMS_PAGES = 2_000


@dataclass
class Plan:
    """The sizes every process derives from the same options."""

    rows: int
    build_rows: int
    index_rows: int

    @property
    def serve_size(self) -> int:
        return min(self.rows, PAGE_MAX)

    @property
    def index_pages(self) -> int:
        """Pages of ``bench`` in the index cases' index."""
        return -(-self.index_rows // PAGE_MAX)

    @property
    def last_build_page(self) -> int:
        return -(-self.build_rows // PAGE_MAX)

    @property
    def far_page(self) -> int:
        """Page 20 of the build table, or its last page if it has fewer."""
        return min(20, self.last_build_page)
