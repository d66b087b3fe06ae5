"""Uploads land in a temporary file in the data folder, under a size limit, and never stay."""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from app.core.errors import FileTooLarge

COPY_BLOCK = 1 << 20


@contextmanager
def spooled_upload(stream: BinaryIO, *, directory: Path, max_bytes: int) -> Iterator[Path]:
    """Yields the path of a private temporary copy of `stream`, removed on exit whatever happens.

    The name is random: the uploader's filename never touches the file system.
    """
    directory.mkdir(parents=True, exist_ok=True)
    descriptor, name = tempfile.mkstemp(dir=directory, prefix="upload-", suffix=".pdf")
    path = Path(name)
    try:
        with os.fdopen(descriptor, "wb") as target:
            written = 0
            while block := stream.read(COPY_BLOCK):
                written += len(block)
                if written > max_bytes:
                    raise FileTooLarge(f"the file is larger than the limit of {max_bytes} bytes")
                target.write(block)
        yield path
    finally:
        path.unlink(missing_ok=True)


MAX_FILENAME_CHARS = 255


def display_filename(name: str | None) -> str:
    """Returns the uploader's filename made safe to store and show: its last path part,
    without control characters, at most MAX_FILENAME_CHARS long.

    It is only ever shown and stored as text, never used as a path.
    """
    last_part = re.split(r"[\\/]", name or "")[-1]
    printable = "".join(ch for ch in last_part if ch.isprintable()).strip()
    return printable[:MAX_FILENAME_CHARS] or "document.pdf"
