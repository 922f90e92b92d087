"""The third-party cases of bench/table.py's table (bench/specs.py says what a case is):
Wagtail's own view against this package's native source, and the drop-in against
the view each package's sitemap class is served by (bench/thirdparty_dropin.py),
request by request. Each package's cases run in children started with its settings,
and are skipped, with a message, where the package is not installed."""

from __future__ import annotations

from itertools import product

from bench.sizes import CMS_PAGES, WAGTAIL_PAGES, Plan
from bench.specs import (
    DROPIN,
    NO_TABLE,
    THIRDPARTY,
    THIRDPARTY_GROUP,
    CaseSpec,
    Prepared,
    no_body,
    wagtail,
)

#: Per package: its settings module, and the URLs its sitemap class lists.
SETTINGS = {"wagtail": "bench.wagtail_settings", "cms": "bench.cms_settings"}
PAGES = {"wagtail": WAGTAIL_PAGES, "cms": CMS_PAGES}
#: The two views of each pair: the package's own, then the drop-in's.
VIEWS = ("own", "dropin")
OWN_VIEW = {
    "wagtail": "wagtail.contrib.sitemaps' own view",
    "cms": "contrib's view (as django CMS documents it)",
}
CLASS = {"wagtail": "Wagtail's Sitemap", "cms": "django CMS's CMSSitemap"}


def one_sitemap(plan: Plan, prepared: Prepared) -> int:
    """The index of a section that fits on one page."""
    return 1


def dropin(package: str, document: str, view: str) -> CaseSpec:
    """``view`` answering ``document`` (``page``, ``index``, ``304``) of ``package``'s
    sitemap class, in turns with the other view's."""
    pages = PAGES[package]
    if document == "index":
        expects = one_sitemap
    elif document == "304":
        expects = no_body
    else:
        expects = lambda plan, prepared: pages  # noqa: E731
    who = OWN_VIEW[package] if view == "own" else "compat's view"
    return CaseSpec(
        f"dropin-{package}-{document}-{view}",
        f"{who}, {CLASS[package]} ({pages:,} pages), the {document}"
        + (" (a conditional GET)" if document == "304" else ""),
        "bench.thirdparty_dropin:package_case",
        expects,
        args=(package, document, view),
        run=THIRDPARTY,
        reads=NO_TABLE,
        groups=(THIRDPARTY_GROUP, DROPIN),
        lists_sitemaps=document == "index",
        package=package,
        settings=SETTINGS[package],
    )


def thirdparty_cases() -> tuple[CaseSpec, ...]:
    """Each package's cases; each pair shares the start of its names and runs in turns."""
    return (
        wagtail(
            "wagtail-contrib",
            f"wagtail.contrib.sitemaps' view of {WAGTAIL_PAGES:,} pages",
            "contrib_case",
        ),
        wagtail(
            "wagtail-native", "the same pages from this package's WagtailSource", "native_case"
        ),
        *(dropin(*case) for case in product(("wagtail", "cms"), ("page", "index", "304"), VIEWS)),
    )
