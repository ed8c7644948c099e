"""A game's takeback request: the player online who asks to take back their last turn,
until the other answers or anyone acts.

Revision ID: 0005
Revises: 0004
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("games", sa.Column("takeback_offer", sa.Integer(), nullable=True))


def downgrade() -> None:
    op.drop_column("games", "takeback_offer")
