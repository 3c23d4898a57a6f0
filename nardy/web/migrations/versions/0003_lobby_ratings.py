"""The lobby, ratings and fair play: challenges and quick-pairing seeks, ratings and their history, blocks,
presence.

Revision ID: 0003
Revises: 0002

* ``nardy_challenges``: open challenges (``kind`` 'open') and quick-pairing seeks ('quick'): the game, match
  length, clock (JSON) and its class, rated or not, the rating range, the owner's colour and dice seed;
  ``status`` open|accepted|cancelled, the game made when taken and who took it. Kept after they close (the
  rate limits count them).
* ``nardy_ratings``: one Glicko-2 rating per player, game and clock class, with the count of rated matches.
* ``nardy_rating_history``: one row per player and rated match (unique: a match is rated once), the rating
  before and after, the opponent, the result and how the match ended (points, time, abandoned, resigned).
* ``nardy_blocks``: who blocks whom.
* ``nardy_presence``: when a player was last connected to a channel (the lobby, or a game by its id).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "nardy_challenges",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("owner", sa.String(32), nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("game", sa.String(16), nullable=False),
        sa.Column("length", sa.Integer, nullable=False),
        sa.Column("clock", sa.Text, nullable=True),
        sa.Column("clock_class", sa.String(16), nullable=False),
        sa.Column("rated", sa.Boolean, nullable=False),
        sa.Column("rating_min", sa.Float, nullable=True),
        sa.Column("rating_max", sa.Float, nullable=True),
        sa.Column("colour", sa.String(8), nullable=False),
        sa.Column("client_seed", sa.String(64), nullable=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.Column("closed", sa.DateTime(timezone=True), nullable=True),
        sa.Column("game_id", sa.String(32), nullable=True),
        sa.Column("taken_by", sa.String(32), nullable=True),
    )
    op.create_index("ix_nardy_challenges_owner", "nardy_challenges", ["owner", "created"])
    op.create_index("ix_nardy_challenges_open", "nardy_challenges", ["status", "kind", "game"])
    op.create_table(
        "nardy_ratings",
        sa.Column("user_id", sa.String(32), primary_key=True),
        sa.Column("game", sa.String(16), primary_key=True),
        sa.Column("clock_class", sa.String(16), primary_key=True),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("rd", sa.Float, nullable=False),
        sa.Column("vol", sa.Float, nullable=False),
        sa.Column("matches", sa.Integer, nullable=False),
        sa.Column("wins", sa.Integer, nullable=False),
        sa.Column("updated", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_nardy_ratings_board", "nardy_ratings", ["game", "clock_class", "rating"])
    op.create_table(
        "nardy_rating_history",
        sa.Column("game_id", sa.String(32), primary_key=True),
        sa.Column("user_id", sa.String(32), primary_key=True),
        sa.Column("game", sa.String(16), nullable=False),
        sa.Column("clock_class", sa.String(16), nullable=False),
        sa.Column("opponent", sa.String(32), nullable=False),
        sa.Column("length", sa.Integer, nullable=False),
        sa.Column("won", sa.Boolean, nullable=False),
        sa.Column("reason", sa.String(16), nullable=False),
        sa.Column("before", sa.Float, nullable=False),
        sa.Column("after", sa.Float, nullable=False),
        sa.Column("rd", sa.Float, nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_nardy_rating_history_user", "nardy_rating_history", ["user_id", "at"])
    op.create_table(
        "nardy_blocks",
        sa.Column("blocker", sa.String(32), primary_key=True),
        sa.Column("blocked", sa.String(32), primary_key=True),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_nardy_blocks_blocked", "nardy_blocks", ["blocked"])
    op.create_table(
        "nardy_presence",
        sa.Column("user_id", sa.String(32), primary_key=True),
        sa.Column("channel", sa.String(40), primary_key=True),
        sa.Column("seen", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_nardy_presence_seen", "nardy_presence", ["seen"])


def downgrade() -> None:
    op.drop_index("ix_nardy_presence_seen", table_name="nardy_presence")
    op.drop_table("nardy_presence")
    op.drop_index("ix_nardy_blocks_blocked", table_name="nardy_blocks")
    op.drop_table("nardy_blocks")
    op.drop_index("ix_nardy_rating_history_user", table_name="nardy_rating_history")
    op.drop_table("nardy_rating_history")
    op.drop_index("ix_nardy_ratings_board", table_name="nardy_ratings")
    op.drop_table("nardy_ratings")
    op.drop_index("ix_nardy_challenges_open", table_name="nardy_challenges")
    op.drop_index("ix_nardy_challenges_owner", table_name="nardy_challenges")
    op.drop_table("nardy_challenges")
