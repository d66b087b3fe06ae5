"""Chunk flags computed at ingestion, which queries may use to leave chunks out.

FURNITURE (page headers, footers and numbers) is set by chunking, REFERENCES by
`app.chunking.references`, and OCR_NOISE here: a chunk whose text reads like a poor OCR
layer, judged token by token; OCR too: a chunk on a page that citelock read by OCR.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace

from app.chunking.furniture import FURNITURE
from app.chunking.references import REFERENCES, flag_references
from app.chunking.structure import reads_as_prose
from app.core.chunks import INDEX, LIST_OF_FIGURES, OCR, STRUCTURE_FLAGS, TOC, ChunkDraft
from app.core.sentences import CJK_LETTER, CJK_LETTERS

OCR_NOISE = "ocr_noise"
"""The flag of a chunk whose text is too noisy to quote: a poor OCR layer."""

OCR_NOISE_THRESHOLD = 0.06
"""Noise score from which a chunk is flagged OCR_NOISE. On the shared corpus, clean chunks
score at most 0.04 (LaTeX accents broken off names), the noisy Chinese OCR sample's five of
six from 0.08 to 0.14."""

CJK_TEXT = 0.3
"""Share of a text's words that are runs of CJK letters from which Latin fragments in it
are suspect."""

__all__ = [
    "FURNITURE",
    "INDEX",
    "LIST_OF_FIGURES",
    "OCR",
    "OCR_NOISE",
    "REFERENCES",
    "STRUCTURE_FLAGS",
    "TOC",
    "flag_chunks",
    "flag_ocr",
    "flag_ocr_noise",
    "flag_structure",
    "ocr_noise_score",
]

_UNMAPPED_GLYPHS = re.compile("[\ufffd\ue000-\uf8ff]+")
"""A token of glyphs that map to no character: the replacement character, private use."""
_TOKEN = re.compile(rf"[{CJK_LETTERS}]+|[^\s{CJK_LETTERS}]+")
"""A run of CJK letters, or a run of anything else but whitespace."""
_EDGES = (
    "\"'()[]{}<>.,;:!?*\u2018\u2019\u201c\u201d\u2026\u2013\u2014-"
    "\u3001\u3002\u300a\u300b\u300c\u300d\u300e\u300f\u3010\u3011"
    "\uff08\uff09\uff0c\uff1a\uff1b\uff01\uff1f"
)
"""Punctuation that may open or close a word without making it a non-word."""
_CONFUSED = str.maketrans("IlOoZzq|", "11002291")
"""Letters OCR reads for the digits they resemble ("20I5", "Z015", "2016-lo-28")."""
_NUMBER = re.compile(r"\d+(?:[.,:/\-]\d+)*")
_STRAY_DOT = re.compile(
    r"[\u00b7\u2022](?=[0-9A-Za-z])|(?<=[0-9A-Za-z])[\u00b7\u2022]"
    r"|\u3002(?=[A-Za-z])|(?<=[A-Za-z])\u3002"
)
"""A middle dot or bullet stuck to a Latin letter or digit ("·05"), or an ideographic full
stop stuck to a Latin letter ("p。"): a full stop after a number ends many a sentence."""
_MISREAD_NUMBER = re.compile(r"\d[IlOoZzq|]|[IlOoZzq|]\d")
"""A digit beside a letter OCR mistakes for one: the sign to read the token as a number."""
_ALNUM = re.compile(r"[0-9A-Za-z|]+")
_RULES = frozenset(".-_=*~\u2026\u2013\u2014")
"""Characters whose runs make ellipses and rules, not debris."""
_VOWELS = frozenset("aeiouy")


def flag_chunks(
    chunks: Sequence[ChunkDraft],
    *,
    references: Sequence[tuple[int, int]],
    structure: Mapping[int, str] | None = None,
    ocr_pages: Collection[int] = (),
) -> list[ChunkDraft]:
    """Returns the chunks with REFERENCES, OCR_NOISE, the structure flags (TOC, INDEX,
    LIST_OF_FIGURES) and OCR added to the flags of those they fit.

    `references` are the document's reference sections, from `reference_sections`;
    `structure` its structure pages, from `structure_pages`; `ocr_pages` the numbers of the
    pages read by OCR.
    """
    flagged = flag_structure(flag_ocr_noise(flag_references(chunks, references)), structure or {})
    return flag_ocr(flagged, ocr_pages) if ocr_pages else flagged


def flag_ocr(chunks: Sequence[ChunkDraft], ocr_pages: Collection[int]) -> list[ChunkDraft]:
    """Returns the chunks, those lying on any of `ocr_pages` flagged OCR."""
    return [
        replace(chunk, flags=(*chunk.flags, OCR))
        if any(page in ocr_pages for page in range(chunk.page_start, chunk.page_end + 1))
        else chunk
        for chunk in chunks
    ]


def flag_structure(chunks: Sequence[ChunkDraft], structure: Mapping[int, str]) -> list[ChunkDraft]:
    """Returns the chunks, each lying wholly on structure pages flagged as its first page,
    unless it reads as prose (the introduction under contents that end mid-page)."""
    flagged = []
    for chunk in chunks:
        pages = range(chunk.page_start, chunk.page_end + 1)
        flag = structure.get(chunk.page_start)
        if (
            flag is not None
            and flag not in chunk.flags
            and all(p in structure for p in pages)
            and not reads_as_prose(chunk.content)
        ):
            chunk = replace(chunk, flags=(*chunk.flags, flag))
        flagged.append(chunk)
    return flagged


def flag_ocr_noise(chunks: Sequence[ChunkDraft]) -> list[ChunkDraft]:
    """Returns the chunks, those scoring OCR_NOISE_THRESHOLD or more flagged OCR_NOISE."""
    return [
        replace(chunk, flags=(*chunk.flags, OCR_NOISE))
        if OCR_NOISE not in chunk.flags and ocr_noise_score(chunk.content) >= OCR_NOISE_THRESHOLD
        else chunk
        for chunk in chunks
    ]


def ocr_noise_score(text: str) -> float:
    """Returns the share of the text's words that are not plausible words, from 0 to 1.

    Everywhere implausible: a number with letters OCR takes for digits ("20I5",
    "2016-lo-28"), a broken or private-use character, a dot stuck to a letter or digit
    ("·05", "p。"). A run of CJK letters is one word and never judged, so clean CJK text
    scores like clean English; but in CJK text, where Latin is names, codes and units,
    Latin fragments ("c", "is", "t8", "mnmm"), lone symbols and runs of quotes are noise
    too. Elsewhere punctuation standing alone is no word: code and tables are full of it.
    """
    tokens = _TOKEN.findall(text)
    runs = sum(1 for token in tokens if CJK_LETTER.match(token))
    others = [token for token in tokens if not CJK_LETTER.match(token)]
    cored = [token for token in others if token.strip(_EDGES)]
    # Glyphs a symbol font maps to no character, standing alone among prose (a music font's
    # notes in a release note's example), are no words; a text mostly of them is garbled.
    glyphs = [token for token in cored if _UNMAPPED_GLYPHS.fullmatch(token)]
    if len(glyphs) * 2 < len(cored):
        cored = [token for token in cored if not _UNMAPPED_GLYPHS.fullmatch(token)]
    in_cjk = runs >= CJK_TEXT * (runs + len(cored))
    judged = [token for token in others if in_cjk and _is_debris(token)] + cored
    words = runs + len(judged)
    if not words:
        return 0.0
    return sum(_is_noise(token, in_cjk) for token in judged) / words


def _is_noise(token: str, in_cjk: bool) -> bool:
    """Says whether a token with no CJK letter in it is an implausible word."""
    if _has_broken(token) or _STRAY_DOT.search(token):
        return True
    core = token.strip(_EDGES)
    if _MISREAD_NUMBER.search(core) and _NUMBER.fullmatch(core.translate(_CONFUSED)):
        return True
    return in_cjk and _is_stray_in_cjk(token, core)


def _is_stray_in_cjk(token: str, core: str) -> bool:
    """Says whether a token set among CJK letters is OCR debris: punctuation run together,
    a lone symbol or letter, a lower-case fragment of at most two letters or without a
    vowel, or a run of letters and digits that reads as a number ("[20I6]0512")."""
    if not core:
        return _is_debris(token)
    runs = _ALNUM.findall(core)
    if not runs:
        return True
    if any(_MISREAD_NUMBER.search(run) and run.translate(_CONFUSED).isdigit() for run in runs):
        return True
    if len(core) == 1:
        return core.isalpha()
    letters = [char for char in core if char.isalpha()]
    fragment = len(letters) <= 2 or not _VOWELS.intersection(letters)
    return core.isascii() and core.islower() and fragment


def _is_debris(token: str) -> bool:
    """Says whether a token of punctuation alone is debris, not a mark, an ellipsis or a rule."""
    return len(token) >= 3 and len(set(token)) > 1 and not set(token) <= _RULES


def _has_broken(token: str) -> bool:
    """Says whether one of the token's characters is broken (`_is_broken`). An ASCII token
    is judged whole, as only a control can break it: most tokens are, and judged a
    character at a time they took some 40% of the time scoring a filing's text."""
    if token.isascii():
        return not token.isprintable()
    return any(_is_broken(char) for char in token)


def _is_broken(char: str) -> bool:
    """Says whether no clean text layer holds the character: a replacement character, a
    private-use or unassigned code point, a control, a spacing accent that lost its letter."""
    if char.isascii():
        return not char.isprintable()
    return char == "\ufffd" or unicodedata.category(char) in {"Co", "Cn", "Cs", "Cc", "Cf", "Sk"}
