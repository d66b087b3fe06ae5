"""What a name given by a caller (a collection, a file name) may not hold."""

from __future__ import annotations

DIRECTION_CONTROLS = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
"""Characters that reorder the text around them: "invoice\u202efdp.exe" reads as a PDF, and
two collection names that look alike would be two collections."""

CONTROL_CHARACTERS = frozenset(map(chr, [*range(0x20), *range(0x7F, 0xA0)]))

FORBIDDEN_IN_NAMES = CONTROL_CHARACTERS | DIRECTION_CONTROLS

NAME_PATTERN = "^[^" + "".join(f"\\u{ord(ch):04x}" for ch in sorted(FORBIDDEN_IN_NAMES)) + "]*$"
"""A name without control or text-direction characters, as a regular expression that
JSON Schema, Python and pydantic's engine read alike (so the OpenAPI schema says it too)."""
