"""Which filings a computed answer reads the statements of, and in what order."""

from __future__ import annotations

import uuid
from dataclasses import replace

from app.core.chunks import Candidate
from app.flows.query import statement_documents
from tests.helpers.chunks import statement_chunk


def filing(n: int, filename: str, *, named: bool) -> Candidate:
    chunk = statement_chunk(n, "Net sales $ 1,000 $ 900", page=n)
    return replace(
        chunk,
        document_id=uuid.UUID(int=n),
        document_filename=filename,
        document_title=filename.removesuffix(".pdf"),
        name_boost=0.1 if named else 0.0,
    )


def test_the_named_filing_of_the_last_year_asked_comes_first() -> None:
    other = filing(1, "ACME_2020_10K.pdf", named=False)
    older = filing(2, "MGMRESORTS_2018_10K.pdf", named=True)
    dated = filing(3, "MGMRESORTS_2020_10K.pdf", named=True)
    ranked = [other, older, dated]
    assert statement_documents(ranked, 2020) == [
        dated.document_id,
        older.document_id,
        other.document_id,
    ]
    # Without a filing that writes the year, the ranking's order stands, named first.
    assert statement_documents(ranked, 2019) == [
        older.document_id,
        dated.document_id,
        other.document_id,
    ]
