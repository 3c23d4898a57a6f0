"""Fixtures of the web tests."""

from __future__ import annotations

import os
import secrets
from urllib.parse import quote

import pytest

from .helpers import Server

PG_URL = os.environ.get("NARDY_TEST_POSTGRES_URL")


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
    if not PG_URL:
        pytest.skip("NARDY_TEST_POSTGRES_URL is not set (a PostgreSQL database for the tests)")
    pytest.importorskip("psycopg")
    import sqlalchemy as sa

    from nardy.web.storage import normalise_url

    schema = f"nardy_test_{secrets.token_hex(4)}"
    admin = sa.create_engine(normalise_url(PG_URL))
    with admin.begin() as c:
        c.execute(sa.text(f"CREATE SCHEMA {schema}"))
    sep = "&" if "?" in PG_URL else "?"
    yield f"{PG_URL}{sep}options={quote(f'-csearch_path={schema}')}"
    with admin.begin() as c:
        c.execute(sa.text(f"DROP SCHEMA {schema} CASCADE"))
    admin.dispose()
