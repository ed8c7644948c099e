"""Admins: an account the host made an admin (``boardlab accounts admin NAME``) may build
the solvers' tables on ``/admin``.

Revision ID: 0012
Revises: 0011
"""

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # plain ADD COLUMN, as 0011's (a batch would copy the accounts table)
    op.add_column(
        "accounts", sa.Column("admin", sa.Boolean(), nullable=False, server_default=sa.false())
    )


def downgrade() -> None:
    op.drop_column("accounts", "admin")
