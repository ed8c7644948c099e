"""Finding a game: a lobby game's rating range (a seek only players rated within it may
take) and challenges from one account to another, each made a game when accepted.

Revision ID: 0010
Revises: 0009
"""

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # plain ADD COLUMN: a batch would copy the games table on SQLite, and dropping the
    # old one would delete every game's actions (ON DELETE CASCADE)
    op.add_column("games", sa.Column("rating_range", sa.JSON(), nullable=True))
    op.create_table(
        "challenges",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column(
            "challenger_id",
            sa.Integer(),
            sa.ForeignKey("accounts.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column(
            "challenged_id",
            sa.Integer(),
            sa.ForeignKey("accounts.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("clock", sa.JSON(), nullable=True),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("side", sa.String(16), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("reason", sa.Text(), nullable=True),
        sa.Column("challenger_key", sa.String(64), nullable=False),
        sa.Column("game_id", sa.String(32), nullable=True),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_challenges_challenger", "challenges", ["challenger_id", "status"])
    op.create_index("ix_challenges_challenged", "challenges", ["challenged_id", "status"])


def downgrade() -> None:
    op.drop_index("ix_challenges_challenged", "challenges")
    op.drop_index("ix_challenges_challenger", "challenges")
    op.drop_table("challenges")
    op.drop_column("games", "rating_range")
