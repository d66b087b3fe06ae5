"""Uploads land in a temporary file in the data folder, under a size limit, and never stay."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from app.errors import FileTooLarge

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
