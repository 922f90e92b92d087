"""What the coordinator of a distributed build prints while it waits: shards done,
URLs per second and the time left."""

from __future__ import annotations

import time
from dataclasses import dataclass

from django.core.management.base import OutputWrapper

#: On a terminal the line is redrawn at most this often; elsewhere (a log) a
#: line is written at most this often, in seconds.
REDRAW_EVERY = 0.2
LOG_EVERY = 30.0


@dataclass
class Done:
    """How far a distributed build is."""

    shards: int
    total: int
    urls: int
    #: Seconds since the first shard was sent.
    elapsed: float

    def line(self) -> str:
        rate = self.urls / self.elapsed if self.elapsed > 0 else 0.0
        left = self.total - self.shards
        # The shards left take as long as those done did, on average.
        eta = self.elapsed / self.shards * left if self.shards else None
        eta_text = "?" if eta is None else f"{eta:.0f} s"
        return (
            f"{self.shards:,}/{self.total:,} shards  {self.urls:,} URLs  {rate:,.0f} URLs/s  "
            f"ETA {eta_text}"
        )


class ShardProgress:
    """The progress line on a terminal, redrawn; elsewhere a line now and then."""

    def __init__(self, stdout: OutputWrapper, terminal: bool, engine: str) -> None:
        self.stdout = stdout
        self.terminal = terminal
        self.engine = engine
        self.drawn = 0.0
        self.open = False

    def __call__(self, done: Done) -> None:
        now = time.monotonic()
        last = done.shards == done.total
        if now - self.drawn < (REDRAW_EVERY if self.terminal else LOG_EVERY) and not last:
            return
        self.drawn = now
        if self.terminal:
            # The last line stays, above the summary.
            self.stdout.write(f"\r\033[K{self.engine}: {done.line()}", ending="\n" if last else "")
            self.stdout.flush()
            self.open = not last
        else:
            self.stdout.write(f"{self.engine}: {done.line()}")

    def close(self) -> None:
        if self.open:
            self.stdout.write("\r\033[K", ending="")
            self.open = False
