"""Real database faults, injected while a page is streamed or a section is built.

Nothing here mocks the database: each fault is an error the database itself
reports, through the driver, to the code under test.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.db import connections
from testapp.models import Article

#: The vendors (Django's ``connection.vendor``) whose sessions a test can end.
SERVERS = ("postgresql", "mysql")


def terminate_session(alias: str) -> None:
    """The server ends the session, as a restart would: PostgreSQL's
    ``pg_terminate_backend()``, MySQL's and MariaDB's ``KILL CONNECTION``."""
    wrapper = connections[alias]
    killer = connections.create_connection(alias)
    try:
        with killer.cursor() as cursor:
            if wrapper.vendor == "postgresql":
                cursor.execute(
                    "SELECT pg_terminate_backend(%s)", [wrapper.connection.info.backend_pid]
                )
                assert cursor.fetchone() == (True,)
            else:
                cursor.execute("KILL CONNECTION %s", [wrapper.connection.thread_id()])
    finally:
        killer.close()


def break_connection(alias: str = "default") -> None:
    """Make the next fetch of the statement running on ``alias`` fail.

    On PostgreSQL, MySQL and MariaDB the session is terminated; on SQLite the
    running statement is interrupted (``sqlite3_interrupt()``). On MySQL a page's
    rows are all in the client once its query has run (docs/databases.md): what
    fails there is the next query of the page, not the next fetch.
    """
    if connections[alias].vendor in SERVERS:
        terminate_session(alias)
    else:
        connections[alias].connection.interrupt()


@contextmanager
def unreadable_articles(alias: str = "default") -> Iterator[None]:
    """The next query of the articles on ``alias`` fails, however it is made.

    On PostgreSQL, MySQL and MariaDB the session is terminated. The in-memory
    SQLite test database is one shared cache, where a write that another
    connection has not committed locks the table: a reader gets "database
    table is locked".
    """
    if connections[alias].vendor in SERVERS:
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
