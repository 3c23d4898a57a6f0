"""The database of ``nardy serve``: saved games, users and log-in sessions; SQLAlchemy 2 (SQLite by default,
PostgreSQL by URL), the schema kept by Alembic (:mod:`nardy.web.migrations`).

A saved game is a :class:`~nardy.flow.match.Match` (a match to N points, or a money session) with the
settings of the web session (who is a person, the computer's level...). It is stored as JSON text (a
*snapshot*, at revision ``base_revision``) beside a few columns for the list of saved games; an online game's
actions after the snapshot are rows of ``nardy_game_actions`` (:meth:`Storage.append`: one short row an
action, not the whole game again), and :meth:`Storage.changes` says what changed since a revision a process
has loaded (:mod:`nardy.web.gamecache` rebuilds and keeps the games).

* :func:`default_database_url`: an SQLite file in the user's data directory (``platformdirs``).
* :func:`normalise_url`: ``postgresql://`` URLs use the psycopg (v3) driver (extra ``nardy[postgres]``).
* :func:`migrate`: bring a database to the current schema (run by :class:`Storage`; a database made
  before Alembic is recognised and upgraded in place, its games kept).
* :class:`Storage`: games ``create``, ``get``, ``save``, ``append``, ``changes``, ``delete``, ``list``, ``ping``; users
  ``create_user``, ``user``, ``user_by_name``, ``account_like``, ``register_guest``, ``rename_guest``, ``set_password``;
  log-in sessions ``create_session``, ``session_user``, ``delete_session``; analyses ``put_analysis``,
  ``get_analysis``, ``analysis_levels``, ``analysis_digests``; the server's ``heartbeat``.

A database that is down, locked or failing raises :class:`StorageUnavailable` (its message names no
driver error, statement or password: the server answers 503 with it); a save that lost a race with
another writer raises :class:`StaleRevision` (the server answers 409).
"""

from __future__ import annotations

from .analyses import AnalysisInfo, AnalysisRows, StoredAnalysis
from .db import (
    NOTIFY_CHANNEL,
    SCHEMA_HEAD,
    Database,
    StaleRevision,
    StorageError,
    StorageUnavailable,
    auth_sessions,
    default_database_url,
    game_actions,
    games,
    metadata,
    migrate,
    normalise_url,
    pg_rows,
    server,
    users,
)
from .games import GameChanges, GameRows, SavedGame
from .logins import AuthSession, Login, LoginRows, NewLogin, NewSession, token_hash
from .users import NameTaken, User, UserRows, name_key

__all__ = [
    "Storage",
    "SavedGame",
    "StoredAnalysis",
    "AnalysisInfo",
    "GameChanges",
    "User",
    "Login",
    "NewLogin",
    "AuthSession",
    "NewSession",
    "name_key",
    "migrate",
    "metadata",
    "SCHEMA_HEAD",
    "NameTaken",
    "default_database_url",
    "normalise_url",
    "StorageError",
    "StorageUnavailable",
    "StaleRevision",
    "NOTIFY_CHANNEL",
    "pg_rows",
    "token_hash",
    "games",
    "game_actions",
    "users",
    "auth_sessions",
    "server",
]


class Storage(GameRows, AnalysisRows, UserRows, LoginRows, Database):
    """Saved games in a database given by URL (default: :func:`default_database_url`).

    Thread-safe (SQLAlchemy's pool); each call is one short transaction. The schema is created or
    upgraded when the storage is opened (:func:`migrate`).

    Raises:
        StorageError: a malformed URL, a missing driver (``pip install 'nardy[postgres]'`` for
            PostgreSQL) or a database that cannot be reached.
    """
