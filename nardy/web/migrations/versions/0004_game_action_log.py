"""The games' action log: an online game stores each action as a row of its own, not the whole game again.

Revision ID: 0004
Revises: 0003

* ``nardy_game_actions``: one row per stored action of a game, ``(game_id, revision)`` its key: the revision
  the action made and the action itself (JSON: who, what, its arguments, the time it was made), appended in
  the transaction that bumps the game's revision (:meth:`nardy.web.store.storage.Storage.append`).
* ``nardy_games.base_revision``: the revision whose whole state ``data`` holds (a snapshot); the game at
  ``revision`` is that snapshot with the logged actions ``base_revision + 1 .. revision`` applied
  (:mod:`nardy.web.gamecache`). The rows already stored are snapshots of their own revision: the column is
  set to ``revision``, so every game saved before keeps loading as it did.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("nardy_games", sa.Column("base_revision", sa.Integer, nullable=True))
    op.execute("UPDATE nardy_games SET base_revision = revision")
    op.create_table(
        "nardy_game_actions",
        sa.Column("game_id", sa.String(32), primary_key=True),
        sa.Column("revision", sa.Integer, primary_key=True),
        sa.Column("entry", sa.Text, nullable=False),
    )


def downgrade() -> None:
    # a game with logged actions past its snapshot would lose them: refused (0003 stores whole games only)
    bind = op.get_bind()
    ahead = bind.execute(sa.text("SELECT count(*) FROM nardy_games WHERE revision > base_revision")).scalar()
    if ahead:
        raise RuntimeError(f"{ahead} game(s) have logged actions past their snapshot; save them whole first")
    op.drop_table("nardy_game_actions")
    with op.batch_alter_table("nardy_games") as batch:
        batch.drop_column("base_revision")
