"""Documents, their files and pages, and chunks with embeddings and provenance.

The embedding column's dimension is EMBEDDING_DIM from the settings at the time this runs
(384 for all-MiniLM-L6-v2); the service refuses to start when its model disagrees.

Revision ID: 0001
Revises:
Create Date: 2026-11-22
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from pgvector.sqlalchemy import VECTOR
from sqlalchemy.dialects import postgresql

from app.core.config import get_settings

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.execute("CREATE EXTENSION IF NOT EXISTS vector")
    op.create_table(
        "documents",
        sa.Column("id", postgresql.UUID(as_uuid=True), primary_key=True),
        sa.Column("sha256", sa.String(64), nullable=False),
        sa.Column("filename", sa.Text, nullable=False),
        sa.Column("title", sa.Text, nullable=False),
        sa.Column("collection", sa.Text, nullable=False),
        sa.Column("language", sa.Text, nullable=False),
        sa.Column("version", sa.Text, nullable=False),
        sa.Column("is_my_copy", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("page_count", sa.Integer, nullable=False),
        sa.Column("chunk_count", sa.Integer, nullable=False),
        sa.Column("annotation_count", sa.Integer, nullable=False, server_default="0"),
        sa.Column("byte_size", sa.BigInteger, nullable=False),
        sa.Column("toc", postgresql.JSONB, nullable=False, server_default="[]"),
        sa.Column("status", sa.Text, nullable=False, server_default="ready"),
        sa.Column(
            "created_at", sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()
        ),
        sa.UniqueConstraint("collection", "sha256", name="uq_documents_collection_sha256"),
    )
    op.create_table(
        "document_files",
        sa.Column(
            "document_id",
            postgresql.UUID(as_uuid=True),
            sa.ForeignKey("documents.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("content", sa.LargeBinary, nullable=False),
    )
    op.create_table(
        "pages",
        sa.Column(
            "document_id",
            postgresql.UUID(as_uuid=True),
            sa.ForeignKey("documents.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("page_number", sa.Integer, primary_key=True),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("width", sa.Float, nullable=False),
        sa.Column("height", sa.Float, nullable=False),
        sa.Column("char_boxes", sa.LargeBinary, nullable=False),
        sa.Column("line_ids", sa.LargeBinary, nullable=False),
    )
    op.create_table(
        "chunks",
        sa.Column("id", postgresql.UUID(as_uuid=True), primary_key=True),
        sa.Column(
            "document_id",
            postgresql.UUID(as_uuid=True),
            sa.ForeignKey("documents.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("ordinal", sa.Integer, nullable=False),
        sa.Column("page_start", sa.Integer, nullable=False),
        sa.Column("page_end", sa.Integer, nullable=False),
        sa.Column("page_span_start", sa.Integer, nullable=False),
        sa.Column("page_span_end", sa.Integer, nullable=False),
        sa.Column("document_span_start", sa.Integer, nullable=False),
        sa.Column("document_span_end", sa.Integer, nullable=False),
        sa.Column("bbox", postgresql.ARRAY(sa.Float), nullable=False),
        sa.Column("line_rects", postgresql.JSONB, nullable=False),
        sa.Column("chapter", sa.Text),
        sa.Column("section", sa.Text),
        sa.Column("content", sa.Text, nullable=False),
        sa.Column("content_sha256", sa.String(64), nullable=False),
        sa.Column("token_count", sa.Integer, nullable=False),
        sa.Column("flags", postgresql.ARRAY(sa.Text), nullable=False, server_default="{}"),
        sa.Column("embedding", VECTOR(get_settings().embedding_dim), nullable=False),
        sa.CheckConstraint("page_start <= page_end", name="ck_chunks_page_order"),
        sa.CheckConstraint(
            "document_span_start < document_span_end", name="ck_chunks_nonempty_span"
        ),
    )
    op.create_index("ix_chunks_document_page", "chunks", ["document_id", "page_start", "page_end"])
    # The ops class must match the distance the queries use (cosine), or the index is ignored.
    op.execute(
        "CREATE INDEX ix_chunks_embedding_hnsw ON chunks "
        "USING hnsw (embedding vector_cosine_ops) WITH (m = 16, ef_construction = 64)"
    )


def downgrade() -> None:
    op.drop_table("chunks")
    op.drop_table("pages")
    op.drop_table("document_files")
    op.drop_table("documents")
