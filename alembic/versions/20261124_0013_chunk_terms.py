"""Each chunk's terms, listed by term: the keyword side's postings.

`chunk_terms` holds one row per lexeme of a chunk's `content_tsv`, with how often the chunk
holds it and the chunk's length in tokens, so BM25 reads a query's few terms' rows through
one index instead of the whole tsvector of every chunk that matches (at 100k chunks, 30 ms of
ts_rank a query). The chunk's document and flags are copied onto its rows, so the document
filters and excluded flags apply before any chunk row is read, and so is `content_order`, the
first 60 bits of its text's sha256, which orders chunks as their hashes do: ties are broken by
the text, so the same documents ingested again rank alike. Rows are written in a
document's last ingestion transaction, beside `document_terms`, and go with the document.

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-24
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.execute(
        "CREATE TABLE chunk_terms ("
        " term text NOT NULL,"
        " chunk_id uuid NOT NULL,"
        " document_id uuid NOT NULL REFERENCES documents(id) ON DELETE CASCADE,"
        " repeats integer NOT NULL,"
        " token_count integer NOT NULL,"
        " flags text[] NOT NULL,"
        " content_order bigint NOT NULL)"
    )
    op.execute(
        "INSERT INTO chunk_terms"
        " (term, chunk_id, document_id, repeats, token_count, flags, content_order) "
        "SELECT lexeme, id, document_id, cardinality(positions), token_count, flags,"
        " CAST(CAST('x' || substr(content_sha256, 1, 15) AS bit(60)) AS bigint) "
        "FROM chunks, unnest(content_tsv)"
    )
    # Built after the rows are in, the index is packed; the columns it includes let the
    # keyword side read a term's postings from it alone.
    op.execute(
        "ALTER TABLE chunk_terms ADD PRIMARY KEY (term, chunk_id)"
        " INCLUDE (document_id, repeats, token_count, flags, content_order)"
    )
    op.execute("CREATE INDEX ix_chunk_terms_document_id ON chunk_terms (document_id)")


def downgrade() -> None:
    op.execute("DROP TABLE chunk_terms")
