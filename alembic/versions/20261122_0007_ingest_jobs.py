"""Background ingestion: procrastinate's task queue and the progress of each ingestion job.

The queue's tables and functions are procrastinate's own schema.sql, as shipped with the
pinned version (pyproject.toml), run as it is. `ingest_jobs` holds what an uploader polls:
status, pages and chunks done, and the reason of a failure. It outlives a failed
document (ON DELETE SET NULL), so the reason can still be read.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-22
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from procrastinate.schema import SchemaManager
from sqlalchemy.dialects import postgresql

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # The driver's own execute, without parameters, runs the many statements of the file at
    # once, and leaves its % signs alone.
    op.get_bind().connection.driver_connection.execute(SchemaManager.get_schema())  # type: ignore[union-attr]
    op.create_table(
        "ingest_jobs",
        sa.Column("id", postgresql.UUID(as_uuid=True), primary_key=True),
        sa.Column(
            "document_id",
            postgresql.UUID(as_uuid=True),
            sa.ForeignKey("documents.id", ondelete="SET NULL"),
            unique=True,
        ),
        sa.Column("status", sa.Text, nullable=False, server_default="processing"),
        sa.Column("page_count", sa.Integer, nullable=False),
        sa.Column("pages_done", sa.Integer, nullable=False, server_default="0"),
        sa.Column("chunks_done", sa.Integer, nullable=False, server_default="0"),
        sa.Column("attempts", sa.Integer, nullable=False, server_default="0"),
        sa.Column("error", sa.Text),
        sa.Column(
            "created_at", sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()
        ),
        sa.Column(
            "updated_at", sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()
        ),
        sa.CheckConstraint(
            "status IN ('processing', 'ready', 'failed')", name="ck_ingest_jobs_status"
        ),
    )


def downgrade() -> None:
    op.drop_table("ingest_jobs")
    op.execute(
        """
        DO $$
        DECLARE routine record;
        BEGIN
            FOR routine IN
                SELECT p.oid::regprocedure AS signature, p.prokind FROM pg_proc p
                WHERE p.proname LIKE 'procrastinate%'
            LOOP
                IF routine.prokind = 'p' THEN
                    EXECUTE 'DROP PROCEDURE ' || routine.signature || ' CASCADE';
                ELSE
                    EXECUTE 'DROP FUNCTION ' || routine.signature || ' CASCADE';
                END IF;
            END LOOP;
        END $$
        """
    )
    for table in ("events", "periodic_defers", "jobs", "workers"):
        op.execute(f"DROP TABLE IF EXISTS procrastinate_{table} CASCADE")
    for type_name in ("job_to_defer_v1", "job_event_type", "job_status"):
        op.execute(f"DROP TYPE IF EXISTS procrastinate_{type_name} CASCADE")
