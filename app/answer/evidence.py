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


@dataclass(frozen=True)
class HeaderSpan:
    """A table row's claim's header: the lines that head its table, `start:end` in the text
    of its chunk's first page, which may stand before the chunk."""

    claim: Claim
    start: int
    end: int

    @property
    def page_number(self) -> int:
        return self.claim.chunk.page_start

    @property
    def page_start(self) -> int:
        return self.start


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
    row and its label) one per part; a table row's claim gives its table's header lines first.
    A claim whose page is missing, or whose chunk no longer matches the stored page text
    (re-ingested meanwhile), gives none: evidence is shown only where it is exact.
    """
    spans: list[ClaimSpan | HeaderSpan] = []
    for claim in claims:
        if claim.header is not None:
            spans.append(HeaderSpan(claim, *claim.header))
        spans += claim_spans([claim])
    if not spans:
        return []
    rows = session.execute(
        SLICES,
        {
            "docs": [span.claim.chunk.document_id for span in spans],
            "pages": [_page_number(span) for span in spans],
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
        if row is None:
            continue
        if isinstance(span, HeaderSpan):
            item = _header_evidence(span, row.text, row.boxes, row.line_ids, row.ocr_confidence)
        else:
            item = _evidence(span, row.text, row.boxes, row.line_ids, row.ocr_confidence)
        if item is not None:
            found.append(item)
    return found


def _page_number(span: ClaimSpan | HeaderSpan) -> int:
    return span.page_number if isinstance(span, HeaderSpan) else span.segment.page_number


def _header_evidence(
    span: HeaderSpan, page_text: str, boxes: bytes, line_ids: bytes, ocr_confidence: float | None
) -> Evidence | None:
    """Returns the evidence of a table row's header: its lines' text is its own snippet."""
    claim = span.claim
    if " ".join(page_text.split()) != claim.chunk.table_header_text:
        return None
    rects = _slice_rects(span.page_number, page_text, boxes, line_ids)
    if rects is None:
        return None
    return Evidence(
        document_id=claim.chunk.document_id,
        document_name=claim.chunk.document_filename,
        page_number=span.page_number,
        text_snippet=page_text,
        highlight_spans=[(0, len(page_text))],
        page_spans=[(span.start, span.end)],
        rects=rects,
        bbox=union_rect(rects),
        confidence=_page_confidence(claim.confidence, ocr_confidence),
        citation=claim.source,
    )


def _evidence(
    span: ClaimSpan, page_text: str, boxes: bytes, line_ids: bytes, ocr_confidence: float | None
) -> Evidence | None:
    claim, segment = span.claim, span.segment
    chunk = claim.chunk
    snippet = chunk.content[segment.start : segment.end]
    if page_text != snippet[span.start : span.end]:
        return None
    rects = _slice_rects(segment.page_number, page_text, boxes, line_ids)
    if rects is None:
        return None
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


def _slice_rects(number: int, page_text: str, boxes: bytes, line_ids: bytes) -> list[Rect] | None:
    """Returns the line rectangles of a slice of a page, None when its boxes do not match it."""
    # The slice as a page of its own: line_rects needs only its text, boxes and line ids.
    piece = PageText(
        number=number,
        text=page_text,
        width=0.0,
        height=0.0,
        char_boxes=np.frombuffer(boxes, dtype=np.float32).reshape(-1, 4),
        line_ids=np.frombuffer(line_ids, dtype=np.int32),
    )
    if len(piece.char_boxes) != len(page_text) or len(piece.line_ids) != len(page_text):
        return None
    return [_rounded(rect) for rect in line_rects(piece, 0, len(page_text))]


def _rounded(rect: Rect) -> Rect:
    # Hundredths of a point are far below a pixel at any zoom; the JSON stays short.
    x0, y0, x1, y1 = (round(value, 2) for value in rect)
    return (x0, y0, x1, y1)
