"""A game's snapshot: where its last turn began and the first ply of each turn, written
with each action, so that a game is loaded without replaying its actions.

Revision ID: 0004
Revises: 0003
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("games", sa.Column("snapshot", sa.Text(), nullable=True))


def downgrade() -> None:
    op.drop_column("games", "snapshot")
