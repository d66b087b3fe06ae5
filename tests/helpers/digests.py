"""Digests of what citelock reads from born-digital PDFs: each page's text, character boxes and
line ids, and each chunk's spans and line rectangles. A checked-in file of the page digests,
made on main before OCR existed, shows that reading scans changed nothing for PDFs with a good
text layer (made again only when reading improves on purpose: a table's label column read with
its figures changed four pages of the Qwen2 report; an underscore drawn as a rule read as "_"
changed 27 pages of libtasn1's manual, R-intro, the creativity paper and the HotOS paper; TeX's
accents drawn over their letters read as accented letters changed 13 pages of six PDFs);
chunks, which change whenever chunking improves, are compared with OCR on and off.

Run `python -m tests.helpers.digests` to print the page digests of the shared corpus as JSON.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from app.chunking.chunker import chunk_pages
from app.core.geometry import chunk_rects
from app.flows.ingest_stages import is_ocr_noise
from app.pdf.ocr import OcrMode, OcrPolicy
from app.pdf.reader import extract_document, open_pdf
from tests.helpers.chunks import count_words
from tests.helpers.corpus import SHARED_CORPUS

BORN_DIGITAL = [
    *(f"docs/{path.name}" for path in sorted((SHARED_CORPUS / "docs").glob("*.pdf"))),
    *(f"annotated/{path.name}" for path in sorted((SHARED_CORPUS / "annotated").glob("*.pdf"))),
]
"""The shared corpus's PDFs with a text layer of their own, good or bad: everything but the
scans, which OCR reads now."""
for _scan in ("docs/scan_huckfinn_multipage.pdf", "docs/ocrnoisy_zh_pr-136-example.pdf"):
    if _scan in BORN_DIGITAL:
        BORN_DIGITAL.remove(_scan)


AUTO_OCR = OcrPolicy(mode=OcrMode.auto, is_noise=is_ocr_noise)
"""What ingestion does by default: a born-digital page that OCR would read changes its digest."""
NO_OCR = OcrPolicy(mode=OcrMode.off)


def document_digest(path: Path, ocr: OcrPolicy = AUTO_OCR) -> dict[str, list[str]]:
    """Returns the sha256 of each page (text, boxes, line ids) and of each chunk (spans, rects),
    read as ingestion reads them by default."""
    with open_pdf(path) as doc:
        extracted = extract_document(doc, ocr=ocr)
    pages = {page.number: page for page in extracted.pages}
    page_digests = [
        hashlib.sha256(
            page.text.encode() + page.char_boxes.tobytes() + page.line_ids.tobytes()
        ).hexdigest()
        for page in extracted.pages
    ]
    drafts = chunk_pages(
        extracted.pages, extracted.toc, max_tokens=200, overlap_tokens=32, count_tokens=count_words
    )
    chunk_digests = [
        hashlib.sha256(
            repr(
                (
                    draft.page_start,
                    draft.page_end,
                    draft.page_span_start,
                    draft.page_span_end,
                    draft.document_span_start,
                    draft.document_span_end,
                    chunk_rects(draft, pages),
                )
            ).encode()
        ).hexdigest()
        for draft in drafts
    ]
    return {"pages": page_digests, "chunks": chunk_digests}


def corpus_page_digests() -> dict[str, list[str]]:
    return {name: document_digest(SHARED_CORPUS / name)["pages"] for name in BORN_DIGITAL}


if __name__ == "__main__":
    print(json.dumps(corpus_page_digests(), indent=1, sort_keys=True))
