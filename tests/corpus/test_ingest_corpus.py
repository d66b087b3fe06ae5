"""Every document of ../shared/corpus/docs ingests, with exact provenance on every stored chunk."""

from __future__ import annotations

import numpy as np
import sqlalchemy as sa

from tests.helpers.corpus import SCANS, IngestedCorpus


def test_text_pdfs_ingest_and_scans_are_refused_without_ocr(ingested_docs: IngestedCorpus) -> None:
    assert ingested_docs.refused == dict.fromkeys(SCANS, "no_text_layer")
    assert len(ingested_docs.documents) >= 9
    for name, result in ingested_docs.documents.items():
        assert result.created, name
        assert result.document.chunk_count > 0, name


def test_stored_chunks_equal_page_text_at_their_offsets(ingested_docs: IngestedCorpus) -> None:
    with ingested_docs.runtime.engine.connect() as connection:
        pages = {
            (document_id, number): text
            for document_id, number, text in connection.execute(
                sa.text("SELECT document_id, page_number, text FROM pages")
            )
        }
        chunks = connection.execute(
            sa.text(
                "SELECT document_id, page_start, page_end, page_span_start, page_span_end, "
                "content FROM chunks"
            )
        ).all()
    assert chunks
    for document_id, page_start, page_end, span_start, span_end, content in chunks:
        if page_start == page_end:
            assert content == pages[document_id, page_start][span_start:span_end]
        else:
            texts = [pages[document_id, n] for n in range(page_start, page_end + 1)]
            joined = "\n\n".join([texts[0][span_start:], *texts[1:-1], texts[-1][:span_end]])
            assert content == joined


def test_chunk_rectangles_lie_inside_their_pages_and_cover_their_characters(
    ingested_docs: IngestedCorpus,
) -> None:
    with ingested_docs.runtime.engine.connect() as connection:
        pages = {
            (row.document_id, row.page_number): row
            for row in connection.execute(
                sa.text("SELECT document_id, page_number, width, height, char_boxes FROM pages")
            )
        }
        chunks = connection.execute(
            sa.text(
                "SELECT document_id, page_start, page_end, page_span_start, page_span_end, "
                "line_rects FROM chunks WHERE page_start = page_end"
            )
        ).all()
    assert chunks
    tolerance = 1.0
    for document_id, page, _, start, end, line_rects in chunks:
        stored = pages[document_id, page]
        rects = np.array([r["rect"] for r in line_rects if r["page"] == page])
        assert len(rects), (document_id, page, start)
        assert (rects[:, 0] >= -tolerance).all() and (rects[:, 1] >= -tolerance).all()
        assert (rects[:, 2] <= stored.width + tolerance).all()
        assert (rects[:, 3] <= stored.height + tolerance).all()
        boxes = np.frombuffer(stored.char_boxes, dtype=np.float32).reshape(-1, 4)[start:end]
        boxes = boxes[~np.isnan(boxes).any(axis=1)]
        centres_x = (boxes[:, 0] + boxes[:, 2]) / 2
        centres_y = (boxes[:, 1] + boxes[:, 3]) / 2
        inside = (
            (centres_x[:, None] >= rects[None, :, 0] - tolerance)
            & (centres_x[:, None] <= rects[None, :, 2] + tolerance)
            & (centres_y[:, None] >= rects[None, :, 1] - tolerance)
            & (centres_y[:, None] <= rects[None, :, 3] + tolerance)
        ).any(axis=1)
        assert inside.all(), (document_id, page, start)


def test_documents_carry_their_outline_as_chapters(ingested_docs: IngestedCorpus) -> None:
    document = ingested_docs.documents["R-intro.pdf"].document
    assert document.toc
    with ingested_docs.runtime.engine.connect() as connection:
        chapters = connection.execute(
            sa.text("SELECT count(*) FROM chunks WHERE document_id = :id AND chapter IS NOT NULL"),
            {"id": document.id},
        ).scalar_one()
    assert chapters >= 0.9 * document.chunk_count
