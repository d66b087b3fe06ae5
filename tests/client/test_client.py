"""`Client` against the real service: every operation of the contract, and its errors raised
as the exception of their status with the service's code."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from pathlib import Path

import pymupdf
import pytest
from citelock_client import (
    CitelockError,
    Client,
    Document,
    DocumentQueued,
    Forbidden,
    NotFound,
    QueryFilters,
    Unauthorized,
    UnprocessableContent,
    UnsupportedMediaType,
)

from tests.helpers.service import BACKGROUND_PAGES, READ_ONLY, READ_WRITE

QUESTION = "how do tracing compilers record hot loops?"


def test_upload_list_get_chunks_page_image_delete(service_url: str, sample_path: Path) -> None:
    with Client(service_url) as citelock:
        document = citelock.upload(sample_path, collection="papers", title="Sample")
        assert isinstance(document, Document)
        assert (document.collection, document.title, document.page_count) == ("papers", "Sample", 2)
        assert document.chunk_count > 0
        assert [entry.title for entry in document.toc] == [
            "Why citations matter",
            "How the pieces fit together",
        ]
        assert citelock.upload(sample_path, collection="papers").id == document.id

        listed = citelock.list_documents(collection="papers")
        assert (listed.count, [d.id for d in listed.data]) == (1, [document.id])
        assert citelock.list_documents(collection="other").count == 0
        assert citelock.get_document(document.id) == document

        chunks = citelock.get_chunks(document.id, page=1)
        assert chunks
        assert all(chunk.page_start <= 1 <= chunk.page_end and chunk.rects for chunk in chunks)
        assert citelock.get_page_image(document.id, 1, scale=0.5).startswith(b"\x89PNG")

        citelock.delete_document(str(document.id))
        with pytest.raises(NotFound) as missing:
            citelock.get_document(document.id)
        assert (missing.value.status, missing.value.code) == (404, "document_not_found")


def test_query_with_every_field_and_its_stored_evidence(
    service_url: str, sample_path: Path
) -> None:
    with Client(service_url) as citelock:
        document = citelock.upload(sample_path, collection="papers")
        answer = citelock.query(
            QUESTION,
            top_k=2,
            filters=QueryFilters(collection="papers", page_start=1, page_end=2),
            search="hybrid",
            use_annotations=False,
        )
        assert answer.status == "ok"
        assert answer.query_type == "standard"
        assert 0 < len(answer.chunks) <= 2
        assert "[1]" in answer.answer
        assert answer.sources[0].startswith("sample.pdf, p")
        assert answer.highlighted_sources
        assert answer.response_id is not None

        stored = citelock.get_response(answer.response_id)
        assert (stored.answer, stored.sources) == (answer.answer, answer.sources)
        assert citelock.viewer_url(answer.response_id).startswith(f"{service_url}/api/v1/viewer?")
        assert "<html" in citelock.get_viewer(answer.response_id).lower()
        cited = citelock.get_annotated_pdf(document.id, response_id=answer.response_id)
        with pymupdf.open(stream=cited, filetype="pdf") as pdf:
            assert any(page.annots() for page in pdf)

        selected = citelock.query(
            "what does this mean?",
            selected_text={"text": "Trace trees record hot loops", "document_id": document.id},
        )
        assert selected.query_type == "selected_text"
        assert selected.selection is not None
        assert selected.selection.match == "exact"
        # top_k unsent: the service's selection-mode default (3), not the standard 5.
        assert len(selected.chunks) <= 3


def test_annotations_added_listed_and_read_from_an_annotated_copy(
    service_url: str, sample_path: Path, tmp_path: Path
) -> None:
    with Client(service_url) as citelock:
        document = citelock.upload(sample_path, collection="papers")
        added = citelock.add_annotation(
            document.id, page=1, text="Trace trees record hot loops", comment="key idea"
        )
        assert (added.source, added.type, added.comment) == ("api", "highlight", "key idea")
        assert added.chunk_ids

        annotated = tmp_path / "annotated.pdf"
        with pymupdf.open(sample_path) as pdf:
            page = pdf[0]
            page.add_highlight_annot(page.search_for("Vector search finds passages"))
            pdf.save(annotated)
        replaced = citelock.replace_annotations(document.id, annotated)
        assert sorted(a.source for a in replaced) == ["api", "pdf"]
        read = next(a for a in replaced if a.source == "pdf")
        assert "Vector search finds passages" in read.text
        assert citelock.list_annotations(document.id) == replaced


def test_a_long_upload_is_waited_for(service_url: str, long_path: Path) -> None:
    with Client(service_url) as citelock:
        document = citelock.upload(long_path, collection="long")
        assert (document.status, document.page_count) == ("ready", BACKGROUND_PAGES + 2)
        assert citelock.list_documents(collection="long").count == 1


def test_a_long_upload_without_wait_returns_its_job(service_url: str, long_path: Path) -> None:
    with Client(service_url) as citelock:
        queued = citelock.upload(long_path, collection="later", wait=False)
        assert isinstance(queued, DocumentQueued)
        job = citelock.wait_for_job(queued, poll_interval=0.1)
        assert (job.status, job.document_id, job.pages_done) == (
            "ready",
            queued.id,
            BACKGROUND_PAGES + 2,
        )
        assert citelock.get_job(job.id) == job
        assert citelock.get_document(queued.id).chunk_count == job.chunks_done


ErrorCase = Callable[[Client, Path], object]


def upload_with_the_read_only_key(citelock: Client, path: Path) -> object:
    with Client(citelock.base_url, READ_ONLY) as read_only:
        return read_only.upload(path, collection="x")


ERROR_CASES: list[tuple[str, ErrorCase, type[CitelockError], int, str]] = [
    ("no key", lambda c, _: c.list_documents(), Unauthorized, 401, "unauthorized"),
    ("read-only key writes", upload_with_the_read_only_key, Forbidden, 403, "forbidden"),
    (
        "unknown document",
        lambda c, _: c.get_document(uuid.uuid4()),
        NotFound,
        404,
        "document_not_found",
    ),
    ("unknown job", lambda c, _: c.get_job(uuid.uuid4()), NotFound, 404, "job_not_found"),
    (
        "unknown response",
        lambda c, _: c.get_response(uuid.uuid4()),
        NotFound,
        404,
        "response_not_found",
    ),
    ("blank query", lambda c, _: c.query("   "), UnprocessableContent, 422, "invalid_query"),
    (
        "not a PDF",
        lambda c, _: c.upload(Path(__file__), collection="x"),
        UnsupportedMediaType,
        415,
        "not_a_pdf",
    ),
]


@pytest.mark.parametrize(
    ("case", "exception", "status", "code"),
    [(case, exception, status, code) for _, case, exception, status, code in ERROR_CASES],
    ids=[name for name, *_ in ERROR_CASES],
)
def test_errors_are_raised_as_their_exception_with_the_code(
    keyed_service_url: str,
    sample_path: Path,
    case: ErrorCase,
    exception: type[CitelockError],
    status: int,
    code: str,
) -> None:
    """Every case runs against the keyed service: without a key only the first; the others
    with the read-write key, so the error is the one under test, not a 401."""
    key = None if code == "unauthorized" else READ_WRITE
    with Client(keyed_service_url, key) as citelock, pytest.raises(exception) as raised:
        case(citelock, sample_path)
    assert (raised.value.status, raised.value.code) == (status, code)
    assert raised.value.detail


def test_a_4xx_is_never_retried(service_url: str, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="citelock_client")
    with Client(service_url, retries=3, backoff=0.01) as citelock, pytest.raises(NotFound):
        citelock.get_document(uuid.uuid4())
    assert not [record for record in caplog.records if record.name == "citelock_client"]
