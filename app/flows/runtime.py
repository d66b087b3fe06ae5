"""What the service and the CLI hold while they run: database, migrations, embedding model."""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from sqlalchemy import Engine, text
from sqlalchemy.orm import Session, sessionmaker

from app.core.config import Settings
from app.core.errors import ConfigurationError
from app.db.chunks import count_other_models
from app.db.connections import configure_connections
from app.db.embedded import PostgresServer, embedded_database_url, start_embedded_postgres
from app.db.engine import make_engine, make_sessionmaker
from app.db.migrate import upgrade_database
from app.embedding.embedder import Embedder, load_embedder, load_token_counter
from app.pdf.uploads import sweep_spool

logger = logging.getLogger(__name__)


@dataclass
class Runtime:
    settings: Settings
    engine: Engine
    sessions: sessionmaker[Session]
    embedder: Embedder
    count_tokens: Callable[[list[str]], list[int]]
    embedded_server: PostgresServer | None = None
    ingest_slots: threading.BoundedSemaphore = field(init=False)
    """Turns at ingesting an upload: INGEST_CONCURRENCY of them."""
    autocommit_sessions: sessionmaker[Session] = field(init=False)
    """Sessions on the same pool whose every statement commits on its own, for the query path.

    Under read committed each statement sees its own snapshot anyway, so a transaction
    around a query's reads isolates nothing; it cost a BEGIN and a COMMIT round trip.
    """

    def __post_init__(self) -> None:
        slots = self.settings.ingest_concurrency or os.cpu_count() or 1
        self.ingest_slots = threading.BoundedSemaphore(slots)
        autocommit = self.engine.execution_options(isolation_level="AUTOCOMMIT")
        self.autocommit_sessions = make_sessionmaker(autocommit)

    def close(self) -> None:
        close_embedder = getattr(self.embedder, "close", None)
        if close_embedder is not None:
            close_embedder()
        self.engine.dispose()
        if self.embedded_server is not None:
            self.embedded_server.cleanup()


def open_runtime(settings: Settings, *, other_models: bool = False) -> Runtime:
    """Returns a ready runtime: the database reachable and migrated, the model loaded once.

    A database holding chunks that another model embedded is refused unless `other_models`
    (re-embedding them): their vectors and this model's would be compared. An embedded
    server started here is stopped again when a later step fails, so no exit path leaves it
    running. What crashed processes left in the spool is swept first.
    """
    swept = sweep_spool(settings.spool_root)
    if swept:
        logger.info("removed %d spool folders left by stopped processes", len(swept))
    server = None
    database_url = settings.database_url
    if not database_url:
        server = start_embedded_postgres(settings.citelock_data_dir)
        database_url = embedded_database_url(server)
    try:
        engine = make_engine(database_url, pool_size=settings.db_pool_size)
        configure_connections(engine)
        if settings.migrate_on_start:
            upgrade_database(engine)
        embedder = load_embedder(settings)
        check_embedding_dimension(engine, embedder.dim)
        if not other_models:
            check_embedding_model(make_sessionmaker(engine), embedder.name, settings)
        count_tokens = load_token_counter(settings)
    except BaseException:
        if server is not None:
            server.cleanup()
        raise
    return Runtime(
        settings=settings,
        engine=engine,
        sessions=make_sessionmaker(engine),
        embedder=embedder,
        count_tokens=count_tokens,
        embedded_server=server,
    )


def check_embedding_dimension(engine: Engine, model_dim: int) -> None:
    """Refuses a model whose vectors would not fit the database's embedding column."""
    with engine.connect() as connection:
        column_dim = connection.execute(
            text(
                "SELECT atttypmod FROM pg_attribute "
                "WHERE attrelid = 'chunks'::regclass AND attname = 'embedding'"
            )
        ).scalar_one()
    if column_dim != model_dim:
        raise ConfigurationError(
            f"the embedding model gives {model_dim}-dimensional vectors but the database's "
            f"chunks.embedding column holds {column_dim}: use a model of that dimension or a "
            "new database migrated with EMBEDDING_DIM set to the model's"
        )


def check_embedding_model(sessions: sessionmaker[Session], model: str, settings: Settings) -> None:
    """Refuses a database with chunks that a model other than `model` embedded."""
    with sessions() as session:
        others = count_other_models(session, model)
    if others:
        found = ", ".join(f"{count} by {name}" for name, count in others.items())
        raise ConfigurationError(
            f"the database holds chunks embedded by another model ({found}), but "
            f"EMBEDDING_BACKEND={settings.embedding_backend} embeds with {model}, and vectors "
            f"of two models do not compare: run `citelock reembed` to re-embed them with "
            f"{model}, or start with the backend that embedded them"
        )


def model_ready(embedder: Embedder) -> bool:
    """Returns whether the model embeds a word: a remote model's server may be down."""
    try:
        embedder.embed_batch(["readiness"])
    except Exception:
        return False
    return True


def database_ready(engine: Engine) -> bool:
    try:
        with engine.connect() as connection:
            connection.execute(text("SELECT 1"))
    except Exception:
        return False
    return True
