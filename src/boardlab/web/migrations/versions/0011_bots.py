"""Bots: an account may be a bot (played by a program), acting with API tokens kept as
their SHA-256.

Revision ID: 0011
Revises: 0010
"""

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # plain ADD COLUMN (a batch would copy the accounts table, and dropping the old one
    # would delete what refers to it: ON DELETE CASCADE)
    op.add_column(
        "accounts", sa.Column("bot", sa.Boolean(), nullable=False, server_default=sa.false())
    )
    op.create_table(
        "bot_tokens",
        sa.Column("key", sa.String(64), primary_key=True),
        sa.Column(
            "account_id",
            sa.Integer(),
            sa.ForeignKey("accounts.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_bot_tokens_account_id", "bot_tokens", ["account_id"])


def downgrade() -> None:
    op.drop_index("ix_bot_tokens_account_id", "bot_tokens")
    op.drop_table("bot_tokens")
    op.drop_column("accounts", "bot")
