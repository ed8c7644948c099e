"""Alembic's entry: migrations run on the connection boardlab hands over (``Store``), or
on ``sqlalchemy.url`` when Alembic's own command line runs them."""

from alembic import context
from sqlalchemy import create_engine

from boardlab.web.store import Base

config = context.config
connection = config.attributes.get("connection")
if connection is None:
    with create_engine(config.get_main_option("sqlalchemy.url") or "").begin() as connection:
        context.configure(connection=connection, target_metadata=Base.metadata)
        context.run_migrations()
else:
    context.configure(connection=connection, target_metadata=Base.metadata)
    context.run_migrations()
