"""What a name given by a caller (a collection, a file name) may not hold."""

from __future__ import annotations

DIRECTION_CONTROLS = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
"""Characters that reorder the text around them: "invoice\u202efdp.exe" reads as a PDF, and
two collection names that look alike would be two collections."""
