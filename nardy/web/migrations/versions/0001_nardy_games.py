"""The saved games table as the first ``nardy serve`` made it (before Alembic: ``metadata.create_all``).

Revision ID: 0001
Revises: (none)

A database made before Alembic has exactly this table and no ``alembic_version``: it is stamped with this
revision instead of running it (:func:`nardy.web.store.storage.migrate`).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "nardy_games",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated", sa.DateTime(timezone=True), nullable=False),
        sa.Column("game", sa.String(16), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("title", sa.String(200), nullable=False),
        sa.Column("summary", sa.Text, nullable=False),
        sa.Column("revision", sa.Integer, nullable=False),
        sa.Column("data", sa.Text, nullable=False),
    )
    op.create_index("ix_nardy_games_updated", "nardy_games", ["updated"])


def downgrade() -> None:
    op.drop_index("ix_nardy_games_updated", table_name="nardy_games")
    op.drop_table("nardy_games")
