"""What a case of ``manage.py benchmark_sitemaps`` is (``CaseSpec``), and the words
of the table of cases (bench/table.py): how the parent runs a case, the table it
reads, the ``--cases`` groups, how many entries its document must list, and the
kinds of case the table is mostly made of.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib import import_module
from itertools import product
from typing import Any

from bench.incremental_changes import changes_for
from bench.sizes import PAGE_MAX, VERIFY_URLS, WAGTAIL_PAGES, Plan

# How the parent runs a case, and so which part of the report it adds to.
# MEASURED: one child per measure (time, rss, tracemalloc), in the main table.
MEASURED = "measured"
# TURNS: the two cases of a pair (1 and 100 sites; a page without and with a
# declared exclusion), in turns; the rounds' ratios.
TURNS = "turns"
# STEPS: the incremental steps in order over one directory; their own report.
STEPS = "steps"
# PAIRS: the distributed builds, in pairs; their own report.
PAIRS = "pairs"
# THIRDPARTY: the cases of a third-party package (a native source, the package's
# own view), in turns, in children started with the package's settings; their
# locations compared (bench/thirdparty_runs.py).
THIRDPARTY = "thirdparty"

# The table a case reads, which the parent seeds to the size the case needs.
PAGE_TABLE = "page"  # bench_page, --rows rows: page 1 is the serving page
BUILD_TABLE = "build"  # bench_page, --build-rows rows
INDEX_TABLE = "index"  # bench_indexpage, --index-rows rows
# None of the bench's tables: the verify cases seed (and remove) blog posts of their own.
NO_TABLE = "none"

# The groups --cases takes, in the order its help and errors list them; "all"
# is every case.
DEFAULT, COMPAT, INDEX, SITES, EXCLUSION, INCREMENTAL, DISTRIBUTED, VERIFY, ALL = (
    "default",
    "compat",
    "index",
    "sites",
    "exclusion",
    "incremental",
    "distributed",
    "verify",
    "all",
)
# The drop-in against the views it replaces, request by request (bench/dropin_cases.py).
DROPIN = "dropin"

# The group of the third-party cases (Wagtail's), run only where the package is installed.
THIRDPARTY_GROUP = "thirdparty"

# What the prepare child found: the example's other sections (see bench/child.py).
Prepared = Mapping[str, Any]
Expect = Callable[[Plan, Prepared], int]


@dataclass(frozen=True)
class CaseSpec:
    name: str
    # What it measures, in a line (example_project/README.md says more).
    what: str
    # "module:function", imported in the case's child process only. For MEASURED
    # and TURNS, function(plan, *args) makes the case (bench/measuring.py's Case);
    # for STEPS, function(name, measure, plan, output_dir) and for PAIRS,
    # function(name) run the child and return its result.
    make: str
    # The <url> entries (or <sitemap> entries, with lists_sitemaps) its warm-up
    # must list, or the run stops: its times would lie.
    expects: Expect
    args: tuple[Any, ...] = ()
    run: str = MEASURED
    reads: str = PAGE_TABLE
    groups: tuple[str, ...] = (DEFAULT,)
    # Page 1 of the --rows table: its <loc> values must be those of the first
    # such case run.
    serves_page: bool = False
    # A build of everything registered: --build-runs timed runs (when MEASURED),
    # and refused on a database that holds the blog, which it would build too.
    builds: bool = False
    # Builds in worker processes: their peak RSS counts; tracemalloc cannot see them.
    in_workers: bool = False
    lists_sitemaps: bool = False
    # The report says whether it wrote the bytes of ours: "floor" (required),
    # "dropin" or "files" (expected).
    bytes_of_ours: str | None = None
    # Its name in the report, if the sizes change it.
    label: Callable[[Plan], str] | None = None
    # The report also divides its median by its URLs: the seconds a URL costs.
    per_url: bool = False
    # A third-party case: the package its child needs (skipped, and said so, where it
    # cannot be imported) and the settings module its child starts with.
    package: str | None = None
    settings: str | None = None
    # Run in turns, it must write the bytes of its pair's other case (not so the
    # dropin pairs: contrib's view against the drop-in's).
    same_bytes: bool = True

    @property
    def pair(self) -> str:
        """What the cases run in turns share: ``sites-dict-page`` for ``sites-dict-page-100``,
        ``exclusion`` for ``exclusion-noindex``."""
        return self.name.rsplit("-", 1)[0]

    def maker(self) -> Callable[..., Any]:
        module, _, function = self.make.partition(":")
        found: Callable[..., Any] = getattr(import_module(module), function)
        return found


# -- how many entries a document lists ------------------------------------------------


def serving_page(plan: Plan, prepared: Prepared) -> int:
    return plan.serve_size


def build_page(page: Callable[[Plan], int]) -> Expect:
    """A 50,000-URL page of the build table (its last page may hold fewer)."""
    return lambda plan, prepared: min(PAGE_MAX, plan.build_rows - (page(plan) - 1) * PAGE_MAX)


def every_row(plan: Plan, prepared: Prepared) -> int:
    return plan.build_rows


def every_section(plan: Plan, prepared: Prepared) -> int:
    """The build table and the example's other sections, as build_sitemaps writes them."""
    return plan.build_rows + int(prepared["other_urls"])


def changed_table(plan: Plan, prepared: Prepared) -> int:
    """Every section after the incremental changes (rows appended and deleted)."""
    return changes_for(plan.build_rows).net_rows + int(prepared["other_urls"])


def bench_index(plan: Plan, prepared: Prepared) -> int:
    """contrib's index: its sitemaps dict holds the bench section alone."""
    return plan.index_pages


def full_index(plan: Plan, prepared: Prepared) -> int:
    """Every registered section: bench's pages and the example's others."""
    return plan.index_pages + int(prepared["other_pages"])


def no_body(plan: Plan, prepared: Prepared) -> int:
    return 0


def sites_index(plan: Plan, prepared: Prepared) -> int:
    """Bench's pages and those of the example's sections listed on every site."""
    return -(-plan.rows // plan.serve_size) + int(prepared["other_pages_everywhere"])


# -- the kinds of case -----------------------------------------------------------------


def serving(name: str, what: str, make: str, **spec: Any) -> CaseSpec:
    """A case that serves page 1 of the --rows table."""
    return CaseSpec(name, what, make, serving_page, serves_page=True, **spec)


def build(name: str, what: str, make: str, **spec: Any) -> CaseSpec:
    """A build over the --build-rows table."""
    spec.setdefault("expects", every_section)
    return CaseSpec(name, what, make, reads=BUILD_TABLE, builds=True, **spec)


def sites(variant: str, document: str, count: int) -> CaseSpec:
    """The index or page 1 of bench with ``count`` sites (bench/site_cases.py)."""
    index = document == "index"
    return CaseSpec(
        f"sites-{variant}-{document}-{count}",
        f"the {document} with {count} site{'' if count == 1 else 's'}, SITEMAPKIT_SITES "
        f"{'as a dict' if variant == 'dict' else 'from django.contrib.sites'}",
        "bench.site_cases:sites_case",
        sites_index if index else serving_page,
        args=(variant, document, count),
        run=TURNS,
        groups=(SITES,),
        lists_sitemaps=index,
    )


def exclusion(name: str, what: str, make: str) -> CaseSpec:
    """Page 1 of the --rows table, in turns with the other case of its pair: the cost of
    a declared exclusion on the same page (bench/serving_cases.py)."""
    return CaseSpec(
        name, what, make, serving_page, run=TURNS, groups=(EXCLUSION,), serves_page=True
    )


def verified_urls(plan: Plan, prepared: Prepared) -> int:
    return VERIFY_URLS


def verify(name: str, what: str, make: str, **spec: Any) -> CaseSpec:
    """The blog's posts requested as ``verify_sitemaps`` requests them, in turns with
    the other case of its pair: what the check costs a URL (bench/verify_cases.py)."""
    return CaseSpec(
        name,
        what,
        make,
        verified_urls,
        run=TURNS,
        reads=NO_TABLE,
        groups=(VERIFY,),
        per_url=True,
        **spec,
    )


def incremental(name: str, what: str, expects: Expect = every_section) -> CaseSpec:
    """A step of the incremental builds (bench/incremental_cases.py)."""
    make = "bench.incremental_cases:run_step"
    return build(name, what, make, expects=expects, run=STEPS, groups=(INCREMENTAL,))


def distributed(name: str, what: str) -> CaseSpec:
    """A build into S3 (bench/distributed_cases.py)."""
    return CaseSpec(
        name,
        what,
        "bench.distributed_cases:run_child",
        every_section,
        run=PAIRS,
        reads=BUILD_TABLE,
        groups=(DISTRIBUTED,),
    )


def wagtail_pages(plan: Plan, prepared: Prepared) -> int:
    return WAGTAIL_PAGES


def thirdparty(name: str, what: str, make: str, package: str, settings: str) -> CaseSpec:
    """A case of a third-party package, in turns with the others of its pair (the part
    of its name before the last ``-``: ``wagtail`` for ``wagtail-native``)."""
    return CaseSpec(
        name,
        what,
        make,
        wagtail_pages,
        run=THIRDPARTY,
        reads=NO_TABLE,
        groups=(THIRDPARTY_GROUP,),
        package=package,
        settings=settings,
    )


def wagtail(name: str, what: str, maker: str) -> CaseSpec:
    """A Wagtail case: its maker in bench/wagtail_cases.py, its child on Wagtail's settings."""
    return thirdparty(
        name, what, f"bench.wagtail_cases:{maker}", "wagtail", "bench.wagtail_settings"
    )


#: URLs a page of the dropin index cases' sections: 50 pages of 50,000 rows.
DROPIN_INDEX_LIMIT = 1_000
#: The two views of each dropin pair, in the order the report divides them.
DROPIN_VIEWS = ("contrib", "dropin")


def dropin(document: str, sitemap: str, view: str) -> CaseSpec:
    """``view`` (contrib's or the drop-in's) answering ``document`` (``page``, ``index``,
    ``304``) of the ``sitemap`` class; in turns with the other view's."""
    index = document == "index"
    if index:
        expects = lambda plan, prepared: -(-plan.rows // DROPIN_INDEX_LIMIT)  # noqa: E731
    else:
        expects = no_body if (document, view) == ("304", "dropin") else serving_page
    return CaseSpec(
        f"dropin-{sitemap}-{document}-{view}",
        f"{'contrib' if view == 'contrib' else 'compat'}'s {document} view, the {sitemap} class"
        + (" (a conditional GET)" if document == "304" else ""),
        "bench.dropin_cases:view_request",
        expects,
        args=(view, document, sitemap),
        run=TURNS,
        groups=(DROPIN,),
        serves_page=expects is serving_page,
        lists_sitemaps=index,
        same_bytes=False,
    )


def dropin_cases() -> tuple[CaseSpec, ...]:
    """Each document of each class, from each view: the group ``dropin``."""
    documents, sitemaps = ("page", "index", "304"), ("generic", "class")
    return tuple(dropin(*case) for case in product(documents, sitemaps, DROPIN_VIEWS))
