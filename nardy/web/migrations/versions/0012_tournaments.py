"""Tournaments (issue 44): Swiss, arena and knockout events played as online games.

Revision ID: 0012
Revises: 0010 (the lead points it at 0011 when the bot API's revision is merged)

* ``nardy_tournaments``: one row per tournament: its terms (``settings`` JSON), ``status``
  (waiting|playing|finished), the current ``round``, ``revision`` (bumped on every change: the live channel's
  version), the final ``standings`` (JSON) once finished, and ``lease_owner``/``lease_until``: the server process
  that steps it (:mod:`nardy.web.tourrunner`; PostgreSQL also holds an advisory lock while stepping).
* ``nardy_tournament_entrants``: who joined, in order (``seq``), their rating when they joined, ``withdrawn``.
* ``nardy_tournament_pairings``: one row per board of a round: the players (``player1`` NULL: a bye), the game
  made for it, the result (JSON ``[p0, p1]``) once the game is over.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "nardy_tournaments",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("name", sa.String(80), nullable=False),
        sa.Column("game", sa.String(16), nullable=False),
        sa.Column("format", sa.String(16), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("settings", sa.Text, nullable=False),
        sa.Column("round", sa.Integer, nullable=False, server_default="0"),
        sa.Column("revision", sa.Integer, nullable=False, server_default="0"),
        sa.Column("created_by", sa.String(32), nullable=False),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.Column("starts_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("started", sa.DateTime(timezone=True), nullable=True),
        sa.Column("round_started", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished", sa.DateTime(timezone=True), nullable=True),
        sa.Column("standings", sa.Text, nullable=True),
        sa.Column("lease_owner", sa.String(64), nullable=True),
        sa.Column("lease_until", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_nardy_tournaments_status", "nardy_tournaments", ["status", "created"])
    op.create_table(
        "nardy_tournament_entrants",
        sa.Column("tournament_id", sa.String(32), primary_key=True),
        sa.Column("user_id", sa.String(32), primary_key=True),
        sa.Column("seq", sa.Integer, nullable=False),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("withdrawn", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("joined", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_nardy_tournament_entrants_user", "nardy_tournament_entrants", ["user_id"])
    op.create_table(
        "nardy_tournament_pairings",
        sa.Column("tournament_id", sa.String(32), primary_key=True),
        sa.Column("round", sa.Integer, primary_key=True),
        sa.Column("board", sa.Integer, primary_key=True),
        sa.Column("player0", sa.String(32), nullable=False),
        sa.Column("player1", sa.String(32), nullable=True),
        sa.Column("game_id", sa.String(32), nullable=True),
        sa.Column("result", sa.Text, nullable=True),
        sa.Column("extra", sa.Text, nullable=False, server_default="{}"),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_nardy_tournament_pairings_game", "nardy_tournament_pairings", ["game_id"])


def downgrade() -> None:
    op.drop_index("ix_nardy_tournament_pairings_game", table_name="nardy_tournament_pairings")
    op.drop_table("nardy_tournament_pairings")
    op.drop_index("ix_nardy_tournament_entrants_user", table_name="nardy_tournament_entrants")
    op.drop_table("nardy_tournament_entrants")
    op.drop_index("ix_nardy_tournaments_status", table_name="nardy_tournaments")
    op.drop_table("nardy_tournaments")
