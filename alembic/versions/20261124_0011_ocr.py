"""Pages read by OCR: whether a page's text came from OCR, and its mean recognition confidence.

Pages stored before this revision came from their text layers: `from_ocr` is false for them
and `ocr_confidence` null.

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-24
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.execute("ALTER TABLE pages ADD COLUMN from_ocr boolean NOT NULL DEFAULT false")
    op.execute("ALTER TABLE pages ADD COLUMN ocr_confidence double precision")


def downgrade() -> None:
    op.execute("ALTER TABLE pages DROP COLUMN ocr_confidence")
    op.execute("ALTER TABLE pages DROP COLUMN from_ocr")
