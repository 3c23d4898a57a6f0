"""Challenges and seeks remember whether their owner gives their own dice seed after the game's commitment.

Revision ID: 0007
Revises: 0006

* ``nardy_challenges.own_seed``: the owner asked to give their own seed for the provably fair dice
  (docs/fairness.md, "The order"): the game made from the challenge or seek waits for it, given after its
  commitment. ``NULL`` (every row made before) reads as false: the server makes the owner's seed. The
  column ``client_seed`` stays for the rows made before; no new row fills it (a seed taken with the
  challenge would come before the game's commitment existed).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("nardy_challenges", sa.Column("own_seed", sa.Boolean, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("nardy_challenges") as batch:
        batch.drop_column("own_seed")
