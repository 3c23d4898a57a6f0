"""Named challenges, follows and players' settings (issue 43, the social loop).

Revision ID: 0010
Revises: 0008

* ``nardy_challenges.to_user``: the one player a challenge is made to (``POST /api/lobby/challenges`` with
  ``"to"``); ``NULL`` (every row made before) is an open challenge anyone may accept.
* ``nardy_follows``: ``follower`` follows ``followed`` (``/api/follows``): sees when they are online and
  which game they play.
* ``nardy_user_settings``: an account's settings as JSON (``/api/me/settings``: the turn alerts).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("nardy_challenges", sa.Column("to_user", sa.String(32), nullable=True))
    op.create_index("ix_nardy_challenges_to_user", "nardy_challenges", ["to_user"])
    op.create_table(
        "nardy_follows",
        sa.Column("follower", sa.String(32), primary_key=True),
        sa.Column("followed", sa.String(32), primary_key=True),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_nardy_follows_followed", "nardy_follows", ["followed"])
    op.create_table(
        "nardy_user_settings",
        sa.Column("user_id", sa.String(32), primary_key=True),
        sa.Column("settings", sa.Text, nullable=False),
        sa.Column("updated", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("nardy_user_settings")
    op.drop_index("ix_nardy_follows_followed", table_name="nardy_follows")
    op.drop_table("nardy_follows")
    op.drop_index("ix_nardy_challenges_to_user", table_name="nardy_challenges")
    with op.batch_alter_table("nardy_challenges") as batch:
        batch.drop_column("to_user")
