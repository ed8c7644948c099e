"""Online play: seats held by secret tokens (stored hashed), games open for an opponent,
how an unfinished game ended (time, a draw agreed), draw offers, rematches and clocks.

Revision ID: 0002
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Games made before seats had keys keep none: their link is their only secret.
    op.add_column("games", sa.Column("seat_keys", sa.JSON(), nullable=True))
    op.add_column("games", sa.Column("open_seat", sa.Integer(), nullable=True))
    op.add_column(
        "games", sa.Column("listed", sa.Boolean(), nullable=False, server_default=sa.false())
    )
    op.create_index("ix_games_listed", "games", ["listed"])
    op.add_column("games", sa.Column("ending", sa.String(16), nullable=True))
    op.add_column("games", sa.Column("draw_offer", sa.Integer(), nullable=True))
    op.add_column("games", sa.Column("rematch", sa.String(32), nullable=True))
    op.add_column("games", sa.Column("clock", sa.JSON(), nullable=True))


def downgrade() -> None:
    for column in ("clock", "rematch", "draw_offer", "ending"):
        op.drop_column("games", column)
    op.drop_index("ix_games_listed", "games")
    op.drop_column("games", "listed")
    op.drop_column("games", "open_seat")
    op.drop_column("games", "seat_keys")
