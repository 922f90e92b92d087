"""The build lock of a storage, held by the database every machine shares."""

from __future__ import annotations

import pytest
from django.db import connection

from django_sitemapkit.build.locks import storage_lock
from django_sitemapkit.exceptions import BuildError

BUSY = (
    "Another build_sitemaps is writing to storage 'sitemaps'; wait for it to finish, then run "
    "this one again."
)


@pytest.mark.django_db(transaction=True)
def test_a_second_holder_is_refused_until_the_first_lets_go() -> None:
    with storage_lock("sitemaps\0www/", "storage 'sitemaps'"):
        with pytest.raises(BuildError) as raised, storage_lock("sitemaps\0www/", "x"):
            pass
        assert str(raised.value) == BUSY.replace("storage 'sitemaps'", "x")
        # Another name (another site's prefix) is another lock.
        with storage_lock("sitemaps\0shop/", "storage 'sitemaps'"):
            pass
    with storage_lock("sitemaps\0www/", "storage 'sitemaps'"):
        pass


@pytest.mark.django_db(transaction=True)
def test_on_postgresql_the_lock_is_the_servers() -> None:
    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL's advisory locks: the PostgreSQL pass runs this")
    with storage_lock("sitemaps", "storage 'sitemaps'"), connection.cursor() as cursor:
        cursor.execute(MINE + " AND granted")
        assert cursor.fetchone() == (1,)
    with connection.cursor() as cursor:
        cursor.execute(MINE)
        assert cursor.fetchone() == (0,)


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(
    connection.vendor != "mysql", reason="MySQL and MariaDB: a GET_LOCK() name is the server's"
)
def test_on_mysql_the_lock_is_one_databases_not_the_whole_servers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with storage_lock("sitemaps", "storage 'sitemaps'"):
        # Another database of the same server (every server has this one) builds
        # to a storage of the same name: not this project's, it does not wait.
        with monkeypatch.context() as patched:
            patched.setitem(connection.settings_dict, "NAME", "information_schema")
            with storage_lock("sitemaps", "storage 'sitemaps'"):
                pass
        with pytest.raises(BuildError) as raised, storage_lock("sitemaps", "storage 'sitemaps'"):
            pass
        assert str(raised.value) == BUSY


# This test database's advisory locks only: a server shared with other test
# processes (another environment's, or another xdist worker's) holds theirs.
MINE = (
    "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'"
    " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"
)
