"""The report of ``manage.py benchmark_sitemaps``: the table of every case run, the
files each build wrote, the incremental and distributed reports, the ratios,
the notes and the machine, as text and as JSON."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from bench import distributed_report, fresh_report, incremental_report, thirdparty_report
from bench.figures import MIB, SAME_BYTES, Figures
from bench.machine import facts
from bench.options import Config
from bench.table import BY_NAME, RATIOS, TURN_PAIRS


class Finished(Protocol):
    """What the report reads of a finished run (bench/parent.py's Benchmark)."""

    config: Config
    results: dict[str, dict[str, Any]]
    prepared: dict[str, Any]
    revision_at_start: str
    revision_at_end: str
    load_at_start: tuple[float, float, float]
    load_at_end: tuple[float, float, float]
    wall: float


class Report:
    """The table, the ratios and the machine, as text and as JSON."""

    def __init__(self, run: Finished) -> None:
        self.run = run
        self.config = run.config
        self.results = run.results
        self.figures = Figures(run.results, run.config.plan)

    def machine(self) -> dict[str, Any]:
        return facts(
            self.run.revision_at_start,
            self.run.prepared["database_version"],
            self.run.load_at_start[0],
            self.run.load_at_end[0],
        )

    def data(self) -> dict[str, Any]:
        plan = self.config.plan
        return {
            "options": {
                "rows": plan.rows,
                "build_rows": plan.build_rows,
                "index_rows": plan.index_rows,
                "index_pages": plan.index_pages,
                "serve_page_urls": plan.serve_size,
                "far_page": plan.far_page,
                "runs": self.config.runs,
                "build_runs": self.config.build_runs,
                "cases": self.config.cases,
                "database": self.config.database,
            },
            "machine": self.machine(),
            "prepare": self.run.prepared,
            "table": self.figures.rows(),
            "ratios": self.figures.ratios(RATIOS),
            "site_ratios_by_round": self.figures.turn_ratios(),
            "site_lookup_seconds": self.figures.lookups(),
            "incremental": incremental_report.summary(self.results),
            "distributed": distributed_report.summary(self.results),
            "thirdparty": thirdparty_report.summary(self.results),
            "fresh": fresh_report.summary(self.results),
            "floor_bytes_identical_to_ours": self.figures.same_bytes("floor"),
            # Not required of them (their values are contrib's), but expected here: the
            # drop-in writes with the package's encoder.
            "dropin_bytes_identical_to_ours": self.figures.same_bytes("dropin"),
            "files_bytes_identical_to_ours": self.figures.same_bytes("files"),
            "raw": self.results,
            "wall_seconds": self.run.wall,
        }

    def text(self) -> str:
        lines = [table(self.figures.rows()), ""]
        lines += self.build_lines()
        lines += incremental_report.report_lines(
            self.results, self.config.plan.build_rows, self.config.runs
        )
        lines += distributed_report.report_lines(self.results, self.config.plan.build_rows)
        lines += thirdparty_report.report_lines(self.results)
        lines += fresh_report.report_lines(self.results)
        lines += self.ratio_lines()
        lines += self.notes()
        lines += self.footer()
        return "\n".join(lines)

    def build_lines(self) -> list[str]:
        lines = []
        for name in self.results:
            row = self.figures.row(name)
            if row["files"] is None:
                continue
            gzip = f", {row['gzip_bytes']:,} bytes of .xml.gz" if row["gzip_bytes"] else ""
            lines.append(f"{name}: {row['files']:,} files, {row['bytes']:,} bytes of .xml{gzip}")
        return [*lines, ""] if lines else []

    def ratio_lines(self) -> list[str]:
        ratios = self.figures.ratios(RATIOS)
        known = {label: value for label, value in ratios.items() if value is not None}
        width = max((len(label) for label in known), default=0)
        lines = ["Ratios (of medians):"] if known else []
        lines += [f"  {label.ljust(width)}  {value:6.2f}" for label, value in known.items()]
        return [*lines, ""] if lines else []

    def notes(self) -> list[str]:
        """What the table does not show: bytes unlike ours', the rounds run in turns,
        the worker processes' memory, a package changed during the run."""
        lines = []
        for comparison in SAME_BYTES:
            for name, same in self.figures.same_bytes(comparison).items():
                if not same:
                    lines.append(f"Note: {name} did not write the same bytes as ours.")
        for pair, values in self.figures.turn_ratios().items():
            shown = ", ".join(f"{value:.3f}" for value in values)
            first, second = TURN_PAIRS[pair]
            lines.append(f"{pair}: {second} / {first} by round (children back to back): {shown}.")
        for name in (name for name in self.results if BY_NAME[name].per_url):
            row = self.figures.row(name)
            cpu = self.results[name]["time"]["steps"].get("cpu_per_url")
            of_cpu = "" if cpu is None else f"; {cpu * 1e3:.3f} ms of CPU a URL"
            lines.append(
                f"{name}: {row['median_s'] / row['urls'] * 1e3:.3f} ms a URL (median "
                f"{row['median_s']:.3f} s / {row['urls']:,} URLs){of_cpu}."
            )
        for pair, seconds in self.figures.lookups().items():
            shown = ", ".join(
                f"{value * 1e6:,.1f} µs with {count} site{'' if count == 1 else 's'}"
                for count, value in seconds.items()
            )
            lines.append(f"{pair}: site_for_request() alone, {shown}.")
        for name in (name for name in self.results if BY_NAME[name].in_workers):
            worker = self.results[name]["rss"]["children_peak"] / MIB
            lines.append(
                f"{name} builds in worker processes: its max RSS is the larger of its own "
                f"and its largest worker's ({worker:,.1f} MiB); tracemalloc cannot see them."
            )
        if self.run.revision_at_end != self.run.revision_at_start:
            lines.append(
                f"Note: django_sitemapkit changed during the run "
                f"({self.run.revision_at_start} -> {self.run.revision_at_end})."
            )
        return lines

    def footer(self) -> list[str]:
        """The rows seeded, the runs, the machine and the wall time."""
        plan = self.config.plan
        prepared = self.run.prepared
        seed = prepared["seed"]
        index_seed = prepared["index_seed"]
        lines = []
        if seed is not None:
            lines.append(
                f"Rows: {seed['rows']:,} in bench_page ({seed['action']}); serving page "
                f"{plan.serve_size:,} URLs."
            )
        if index_seed is not None:
            others = prepared["other_pages"]
            lines.append(
                f"Index cases: {index_seed['rows']:,} rows in bench_indexpage "
                f"({index_seed['action']}), {plan.index_pages:,} pages of 50,000; index-full "
                f"also lists the example's other sections ({others:,} "
                f"page{'' if others == 1 else 's'}); their URLs column counts <sitemap> "
                "entries (none in a 304)."
            )
        machine = self.machine()
        lines += [
            f"{self.config.runs} timed runs ({self.config.build_runs} for builds), each "
            "case after an untimed warm-up.",
            f"Machine: {machine['cpu']}, {machine['cores']} cores; Python {machine['python']}, "
            f"Django {machine['django']}, {machine['database']}; django_sitemapkit "
            f"{machine['django_sitemapkit']}; {machine['date']}; load "
            f"average {machine['load_average_start']:.2f} at start, "
            f"{machine['load_average_end']:.2f} at end.",
            f"Wall time: {self.run.wall:.0f} s.",
        ]
        return lines


Column = tuple[str, str, Callable[[Any], str]]


def seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def mib(value: float | None) -> str:
    return "-" if value is None else f"{value:,.1f}"


def count(value: int | None) -> str:
    return "-" if value is None else f"{value:,}"


COLUMNS: list[Column] = [
    ("Case", "case", str),
    ("Median s", "median_s", seconds),
    ("Min s", "min_s", seconds),
    ("TTFB s", "ttfb_s", seconds),
    ("tracemalloc MiB", "tracemalloc_mib", mib),
    ("Max RSS MiB", "max_rss_mib", mib),
    ("Extra RSS MiB", "extra_rss_mib", mib),
    ("URLs", "urls", count),
    ("Bytes", "bytes", count),
]


def table(rows: list[dict[str, Any]]) -> str:
    cells = [[title for title, _, _ in COLUMNS]]
    cells += [[show(row[key]) for _, key, show in COLUMNS] for row in rows]
    widths = [max(len(line[i]) for line in cells) for i in range(len(COLUMNS))]
    return "\n".join(
        "  ".join(
            cell.ljust(width) if i == 0 else cell.rjust(width)
            for i, (cell, width) in enumerate(zip(line, widths, strict=True))
        )
        for line in cells
    )
