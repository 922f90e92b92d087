"""The transactions each request of ``verify_sitemaps`` runs in, rolled back after it, and
what keeps a view's writes inside them.

- ``rolled_back()``: one transaction on every database alias for the request,
  rolled back however it ends; ``ATOMIC_REQUESTS`` and the view's own ``atomic``
  blocks nest inside it, and Django refuses ``transaction.commit()``,
  ``set_autocommit()`` and a ``durable`` block there.
- A statement the view sends that would end that transaction (``COMMIT``,
  ``ROLLBACK``, ``BEGIN``; on MariaDB and MySQL, which commit before them, a
  ``SET autocommit`` and most DDL) is refused before it reaches the database
  (``Guard``): the view gets a ``TransactionManagementError``, and the URL is
  reported with it even when the view catches it (``refusals``).
- A connection another thread opens while the run lasts (a view's own thread,
  a thread pool's) is put in a transaction that never commits, guarded the
  same way (``threads_held()``), and closed, its writes discarded, once its
  thread has ended (``release_threads()``).

What a view does on the driver's own connection (``connection.connection``), or
in a MariaDB or MySQL stored procedure, is past Django's reach, and so past this
module's.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager, suppress
from typing import Any, NoReturn

from django.db import DatabaseError, connections, transaction
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.backends.signals import connection_created
from django.db.transaction import TransactionManagementError

#: A statement that cannot end a transaction, told at a glance: one statement of the
#: ORM's kinds (the ``;`` of a second one sends it to the whole reading).
PLAIN = re.compile(r"\s*(?:SELECT|INSERT|UPDATE|DELETE|SAVEPOINT)\b[^;]*\Z", re.IGNORECASE)
# A statement's tokens as each database reads them: what is quoted (a string, an
# identifier), comments, a word, and the ";" between two statements. What a database
# reads otherwise than these tokens could hide a statement behind a quote.
STRING = r"'(?:[^']|'')*'?"
COMMENT = r"--[^\n]*|/\*.*?(?:\*/|\Z)"
WORD = r"(?P<word>[A-Za-z_][\w$]*)|(?P<end>;)"


def tokens(*kinds: str) -> re.Pattern[str]:
    return re.compile("|".join(kinds), re.DOTALL)


TOKENS = {
    # E'' strings take backslash escapes; $tag$ quotes what lies up to $tag$.
    "postgresql": tokens(
        r"[Ee]'(?:[^'\\]|\\.|'')*'?",
        STRING,
        r'(?P<quoted>"(?:[^"]|"")*"?)',
        r"\$(?P<tag>(?:[A-Za-z_]\w*)?)\$.*?(?:\$(?P=tag)\$|\Z)",
        COMMENT,
        WORD,
    ),
    # Backslash escapes, "" strings, `` identifiers, # comments, "-- " needing its
    # space, and /*! ... */ comments, which MariaDB and MySQL run: only their marks are
    # left out.
    "mysql": tokens(
        r"'(?:[^'\\]|\\.|'')*'?",
        r'"(?:[^"\\]|\\.|"")*"?',
        r"(?P<quoted>`(?:[^`]|``)*`?)",
        r"/\*M?!\d*|\*/",
        r"--\s[^\n]*|\#[^\n]*|/\*.*?(?:\*/|\Z)",
        WORD,
    ),
    "sqlite": tokens(
        STRING, r'(?P<quoted>"(?:[^"]|"")*"?|`(?:[^`]|``)*`?|\[[^\]]*\]?)', COMMENT, WORD
    ),
}
#: First words of a statement that ends the transaction it is in, or starts another
#: (SQL's COMMIT, ROLLBACK and START TRANSACTION; END, ABORT and BEGIN; PostgreSQL's
#: PREPARE TRANSACTION; MariaDB's XA).
ENDING = frozenset({"COMMIT", "END", "ABORT", "BEGIN", "START", "XA"})
#: MariaDB's and MySQL's statements that commit the transaction before they run
#: ("Statements That Cause an Implicit Commit"), but for a temporary table's.
MYSQL_COMMITTING = frozenset(
    {
        "ALTER", "CREATE", "DROP", "RENAME", "TRUNCATE", "LOCK", "UNLOCK", "GRANT",
        "REVOKE", "ANALYZE", "CHECK", "OPTIMIZE", "REPAIR", "FLUSH", "RESET", "CACHE",
        "LOAD", "INSTALL", "UNINSTALL",
    }
)  # fmt: skip
#: Why each statement a request sent was refused, in order: a view may catch the error and
#: answer all the same (one request at a time in a process).
refusals: list[str] = []


class Unreachable(Exception):
    """A database a request's transaction cannot be opened on."""


def statements(sql: str, vendor: str) -> Iterator[tuple[str, list[str]]]:
    """Each statement of ``sql``: its text, and its words (a quoted identifier as its
    name, unquoted; strings and comments left out)."""
    start: int | None = None
    words: list[str] = []
    for match in TOKENS.get(vendor, TOKENS["sqlite"]).finditer(sql):
        if match["end"] is not None:
            if start is not None:
                yield sql[start : match.start()].strip(), words
            start, words = None, []
            continue
        word = match["word"] or match.groupdict().get("quoted")
        if word is None:
            continue
        if start is None:
            start = match.start()
        words.append(match["word"].upper() if match["word"] else word[1:-1])
    if start is not None:
        yield sql[start:].strip(), words


def ending(words: list[str], vendor: str, kept: frozenset[str]) -> bool:
    """Whether the statement of ``words`` would end the transaction it runs in, or the
    savepoints of ``kept`` (those the request did not open)."""
    first, rest = words[0], words[1:]
    if first == "ROLLBACK" or first == "RELEASE":
        names = [word for word in rest if word not in ("WORK", "TRANSACTION", "TO", "SAVEPOINT")]
        to = first == "RELEASE" or "TO" in rest
        return not to or any(name.upper() in kept for name in names[:1])
    if first == "PREPARE":
        return rest[:1] == ["TRANSACTION"]
    if first == "SET":
        return "AUTOCOMMIT" in rest or "PASSWORD" in rest
    if vendor == "mysql" and first in MYSQL_COMMITTING:
        return rest[:1] != ["TEMPORARY"]
    return first in ENDING


def refused(sql: str, vendor: str, kept: frozenset[str] = frozenset()) -> str | None:
    """The statement of ``sql`` that would end the request's transaction, if one would."""
    if PLAIN.match(sql):
        return None
    for text, words in statements(sql, vendor):
        if words and ending(words, vendor, kept):
            return text[:100]
    return None


def refuse(what: str) -> NoReturn:
    """Raise the refusal of ``what``, and keep why for the request's report."""
    refusal = (
        f"verify_sitemaps refused {what}, which would end the transaction the view's "
        "writes are rolled back in: the view was not verified, and nothing it wrote was "
        "kept."
    )
    refusals.append(refusal)
    raise TransactionManagementError(refusal)


class Guard:
    """An execute wrapper (Django's ``connection.execute_wrapper()``) refusing what
    would end the request's transaction on its connection."""

    def __init__(self, vendor: str, kept: frozenset[str] = frozenset()) -> None:
        self.vendor = vendor
        #: The savepoints open before the request (the run's own, inside a caller's
        #: transaction): the view may neither release nor roll back to them.
        self.kept = kept

    def __call__(
        self, execute: Callable[..., Any], sql: Any, params: Any, many: bool, context: Any
    ) -> Any:
        statement = refused(text_of(sql, context), self.vendor, self.kept)
        if statement is not None:
            refuse(repr(statement))
        return execute(sql, params, many, context)


def text_of(sql: Any, context: Any) -> str:
    """The text of a statement as a view may send it: a string, bytes, or a psycopg
    ``sql.Composable``."""
    if isinstance(sql, str):
        return sql
    if isinstance(sql, bytes):
        return sql.decode("utf-8", "replace")
    as_string = getattr(sql, "as_string", None)
    if as_string is not None:
        return str(as_string(context["connection"].connection))
    return str(sql)


@contextmanager
def rolled_back() -> Iterator[None]:
    """One transaction on each database alias, rolled back however the block ends, with
    what would end it refused."""
    with ExitStack() as stack:
        for alias in connections:
            try:
                stack.enter_context(transaction.atomic(using=alias))
            except DatabaseError as exc:
                raise Unreachable(
                    f"No transaction can be opened on database {alias!r} of DATABASES "
                    f"({type(exc).__name__}: {exc}), so no request can be rolled back: "
                    "nothing was requested since. Every database of DATABASES must be "
                    "reachable while verify_sitemaps runs."
                ) from exc
        for alias in connections:
            connection = connections[alias]
            kept = frozenset(sid.upper() for sid in connection.savepoint_ids if sid)
            stack.enter_context(connection.execute_wrapper(Guard(connection.vendor, kept)))
        try:
            yield
        finally:
            for alias in connections:
                transaction.set_rollback(True, using=alias)


class HeldThreads:
    """The connections other threads opened during the run, each with its thread."""

    def __init__(self) -> None:
        self.run = threading.current_thread()
        self.held: list[tuple[threading.Thread, BaseDatabaseWrapper]] = []
        self.lock = threading.Lock()

    def created(self, sender: object, connection: BaseDatabaseWrapper, **kwargs: Any) -> None:
        """``connection_created``'s receiver: a connection of another thread than the
        run's is held in a transaction that nothing commits."""
        thread = threading.current_thread()
        if thread is not self.run:
            hold(connection)
            with self.lock:
                self.held.append((thread, connection))

    def release(self) -> None:
        """Close the connections of the threads that have ended: their transactions,
        never committed, end with them."""
        with self.lock:
            ended = [(t, c) for t, c in self.held if not t.is_alive()]
            self.held = [(t, c) for t, c in self.held if t.is_alive()]
        for _, connection in ended:
            raw = connection.connection
            if raw is not None:
                # Its thread is gone: whatever the driver says, the connection is too.
                with suppress(Exception):
                    raw.close()


def hold(connection: BaseDatabaseWrapper) -> None:
    """``connection`` out of autocommit, so that its writes wait for a commit (Django's
    atomic blocks commit none on such a connection), and every commit refused: its
    ``commit()``, ``set_autocommit(True)``, and what ``Guard`` refuses. A connection
    Django opens again (it may close one it opened for a moment) is held again."""
    connection.set_autocommit(False)
    raw = connection.connection
    backend = type(connection)

    def commit() -> None:
        if connection.connection is raw:
            refuse("commit()")
        backend._commit(connection)  # type: ignore[attr-defined]

    def set_autocommit(autocommit: bool) -> None:
        if autocommit and connection.connection is raw:
            refuse("set_autocommit(True)")
        backend._set_autocommit(connection, autocommit)  # type: ignore[attr-defined]

    # Instance attributes over the backend's methods, for this connection alone.
    setattr(connection, "_commit", commit)  # noqa: B010
    setattr(connection, "_set_autocommit", set_autocommit)  # noqa: B010
    if not any(isinstance(wrapper, Guard) for wrapper in connection.execute_wrappers):
        connection.execute_wrappers.append(Guard(connection.vendor))


_held: list[HeldThreads] = []


@contextmanager
def threads_held() -> Iterator[None]:
    """While the block runs, each connection another thread opens is held (``HeldThreads``);
    a thread still running when it ends keeps its connection held, never committed."""
    held = HeldThreads()
    connection_created.connect(held.created, dispatch_uid=__name__)
    _held.append(held)
    try:
        yield
    finally:
        connection_created.disconnect(dispatch_uid=__name__)
        _held.remove(held)
        held.release()


def release_threads() -> None:
    """Close the held connections of the threads that have ended (after each request)."""
    for held in _held:
        held.release()
