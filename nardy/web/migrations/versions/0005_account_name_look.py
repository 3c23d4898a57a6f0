"""Accounts' names as they look: no account may take a look-alike of another's name.

Revision ID: 0005
Revises: 0004

* ``nardy_users.name_look``: an account's name as it looks (:func:`nardy.web.names.name_look`: NFKC, casefolded,
  Cyrillic and Greek letters drawn like Latin ones made Latin), unique; NULL for a guest. The accounts made before
  get theirs here, the oldest first; an account whose name looks like an older one's keeps its name but no look
  (it is still found by its exact name; no new account can take either look).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from nardy.web.names import name_look

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("nardy_users", sa.Column("name_look", sa.String(40), nullable=True))
    bind = op.get_bind()
    rows = bind.execute(sa.text("SELECT id, name FROM nardy_users WHERE kind = 'account' ORDER BY created, id")).all()
    seen: set[str] = set()
    for uid, name in rows:
        look = name_look(name)
        if look in seen or len(look) > 40:
            continue
        seen.add(look)
        bind.execute(sa.text("UPDATE nardy_users SET name_look = :l WHERE id = :i"), {"l": look, "i": uid})
    op.create_index("ix_nardy_users_name_look", "nardy_users", ["name_look"], unique=True)


def downgrade() -> None:
    op.drop_index("ix_nardy_users_name_look", table_name="nardy_users")
    with op.batch_alter_table("nardy_users") as batch:
        batch.drop_column("name_look")
