"""PostgreSQL with pgvector: the models, the engine and embedded server, migrations, the
pool's search settings, and the reads and writes the flows need."""

from app.db.engine import make_engine, make_sessionmaker
from app.db.models import Annotation, Chunk, Document, IngestJob, Page, StoredResponse

__all__ = [
    "Annotation",
    "Chunk",
    "Document",
    "IngestJob",
    "Page",
    "StoredResponse",
    "make_engine",
    "make_sessionmaker",
]
