"""The case table of ``manage.py benchmark_sitemaps``: each case declared once.

An entry (a ``CaseSpec`` of bench/specs.py) says what the case measures, where its child process
makes it, how the parent runs it, which table it reads, how many entries its document must list,
and which parts of the report it feeds. The ``--cases`` groups, the rows seeded, the checks of
each run, the children's dispatch and the report all read this table; ``RATIOS`` names the pairs
of cases the report divides, in the order it prints them.

To add a case: write its maker (a function of the run's ``Plan`` returning an object
with ``setup()`` and ``run(check)``, bench/measuring.py), and its entry in ``CASES``
where it should run and be reported; a ratio in ``RATIOS``. This module imports no
case: ``make`` is a dotted name, imported only by the child that runs the case
(some load django.contrib.sitemaps, the sites framework, Celery).
"""

from __future__ import annotations

from bench.deep_specs import DEEP_GROUP, deep_cases
from bench.floor_specs import FLOOR_GROUP, FLOOR_RATIOS, floor_cases
from bench.fresh_specs import FRESH_GROUP, FRESH_RATIOS, fresh_cases
from bench.ratios import MEMORY, Ratio, against
from bench.robots_specs import ROBOTS_GROUP, robots_cases
from bench.specs import (
    ALL,
    BUILD_TABLE,
    COMPAT,
    DEFAULT,
    DISTRIBUTED,
    DROPIN,
    EXCLUSION,
    INCREMENTAL,
    INDEX,
    INDEX_TABLE,
    SITES,
    THIRDPARTY_GROUP,
    TURNS,
    VERIFY,
    CaseSpec,
    bench_index,
    build,
    build_page,
    changed_table,
    distributed,
    dropin_cases,
    every_row,
    exclusion,
    full_index,
    incremental,
    no_body,
    serving,
    sites,
    verify,
)
from bench.speed_specs import SPEED_GROUP, SPEED_RATIOS, speed_cases
from bench.thirdparty_specs import thirdparty_cases

SERVING = "bench.serving_cases"
COMPAT_MODULE = "bench.compat_cases"
BOTH = (DEFAULT, COMPAT)

CASES: tuple[CaseSpec, ...] = (
    serving(
        "contrib", "contrib's sitemap view, a GenericSitemap", f"{SERVING}:contrib", groups=BOTH
    ),
    serving(
        "contrib-class",
        "contrib's sitemap view, a Sitemap class written by hand",
        f"{COMPAT_MODULE}:contrib_class",
        groups=(COMPAT,),
    ),
    serving(
        "dropin-generic",
        "compat.sitemap, given contrib's GenericSitemap",
        f"{COMPAT_MODULE}:dropin_generic",
        groups=(COMPAT,),
        bytes_of_ours="dropin",
    ),
    serving(
        "dropin-class",
        "compat.sitemap, given the hand-written class",
        f"{COMPAT_MODULE}:dropin_class",
        groups=(COMPAT,),
        bytes_of_ours="dropin",
    ),
    serving(
        "files-page",
        "the hand-written class registered and built, page 1 served from the files",
        f"{COMPAT_MODULE}:files_page",
        groups=(COMPAT,),
        bytes_of_ours="files",
    ),
    serving("ours", "this package's page view, streamed", f"{SERVING}:ours", groups=BOTH),
    serving(
        "ours-regex",
        "the same page from a re_path(): reverse() for every row",
        f"{SERVING}:ours_regex",
        bytes_of_ours="floor",
    ),
    serving(
        "orm-floor",
        "values_list().iterator(), an f-string per row",
        "bench.floors:orm_floor",
        bytes_of_ours="floor",
    ),
    serving(
        "cursor-floor",
        "hand-written SQL on the DB-API cursor",
        "bench.floors:cursor_floor",
        bytes_of_ours="floor",
    ),
    CaseSpec(
        "ours-page-1",
        "page 1 of the build table",
        f"{SERVING}:ours_first_page",
        build_page(lambda plan: 1),
        reads=BUILD_TABLE,
    ),
    CaseSpec(
        "ours-page-20",
        "page 20 of the build table (its last, if it has fewer)",
        f"{SERVING}:ours_far_page",
        build_page(lambda plan: plan.far_page),
        reads=BUILD_TABLE,
        label=lambda plan: f"ours-page-{plan.far_page}",
    ),
    build(
        "build-gzip",
        "build_sitemaps into a new directory",
        "bench.build_cases:build",
        args=(True, 1),
        groups=BOTH,
    ),
    build(
        "build-registered",
        "build-gzip's build, bench the hand-written class through compat.register()",
        f"{COMPAT_MODULE}:build_registered",
        groups=(COMPAT,),
    ),
    build("build-nogzip", "build_sitemaps --no-gzip", "bench.build_cases:build", args=(False, 1)),
    build(
        "build-jobs2",
        "build_sitemaps --jobs 2",
        "bench.build_cases:build",
        args=(True, 2),
        in_workers=True,
    ),
    build(
        "build-floor",
        "the ORM floor cut into 50,000-URL files",
        "bench.build_cases:build_floor",
        expects=every_row,
    ),
    CaseSpec(
        "contrib-index",
        "contrib's index view over the index table",
        f"{SERVING}:contrib_index",
        bench_index,
        reads=INDEX_TABLE,
        groups=(INDEX,),
        lists_sitemaps=True,
    ),
    CaseSpec(
        "index-full",
        "this package's index view, streamed",
        f"{SERVING}:ours_index",
        full_index,
        args=(False,),
        reads=INDEX_TABLE,
        groups=(INDEX,),
        lists_sitemaps=True,
    ),
    CaseSpec(
        "index-304",
        "the index's conditional GET, answered 304",
        f"{SERVING}:ours_index",
        no_body,
        args=(True,),
        reads=INDEX_TABLE,
        groups=(INDEX,),
        lists_sitemaps=True,
    ),
    *(
        sites(variant, document, count)
        for variant in ("dict", "framework")
        for document in ("index", "page")
        for count in (1, 100)
    ),
    exclusion("exclusion-none", "ours, in turns with exclusion-noindex", f"{SERVING}:ours"),
    exclusion(
        "exclusion-noindex",
        "the same page, the section declaring noindex (a column NULL in every row)",
        f"{SERVING}:ours_noindex",
    ),
    incremental("incremental-full", "build_sitemaps into an empty directory"),
    incremental("incremental-unchanged", "the same build again, nothing changed"),
    incremental("incremental-changed", "the same build after changes", changed_table),
    distributed("distributed-local", "a build into S3 from one process"),
    distributed("distributed-celery", "the same build through Celery's workers"),
    *dropin_cases(),
    verify(
        "verify-views",
        "blog posts through the WSGI handler, in turns with verify-checked",
        "bench.verify_cases:verify_case",
        args=(False,),
    ),
    verify(
        "verify-checked",
        "the same posts checked as verify_sitemaps checks them",
        "bench.verify_cases:verify_case",
        args=(True,),
    ),
    *thirdparty_cases(),  # Wagtail's, django CMS's: bench/thirdparty_specs.py
    *fresh_cases(),  # SITEMAPKIT_CHANGES: bench/fresh_specs.py
    *deep_cases(),  # page N at page 1's cost, the index's 304: bench/deep_specs.py
    *floor_cases(),  # ours and the cursor floor in turns: bench/floor_specs.py
    *speed_cases(),  # a build before a change and after: bench/speed_specs.py
    *robots_cases(),  # a page judged against 40,000 robots.txt rules: bench/robots_specs.py
)

BY_NAME = {case.name: case for case in CASES}
NAMES = tuple(BY_NAME)
GROUPS = {
    group: tuple(case.name for case in CASES if group == ALL or group in case.groups)
    for group in (
        *(DEFAULT, COMPAT, INDEX, SITES, EXCLUSION, INCREMENTAL, DISTRIBUTED, VERIFY),
        *(THIRDPARTY_GROUP, FRESH_GROUP, DEEP_GROUP, FLOOR_GROUP, SPEED_GROUP, ROBOTS_GROUP),
        ALL,
    )
}
GROUPS[DROPIN] = tuple(case.name for case in CASES if DROPIN in case.groups)


def run_by(run: str) -> tuple[str, ...]:
    """The cases the parent runs so, in the table's order."""
    return tuple(case.name for case in CASES if case.run == run)


# The pairs of cases run in turns (sites-dict-index, exclusion, ...), each with its
# two cases in the table's order: the report divides the second by the first.
TURN_PAIRS = {
    pair: tuple(case.name for case in CASES if case.run == TURNS and case.pair == pair)
    for pair in dict.fromkeys(case.pair for case in CASES if case.run == TURNS)
}


# -- the ratios the report prints, in its order ---------------------------------------


RATIOS: tuple[Ratio, ...] = (
    *against("contrib", "ours", *MEMORY, "CPU with the database server"),
    # The drop-in against contrib's view, over the same sitemaps dict.
    *against("contrib", "dropin-generic", *MEMORY),
    *against("contrib-class", "dropin-class", *MEMORY),
    # What declaring a source gains over keeping the Sitemap classes.
    *against("contrib-class", "ours"),
    *against("dropin-generic", "ours", "time", "tracemalloc peak"),
    *against("dropin-class", "ours", "time", "tracemalloc peak"),
    # Step 2: the classes registered, built, and a page served from the files.
    *against("contrib", "files-page"),
    *against("contrib-class", "files-page"),
    *against("ours", "orm-floor"),
    *against("ours", "cursor-floor", "time", "CPU", "CPU with the database server"),
    *against("ours-regex", "ours"),
    Ratio("ours", "ours", "TTFB"),
    *against("ours-page-20", "ours-page-1"),
    *against("build-gzip", "build-floor"),
    *against("build-nogzip", "build-floor"),
    *against("build-registered", "build-gzip"),
    *against("build-jobs2", "build-gzip"),
    *against("index-full", "contrib-index", "time", "extra RSS"),
    *against("index-304", "index-full"),
    # The incremental steps: a second build, and one after a few changes.
    *against("incremental-changed", "incremental-full"),
    *against("incremental-unchanged", "incremental-full"),
    # A build from one process against the same build through the workers.
    *against("distributed-local", "distributed-celery"),
    # Several sites: the same host's document with 100 sites and with 1; the page
    # with a declared exclusion and without; the posts checked and only requested.
    *(Ratio(second, first) for first, second in TURN_PAIRS.values()),
    # Wagtail's own view against the native source, on the same pages.
    *against("wagtail-contrib", "wagtail-native", *MEMORY),
    # A save with its record; build / refresh; ours over the floor; builds before and after.
    *(Ratio(*names) for names in (*FRESH_RATIOS, *FLOOR_RATIOS, *SPEED_RATIOS)),
)

# A case declared twice, or a ratio naming no case, would be dropped: fail at import.
_unknown = {name for each in RATIOS for name in (each.numerator, each.denominator)} - {*BY_NAME}
if len(BY_NAME) != len(CASES) or _unknown:
    raise RuntimeError(
        f"The case table declares a name twice, or RATIOS names cases it does not "
        f"declare: {sorted(_unknown)}."
    )
