"""Uploads land in a temporary file in the data folder, under a size limit, and never stay."""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

import psutil

from app.core.errors import FileTooLarge
from app.core.names import FORBIDDEN_IN_NAMES

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

UNNAMED = "document.pdf"


def display_filename(name: str | None) -> str:
    """Returns the uploader's filename made safe to store and show: its last path part,
    without control or text-direction characters, at most MAX_FILENAME_CHARS long with its
    extension kept (a long name is cut in its stem).

    It is only ever shown and stored as text, never used as a path.
    """
    last_part = re.split(r"[\\/]", name or "")[-1]
    printable = "".join(
        ch for ch in last_part if ch.isprintable() and ch not in FORBIDDEN_IN_NAMES
    ).strip()
    if not printable.strip("."):
        return UNNAMED
    if len(printable) <= MAX_FILENAME_CHARS:
        return printable
    stem, dot, extension = printable.rpartition(".")
    if not dot or len(extension) > 16:
        return printable[:MAX_FILENAME_CHARS]
    return stem[: MAX_FILENAME_CHARS - len(extension) - 1].rstrip() + "." + extension


def title_from_filename(filename: str) -> str:
    """Returns the title a document takes from its file name when it has no other: the name
    without its extension, or the whole name when that leaves nothing (".pdf")."""
    return Path(filename).stem.strip() or filename


def sweep_spool(root: Path) -> list[Path]:
    """Removes what processes that no longer run left in the spool (their uploads and box
    files, cut short by a crash) and returns what it removed.

    Each process spools into `root/PID`; a folder whose process is gone, or that bears this
    process's own pid (left by an earlier life of a container's pid 1), is removed. Folders
    of live processes sharing the data folder (a worker, the CLI) are left alone.
    """
    if not root.is_dir():
        return []
    removed = []
    for entry in root.iterdir():
        live = entry.name.isdigit() and int(entry.name) != os.getpid()
        if live and psutil.pid_exists(int(entry.name)):
            continue
        if entry.is_dir():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            entry.unlink(missing_ok=True)
        removed.append(entry)
    return removed


def spool_temporary_files(directory: Path) -> None:
    """Sends this process's temporary files (the multipart parser's spooled uploads among
    them) to `directory`, in the data folder, instead of the system's temporary folder."""
    directory.mkdir(parents=True, exist_ok=True)
    tempfile.tempdir = str(directory)
