"""Reference sections and bibliography-like chunks, flagged so answers can leave them out.

A chunk is a reference chunk when most of it lies in a reference section, or when its own
lines read like a bibliography. A section opens at a heading ("References", "7 Bibliography",
"Works Cited", ...) named by the outline or standing alone on a line of the page text, and
runs to the next outline entry of the same or a higher level, an appendix heading, or the
end of the document. A heading found only in the text must be followed by bibliography-like
lines: a table of contents or a sentence saying "References" is no section.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator, Sequence
from dataclasses import replace

import numpy as np

from app.core.chunks import ChunkDraft
from app.core.records import PAGE_BREAK, PageLines, TocEntry

REFERENCES = "references"
"""The flag of a chunk in a reference section or reading like a bibliography."""

ENTRY_SHARE = 0.2
"""Share of a chunk's lines that must open like an entry ("[12] A. Name", "Name, A. B.")."""

SOURCE_SHARE = 0.2
"""Share of a chunk's lines that must name a source (a venue, pages, a doi, a URL, a year)."""

CITATION_SHARE = 0.6
"""Share of a chunk's lines that must carry either of those signs."""

MIN_LINES = 3
"""Lines below which a chunk is too short to judge by its lines."""

CONFIRM_LINES = 30
"""Lines after a heading found in the text that must read like a bibliography."""

MIN_SPELLED = 4
"""Letters a line must have to be taken for the start of an outline entry's title."""

HEADING_SLACK = 2.0
"""Points by which an outline destination may sit below the top of the heading it names."""

_NUMBERING = r"(?:(?:\d{1,2}(?:\.\d{1,2})*|[ivxlc]{1,5}|[a-z])[.):]?\s+)"
_HEADING = re.compile(
    rf"(?:(?:appendix|annex|chapter|section)\s+)?{_NUMBERING}?"
    r"(?:references?|reference\s+list|list\s+of\s+references|bibliography|works\s+cited"
    r"|literature\s+cited|cited\s+literature|notes\s+and\s+references|references\s+and\s+notes"
    r"|literatur(?:verzeichnis)?|bibliographie|r[\u00e9e]f[\u00e9e]rences(?:\s+bibliographiques)?"
    r"|referencias|bibliograf[\u00edi]a|riferimenti\s+bibliografici|\u53c2\u8003\u6587\u732e)"
    r"\s*:?",
    re.IGNORECASE,
)
"""A reference section's heading, numbered or not: "References", "VII. REFERENCES", "参考文献"."""
_APPENDIX = re.compile(
    rf"{_NUMBERING}?(?:appendix|appendices|annex|supplementary\s+(?:material|information))"
    r"\b.{0,80}",
    re.IGNORECASE,
)
"""A heading that ends a reference section found in the text, when the outline says nothing."""

_LINE = re.compile(r"[^\n]+")
_NAME = r"[A-Z][\w'\u2019\u00b4`\-]*\.?"
_ENTRY = re.compile(
    r"\s*(?:\[[^\]\s]{1,12}\]\s+(?:[A-Z]|\u2014)"  # [12] Author, [Cop05] ——
    r"|\d{1,3}\.\s+(?:[A-Z][\w'\u2019\-]+,\s+)?(?:[A-Z]\.\s*)+"  # 12. A. Name, 12. Name, A.
    r"|[A-Z][\w'\u2019\-]+,\s+(?:[A-Z]\.\s*)+"  # Name, A. B.
    r"|(?:[A-Z]\.\s*)+[A-Z][\w'\u2019\-]+,)"  # A. B. Name,
)
"""How a bibliography entry opens."""
_NAMES = re.compile(rf"{_NAME}(?: {_NAME}){{1,3}}, (?:and )?")
"""A name in a list of authors ("Jyoti Aneja, "); three on a line make it an author line."""
_SOURCE = re.compile(
    r"\bpp?\.\s*\d|\bpages?\s+\d+\s*[\u2013-]\s*\d|\bvol\.\s*\d|\bno\.\s*\d|\bdoi\b|\barxiv\b"
    r"|\babs/\d{4}\.\d{4,5}|\bproc(?:eedings|\.)|\bjournal\b|\bconference\b|\bsymposium\b"
    r"|\bworkshop\b|\bpress\b|\btransactions\b|\bpreprint\b|\bcorr\b|\[online\]"
    r"|\bavailable(?: at|:)|https?://|\burl\b|\bisbn\b|\beds?\."
    r"|[(,]\s*(?:19|20)\d{2}[a-z]?[).,]|(?:19|20)\d{2}[a-z]?\.$"
    r"|\b\d{1,4}\(\d{1,4}\):\s?\d"  # volume(issue):pages, 52(1):3-25
    r"|\b(?:[a-z\d-]+\.)+(?:org|com|net|edu|gov|int|info|io)/"  # an address, tug.org/TUGboat
    r"|\b(?:jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)[a-z]*\.?\s+(?:19|20)\d{2}\b",
    re.IGNORECASE,
)
"""What names a source: a venue, pages, an identifier, a URL, a year as references give it;
a column a few words wide breaks each entry over many lines, so the address alone, the
volume's pages or the month of the year is each a line's only sign."""


def flag_references(
    chunks: Sequence[ChunkDraft], sections: Sequence[tuple[int, int]]
) -> list[ChunkDraft]:
    """Returns the chunks, those mostly in the reference `sections` (from `reference_sections`)
    or reading like a bibliography flagged REFERENCES."""
    ordered = sorted(sections)
    starts = [start for start, _ in ordered]
    flagged: list[ChunkDraft] = []
    for chunk in chunks:
        inside = _overlap(ordered, starts, chunk.document_span_start, chunk.document_span_end)
        length = chunk.document_span_end - chunk.document_span_start
        if REFERENCES not in chunk.flags and (
            2 * inside >= length or is_reference_list(chunk.content)
        ):
            chunk = replace(chunk, flags=(*chunk.flags, REFERENCES))
        flagged.append(chunk)
    return flagged


def is_reference_list(text: str) -> bool:
    """Says whether the text's lines read like a bibliography: many open like entries, many
    name a source, and most do one or the other.

    Both signs are needed: a body paragraph citing "(Bai et al., 2023)" names sources on
    most lines, and a title page's author list opens like entries, but neither does both.
    """
    lines = [line for line in text.split("\n") if line.strip()]
    if len(lines) < MIN_LINES:
        return False
    sources = [_SOURCE.search(line) is not None for line in lines]
    if sum(sources) < SOURCE_SHARE * len(lines):
        return False
    entries = [_ENTRY.match(line) is not None or len(_NAMES.findall(line)) >= 3 for line in lines]
    cited = sum(entry or source for entry, source in zip(entries, sources, strict=True))
    return sum(entries) >= ENTRY_SHARE * len(lines) and cited >= CITATION_SHARE * len(lines)


def reference_sections(
    pages: Sequence[PageLines], toc: Sequence[TocEntry]
) -> list[tuple[int, int]]:
    """Returns the document's reference sections as sorted, disjoint spans of the document
    text (the pages' texts joined with PAGE_BREAK). `toc` is the outline, or for a document
    without one the headings read off its pages (app.chunking.sections), which end a section
    found in the text as the outline's entries do."""
    offsets = [0, *np.cumsum([len(p.text) + len(PAGE_BREAK) for p in pages[:-1]]).tolist()]
    text = PAGE_BREAK.join(page.text for page in pages)
    entries = sorted(
        (entry for entry in toc if 1 <= entry.page <= len(pages)),
        key=lambda entry: (entry.page, entry.y or 0.0),
    )
    located = [
        offsets[entry.page - 1]
        + (entry.offset if entry.offset is not None else _locate(pages[entry.page - 1], entry))
        for entry in entries
    ]
    sections: list[tuple[int, int]] = []
    for index, entry in enumerate(entries):
        # A heading read off the page (one with an offset) may be a manual's "Reference"
        # chapter: only the outline's are taken at their word, the others are confirmed below.
        if entry.offset is None and _HEADING.fullmatch(entry.title.strip()):
            ends = (
                at
                for later, at in zip(entries[index + 1 :], located[index + 1 :], strict=True)
                if later.level <= entry.level and at > located[index]
            )
            sections.append((located[index], next(ends, len(text))))
    for start, end in _heading_lines(text, _HEADING):
        following = "\n".join(text[end:].split("\n", CONFIRM_LINES + 1)[:CONFIRM_LINES])
        if any(a <= start < b for a, b in sections) or not is_reference_list(following):
            continue
        # A heading the outline leaves out has no level to compare: any later entry ends it.
        appendix = next(_heading_lines(text, _APPENDIX, end), (len(text), len(text)))
        sections.append((start, min([at for at in located if at >= end] + [appendix[0]])))
    return _merged(sections)


def _heading_lines(
    text: str, heading: re.Pattern[str], start: int = 0
) -> Iterator[tuple[int, int]]:
    """Yields the spans of the lines of text[start:] that are wholly a heading of that kind."""
    for line in _LINE.finditer(text, start):
        if heading.fullmatch(line.group().strip()):
            yield line.start(), line.end()


def _locate(page: PageLines, entry: TocEntry) -> int:
    """Returns the offset in the page text where the outline entry's heading begins.

    Among the page's lines that spell the start of the title, the one nearest the entry's
    height wins; without one, the first line at or below that height in reading order.
    """
    title = _letters(entry.title)
    target = entry.y or 0.0
    lines = [(line.start(), line.end()) for line in _LINE.finditer(page.text)]
    spelled = [
        (abs(_top(page, start, end) - target), start)
        for start, end in lines
        if len(letters := _letters(page.text[start:end])) >= min(MIN_SPELLED, len(title))
        and (title.startswith(letters) or letters.startswith(title))
    ]
    if spelled:
        return min(spelled)[1]
    return next(
        (start for start, end in lines if _top(page, start, end) >= target - HEADING_SLACK), 0
    )


def _top(page: PageLines, start: int, end: int) -> float:
    """Returns the top of the highest glyph in page.text[start:end], a line of the text (inf
    when none is drawn).

    No visual line holds a line break, so the visual lines of a line of the text are those
    that start in it.
    """
    first, last = np.searchsorted(page.line_starts, (start, end))
    tops = page.line_boxes[first:last, 1]
    return float(tops.min()) if len(tops) else float("inf")


def _letters(text: str) -> str:
    """Returns the text's letters and digits in lower case, section numbering left out."""
    unnumbered = re.sub(rf"^\s*{_NUMBERING}", "", text.strip(), flags=re.IGNORECASE)
    return "".join(char for char in unnumbered.lower() if char.isalnum())


def _overlap(sections: Sequence[tuple[int, int]], starts: list[int], start: int, end: int) -> int:
    """Returns how many characters of text[start:end] lie in the sections."""
    total = 0
    for a, b in sections[max(bisect.bisect_right(starts, start) - 1, 0) :]:
        if a >= end:
            break
        total += max(0, min(b, end) - max(a, start))
    return total


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Returns the spans sorted, those that overlap or touch joined."""
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged
