"""Fixtures of the web tests."""

from __future__ import annotations

import pytest

from .helpers import Server, pg_schema


@pytest.fixture
def make_server(tmp_path):
    servers = []

    def make(database: str | None = None) -> Server:
        s = Server(database or f"sqlite:///{tmp_path / 'nardy.db'}")
        servers.append(s)
        return s.start()

    yield make
    for s in servers:
        s.stop()


@pytest.fixture(params=["sqlite", "postgresql"])
def empty_db(request, tmp_path):
    """The URL of an empty database of the test's own: an SQLite file, or (when ``NARDY_TEST_POSTGRES_URL``
    names a PostgreSQL database) a schema of its own there (``search_path``), dropped at the end."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'own.db'}"
        return
    url, drop = pg_schema("nardy_test")
    yield url
    drop()
