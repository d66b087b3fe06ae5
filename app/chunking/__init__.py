"""Chunks from page texts: whole sentences within a token budget, furniture and reference
sections found and flagged, offsets as the truth."""

from app.chunking.chunker import DocumentChunker
from app.chunking.flags import flag_chunks

__all__ = ["DocumentChunker", "flag_chunks"]
