"""Users (guests and accounts), log-in sessions, the online games' columns, the server's heartbeat.

Revision ID: 0002
Revises: 0001

* ``nardy_users``: ``name_key`` is the casefolded name of an account (unique), NULL for a guest (guests'
  names need not be unique); ``password_hash`` an argon2 hash, NULL for a guest.
* ``nardy_auth_sessions``: one row per log-in; the cookie's token is stored only as its sha256 hex.
* ``nardy_games``: the owner, the users in each seat, who may watch, the invitation's hash and when the
  clock of the side to act runs out (for the sweeper). Saved games keep their rows: the new columns are
  NULL, ``visibility`` 'private'.
* ``nardy_server``: ``key -> value`` (the heartbeat of the server that sweeps clocks).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

_GAME_INDEXED = ("owner", "seat0", "seat1", "clock_due")


def upgrade() -> None:
    op.create_table(
        "nardy_users",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("name_key", sa.String(40), nullable=True),
        sa.Column("password_hash", sa.Text, nullable=True),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_nardy_users_name_key", "nardy_users", ["name_key"], unique=True)
    op.create_table(
        "nardy_auth_sessions",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column("user_id", sa.String(32), nullable=False),
        sa.Column("csrf", sa.String(64), nullable=False),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_seen", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_nardy_auth_sessions_user_id", "nardy_auth_sessions", ["user_id"])
    op.add_column("nardy_games", sa.Column("owner", sa.String(32), nullable=True))
    op.add_column("nardy_games", sa.Column("seat0", sa.String(32), nullable=True))
    op.add_column("nardy_games", sa.Column("seat1", sa.String(32), nullable=True))
    op.add_column(
        "nardy_games", sa.Column("visibility", sa.String(8), nullable=False, server_default=sa.text("'private'"))
    )
    op.add_column("nardy_games", sa.Column("invite_hash", sa.String(64), nullable=True))
    op.add_column("nardy_games", sa.Column("clock_due", sa.DateTime(timezone=True), nullable=True))
    for col in _GAME_INDEXED:
        op.create_index(f"ix_nardy_games_{col}", "nardy_games", [col])
    op.create_table(
        "nardy_server",
        sa.Column("key", sa.String(40), primary_key=True),
        sa.Column("value", sa.Text, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("nardy_server")
    for col in _GAME_INDEXED:
        op.drop_index(f"ix_nardy_games_{col}", table_name="nardy_games")
    # SQLite drops columns by copying the table (batch mode); PostgreSQL alters it in place
    with op.batch_alter_table("nardy_games") as batch:
        for col in ("clock_due", "invite_hash", "visibility", "seat1", "seat0", "owner"):
            batch.drop_column(col)
    op.drop_index("ix_nardy_auth_sessions_user_id", table_name="nardy_auth_sessions")
    op.drop_table("nardy_auth_sessions")
    op.drop_index("ix_nardy_users_name_key", table_name="nardy_users")
    op.drop_table("nardy_users")
