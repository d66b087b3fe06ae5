"""Search support: a full-text column on chunks and indexes for the filters.

`content_tsv` is generated from `content` and stored, so keyword search reads a ready
tsvector through its GIN index instead of parsing every chunk's text per query. The two
expression indexes serve the case-insensitive chapter and section filters
(`lower(chapter) = lower(:value)`) when search counts the filtered set.

The embedding's storage goes from pgvector's EXTERNAL to MAIN: a chunk row (text, tsvector,
line boxes, 1.5 kB of vector) passes PostgreSQL's 2 kB TOAST threshold, and with EXTERNAL
the vector, the largest value, was the one moved out of line, so the exact scan fetched two
more pages per chunk (90 ms instead of 67 ms over 25k chunks). MAIN keeps it in the row and
moves the text out first; a vector too large for any row (4,096 dimensions) still goes out
of line. Rows stored before this revision keep their layout until rewritten.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.execute(
        "ALTER TABLE chunks ADD COLUMN content_tsv tsvector "
        "GENERATED ALWAYS AS (to_tsvector('english', content)) STORED"
    )
    op.execute("ALTER TABLE chunks ALTER COLUMN embedding SET STORAGE MAIN")
    op.execute("CREATE INDEX ix_chunks_content_tsv ON chunks USING gin (content_tsv)")
    op.execute("CREATE INDEX ix_chunks_chapter_lower ON chunks (lower(chapter))")
    op.execute("CREATE INDEX ix_chunks_section_lower ON chunks (lower(section))")


def downgrade() -> None:
    op.drop_index("ix_chunks_section_lower", table_name="chunks")
    op.drop_index("ix_chunks_chapter_lower", table_name="chunks")
    op.drop_index("ix_chunks_content_tsv", table_name="chunks")
    op.drop_column("chunks", "content_tsv")
    op.execute("ALTER TABLE chunks ALTER COLUMN embedding SET STORAGE EXTERNAL")
