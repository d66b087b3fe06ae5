"""The reader's annotations, and the chunks each one lies on.

An annotation is placed on its page's text by offsets (`page_span_start`, `page_span_end`,
NULL when no text lies under it); `annotation_chunks` links it to the chunks whose spans it
overlaps, so a chunk's mark count is read through an index, never by searching text.
`seq` keeps the order annotations were stored in, the last tie-breaker of every listing.

Revision ID: 0005
Revises: 0003
Create Date: 2026-11-22
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0005"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "annotations",
        sa.Column("id", postgresql.UUID(as_uuid=True), primary_key=True),
        sa.Column(
            "document_id",
            postgresql.UUID(as_uuid=True),
            sa.ForeignKey("documents.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("seq", sa.BigInteger, sa.Identity(always=True), nullable=False, unique=True),
        sa.Column("page", sa.Integer, nullable=False),
        sa.Column("type", sa.Text, nullable=False),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("comment", sa.Text, nullable=False),
        sa.Column("author", sa.Text, nullable=False),
        sa.Column("colour", sa.Text),
        sa.Column("rects", postgresql.JSONB, nullable=False),
        sa.Column("page_span_start", sa.Integer),
        sa.Column("page_span_end", sa.Integer),
        sa.Column("source", sa.Text, nullable=False),
        sa.Column(
            "created_at", sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()
        ),
        sa.CheckConstraint(
            "type IN ('highlight', 'underline', 'squiggly', 'strikeout', 'note', 'freetext')",
            name="ck_annotations_type",
        ),
        sa.CheckConstraint("source IN ('pdf', 'api')", name="ck_annotations_source"),
        sa.CheckConstraint("page >= 1", name="ck_annotations_page"),
        sa.CheckConstraint(
            "(page_span_start IS NULL) = (page_span_end IS NULL) "
            "AND page_span_start <= page_span_end",
            name="ck_annotations_span",
        ),
    )
    op.create_index("ix_annotations_document_page", "annotations", ["document_id", "page"])
    op.create_table(
        "annotation_chunks",
        sa.Column(
            "annotation_id",
            postgresql.UUID(as_uuid=True),
            sa.ForeignKey("annotations.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column(
            "chunk_id",
            postgresql.UUID(as_uuid=True),
            sa.ForeignKey("chunks.id", ondelete="CASCADE"),
            primary_key=True,
        ),
    )
    op.create_index("ix_annotation_chunks_chunk", "annotation_chunks", ["chunk_id"])


def downgrade() -> None:
    op.drop_table("annotation_chunks")
    op.drop_table("annotations")
