"""Chunks from page texts: whole sentences packed up to a token budget, with offsets as the truth.

A chunk is a span of the document text (the pages' texts joined with PAGE_BREAK) that stays
on one page, unless a sentence runs over the page break: then the chunk ends on the next
page, right after that sentence. Page furniture (running headers, page numbers) is a hard
boundary: it gets chunks of its own, flagged, and no other chunk contains any of it. So are
the edges of regions the caller names (reference sections): no chunk straddles one. So are
a table's edges (app.chunking.tables): its chunks hold whole rows, none repeated from the
chunk before, and each knows the lines that head its table, which its rows are quoted with
(they are left out of its context header: every chunk of a statement would share them).
Chapter and section come from the outline. A long document is chunked a window of pages at
a time (`DocumentChunker`), with the very chunks it would have whole.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from app.chunking.furniture import FURNITURE
from app.chunking.headers import context_header
from app.chunking.tables import Table, find_tables
from app.core.chunks import TABLE, ChunkDraft
from app.core.geometry import page_lines
from app.core.records import PAGE_BREAK, PageText, PageWindow, TocEntry
from app.core.sentences import CLOSERS, split_sentences, trim_span

CountTokens = Callable[[list[str]], list[int]]

_PARAGRAPH_BREAK = re.compile(r"\n\s*\n")
_WORD = re.compile(r"\S+")
_SENTENCE_END = re.compile(rf"[.!?\u2026][{CLOSERS}]*$")


Span = tuple[int, int, bool]
"""A sentence's start and end in the document text, and whether it ends its paragraph."""

MIN_CHUNK_TOKENS = 24
"""A chunk shorter than this is joined to the one before it on its page (_without_tiny)."""

HEADING_SLACK = 1.0
"""Points an outline destination may sit below a chunk's first line and still precede it."""


@dataclass(frozen=True)
class _Piece:
    """A sentence, or part of one too long for a chunk: what chunks are packed from.

    `page` and `last_page` index the pages it starts and ends on (they differ only for a
    sentence that runs over a page break); `tokens` leaves out the tokenizer's fixed
    overhead (its special tokens), so pieces' counts add up. A piece of page furniture
    is a whole furniture span (or part of one too long for a chunk), never a sentence.
    `zone` counts the region edges before the piece: pieces in different zones never
    share a chunk. A chunk ends where an outline section begins, so its context header names
    the section it is about.
    """

    start: int
    end: int
    page: int
    last_page: int
    tokens: int
    ends_paragraph: bool
    furniture: bool = False
    zone: int = 0
    table: bool = False
    section: int = 0
    """How many headings stand before it (_Headings.in_force): a chunk ends where this changes."""


def chunk_pages(
    pages: list[PageText],
    toc: list[TocEntry],
    *,
    max_tokens: int,
    overlap_tokens: int,
    count_tokens: CountTokens,
    furniture: Mapping[int, Sequence[tuple[int, int]]] | None = None,
    regions: Sequence[tuple[int, int]] = (),
) -> list[ChunkDraft]:
    """Returns the document's chunks in order, each at most `max_tokens` by `count_tokens`.

    Whole sentences are packed; a chunk more than half full ends at a paragraph end, and
    each chunk after the first on a page opens with the previous chunk's last sentences
    worth at most `overlap_tokens`. `furniture` gives, by page number, spans of page text
    that are page furniture: each becomes a chunk of its own flagged FURNITURE, and no
    other chunk reaches into one, nor over a page break with furniture at it. `regions`
    are spans of the document text that every chunk lies either within or outside of.
    """
    if not pages:
        return []
    chunker = DocumentChunker(
        toc,
        max_tokens=max_tokens,
        overlap_tokens=overlap_tokens,
        count_tokens=count_tokens,
        furniture=furniture,
        regions=regions,
    )
    return chunker.chunk(PageWindow(pages, first=pages[0].number, last=pages[-1].number))


class DocumentChunker:
    """Chunks a document window by window, exactly as `chunk_pages` chunks it whole.

    Windows come in page order, each with the neighbour pages `PageWindow` holds. The chunks
    that start on a page depend on no page but its neighbours: packing starts again on every
    page, and a sentence runs over one page break at most. What a window cannot tell is
    whether the page before its first opens with the end of a sentence from the page before
    that one: the window before says so.
    """

    def __init__(
        self,
        toc: list[TocEntry],
        *,
        max_tokens: int,
        overlap_tokens: int,
        count_tokens: CountTokens,
        furniture: Mapping[int, Sequence[tuple[int, int]]] | None = None,
        regions: Sequence[tuple[int, int]] = (),
        label: str = "",
    ) -> None:
        self._headings = _Headings(toc)
        self._label = label
        """The document's label, which opens every chunk's context header."""
        self._max_tokens = max_tokens
        self._overlap_tokens = overlap_tokens
        self._count_tokens = count_tokens
        self._overhead = count_tokens([""])[0]
        self._furniture = furniture or {}
        self._regions = regions
        self._next_page: int | None = None
        self._ordinal = 0
        self._offset = 0
        """Where the next window's text (page 1, or the page before its `first`) starts in the
        document text."""
        self._continued = False
        """Whether that text opens with the end of a sentence begun on the page before it."""

    def chunk(self, window: PageWindow) -> list[ChunkDraft]:
        """Returns the chunks that start on pages `window.first` to `window.last`, in order."""
        assert self._next_page in (None, window.first), "windows come in page order"
        pages = window.pages
        offsets = [0, *np.cumsum([len(p.text) + len(PAGE_BREAK) for p in pages[:-1]]).tolist()]
        text = PAGE_BREAK.join(page.text for page in pages)
        # Regions are spans of the document text; the window's text starts at self._offset.
        regions = [(start - self._offset, end - self._offset) for start, end in self._regions]
        tables = _Tables(pages, offsets)
        bounds = _Bounds(pages, offsets, self._furniture, regions + tables.spans)
        sentences = _document_sentences(text, offsets, bounds, tables, continued=self._continued)
        pieces = _pieces(
            text, pages, offsets, sentences, bounds, tables, self._headings, self._max_tokens,
            self._overhead, self._count_tokens,
        )  # fmt: skip
        first, last = (number - pages[0].number for number in (window.first, window.last))
        # The page before was chunked by the window before; the page after, without its own
        # next page, cannot be yet.
        groups = [
            group
            for group in _pack(pieces, self._max_tokens - self._overhead, self._overlap_tokens)
            if first <= group[0].page <= last
        ]
        spans = [(group[0].start, group[-1].end) for group in groups]
        fitted = _fit(text, spans, self._max_tokens, self._count_tokens, _halve_at(pieces))
        drafts = [
            _draft(
                self._ordinal + index,
                chunk,
                text,
                pages,
                offsets,
                self._offset,
                self._headings,
                self._label,
                bounds.holds(chunk[0]),
                tables.at(chunk[0]),
            )
            for index, chunk in enumerate(fitted)
        ]
        # The next window opens with this one's last page, as the page before its first.
        self._next_page = window.last + 1
        self._ordinal += len(drafts)
        self._offset += offsets[last]
        self._continued = _runs_over(sentences, offsets[last])
        return drafts


def _draft(
    ordinal: int,
    chunk: tuple[int, int, int],
    text: str,
    pages: list[PageText],
    offsets: list[int],
    base: int,
    headings: _Headings,
    label: str,
    furniture: bool,
    table: _WindowTable | None,
) -> ChunkDraft:
    """Returns the draft of the chunk spanning text[start:end] with its token count, where
    `text` starts at `base` in the document text."""
    start, end, tokens = chunk
    first, last = _page_at(offsets, start), _page_at(offsets, end - 1)
    _, (chapter, section) = headings.in_force(pages, offsets, start, table)
    header = context_header(label, chapter, section, table.table.title if table else "")
    return ChunkDraft(
        ordinal=ordinal,
        page_start=pages[first].number,
        page_end=pages[last].number,
        page_span_start=start - offsets[first],
        page_span_end=end - offsets[last],
        document_span_start=base + start,
        document_span_end=base + end,
        content=text[start:end],
        token_count=tokens,
        chapter=chapter,
        section=section,
        flags=(FURNITURE,) if furniture else (TABLE,) if table is not None else (),
        context_header=header,
        table_header=table.table.header if table is not None else None,
        table_header_text=table.table.header_text if table is not None else "",
    )


def _page_at(offsets: list[int], position: int) -> int:
    return bisect.bisect_right(offsets, position) - 1


def _pieces(
    text: str,
    pages: list[PageText],
    offsets: list[int],
    sentences: list[Span],
    bounds: _Bounds,
    tables: _Tables,
    headings: _Headings,
    max_tokens: int,
    overhead: int,
    count_tokens: CountTokens,
) -> list[_Piece]:
    """Returns the sentences (a table's rows) and furniture spans as pieces, in order, those
    over `max_tokens` cut to fit."""
    spans = [(start, end) for start, end, _ in sentences] + bounds.furniture
    fitted = _fit(text, spans, max_tokens, count_tokens, _halve_words)
    ending = {end for _, end, last in sentences if last}
    pieces = []
    for a, b, n in fitted:
        table = None if bounds.holds(a) else tables.at(a)
        page = _page_at(offsets, a)
        pieces.append(
            _Piece(
                a, b, page, _page_at(offsets, b - 1), n - overhead,
                ends_paragraph=b in ending, furniture=bounds.holds(a), zone=bounds.zone(a),
                table=table is not None,
                section=headings.in_force(pages, offsets, a, table)[0],
            )
        )  # fmt: skip
    return pieces


def _document_sentences(
    text: str, offsets: list[int], bounds: _Bounds, tables: _Tables, *, continued: bool
) -> list[Span]:
    """Returns every sentence of the pages' text outside page furniture, in order, none
    across a region's edge; in a table, its rows take the place of sentences.

    A page's last sentence that ends without sentence punctuation, followed by a page that
    opens in lower case, runs over the page break: it is joined with its ending, unless
    furniture (a page number under the one, a running head over the other) or a region's
    edge stands between them. `continued` says that the first page's first sentence is the
    ending of one begun before `text`: it is left out.
    """
    spans: list[Span] = []
    ends = [*offsets[1:], len(text) + len(PAGE_BREAK)]
    for index, (start, end) in enumerate(zip(offsets, ends, strict=True)):
        sentences = [
            sentence
            for a, b in bounds.stretches(start, end - len(PAGE_BREAK))
            for sentence in tables.rows(text, a, b) or _sentences(text, a, b)
        ]
        if continued and index == 0:
            sentences = sentences[1:]
        if sentences and spans and spans[-1][0] >= offsets[index - 1]:
            head, first = spans[-1], sentences[0]
            if (
                not _SENTENCE_END.search(text, head[0], head[1])
                and text[first[0]].islower()
                and not bounds.between(head[1], first[0])
                and tables.at(head[0]) is None
            ):
                spans[-1] = (head[0], first[1], first[2])
                sentences = sentences[1:]
        spans += sentences
    return spans


def _runs_over(sentences: list[Span], position: int) -> bool:
    """Says whether one of the sentences begins before `position` and ends after it."""
    index = bisect.bisect_left(sentences, position, key=lambda span: span[0]) - 1
    return index >= 0 and sentences[index][1] > position


def _sentences(text: str, start: int, end: int) -> list[Span]:
    """Returns the sentences of text[start:end], paragraph by paragraph."""
    found: list[Span] = []
    cursor = start
    for match in [*_PARAGRAPH_BREAK.finditer(text, start, end), None]:
        stop = match.start() if match else end
        spans = split_sentences(text[cursor:stop])
        found += [(cursor + a, cursor + b, k == len(spans) - 1) for k, (a, b) in enumerate(spans)]
        cursor = match.end() if match else end
    return found


Halver = Callable[[str, int, int], list[tuple[int, int]]]


def _fit(
    text: str,
    spans: list[tuple[int, int]],
    max_tokens: int,
    count_tokens: CountTokens,
    halve: Halver,
) -> list[tuple[int, int, int]]:
    """Returns the spans with their token counts, halving each one over `max_tokens` until it fits.

    Counting the real text, batch by batch, keeps the budget exact whatever the tokenizer.
    """
    fitted: list[tuple[int, int, int]] = []
    pending = spans
    while pending:
        counts = count_tokens([text[a:b] for a, b in pending])
        halves: list[tuple[int, int]] = []
        for (a, b), n in zip(pending, counts, strict=True):
            cut = halve(text, a, b) if n > max_tokens else [(a, b)]
            if len(cut) > 1:
                halves += cut
            else:
                fitted.append((a, b, n))
        pending = halves
    return sorted(fitted)


def _halve_words(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Returns text[start:end] cut in two at the word boundary nearest its middle.

    A single word (a long URL, a run of symbols) is cut between characters instead.
    """
    words = [(m.start(), m.end()) for m in _WORD.finditer(text, start, end)]
    if len(words) > 1:
        middle = len(words) // 2
        return [(start, words[middle - 1][1]), (words[middle][0], end)]
    if end - start > 1:
        middle = (start + end) // 2
        return [(start, middle), (middle, end)]
    return [(start, end)]


def _halve_at(pieces: list[_Piece]) -> Halver:
    """Returns a halver that cuts a chunk between the pieces it was packed from."""
    starts = [piece.start for piece in pieces]
    ends = [piece.end for piece in pieces]

    def halve(text: str, start: int, end: int) -> list[tuple[int, int]]:
        first = bisect.bisect_left(starts, start)
        last = bisect.bisect_left(ends, end)
        if last <= first:
            return [(start, end)]
        middle = (first + last + 1) // 2
        return [(start, ends[middle - 1]), (starts[middle], end)]

    return halve


def _pack(pieces: list[_Piece], budget: int, overlap_tokens: int) -> list[list[_Piece]]:
    """Returns the pieces grouped into chunks of at most `budget` tokens."""
    groups: list[list[_Piece]] = []
    current: list[_Piece] = []
    used = 0
    for piece in pieces:
        if current and _ends_before(current, used, piece, budget):
            groups.append(current)
            current = _overlap(current, piece, budget, overlap_tokens)
            used = sum(p.tokens for p in current)
        current.append(piece)
        used += piece.tokens
    if current:
        groups.append(current)
    return _without_tiny(groups, budget)


def _without_tiny(groups: list[list[_Piece]], budget: int) -> list[list[_Piece]]:
    """Returns the groups, each of fewer than MIN_CHUNK_TOKENS joined to the group before it
    when they share a page and a kind and fit the budget together.

    A page's last sentence alone ("The architecture is depicted in Fig. 1.") says little, and
    its context header would then say most of what it is embedded as.
    """
    joined: list[list[_Piece]] = []
    for group in groups:
        tokens = sum(piece.tokens for piece in group)
        previous = joined[-1] if joined else None
        if previous is not None and tokens < MIN_CHUNK_TOKENS:
            # The group opens with the pieces it carried over from the one before.
            new = [piece for piece in group if piece.start >= previous[-1].end]
            fits = sum(piece.tokens for piece in previous + new) <= budget
            if fits and group[0].page == previous[0].page and _same_kind(group[0], previous[0]):
                previous.extend(new)
                continue
        joined.append(group)
    return joined


def _ends_before(current: list[_Piece], used: int, piece: _Piece, budget: int) -> bool:
    """Says whether the chunk in `current` must end before `piece`.

    It must at a new page, between furniture and the rest, at a region's or table's edge,
    and when the piece does not fit; it prefers to once more than half full at a paragraph
    end, and where an outline section begins unless it would leave a tiny chunk.
    """
    return (
        piece.page != current[0].page
        or not _same_kind(piece, current[0])
        or used + piece.tokens > budget
        or (current[-1].ends_paragraph and 2 * used > budget)
        or (piece.section != current[-1].section and used >= MIN_CHUNK_TOKENS)
    )


def _overlap(
    current: list[_Piece], piece: _Piece, budget: int, overlap_tokens: int
) -> list[_Piece]:
    """Returns the last pieces of `current` that open the next chunk, all on the piece's page
    and of its kind.

    The first piece never carries over, so every chunk starts after the one before it.
    """
    carried: list[_Piece] = []
    if not _same_kind(piece, current[0]):
        return carried
    if piece.table:
        return carried  # a table's chunks hold whole rows, each once
    used = 0
    for previous in reversed(current[1:]):
        used += previous.tokens
        on_page = previous.page == previous.last_page == piece.page
        if (
            not on_page
            or previous.section != piece.section
            or used > overlap_tokens
            or used + piece.tokens > budget
        ):
            break
        carried.insert(0, previous)
    return carried


def _same_kind(piece: _Piece, other: _Piece) -> bool:
    """Says whether two pieces may share a chunk: both furniture or neither, in one zone."""
    return piece.furniture == other.furniture and piece.zone == other.zone


class _Bounds:
    """What no chunk may reach across: page furniture spans and region edges."""

    def __init__(
        self,
        pages: Sequence[PageText],
        offsets: list[int],
        furniture: Mapping[int, Sequence[tuple[int, int]]],
        regions: Sequence[tuple[int, int]],
    ) -> None:
        spans: list[tuple[int, int]] = []
        for page, offset in zip(pages, offsets, strict=True):
            for start, end in furniture.get(page.number, ()):
                a, b = trim_span(page.text, max(start, 0), min(end, len(page.text)))
                if a < b:
                    spans.append((offset + a, offset + b))
        self.furniture: list[tuple[int, int]] = []
        """The furniture spans in document offsets: sorted, trimmed, overlapping ones joined."""
        for start, end in sorted(spans):
            if self.furniture and start <= self.furniture[-1][1]:
                previous = self.furniture.pop()
                start, end = previous[0], max(previous[1], end)
            self.furniture.append((start, end))
        self._starts = [start for start, _ in self.furniture]
        self._edges = sorted({edge for region in regions for edge in region})

    def holds(self, position: int) -> bool:
        """Says whether the document text's character at `position` is furniture."""
        index = bisect.bisect_right(self._starts, position) - 1
        return index >= 0 and position < self.furniture[index][1]

    def zone(self, position: int) -> int:
        """Returns how many region edges lie at or before `position`."""
        return bisect.bisect_right(self._edges, position)

    def between(self, start: int, end: int) -> bool:
        """Says whether furniture or a region's edge lies in text[start:end]."""
        index = bisect.bisect_left(self._starts, end) - 1
        furniture = index >= 0 and self.furniture[index][1] > start
        return furniture or self.zone(start) != self.zone(end)

    def stretches(self, start: int, end: int) -> list[tuple[int, int]]:
        """Returns the stretches of text[start:end] free of furniture, cut at region edges."""
        free: list[tuple[int, int]] = []
        cursor = start
        for a, b in self.furniture[max(bisect.bisect_right(self._starts, start) - 1, 0) :]:
            if a >= end:
                break
            if a > cursor:
                free.append((cursor, a))
            cursor = max(cursor, b)
        if cursor < end:
            free.append((cursor, end))
        first, last = (bisect.bisect_right(self._edges, at) for at in (start, end))
        cuts = self._edges[first:last]
        return [
            (a, b)
            for stretch_start, stretch_end in free
            for a, b in itertools.pairwise(
                [stretch_start, *(c for c in cuts if stretch_start < c < stretch_end), stretch_end]
            )
        ]


@dataclass(frozen=True)
class _WindowTable:
    """A table as found on its page, its offsets moved into the window's text."""

    table: Table
    start: int
    end: int
    row_ends: tuple[int, ...]


class _Tables:
    """The tables on a window's pages (app.chunking.tables), in the window's text offsets."""

    def __init__(self, pages: Sequence[PageText], offsets: list[int]) -> None:
        self._tables = [
            _WindowTable(
                table,
                offset + table.start,
                offset + table.end,
                tuple(offset + end for end in table.row_ends),
            )
            for page, offset in zip(pages, offsets, strict=True)
            for table in find_tables(page_lines(page))
        ]
        self._starts = [table.start for table in self._tables]
        self.spans = [(table.start, table.end) for table in self._tables]
        """The tables' spans: regions that no chunk straddles."""

    def at(self, position: int) -> _WindowTable | None:
        """Returns the table holding the window text's character at `position`, if any."""
        index = bisect.bisect_right(self._starts, position) - 1
        found = self._tables[index] if index >= 0 else None
        return found if found is not None and position < found.end else None

    def rows(self, text: str, start: int, end: int) -> list[Span]:
        """Returns the rows of a table in text[start:end] as the spans chunks are packed from,
        each with the lines before it (a label, the header before the first row); [] when
        the stretch is no table's. A row ends its paragraph when a blank line follows it."""
        table = self.at(start)
        if table is None:
            return []
        cuts = [cut for cut in table.row_ends if start < cut < end]
        spans = []
        for a, b in itertools.pairwise([start, *cuts, end]):
            a, b = trim_span(text, a, b)
            if a < b:
                spans.append((a, b, text.startswith("\n\n", b) or b == table.end))
        return spans


class _Headings:
    """The chapter and section in force at any point of the document, from its outline or
    from the headings read off its pages. Those are placed by their text offset, so that a
    heading atop a page's right column does not rule the left column's text below it."""

    def __init__(self, toc: Sequence[TocEntry]) -> None:
        self._by_offset = bool(toc) and all(entry.offset is not None for entry in toc)
        ordered = sorted(enumerate(toc), key=lambda e: (e[1].page, self._place(e[1]), e[0]))
        self._positions = [(entry.page, self._place(entry)) for _, entry in ordered]
        self._titles: list[tuple[str | None, str | None]] = []
        chapter: str | None = None
        section: str | None = None
        for _, entry in ordered:
            if entry.level == 1:
                chapter, section = entry.title, None
            else:
                section = entry.title
            self._titles.append((chapter, section))

    def _place(self, entry: TocEntry) -> float:
        if self._by_offset and entry.offset is not None:
            return float(entry.offset)
        return entry.y or 0.0

    def in_force(
        self,
        pages: Sequence[PageText],
        offsets: list[int],
        position: int,
        table: _WindowTable | None = None,
    ) -> tuple[int, tuple[str | None, str | None]]:
        """Returns how many headings stand before the window text's character at `position`,
        and the (chapter, section) they leave in force there. Under headings read off the
        pages, a table's rows stand under the heading before the table: a line of its column
        heads set bold ("Three Months Ended") is no heading of the text."""
        within = False
        if table is not None and self._by_offset:
            position, within = table.start, True
        page = _page_at(offsets, position)
        count = self._index_at(pages[page], position - offsets[page], within=within)
        return count, self._titles[count - 1] if count else (None, None)

    def _index_at(self, page: PageText, offset: int, *, within: bool) -> int:
        """Returns how many of the headings stand before page.text[offset]; `within` leaves
        out a heading read off the page that starts there (the first line of a table)."""
        if self._by_offset:
            place = (page.number, float(offset))
            return (bisect.bisect_left if within else bisect.bisect_right)(self._positions, place)
        top = float(page.char_boxes[offset, 1])
        position = (page.number, (0.0 if np.isnan(top) else top) + HEADING_SLACK)
        return bisect.bisect_right(self._positions, position)
