"""Alembic's environment: run the revisions on the connection in ``config.attributes["connection"]``.

:func:`nardy.web.store.storage.migrate` puts an open connection there, inside a transaction it holds (a
transaction Alembic joins instead of starting its own). Given ``sqlalchemy.url`` instead (Alembic's own
command line, with an ini file of one's own), it connects to that URL.
"""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine


def run() -> None:
    from nardy.web.store.db import metadata

    config = context.config
    connection = config.attributes.get("connection")
    if connection is None:
        engine = create_engine(config.get_main_option("sqlalchemy.url") or "")
        with engine.begin() as c:
            _run_on(c, metadata)
        engine.dispose()
    else:
        _run_on(connection, metadata)


def _run_on(connection, metadata) -> None:
    context.configure(connection=connection, target_metadata=metadata)
    with context.begin_transaction():
        context.run_migrations()


try:
    _running = context.config is not None
except AttributeError:  # imported outside a migration run (pytest collecting doctests): nothing to do
    _running = False
if _running:
    run()
