"""The database server's CPU time for the work a benchmark case hands it."""

from __future__ import annotations

import os

from django.db import connection


class ServerClock:
    """The CPU seconds of the database server's process serving this connection, read
    from /proc (the server runs on this machine: PostgreSQL's backend of the
    connection); ``None`` where there is none (SQLite runs in this process, and its
    time is the process's) or the connection changed backend."""

    TICKS = os.sysconf("SC_CLK_TCK")

    def __init__(self, pid: int | None) -> None:
        self.pid = pid

    @classmethod
    def of_connection(cls) -> ServerClock:
        if connection.vendor != "postgresql" or connection.connection is None:
            return cls(None)
        return cls(connection.connection.info.backend_pid)

    def seconds(self) -> float | None:
        raw = connection.connection
        if self.pid is None or raw is None or raw.info.backend_pid != self.pid:
            return None
        try:
            with open(f"/proc/{self.pid}/stat") as stat:
                # After the command's name, in parentheses: utime and stime are
                # the 12th and 13th fields (proc(5)).
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            return None
        return (int(fields[11]) + int(fields[12])) / self.TICKS
