"""Fixtures of the web tests."""

from __future__ import annotations

import pytest

from .helpers import Server


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
