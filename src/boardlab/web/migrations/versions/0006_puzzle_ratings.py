"""Puzzles rated by players' attempts: each puzzle's Glicko-2 rating once an attempt
has moved it, and the browsers' first attempts (as digests), which alone move it.

Revision ID: 0006
Revises: 0005
"""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "puzzle_ratings",
        sa.Column("puzzle_id", sa.String(64), primary_key=True),
        sa.Column("rating", sa.Float(), nullable=False),
        sa.Column("deviation", sa.Float(), nullable=False),
        sa.Column("volatility", sa.Float(), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
    )
    op.create_table(
        "puzzle_tries",
        sa.Column("n", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("key", sa.BigInteger(), nullable=False),
    )
    op.create_index("ix_puzzle_tries_key", "puzzle_tries", ["key"], unique=True)


def downgrade() -> None:
    op.drop_index("ix_puzzle_tries_key", "puzzle_tries")
    op.drop_table("puzzle_tries")
    op.drop_table("puzzle_ratings")
