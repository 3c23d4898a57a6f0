"""Analyses are stored with the game: one row per game, revision analysed and level.

Revision ID: 0008
Revises: 0007

* ``nardy_analyses``: the analysis of a saved game (:mod:`nardy.web.store.analyses`): ``(game_id, revision,
  level)`` its key, when it was made, the analysis JSON compressed with zlib (``data``) and its size before
  (``size``, bytes), the player ids of the two sides (``player0``, ``player1``; indexed: a player's statistics
  find their analyses by them) and a short summary per side (``digest``, JSON). Nothing is stored before this
  revision (analyses were kept in each process's memory only), so the table starts empty.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "nardy_analyses",
        sa.Column("game_id", sa.String(32), primary_key=True),
        sa.Column("revision", sa.Integer, primary_key=True),
        sa.Column("level", sa.String(16), primary_key=True),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.Column("size", sa.Integer, nullable=False),
        sa.Column("data", sa.LargeBinary, nullable=False),
        sa.Column("player0", sa.String(32), nullable=True),
        sa.Column("player1", sa.String(32), nullable=True),
        sa.Column("digest", sa.Text, nullable=False),
    )
    op.create_index("ix_nardy_analyses_player0", "nardy_analyses", ["player0"])
    op.create_index("ix_nardy_analyses_player1", "nardy_analyses", ["player1"])


def downgrade() -> None:
    op.drop_index("ix_nardy_analyses_player1", table_name="nardy_analyses")
    op.drop_index("ix_nardy_analyses_player0", table_name="nardy_analyses")
    op.drop_table("nardy_analyses")
