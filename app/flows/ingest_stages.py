"""The stages every ingestion runs, at once or in the background: reading the PDF, its page
batches chunked and embedded, the document row, and the last commit step.

The PDF is read whole first, keeping only each page's text and lines (`PageLines`): page
furniture and reference sections are found over all pages. Its character boxes wait in a
`BoxSpill` and come back a batch of pages at a time to be chunked, embedded and stored, so
memory holds two batches' boxes, chunks and vectors however long the document: the model
embeds one batch in a thread of its own while the next is chunked and the last one stored.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pymupdf
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.chunking.chunker import CountTokens, DocumentChunker
from app.chunking.flags import OCR_NOISE_THRESHOLD, flag_chunks, ocr_noise_score
from app.chunking.furniture import FURNITURE, find_furniture
from app.chunking.headers import document_label, document_title
from app.chunking.references import reference_sections
from app.chunking.sections import detected_headings
from app.chunking.structure import structure_pages
from app.core.chunks import ChunkDraft
from app.core.config import Settings
from app.core.geometry import chunk_rects
from app.core.records import ExtractedDocument, Mark, PageBatch, PageLines, PlacedChunk
from app.db.annotations import store_marks
from app.db.models import Document, DocumentFile
from app.db.terms import store_document_terms
from app.embedding.embedder import Embedder, count_tokens, embed_texts
from app.pdf.annotations import locate_marks
from app.pdf.limits import Deadline, IngestLimits
from app.pdf.ocr import OcrMode, OcrPolicy, load_engine
from app.pdf.reader import check_text_layer, extract_document_as
from app.pdf.spill import BoxSpill
from app.pdf.uploads import title_from_filename

READ_BLOCK = 1 << 20
EMBED_GROUP = 512
"""Chunks embedded together, between two deadline checks: a few seconds of work on one core."""


@dataclass(frozen=True)
class DocumentMeta:
    """What the uploader says about the file, beside its bytes."""

    filename: str
    collection: str = "default"
    title: str | None = None
    language: str = "en"
    version: str = "1.0"
    is_my_copy: bool = False
    password: str | None = None


@dataclass(frozen=True)
class ChunkingParams:
    max_tokens: int
    overlap_tokens: int
    count_tokens: CountTokens


@dataclass
class StageTimings:
    """Seconds spent in each stage of one ingestion."""

    extract: float = 0.0
    chunk: float = 0.0
    embed: float = 0.0
    store: float = 0.0

    @contextmanager
    def measure(self, stage: str) -> Iterator[None]:
        started = time.perf_counter()
        try:
            yield
        finally:
            setattr(self, stage, getattr(self, stage) + time.perf_counter() - started)


def chunking_params(settings: Settings, count_tokens: CountTokens) -> ChunkingParams:
    return ChunkingParams(
        max_tokens=settings.chunk_max_tokens,
        overlap_tokens=settings.chunk_overlap_tokens,
        count_tokens=count_tokens,
    )


def ingest_limits(settings: Settings) -> IngestLimits:
    return IngestLimits(
        max_pages=settings.max_pages, timeout_seconds=settings.ingest_timeout_seconds
    )


def ocr_policy(settings: Settings, on_page: Callable[[int], None] | None = None) -> OcrPolicy:
    """Returns how pages are read by OCR, as set; `on_page` is told each page so read."""
    threads = settings.ocr_threads
    return OcrPolicy(
        mode=OcrMode(settings.ocr),
        dpi=settings.ocr_dpi,
        engine=lambda: load_engine(threads),
        is_noise=is_ocr_noise,
        on_page=on_page,
    )


def is_ocr_noise(text: str) -> bool:
    """Says whether a page's text reads like a poor OCR layer, as a chunk's would be flagged."""
    return ocr_noise_score(text) >= OCR_NOISE_THRESHOLD


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        while block := stream.read(READ_BLOCK):
            digest.update(block)
    return digest.hexdigest()


def find_document(session: Session, *, collection: str, sha256: str) -> Document | None:
    return session.scalars(
        select(Document).where(Document.collection == collection, Document.sha256 == sha256)
    ).one_or_none()


def read_pdf(
    pdf: pymupdf.Document,
    *,
    limits: IngestLimits,
    deadline: Deadline,
    spill: BoxSpill,
    ocr: OcrPolicy | None = None,
) -> ExtractedDocument[PageLines]:
    """Returns the opened document's pages as lines, their character boxes left in `spill`,
    and its outline; raises the upload errors for unusable files. Pages are read by OCR as
    `ocr` says (not at all without it).

    A PDF without a text layer, where OCR found none either, is refused unless it carries the
    reader's annotations: those are the reader's own work, kept and listed, though no passage
    of it can be retrieved.
    """
    extracted = extract_document_as(
        pdf, spill.keep, max_pages=limits.max_pages, deadline=deadline, ocr=ocr
    )
    if not extracted.annotations:
        check_text_layer(extracted.pages)
    return extracted


def page_batches(
    extracted: ExtractedDocument[PageLines],
    spill: BoxSpill,
    *,
    chunking: ChunkingParams,
    embedder: Embedder,
    batch_pages: int,
    label: str = "",
    deadline: Deadline | None = None,
    timings: StageTimings | None = None,
) -> Iterator[PageBatch]:
    """Yields the document `batch_pages` pages at a time, in order, so that only two batches'
    character boxes are held at a time.

    Chunks are embedded EMBED_GROUP at a time across batches, each stored with the batch in
    which its group is embedded. The model runs in a thread of its own (onnxruntime and the
    tokenizer let go of the GIL), so a batch is embedded while the next one is chunked and
    the one before is stored. The deadline, if any, is checked before each batch and between
    embedding groups.
    """
    timings = timings or StageTimings()
    with timings.measure("chunk"):
        # Reference sections bound chunks like furniture does, so that leaving them out at
        # query time never drops the body text a chunk would otherwise have shared with them.
        furniture = find_furniture(extracted.pages)
        headings = extracted.toc or detected_headings(extracted.pages, furniture)
        references = reference_sections(extracted.pages, headings)
        structure = structure_pages(extracted.pages)
        ocr_pages = {page.number for page in extracted.pages if page.ocr_confidence is not None}
        chunker = DocumentChunker(
            headings,
            max_tokens=chunking.max_tokens,
            overlap_tokens=chunking.overlap_tokens,
            count_tokens=chunking.count_tokens,
            furniture=furniture,
            regions=references,
            label=label,
        )
    page_count = len(extracted.pages)
    unembedded: list[PlacedChunk] = []
    # The batch whose vectors the model is making: its other parts, and the vectors to come.
    embedding: tuple[partial[PageBatch], Future[npt.NDArray[np.float32]]] | None = None
    with ThreadPoolExecutor(1, thread_name_prefix="embed") as model:
        try:
            for first in range(1, page_count + 1, batch_pages):
                last = min(first + batch_pages - 1, page_count)
                if deadline is not None:
                    deadline.check(f"chunking pages {first} to {last}")
                with timings.measure("extract"):
                    window = spill.window(extracted.pages, first=first, last=last)
                with timings.measure("chunk"):
                    drafts = flag_chunks(
                        chunker.chunk(window),
                        references=references,
                        structure=structure,
                        ocr_pages=ocr_pages,
                    )
                    pages = {page.number: page for page in window.pages}
                    unembedded += [
                        PlacedChunk(draft, chunk_rects(draft, pages)) for draft in drafts
                    ]
                # Whole groups of EMBED_GROUP chunks are embedded and the rest waits for the
                # next batch: embedding sorts a group by length, and one batch's fewer chunks
                # came out padded more, some 5% slower on documents of several batches.
                ready = len(unembedded) - (
                    len(unembedded) % EMBED_GROUP if last < page_count else 0
                )
                chunks, unembedded = unembedded[:ready], unembedded[ready:]
                marks = locate_marks(extracted.annotations, window.own_pages)
                vectors = model.submit(
                    timed_embedding, embedder, [chunk.draft for chunk in chunks], deadline, timings
                )
                if embedding is not None:
                    yield embedded(*embedding)
                batch = partial(
                    PageBatch,
                    first,
                    last,
                    window.own_pages,
                    chunks,
                    embedding_model=embedder.name,
                    marks=marks,
                )
                embedding = batch, vectors
            if embedding is not None:
                yield embedded(*embedding)
        finally:
            # A consumer that stops early (a failed store) leaves no batch to embed for nothing.
            model.shutdown(cancel_futures=True)


def embedded(batch: partial[PageBatch], vectors: Future[npt.NDArray[np.float32]]) -> PageBatch:
    """Returns the batch with its vectors, once the model has them."""
    return batch(vectors.result())


def timed_embedding(
    embedder: Embedder, drafts: list[ChunkDraft], deadline: Deadline | None, timings: StageTimings
) -> npt.NDArray[np.float32]:
    with timings.measure("embed"):
        return embed_drafts(embedder, drafts, deadline)


def embed_drafts(
    embedder: Embedder, drafts: list[ChunkDraft], deadline: Deadline | None
) -> npt.NDArray[np.float32]:
    """Returns the drafts' vectors, embedded EMBED_GROUP at a time with the deadline, if any,
    checked before each group.

    A text that comes more than once in a group (a running head under the same section, a
    line repeated by a form) is embedded once.
    """
    embedded_headers = [embedded_header(draft.context_header, draft.flags) for draft in drafts]
    texts = [
        embedding_text(header, draft.content)
        for header, draft in zip(embedded_headers, drafts, strict=True)
    ]
    # Embedding orders the texts by their length in tokens: the content's, counted by
    # chunking, plus the context header's (the blank line between them is no token), so
    # that headers of different lengths do not leave a batch padded.
    headers = set(embedded_headers)
    header_tokens = dict(zip(headers, count_tokens(list(headers)), strict=True))
    lengths = [
        header_tokens[header] + draft.token_count
        for header, draft in zip(embedded_headers, drafts, strict=True)
    ]
    groups = []
    for start in range(0, len(texts), EMBED_GROUP):
        if deadline is not None:
            deadline.check(f"embedding chunk {start + 1} of {len(texts)}")
        group = slice(start, start + EMBED_GROUP)
        distinct = {text: length for text, length in zip(texts[group], lengths[group], strict=True)}
        row = {text: n for n, text in enumerate(distinct)}
        vectors = embed_texts(embedder, list(distinct), token_counts=list(distinct.values()))
        groups.append(vectors[[row[text] for text in texts[group]]])
    if not groups:
        return np.empty((0, embedder.dim), dtype=np.float32)
    return np.concatenate(groups)


def embedding_text(context_header: str, content: str) -> str:
    """Returns what is embedded of a chunk: its context header, then its text."""
    return f"{context_header}\n\n{content}" if context_header else content


def embedded_header(context_header: str, flags: Sequence[str]) -> str:
    """Returns the context header embedded with a chunk of these flags: none for a page's
    furniture (a running head, a page number), which results leave out unless asked for. With
    its header, the same running head was embedded once for every section it stood in; alone,
    once a group (embed_drafts), and ingestion embeds some 3% fewer tokens."""
    return "" if FURNITURE in flags else context_header


def new_document(
    path: Path,
    meta: DocumentMeta,
    *,
    sha256: str,
    page_count: int,
    status: str,
    content: bytes | None = None,
) -> Document:
    """Returns the document row for the file at `path`, its bytes (or `content`, the file
    decrypted) attached, not yet added."""
    document = Document(
        sha256=sha256,
        filename=meta.filename,
        title=meta.title or title_from_filename(meta.filename),
        collection=meta.collection,
        language=meta.language,
        version=meta.version,
        is_my_copy=meta.is_my_copy,
        page_count=page_count,
        chunk_count=0,
        annotation_count=0,
        byte_size=path.stat().st_size,
        toc=[],
        status=status,
    )
    document.file = DocumentFile(content=path.read_bytes() if content is None else content)
    return document


@dataclass(frozen=True)
class DocumentName:
    title: str
    """The uploader's title, else the one the PDF gives (app.chunking.headers.document_title)."""
    label: str
    """What every chunk's context header says of the document."""


def document_name(
    extracted: ExtractedDocument[PageLines], filename: str, given_title: str | None
) -> DocumentName:
    title = given_title or document_title(
        extracted.title, extracted.pages, title_from_filename(filename)
    )
    return DocumentName(title, document_label(title, extracted.pages, filename))


def finish_document(
    session: Session,
    document: Document,
    extracted: ExtractedDocument[PageLines],
    *,
    title: str,
    chunk_count: int,
    marks: list[Mark],
) -> None:
    """The last step of every ingestion, in its last transaction: what only reading the PDF
    tells (the outline, the title, the chunk count), and the reader's marks, linked to the
    chunks they lie on (all stored by now)."""
    document.chunk_count = chunk_count
    document.toc = [
        {"level": entry.level, "title": entry.title, "page": entry.page} for entry in extracted.toc
    ]
    document.title = title
    document.annotation_count = len(marks)
    store_marks(session=session, document_id=document.id, marks=marks, source="pdf")
    store_document_terms(session, document.id)
