"""The build-speed cases of bench/table.py's table (the group ``speed``): a full
``build_sitemaps`` of the ``--build-rows`` table in one process, with gzip, this
checkout's code against the code before a change, and the cost of each gzip level.

``build-speed-before`` runs the package of the checkout named by the environment
variable ``BENCH_BEFORE`` (a directory holding ``django_sitemapkit/``, such as a
``git worktree`` at the commit before), put first on its child's ``PYTHONPATH``;
``build-speed-after`` runs this checkout's. They run in ``--runs`` rounds, the
order alternating, one build per child and no warm-up (a build of millions of
rows is its own warm-up); every round's two builds must write the same ``.xml``
bytes. ``build-speed-level-9`` is this checkout at ``SITEMAPKIT_GZIP_LEVEL = 9``,
run once: its ``.gz`` bytes must be the code before's, when that compressed at 9.
``gzip-levels`` compresses page 1 of the table at each level in one child.

bench/speed_cases.py runs the children, bench/speed_runs.py the rounds.
"""

from __future__ import annotations

from bench.specs import CaseSpec, build, build_page

#: How the parent runs these cases (bench/speed_runs.py), and their group.
SPEED = SPEED_GROUP = "speed"
#: The environment variable naming the checkout of the code before.
BEFORE = "BENCH_BEFORE"
#: The pair the report divides: before over after.
SPEED_RATIOS = (("build-speed-before", "build-speed-after"),)
#: The levels ``gzip-levels`` compresses at, and its timed runs of each per ``--runs``.
LEVELS = tuple(range(1, 10))
LEVEL_RUNS = 5


def speed_cases() -> tuple[CaseSpec, ...]:
    common = {"run": SPEED, "groups": (SPEED_GROUP,), "same_bytes": False}
    return (
        build(
            "build-speed-before",
            f"build_sitemaps in one process, gzip on, the package of ${BEFORE}",
            "bench.speed_cases:build_once",
            args=("before",),
            **common,
        ),
        build(
            "build-speed-after",
            "the same build with this checkout's package, in turns with build-speed-before",
            "bench.speed_cases:build_once",
            args=("after",),
            **common,
        ),
        build(
            "build-speed-level-9",
            "the same build at SITEMAPKIT_GZIP_LEVEL = 9, once: the .gz bytes of 9",
            "bench.speed_cases:build_once",
            args=("level-9",),
            **common,
        ),
        build(
            "gzip-levels",
            "page 1 of the build table compressed at each zlib level 1 to 9: bytes, CPU",
            "bench.speed_cases:gzip_levels",
            expects=build_page(lambda plan: 1),
            **common,
        ),
    )
