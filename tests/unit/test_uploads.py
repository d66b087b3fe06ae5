"""Uploads: the size limit, the temporary file's lifetime, and safe filenames."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from app.core.errors import FileTooLarge
from app.pdf.uploads import display_filename, spooled_upload


@pytest.mark.parametrize(
    ("given", "shown"),
    [
        ("paper.pdf", "paper.pdf"),
        ("../../etc/passwd.pdf", "passwd.pdf"),
        ("C:\\Users\\me\\paper.pdf", "paper.pdf"),
        ("nul\x00name\n.pdf", "nulname.pdf"),
        ("", "document.pdf"),
        (None, "document.pdf"),
        ("dir/", "document.pdf"),
        ("é" * 300, "é" * 255),
    ],
)
def test_display_filename(given: str | None, shown: str) -> None:
    assert display_filename(given) == shown


def test_spooled_upload_is_removed_after_use(tmp_path: Path) -> None:
    with spooled_upload(io.BytesIO(b"%PDF-1.7 body"), directory=tmp_path, max_bytes=100) as path:
        assert path.read_bytes() == b"%PDF-1.7 body"
        assert path.parent == tmp_path
    assert not any(tmp_path.iterdir())


def test_spooled_upload_over_limit_leaves_nothing(tmp_path: Path) -> None:
    with (
        pytest.raises(FileTooLarge),
        spooled_upload(io.BytesIO(b"x" * 101), directory=tmp_path, max_bytes=100),
    ):
        pass
    assert not any(tmp_path.iterdir())
