"""helper.py's ``sample``: the RSS and CPU of a server's whole process tree, read
from /proc while a load run lasts, and the CPU of the whole machine."""

from __future__ import annotations

import argparse
import json
import os
import signal
import time
from pathlib import Path

PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")
TICKS = os.sysconf("SC_CLK_TCK")


def tree_sample(root: int) -> tuple[int, int, int]:
    """(RSS in KiB, CPU time in clock ticks, number of processes) of ``root`` and all
    its descendants.

    gunicorn's and uvicorn's workers are children of a master process (and
    uvicorn's spawn start method adds a resource tracker), so the tree, not the
    pid we started, is the server. Pages shared after fork are counted once per
    process: the sum is an upper bound, as ``ps`` would show it.
    """
    children: dict[int, list[int]] = {}
    figures: dict[int, tuple[int, int]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(entry.path, "stat").read_text()
            statm = Path(entry.path, "statm").read_text()
        except OSError:  # exited meanwhile
            continue
        pid = int(entry.name)
        # The command name (field 2) may hold spaces and parentheses: split after
        # its ")"; then field 4 (ppid) is [1], 14 and 15 (utime, stime) are [11], [12].
        fields = stat.rsplit(")", 1)[1].split()
        children.setdefault(int(fields[1]), []).append(pid)
        rss_kb = int(statm.split()[1]) * PAGE_SIZE // 1024
        figures[pid] = (rss_kb, int(fields[11]) + int(fields[12]))
    rss_kb, ticks, count, todo = 0, 0, 0, [root]
    while todo:
        pid = todo.pop()
        if pid in figures:
            rss_kb += figures[pid][0]
            ticks += figures[pid][1]
            count += 1
        todo.extend(children.get(pid, ()))
    return rss_kb, ticks, count


def machine_busy_ticks() -> int:
    # /proc/stat "cpu" line: user nice system idle iowait irq softirq steal ...
    fields = [int(f) for f in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
    return sum(fields) - fields[3] - fields[4]


def sample(args: argparse.Namespace) -> None:
    """RSS of the server every ``interval`` s; CPU of the server and of the whole
    machine over the run, to tell how much of the 2 cores others (wrk, another
    user's tests) took."""
    stop = False

    def on_term(signum: int, frame: object) -> None:
        nonlocal stop
        stop = True

    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGINT, on_term)
    started, busy_before = time.monotonic(), machine_busy_ticks()
    samples: list[tuple[int, int, int]] = []
    while not stop:
        figures = tree_sample(args.pid)
        if figures[2] == 0:
            break  # the server is gone
        samples.append(figures)
        time.sleep(args.interval)
    samples.append(tree_sample(args.pid))
    samples = [s for s in samples if s[2]]
    rss = [s[0] for s in samples]
    result = {
        "rss_first_kb": rss[0] if rss else 0,
        "rss_peak_kb": max(rss, default=0),
        "rss_last_kb": rss[-1] if rss else 0,
        "processes": max((s[2] for s in samples), default=0),
        "samples": len(samples),
        "wall_s": time.monotonic() - started,
        "server_cpu_s": (samples[-1][1] - samples[0][1]) / TICKS if samples else 0,
        "machine_cpu_s": (machine_busy_ticks() - busy_before) / TICKS,
    }
    Path(args.out_file).write_text(json.dumps(result) + "\n")
