"""The schema of ``nardy serve``'s database as Alembic revisions (run by :func:`nardy.web.store.storage.migrate`).

``env.py`` runs the revisions in ``versions/`` on the connection :func:`~nardy.web.store.storage.migrate` hands
it (inside that function's transaction, under a lock: two servers starting at once migrate once); no
``alembic.ini`` is needed. Revisions: ``0001`` the ``nardy_games`` table as the first server made it
(a database made before Alembic is stamped ``0001``), ``0002`` users, log-in sessions, the online games'
columns and ``nardy_server``.

A new revision: copy the last file of ``versions/``, give it the next ``revision`` and set
``down_revision`` to the last one, write ``upgrade``/``downgrade`` with ``alembic.op``, and change the
tables of :mod:`nardy.web.store.storage` to match (``tests/web/test_migrations.py`` checks that a migrated
database and those tables agree).
"""
