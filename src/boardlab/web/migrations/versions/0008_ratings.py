"""Ratings: the account holding each seat, whether a game is rated, each account's
Glicko-2 rating per game and its history (one row per rated game).

Revision ID: 0008
Revises: 0007
"""

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # plain ADD COLUMN: a batch would copy the games table on SQLite, and dropping the
    # old one would delete every game's actions (ON DELETE CASCADE)
    op.add_column("games", sa.Column("seat_accounts", sa.JSON(), nullable=True))
    op.add_column(
        "games", sa.Column("rated", sa.Boolean(), nullable=False, server_default=sa.false())
    )
    op.create_table(
        "ratings",
        sa.Column(
            "account_id",
            sa.Integer(),
            sa.ForeignKey("accounts.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("game", sa.String(32), primary_key=True),
        sa.Column("rating", sa.Float(), nullable=False),
        sa.Column("deviation", sa.Float(), nullable=False),
        sa.Column("volatility", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
    )
    op.create_index("ix_ratings_game_rating", "ratings", ["game", "rating"])
    op.create_table(
        "rating_history",
        sa.Column("n", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column(
            "account_id",
            sa.Integer(),
            sa.ForeignKey("accounts.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column(
            "game_id",
            sa.String(32),
            sa.ForeignKey("games.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("rating", sa.Float(), nullable=False),
        sa.Column("deviation", sa.Float(), nullable=False),
        sa.Column("played", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_rating_history_account", "rating_history", ["account_id", "game", "n"])


def downgrade() -> None:
    op.drop_index("ix_rating_history_account", "rating_history")
    op.drop_table("rating_history")
    op.drop_index("ix_ratings_game_rating", "ratings")
    op.drop_table("ratings")
    op.drop_column("games", "rated")
    op.drop_column("games", "seat_accounts")
