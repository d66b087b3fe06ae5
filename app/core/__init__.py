"""The bottom layer: what every layer shares (settings, errors, page text and its offsets,
rectangles, sentences, the chunk shape, metrics, logging). It imports nothing of citelock."""

from app.core.chunks import Candidate, ChunkDraft, ChunkPlace, ChunkText
from app.core.config import Settings, get_settings
from app.core.errors import CitelockError
from app.core.records import PAGE_BREAK, Mark, PageText, Rect

__all__ = [
    "PAGE_BREAK",
    "Candidate",
    "ChunkDraft",
    "ChunkPlace",
    "ChunkText",
    "CitelockError",
    "Mark",
    "PageText",
    "Rect",
    "Settings",
    "get_settings",
]
