"""Each posting carries what its term adds to the chunk's measures, worked out once.

The keyword side summed, for every posting of a query's terms, ts_rank's measure of the
term's repeats and its BM25 gain, each an expression over `repeats` and `token_count`: at
100k chunks a question whose terms stand in 10k chunks each spent half its time there. Each
posting now holds both (`held`, and `impact`: the gain for a weight of 1), written when the
postings are, and the query only sums them. The postings are copied with the values
app.db.terms writes at this revision (K1 1.2, B 0.75, an average chunk of 110 tokens): the
same postings, so a document whose ingestion has stored its chunks but not yet its postings
gets them from its own last transaction, as before.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-02
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

HELD = (
    "CASE repeats WHEN 1 THEN CAST(1.0 AS double precision)"
    " WHEN 2 THEN CAST(1.25 AS double precision) WHEN 3 THEN CAST(1.3611111111111112 AS double"
    " precision) ELSE CAST(1.6449340668482264 AS double precision) - CAST(1.0 AS double"
    " precision) / (repeats + CAST(0.5 AS double precision)) END"
)
IMPACT = (
    "repeats * CAST(2.2 AS double precision) / (repeats + CAST(1.2 AS double precision)"
    " * (CAST(0.25 AS double precision) + CAST(0.75 AS double precision) * token_count"
    " / CAST(110.0 AS double precision)))"
)


def replace_postings(measures: dict[str, str], listed: str) -> None:
    """Replaces `chunk_terms` by a table whose postings carry `measures` (column: type),
    filled by `listed` (an INSERT's SELECT, reading the old table as `chunk_terms`), and
    indexed packed, as migration 0013 did."""
    columns = "".join(f" {name} {kind} NOT NULL," for name, kind in measures.items())
    op.execute(
        "CREATE TABLE replaced_chunk_terms ("
        " term text NOT NULL,"
        " chunk_id uuid NOT NULL,"
        " document_id uuid NOT NULL REFERENCES documents(id) ON DELETE CASCADE,"
        f"{columns}"
        " flags text[] NOT NULL,"
        " content_order bigint NOT NULL)"
    )
    names = ", ".join(measures)
    op.execute(
        "INSERT INTO replaced_chunk_terms"
        f" (term, chunk_id, document_id, {names}, flags, content_order) {listed}"
    )
    op.execute("DROP TABLE chunk_terms")
    op.execute("ALTER TABLE replaced_chunk_terms RENAME TO chunk_terms")
    op.execute(
        "ALTER TABLE chunk_terms ADD PRIMARY KEY (term, chunk_id)"
        f" INCLUDE (document_id, {names}, flags, content_order)"
    )
    op.execute("CREATE INDEX ix_chunk_terms_document_id ON chunk_terms (document_id)")
    # The planner needs the new table's statistics at once; the visibility map, which lets
    # the keyword side read postings from the index alone, comes with autovacuum (VACUUM
    # cannot run in the migration's transaction).
    op.execute("ANALYZE chunk_terms")


def upgrade() -> None:
    replace_postings(
        {"held": "double precision", "impact": "double precision"},
        f"SELECT term, chunk_id, document_id, {HELD}, {IMPACT}, flags, content_order"
        " FROM chunk_terms",
    )


def downgrade() -> None:
    # What the postings held is listed again from the chunks of the documents that had them.
    replace_postings(
        {"repeats": "integer", "token_count": "integer"},
        "SELECT lexeme, id, document_id, cardinality(positions), token_count, flags,"
        " CAST(CAST('x' || substr(content_sha256, 1, 15) AS bit(60)) AS bigint)"
        " FROM chunks, unnest(content_tsv) WHERE EXISTS"
        " (SELECT FROM chunk_terms WHERE chunk_terms.document_id = chunks.document_id)",
    )
