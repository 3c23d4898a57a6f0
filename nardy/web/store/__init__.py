"""The web server's store: what it keeps in its database, and nothing above it.

Modules: :mod:`~nardy.web.store.db` (the tables, the engine and its pool, :func:`~nardy.web.store.db.migrate`
and ``SCHEMA_HEAD``), :mod:`~nardy.web.store.games` (saved games and their action logs),
:mod:`~nardy.web.store.users` (guests and accounts), :mod:`~nardy.web.store.logins` (log-in sessions, table
``nardy_sessions``), :mod:`~nardy.web.store.community` and :mod:`~nardy.web.store.ratingbook` (the lobby, ratings
and fair play), :mod:`~nardy.web.store.analyses` (stored analyses),
and :mod:`~nardy.web.store.storage` (:class:`~nardy.web.store.storage.Storage`, all of them on
one database). Nothing here imports the services (:mod:`nardy.web.services`) or the routers.

The package imports the community's modules, so that every table is on :data:`~nardy.web.store.db.metadata`
whichever module of the store is imported first (the migrations compare the schema against it).
"""

from . import analyses, chat, community, ratingbook, tokens  # noqa: F401  (their tables join the metadata)
