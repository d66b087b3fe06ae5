"""Born-digital PDFs read exactly as they did before OCR: every page's text, character boxes
and line ids, every chunk's spans and rectangles, against digests made on main before it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers.corpus import corpus_path
from tests.helpers.digests import BORN_DIGITAL, document_digest

pytestmark = pytest.mark.corpus

DIGESTS = json.loads((Path(__file__).parent / "data" / "born_digital_digests.json").read_text())


@pytest.mark.parametrize("name", BORN_DIGITAL)
def test_born_digital_pdf_reads_as_before(name: str) -> None:
    assert document_digest(corpus_path(*name.split("/"))) == DIGESTS[name]
