"""Runs migrations on the connection the caller passes, or on DATABASE_URL / the embedded server."""

from alembic import context

from app.db.migrate import database_url_for_cli

config = context.config
connection = config.attributes.get("connection")

if connection is not None:
    context.configure(connection=connection, target_metadata=None)
    with context.begin_transaction():
        context.run_migrations()
else:
    from sqlalchemy import create_engine

    engine = create_engine(database_url_for_cli())
    with engine.begin() as conn:
        context.configure(connection=conn, target_metadata=None)
        with context.begin_transaction():
            context.run_migrations()
    engine.dispose()
