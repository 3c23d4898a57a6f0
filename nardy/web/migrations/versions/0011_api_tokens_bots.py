"""API tokens and bot accounts (issue 44, "Programs as players").

Revision ID: 0011
Revises: 0010

* ``nardy_api_tokens``: a program's token for the API (``Authorization: Bearer``): its account, name, scopes
  (``"play read"``), only the sha256 of the token (hex), when it was made, last used and revoked.
* ``nardy_users.bot``: the account is a program (shown with a BOT mark); ``nardy_users.pool``: the rating pool it
  plays rated games in, ``people`` (every row made before) or ``bots``.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "nardy_api_tokens",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("user_id", sa.String(32), nullable=False),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("hash", sa.String(64), nullable=False, unique=True),
        sa.Column("scopes", sa.String(40), nullable=False),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_used", sa.DateTime(timezone=True), nullable=True),
        sa.Column("revoked", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_nardy_api_tokens_user_id", "nardy_api_tokens", ["user_id"])
    with op.batch_alter_table("nardy_users") as batch:
        batch.add_column(sa.Column("bot", sa.Boolean, nullable=False, server_default=sa.false()))
        batch.add_column(sa.Column("pool", sa.String(8), nullable=False, server_default="people"))


def downgrade() -> None:
    with op.batch_alter_table("nardy_users") as batch:
        batch.drop_column("pool")
        batch.drop_column("bot")
    op.drop_index("ix_nardy_api_tokens_user_id", table_name="nardy_api_tokens")
    op.drop_table("nardy_api_tokens")
