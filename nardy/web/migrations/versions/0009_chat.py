"""Chat: the messages of each game's two channels and of the lobby, mutes, and reports of messages.

Revision ID: 0009
Revises: 0008

* ``nardy_chat_messages``: one row a message (:mod:`nardy.web.store.chat`): ``id`` its key, ``room`` a game's id or
  ``":lobby"``, ``channel`` (``players``, ``watchers`` or ``lobby``), ``seq`` its number in the room (unique with
  ``room``), ``sender`` (a player id), ``text`` (1..300 characters, NFC), ``created``, ``client_key`` (the sender's
  own key of the message, unique with ``sender`` and ``room``: a resend is answered with the stored message).
* ``nardy_chat_mutes``: ``muter`` hides ``muted``'s messages (both ids the key).
* ``nardy_chat_reports``: ``reporter`` reports ``message_id`` with a ``reason`` (one report a message and reporter).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "nardy_chat_messages",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("room", sa.String(32), nullable=False),
        sa.Column("channel", sa.String(8), nullable=False),
        sa.Column("seq", sa.Integer, nullable=False),
        sa.Column("sender", sa.String(32), nullable=False),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.Column("client_key", sa.String(64), nullable=True),
        sa.UniqueConstraint("room", "seq", name="uq_nardy_chat_room_seq"),
        sa.UniqueConstraint("sender", "room", "client_key", name="uq_nardy_chat_client_key"),
    )
    op.create_index("ix_nardy_chat_sender_created", "nardy_chat_messages", ["sender", "created"])
    op.create_table(
        "nardy_chat_mutes",
        sa.Column("muter", sa.String(32), primary_key=True),
        sa.Column("muted", sa.String(32), primary_key=True),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "nardy_chat_reports",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("message_id", sa.String(32), nullable=False, index=True),
        sa.Column("reporter", sa.String(32), nullable=False),
        sa.Column("reason", sa.String(200), nullable=False),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("message_id", "reporter", name="uq_nardy_chat_report"),
    )


def downgrade() -> None:
    op.drop_table("nardy_chat_reports")
    op.drop_table("nardy_chat_mutes")
    op.drop_index("ix_nardy_chat_sender_created", table_name="nardy_chat_messages")
    op.drop_table("nardy_chat_messages")
