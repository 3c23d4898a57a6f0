"""Established ratings and weighted results: the count of different opponents per rating, a result's weight.

Revision ID: 0006
Revises: 0005

* ``nardy_ratings.opponents``: the different opponents among the rating's rated matches (its game and clock
  class); a rating is on the leaderboard once established (:func:`nardy.web.ratings.established`: 5 rated
  matches against 3 different opponents). Counted for the rows already stored from their history.
* ``nardy_rating_history.weight``: the result's weight (1, 1/2, 1/4 for the first, second and third rated
  result of the same two players within 24 hours: :func:`nardy.web.ratings.pair_weight`); null for the rows
  rated before, which weighed 1.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("nardy_ratings", sa.Column("opponents", sa.Integer, nullable=False, server_default=sa.text("0")))
    op.execute(
        "UPDATE nardy_ratings SET opponents = (SELECT count(DISTINCT h.opponent) FROM nardy_rating_history h"
        " WHERE h.user_id = nardy_ratings.user_id AND h.game = nardy_ratings.game"
        " AND h.clock_class = nardy_ratings.clock_class)"
    )
    op.add_column("nardy_rating_history", sa.Column("weight", sa.Float, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("nardy_rating_history") as batch:
        batch.drop_column("weight")
    with op.batch_alter_table("nardy_ratings") as batch:
        batch.drop_column("opponents")
