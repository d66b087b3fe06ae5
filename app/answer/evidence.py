"""Evidence for an answer's claims: where each quoted sentence stands on its page, and its lines.

Offsets are the truth: a claim is a span of its chunk's content, the chunk's content maps onto
page texts through its stored page provenance, and rectangles come from the page's stored
character boxes (app.core.geometry). One query reads, of every page an answer cites, only
the slices of text, boxes and line ids under its claims: a page's boxes are 16 bytes a
character, and whole pages cost more to move and decode than everything else here.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import product

import numpy as np
from sqlalchemy import text
from sqlalchemy.orm import Session

from app.answer.claims import Claim
from app.core.geometry import Segment, chunk_segments, line_rects, union_rect
from app.core.records import PageText, Rect

BOX_BYTES = 16
"""float32 x0, y0, x1, y1 per character in `pages.char_boxes`."""
LINE_ID_BYTES = 4
"""int32 per character in `pages.line_ids`."""
OCR_DOUBT = 0.2
"""Share of a claim's confidence taken off on a page read by OCR, before its recognition
confidence (some 0.97 on clean scans, which alone would hardly lower it) is applied."""

SLICES = text(
    """
    SELECT q.i,
           substring(p.text FROM q.s + 1 FOR q.n) AS text,
           substring(p.char_boxes FROM q.s * :box + 1 FOR q.n * :box) AS boxes,
           substring(p.line_ids FROM q.s * :lid + 1 FOR q.n * :lid) AS line_ids,
           p.ocr_confidence
    FROM unnest(CAST(:docs AS uuid[]), CAST(:pages AS int[]), CAST(:starts AS int[]),
                CAST(:lengths AS int[])) WITH ORDINALITY AS q(doc, page, s, n, i)
    JOIN pages p ON p.document_id = q.doc AND p.page_number = q.page
    """
)
"""The slices of page text, boxes and line ids under each span, in one round trip."""


@dataclass(frozen=True)
class Evidence:
    """One claim's text on one page: the contract's `highlighted_sources` item."""

    document_id: uuid.UUID
    document_name: str
    page_number: int
    text_snippet: str
    """The cited chunk's text on this page."""
    highlight_spans: list[tuple[int, int]]
    """Where the claim is in `text_snippet`."""
    page_spans: list[tuple[int, int]]
    """Where the claim is in the page's text."""
    rects: list[Rect]
    bbox: Rect | None
    confidence: float
    citation: int
    """The marker `[n]` of the claim this evidence supports."""


@dataclass(frozen=True)
class ClaimSpan:
    claim: Claim
    segment: Segment
    start: int
    """Offsets of the claim's part on this page, into the segment's text."""
    end: int

    @property
    def page_start(self) -> int:
        return self.segment.page_offset + self.start


def claim_spans(claims: Sequence[Claim]) -> list[ClaimSpan]:
    """Returns each claim's parts on each page they lie on, trimmed of whitespace, in order."""
    spans: list[ClaimSpan] = []
    for claim in claims:
        for (part_start, part_end), segment in product(claim.parts, chunk_segments(claim.chunk)):
            start = max(part_start, segment.start) - segment.start
            end = min(part_end, segment.end) - segment.start
            snippet = claim.chunk.content[segment.start : segment.end]
            # The part of a sentence on one side of a page break may end or start in whitespace.
            while start < end and snippet[start].isspace():
                start += 1
            while end > start and snippet[end - 1].isspace():
                end -= 1
            if start < end:
                spans.append(ClaimSpan(claim, segment, start, end))
    return spans


def collect_evidence(session: Session, claims: Sequence[Claim]) -> list[Evidence]:
    """Returns one Evidence per claim and page it lies on, in the order of the claims.

    A claim across a page break gives one item per page, a claim of several parts (a table
    row and its headers) one per part. A claim whose page is missing, or
    whose chunk no longer matches the stored page text (re-ingested meanwhile), gives none:
    evidence is shown only where it is exact.
    """
    spans = claim_spans(claims)
    if not spans:
        return []
    rows = session.execute(
        SLICES,
        {
            "docs": [span.claim.chunk.document_id for span in spans],
            "pages": [span.segment.page_number for span in spans],
            "starts": [span.page_start for span in spans],
            "lengths": [span.end - span.start for span in spans],
            "box": BOX_BYTES,
            "lid": LINE_ID_BYTES,
        },
    ).all()
    by_index = {row.i - 1: row for row in rows}
    found: list[Evidence] = []
    for index, span in enumerate(spans):
        row = by_index.get(index)
        if row is not None:
            item = _evidence(span, row.text, row.boxes, row.line_ids, row.ocr_confidence)
            if item is not None:
                found.append(item)
    return found


def _evidence(
    span: ClaimSpan, page_text: str, boxes: bytes, line_ids: bytes, ocr_confidence: float | None
) -> Evidence | None:
    claim, segment = span.claim, span.segment
    chunk = claim.chunk
    snippet = chunk.content[segment.start : segment.end]
    if page_text != snippet[span.start : span.end]:
        return None
    # The slice as a page of its own: line_rects needs only its text, boxes and line ids.
    piece = PageText(
        number=segment.page_number,
        text=page_text,
        width=0.0,
        height=0.0,
        char_boxes=np.frombuffer(boxes, dtype=np.float32).reshape(-1, 4),
        line_ids=np.frombuffer(line_ids, dtype=np.int32),
    )
    if len(piece.char_boxes) != len(page_text) or len(piece.line_ids) != len(page_text):
        return None
    rects = [_rounded(rect) for rect in line_rects(piece, 0, len(page_text))]
    return Evidence(
        document_id=chunk.document_id,
        document_name=chunk.document_filename,
        page_number=segment.page_number,
        text_snippet=snippet,
        highlight_spans=[(span.start, span.end)],
        page_spans=[(span.page_start, span.page_start + span.end - span.start)],
        rects=rects,
        bbox=union_rect(rects),
        confidence=_page_confidence(claim.confidence, ocr_confidence),
        citation=claim.source,
    )


def _page_confidence(confidence: float, ocr_confidence: float | None) -> float:
    """Returns a claim's confidence on a page: on a page read by OCR, the words may be misread
    and their boxes are placed along the line, so it is lowered by the share OCR_DOUBT and by
    the page's mean recognition confidence."""
    if ocr_confidence is None:
        return confidence
    return round(confidence * (1.0 - OCR_DOUBT) * ocr_confidence, 4)


def _rounded(rect: Rect) -> Rect:
    # Hundredths of a point are far below a pixel at any zoom; the JSON stays short.
    x0, y0, x1, y1 = (round(value, 2) for value in rect)
    return (x0, y0, x1, y1)
