"""The build locks: one build at a time writes a destination.

A directory is locked with ``flock()`` on a file in it. A storage may be
written from several machines (the coordinators of distributed builds, or a
cron job on each app server), and ``flock()`` holds on one machine only, so a
storage's lock is held by the database every machine shares: a PostgreSQL
advisory lock, or MySQL's ``GET_LOCK()``. Both are the server's, released
when the connection that holds them closes, so a coordinator that dies never
leaves a stale lock. SQLite is one machine's database, so ``flock()`` is as
good there. PostgreSQL keeps advisory locks per database; a ``GET_LOCK()``
name is one for the whole server, so on MySQL the database's name is part of
it: two projects (or a project's staging and production) sharing a server
never wait for each other.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from django.db import DEFAULT_DB_ALIAS, connections

from django_sitemapkit.exceptions import BuildError

#: What a vendor's lock is taken and released with, a lock name as parameter.
LOCK_SQL = {
    "postgresql": ("SELECT pg_try_advisory_lock(%s)", "SELECT pg_advisory_unlock(%s)"),
    "mysql": ("SELECT GET_LOCK(%s, 0)", "SELECT RELEASE_LOCK(%s)"),
}


def busy(label: str) -> BuildError:
    return BuildError(
        f"Another build_sitemaps is writing to {label}; wait for it to finish, then run "
        "this one again."
    )


@contextmanager
def held_lock(lock_file: IO[str], label: str) -> Iterator[None]:
    try:
        # flock() is released by the kernel when the process dies, so a
        # crashed build never leaves a stale lock behind.
        fcntl.flock(lock_file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError as exc:
        raise busy(label) from exc
    try:
        yield
    finally:
        fcntl.flock(lock_file.fileno(), fcntl.LOCK_UN)


@contextmanager
def storage_lock(name: str, label: str) -> Iterator[None]:
    """Hold the lock called ``name`` (a storage and a prefix) for every machine that
    shares the ``default`` database, or for this machine on SQLite."""
    vendor = connections[DEFAULT_DB_ALIAS].vendor
    database = str(connections[DEFAULT_DB_ALIAS].settings_dict["NAME"])
    # A GET_LOCK() name is the whole server's (see the module docstring).
    scope = f"{name}\0{database}" if vendor == "mysql" else name
    digest = hashlib.blake2b(scope.encode(), digest_size=8)
    if vendor not in LOCK_SQL:
        # The builds of one database keep apart: those of a file's, whichever
        # process runs them; an in-memory database is its process's alone.
        if database == ":memory:" or "mode=memory" in database:
            database += f"\0{os.getpid()}"
        local = hashlib.blake2b(f"{name}\0{database}".encode(), digest_size=8)
        path = Path(tempfile.gettempdir()) / f".sitemapkit-{local.hexdigest()}.lock"
        with open(path, "a") as lock_file, held_lock(lock_file, label):
            yield
        return
    # PostgreSQL's advisory locks take a 64-bit integer; MySQL's a name of at
    # most 64 characters.
    key: int | str = (
        int.from_bytes(digest.digest(), "big", signed=True)
        if vendor == "postgresql"
        else f"sitemapkit-{digest.hexdigest()}"
    )
    take, release = LOCK_SQL[vendor]
    # A connection of its own, so that nothing the build does (closing the
    # connections before forking, say) can end it and drop the lock.
    connection = connections.create_connection(DEFAULT_DB_ALIAS)
    try:
        with connection.cursor() as cursor:
            cursor.execute(take, [key])
            (held,) = cursor.fetchone()
        if not held:
            raise busy(label)
        try:
            yield
        finally:
            with connection.cursor() as cursor:
                cursor.execute(release, [key])
    finally:
        connection.close()
