"""A context header per chunk: whose it is and where it stands, keyword-indexed with its text.

`context_header` (the document's title, a filing's form and period, the chapter and section
path: app.chunking.headers) is stored beside `content`, which stays exactly the page slice.
`content_tsv` is generated from both, so a question's company, period or section words match
the chunks of that document. Chunks stored before this revision have an empty header until
their document is ingested again.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-24
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.execute("ALTER TABLE chunks ADD COLUMN context_header text NOT NULL DEFAULT ''")
    op.execute("DROP INDEX ix_chunks_content_tsv")
    op.execute("ALTER TABLE chunks DROP COLUMN content_tsv")
    op.execute(
        "ALTER TABLE chunks ADD COLUMN content_tsv tsvector GENERATED ALWAYS AS "
        "(to_tsvector('english', context_header || ' ' || content)) STORED"
    )
    op.execute("CREATE INDEX ix_chunks_content_tsv ON chunks USING gin (content_tsv)")


def downgrade() -> None:
    op.execute("DROP INDEX ix_chunks_content_tsv")
    op.execute("ALTER TABLE chunks DROP COLUMN content_tsv")
    op.execute(
        "ALTER TABLE chunks ADD COLUMN content_tsv tsvector "
        "GENERATED ALWAYS AS (to_tsvector('english', content)) STORED"
    )
    op.execute("CREATE INDEX ix_chunks_content_tsv ON chunks USING gin (content_tsv)")
    op.execute("ALTER TABLE chunks DROP COLUMN context_header")
