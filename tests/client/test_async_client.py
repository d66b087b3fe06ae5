"""`AsyncClient` against the real service: the same operations and errors as `Client`."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path

import pymupdf
import pytest
from citelock_client import AsyncClient, DocumentQueued, NotFound, Unauthorized

from tests.helpers.service import BACKGROUND_PAGES

QUESTION = "how do tracing compilers record hot loops?"


def test_every_operation(
    service_url: str, sample_path: Path, long_path: Path, tmp_path: Path
) -> None:
    annotated = tmp_path / "annotated.pdf"
    with pymupdf.open(sample_path) as pdf:
        pdf[0].add_highlight_annot(pdf[0].search_for("Vector search finds passages"))
        pdf.save(annotated)

    async def run() -> None:
        async with AsyncClient(service_url) as citelock:
            document = await citelock.upload(sample_path, collection="papers")
            assert document.page_count == 2
            long = await citelock.upload(long_path, collection="papers")
            assert (long.status, long.page_count) == ("ready", BACKGROUND_PAGES + 2)
            queued = await citelock.upload(long_path, collection="later", wait=False)
            assert isinstance(queued, DocumentQueued)
            job = await citelock.wait_for_job(queued, poll_interval=0.1)
            assert job.status == "ready"
            assert await citelock.get_job(job.id) == job

            listed = await citelock.list_documents(collection="papers")
            assert {d.id for d in listed.data} == {document.id, long.id}
            assert await citelock.get_document(document.id) == document
            assert await citelock.get_chunks(document.id, page=2)
            assert (await citelock.get_page_image(document.id, 2)).startswith(b"\x89PNG")

            answer = await citelock.query(
                QUESTION, top_k=3, filters={"document_ids": [document.id]}, search="vector"
            )
            assert answer.status == "ok"
            assert {chunk.document_id for chunk in answer.chunks} == {document.id}
            assert answer.response_id is not None
            stored = await citelock.get_response(answer.response_id)
            assert stored.answer == answer.answer
            assert "<html" in (await citelock.get_viewer(answer.response_id)).lower()
            pdf = await citelock.get_annotated_pdf(document.id, response_id=answer.response_id)
            assert pdf.startswith(b"%PDF")

            added = await citelock.add_annotation(document.id, page=1, text="Trace trees")
            assert added.source == "api"
            replaced = await citelock.replace_annotations(document.id, annotated)
            assert sorted(a.source for a in replaced) == ["api", "pdf"]
            assert await citelock.list_annotations(document.id) == replaced

            await citelock.delete_document(document.id)
            with pytest.raises(NotFound) as missing:
                await citelock.get_document(document.id)
            assert missing.value.code == "document_not_found"

    asyncio.run(run())


def test_errors_carry_their_code(keyed_service_url: str) -> None:
    async def run() -> None:
        async with AsyncClient(keyed_service_url) as citelock:
            with pytest.raises(Unauthorized) as refused:
                await citelock.get_response(uuid.uuid4())
            assert (refused.value.status, refused.value.code) == (401, "unauthorized")

    asyncio.run(run())
