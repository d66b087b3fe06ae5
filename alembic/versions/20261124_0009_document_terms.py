"""How many chunks of each document hold each term: what makes a query's word informative.

`document_terms` holds, per document, the number of its chunks whose `content_tsv` holds each
lexeme (PostgreSQL's ts_stat). Summed over documents it is a term's chunk frequency, from
which retrieval weighs a query's words (a word few chunks hold says more than "many" or
"plan") when it asks whether the chunks it found hold the query's informative words at all.
Rows are written in a document's last ingestion transaction and go with the document.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-24
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.execute(
        "CREATE TABLE document_terms ("
        " term text NOT NULL,"
        " document_id uuid NOT NULL REFERENCES documents(id) ON DELETE CASCADE,"
        " chunk_count integer NOT NULL,"
        " PRIMARY KEY (term, document_id))"
    )
    op.execute("CREATE INDEX ix_document_terms_document_id ON document_terms (document_id)")
    op.execute(
        "INSERT INTO document_terms (term, document_id, chunk_count) "
        "SELECT stat.word, documents.id, stat.ndoc FROM documents, LATERAL ts_stat("
        "format('SELECT content_tsv FROM chunks WHERE document_id = %L', documents.id)) AS stat"
    )


def downgrade() -> None:
    op.execute("DROP TABLE document_terms")
