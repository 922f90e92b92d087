"""Real database faults, injected while a page is streamed or a section is built.

Nothing here mocks the database: each fault is an error the database itself
reports, through the driver, to the code under test.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.db import connections
from testapp.models import Article


def terminate_session(alias: str) -> None:
    """PostgreSQL ends the session, as ``pg_terminate_backend()`` or a restart would."""
    pid = connections[alias].connection.info.backend_pid
    killer = connections.create_connection(alias)
    try:
        with killer.cursor() as cursor:
            cursor.execute("SELECT pg_terminate_backend(%s)", [pid])
            assert cursor.fetchone() == (True,)
    finally:
        killer.close()


def break_connection(alias: str = "default") -> None:
    """Make the next fetch of the statement running on ``alias`` fail.

    On PostgreSQL the session is terminated; on SQLite the running statement
    is interrupted (``sqlite3_interrupt()``).
    """
    if connections[alias].vendor == "postgresql":
        terminate_session(alias)
    else:
        connections[alias].connection.interrupt()


@contextmanager
def unreadable_articles(alias: str = "default") -> Iterator[None]:
    """The next query of the articles on ``alias`` fails, however it is made.

    On PostgreSQL the session is terminated. The in-memory SQLite test
    database is one shared cache, where a write that another connection has
    not committed locks the table: a reader gets "database table is locked".
    """
    if connections[alias].vendor == "postgresql":
        terminate_session(alias)
        yield
        return
    writer = connections.create_connection(alias)
    try:
        with writer.cursor() as cursor:
            cursor.execute("BEGIN")
            cursor.execute(f"UPDATE {Article._meta.db_table} SET title = title")
            yield
            cursor.execute("ROLLBACK")
    finally:
        # Django never closes a connection to an in-memory database (that would
        # drop it); this one shares the database, and must not be left for
        # garbage collection (Python 3.13 warns of an unclosed connection).
        if writer.connection is not None:
            writer.connection.close()
            writer.connection = None
