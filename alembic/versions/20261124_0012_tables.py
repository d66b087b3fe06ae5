"""A table chunk's header span: where the lines that head its table are on its first page.

A chunk of a table's rows (flag "table", app.chunking.tables) carries the table's header text
in its context header; an answer that quotes one of its rows cites the header lines too, and
those may stand before the chunk (its table's first chunk holds them). The span is in page
`page_start`'s text, like `page_span_start`; NULL for every other chunk, and for chunks stored
before this revision until their document is ingested again.

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-24
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.execute("ALTER TABLE chunks ADD COLUMN table_header_start integer")
    op.execute("ALTER TABLE chunks ADD COLUMN table_header_end integer")


def downgrade() -> None:
    op.execute("ALTER TABLE chunks DROP COLUMN table_header_end")
    op.execute("ALTER TABLE chunks DROP COLUMN table_header_start")
