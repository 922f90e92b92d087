"""helper.py's ``record`` and ``table``: one load run's figures from wrk, the
samples and the server's log, checked (no error, no problem in the log) and
appended to the results; and the summary table of every recorded run."""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from pathlib import Path

# What must not be in a server's log during a load run.
LOG_PROBLEMS = {
    "traceback": re.compile(r"Traceback \(most recent call last\)"),
    # Django collecting a synchronous stream whole under ASGI (and the reverse under WSGI).
    "sync-iterator warning": re.compile(r"StreamingHttpResponse must consume synchronous"),
    "async-iterator warning": re.compile(r"StreamingHttpResponse must consume asynchronous"),
    "other warning": re.compile(r"\b[A-Z]\w*Warning: (?!StreamingHttpResponse must consume)"),
    "error line": re.compile(r"\[ERROR\]|\[CRITICAL\]|^ERROR:|^CRITICAL:|Internal Server Error"),
    "worker timeout": re.compile(r"WORKER TIMEOUT|was sent SIG|Child process .* died"),
}
# One line per worker at start-up: more means a worker died and was replaced.
WORKER_STARTS = re.compile(r"Booting worker with pid|Started server process")


def parse_wrk(text: str) -> dict[str, int]:
    for line in text.splitlines():
        if line.startswith("WRK_RESULT "):
            return {k: int(v) for k, v in (f.split("=") for f in line.split()[1:])}
    raise SystemExit("no WRK_RESULT line in wrk's output (did rotate.lua run?)")


def log_problems(log: str, marks: list[int], workers: int) -> dict[str, int]:
    """Problem name -> count, each name saying in which phase of the run its lines
    were written (``marks``: the log's size when each phase after the first began)."""
    phases = ["at start-up", "during warm-up", "during load", "after load"]
    bounds = [0, *marks, len(log)]
    found: dict[str, int] = {}
    for phase, start, end in zip(phases, bounds[:-1], bounds[1:], strict=True):
        lines = log[start:end].splitlines()
        for n, line in enumerate(lines):
            for name, pattern in LOG_PROBLEMS.items():
                if not pattern.search(line):
                    continue
                if name == "traceback":
                    # Named by its last line, the exception: "Traceback" alone
                    # does not say whether two runs failed the same way.
                    last = next((x for x in lines[n + 1 :] if x and not x[0].isspace()), "?")
                    name = f"traceback ({last[:70]})"
                key = f"{name} {phase}"
                found[key] = found.get(key, 0) + 1
    starts = len(WORKER_STARTS.findall(log))
    if starts != workers:
        found[f"{starts} worker starts for {workers} workers"] = 1
    return found


def record(args: argparse.Namespace) -> None:
    wrk = parse_wrk(Path(args.wrk_output).read_text())
    sampled = json.loads(Path(args.sample_file).read_text())
    seconds = wrk["duration_us"] / 1e6
    socket_errors = sum(wrk[k] for k in ("connect", "read", "write", "timeout"))
    warmup_errors = args.warmup_errors
    # Byte offsets from run.sh; the log is read as bytes so that they stay exact.
    log = Path(args.log).read_bytes().decode("latin-1")
    marks = [int(mark) for mark in args.log_marks.split(",")]
    problems = log_problems(log, marks, args.workers)
    run = {
        "server": args.server,
        "mode": args.mode,
        "connections": args.connections,
        "duration_s": seconds,
        "requests": wrk["requests"],
        "rps": wrk["requests"] / seconds,
        "mb_s": wrk["bytes"] / seconds / 1e6,
        "p50_ms": wrk["p50_us"] / 1e3,
        "p90_ms": wrk["p90_us"] / 1e3,
        "p99_ms": wrk["p99_us"] / 1e3,
        "max_ms": wrk["max_us"] / 1e3,
        "status_errors": wrk["status"],
        "socket_errors": socket_errors,
        "warmup_errors": warmup_errors,
        "bytes_per_response": wrk["bytes"] / max(wrk["requests"], 1),
        "expected_body_bytes": args.expected_body_bytes,
        "ttfb_s": args.ttfb,
        "total_s": args.total,
        "log_problems": problems,
        **sampled,
        # Cores busy on average: the server's tree, wrk, and everything else.
        "server_cores": sampled["server_cpu_s"] / sampled["wall_s"],
        "wrk_cores": args.wrk_cpu / sampled["wall_s"],
        "other_cores": max(0.0, sampled["machine_cpu_s"] - sampled["server_cpu_s"] - args.wrk_cpu)
        / sampled["wall_s"],
    }
    with open(args.out, "a") as results:
        results.write(json.dumps(run) + "\n")
    mib = 1024
    print(
        f"    {run['requests']} requests in {seconds:.1f} s; errors: {wrk['status']} status, "
        f"{socket_errors} socket (connect {wrk['connect']}, read {wrk['read']}, write "
        f"{wrk['write']}, timeout {wrk['timeout']}); warm-up errors {warmup_errors}\n"
        f"    latency p50 {run['p50_ms']:.0f} ms, p90 {run['p90_ms']:.0f} ms, p99 "
        f"{run['p99_ms']:.0f} ms, max {run['max_ms']:.0f} ms\n"
        # Headers make a response ~0.3 KB longer than its body, and wrk counts the
        # bytes of the responses still in flight at the end; a much smaller mean
        # would mean cut-short bodies that no error counter saw.
        f"    {run['bytes_per_response'] / 1e6:.3f} MB per response (bodies of the mix: "
        f"{args.expected_body_bytes / 1e6:.3f} MB on average)\n"
        f"    RSS of {sampled['processes']} processes: {sampled['rss_first_kb'] / mib:.0f} MiB "
        f"after warm-up, peak {sampled['rss_peak_kb'] / mib:.0f} MiB, "
        f"{sampled['rss_last_kb'] / mib:.0f} MiB at the end ({sampled['samples']} samples)\n"
        f"    cores busy: server {run['server_cores']:.2f}, wrk {run['wrk_cores']:.2f}, "
        f"others {run['other_cores']:.2f} (of {os.cpu_count()})"
    )
    bad = dict(problems)
    if wrk["status"] + socket_errors + warmup_errors:
        bad["request errors"] = wrk["status"] + socket_errors + warmup_errors
    if wrk["requests"] == 0:
        bad["no request completed"] = 1
    if bad:
        print(f"    PROBLEMS: {bad}")
        sys.exit(1)


def table(args: argparse.Namespace) -> None:
    runs = [json.loads(line) for line in Path(args.results).read_text().splitlines()]
    header = (
        "server", "mode", "conns", "dur s", "req/s", "MB/s", "p50 ms", "p99 ms",
        "errors", "peak RSS MiB", "RSS warm->end", "TTFB/total s (idle)",
        "cores srv/wrk/other", "log",
    )  # fmt: skip
    rows = [header]
    for r in runs:
        rows.append(
            (
                r["server"],
                r["mode"],
                str(r["connections"]),
                f"{r['duration_s']:.0f}",
                f"{r['rps']:.1f}",
                f"{r['mb_s']:.1f}",
                f"{r['p50_ms']:.0f}",
                f"{r['p99_ms']:.0f}",
                str(r["status_errors"] + r["socket_errors"] + r["warmup_errors"]),
                f"{r['rss_peak_kb'] / 1024:.0f}",
                f"{r['rss_first_kb'] / 1024:.0f}->{r['rss_last_kb'] / 1024:.0f}",
                f"{r['ttfb_s']:.3f}/{r['total_s']:.3f}",
                f"{r['server_cores']:.2f}/{r['wrk_cores']:.2f}/{r['other_cores']:.2f}",
                "; ".join(f"{n} x{c}" for n, c in r["log_problems"].items()) or "clean",
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    for n, row in enumerate(rows):
        # Text columns to the left, figures to the right.
        cells = [
            cell.ljust(width) if i in (0, 1, 13) else cell.rjust(width)
            for i, (cell, width) in enumerate(zip(row, widths, strict=True))
        ]
        print("  ".join(cells).rstrip())
        if n == 0:
            print("  ".join("-" * w for w in widths))
