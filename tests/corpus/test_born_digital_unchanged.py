"""Born-digital PDFs read exactly as they did before OCR: every page's text, character boxes
and line ids against digests made on main before it, and every chunk's spans and rectangles as
they are with OCR off."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers.corpus import corpus_path
from tests.helpers.digests import BORN_DIGITAL, NO_OCR, document_digest

pytestmark = pytest.mark.corpus

DIGESTS = json.loads((Path(__file__).parent / "data" / "born_digital_digests.json").read_text())


@pytest.mark.parametrize("name", BORN_DIGITAL)
def test_born_digital_pdf_reads_as_before(name: str) -> None:
    path = corpus_path(*name.split("/"))
    read = document_digest(path)
    assert read["pages"] == DIGESTS[name]
    assert read["chunks"] == document_digest(path, ocr=NO_OCR)["chunks"]
