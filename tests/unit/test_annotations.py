"""Marks on hand-made pages, their chunks by span overlap, and the rerank's invariants."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from hypothesis import given
from hypothesis import strategies as st

from app.core.geometry import ChunkSpan, chunks_under
from app.core.records import Mark, PdfAnnotation, Rect
from app.pdf.annotations import (
    char_under,
    highlight_mark,
    locate_mark,
    locate_marks,
    locate_text,
    marked_runs,
)
from app.retrieval.rerank import AnnotationSignal, rerank
from tests.helpers.pages import page_of

PAGE = page_of(["first line of text", "second line", "third line here"])
"""Lines at y 100-110, 120-130, 140-150; character k of a line spans x 72+5k to 77+5k."""


def line_quad(line: int, first: int, last: int) -> Rect:
    """Returns a quad over characters first..last (inclusive) of a line, a little generous."""
    top = 100.0 + 20 * line
    return (72 + 5 * first - 1, top - 1, 77 + 5 * last + 1, top + 11)


def annotation(subtype: str, quads: tuple[Rect, ...] = (), **fields: object) -> PdfAnnotation:
    values: dict[str, object] = {
        "page": 1,
        "subtype": subtype,
        "rect": (0.0, 0.0, 1.0, 1.0),
        "quads": quads,
        "comment": "",
        "author": "",
        "colour": None,
    }
    return PdfAnnotation(**{**values, **fields})  # type: ignore[arg-type]


def test_mark_text_is_the_characters_whose_centres_lie_in_the_quads() -> None:
    # From "line" on line 0 to "second" on line 1: the quads end mid-line, as a selection does.
    quads = (line_quad(0, 6, 17), line_quad(1, 0, 5))
    mark = locate_mark(annotation("Highlight", quads), PAGE)
    assert mark is not None
    assert mark.type == "highlight"
    assert mark.text == "line of text second"
    assert PAGE.text[mark.page_span_start : mark.page_span_end] == "line of text\nsecond"


def test_a_quad_grazing_a_character_does_not_take_it() -> None:
    # The quad reaches 2 points into "f" (x 72-77, centre 74.5) and 2 into "t" of "of text".
    x0, y0, _, y1 = line_quad(0, 0, 0)
    assert marked_runs(PAGE, [(x0 + 1.5, y0, 74.0, y1)]) == []


def test_a_mark_that_skips_text_gives_one_run_per_piece() -> None:
    runs = marked_runs(PAGE, [line_quad(0, 0, 4), line_quad(2, 0, 4)])
    assert [PAGE.text[start:end] for start, end in runs] == ["first", "third"]
    mark = locate_mark(annotation("Underline", (line_quad(0, 0, 4), line_quad(2, 0, 4))), PAGE)
    assert mark is not None and mark.text == "first third"


def test_a_markup_over_no_text_has_no_span() -> None:
    mark = locate_mark(annotation("StrikeOut", ((300.0, 300.0, 400.0, 310.0),)), PAGE)
    assert mark is not None
    assert (mark.type, mark.text, mark.page_span_start) == ("strikeout", "", None)


def test_a_note_stands_at_the_character_nearest_its_centre() -> None:
    # An icon just right of line 2, whose "here" ends at x 147.
    icon = (150.0, 140.0, 160.0, 150.0)
    end_of_line = len(PAGE.text) - 1
    assert char_under(PAGE, icon) == end_of_line
    mark = locate_mark(annotation("Text", rect=icon, comment="see also"), PAGE)
    assert mark is not None
    assert mark.type == "note" and mark.text == ""
    assert mark.page_span_start == mark.page_span_end == end_of_line


def test_drawings_are_kept_only_with_a_comment() -> None:
    assert locate_mark(annotation("Ink"), PAGE) is None
    inked = locate_mark(annotation("Ink", comment="why?"), PAGE)
    assert inked is not None and inked.type == "note"
    assert locate_mark(annotation("Link"), PAGE) is None


def test_marks_come_in_reading_order_with_marks_on_no_text_last() -> None:
    found = locate_marks(
        [
            annotation("StrikeOut", ((300.0, 300.0, 400.0, 310.0),)),
            annotation("Highlight", (line_quad(2, 0, 4),)),
            annotation("Squiggly", (line_quad(0, 0, 4),)),
            annotation("Highlight", (line_quad(0, 0, 4),), page=2),
        ],
        [PAGE],
    )
    assert [mark.type for mark in found] == ["squiggly", "highlight", "strikeout"]


def test_locate_text_matches_any_whitespace_between_words() -> None:
    assert locate_text(PAGE, "of text  second") == (
        PAGE.text.index("of text"),
        PAGE.text.index("second") + len("second"),
    )
    assert locate_text(PAGE, "text second line here") is None
    assert locate_text(PAGE, "   ") is None


def test_a_highlight_from_the_frontend_is_drawn_line_by_line() -> None:
    span = locate_text(PAGE, "text second")
    assert span is not None
    mark = highlight_mark(PAGE, span, "mine")
    assert mark.text == "text second" and mark.comment == "mine"
    assert mark.rects == ((142.0, 100.0, 162.0, 110.0), (72.0, 120.0, 102.0, 130.0))


def mark_at(page: int, start: int | None, end: int | None) -> Mark:
    return Mark(page, "highlight", "", "", "", None, (), start, end)


def span(n: int, first: int, last: int, start: int, end: int) -> ChunkSpan:
    return ChunkSpan(
        chunk_id=uuid.UUID(int=n),
        page_start=first,
        page_end=last,
        page_span_start=start,
        page_span_end=end,
    )


CHUNKS = [
    ChunkSpan(
        chunk_id=uuid.UUID(int=1), page_start=1, page_end=1, page_span_start=0, page_span_end=100
    ),
    ChunkSpan(
        chunk_id=uuid.UUID(int=2), page_start=1, page_end=1, page_span_start=80, page_span_end=200
    ),
    ChunkSpan(
        chunk_id=uuid.UUID(int=3), page_start=1, page_end=2, page_span_start=190, page_span_end=50
    ),
    ChunkSpan(
        chunk_id=uuid.UUID(int=4), page_start=2, page_end=2, page_span_start=50, page_span_end=300
    ),
]


def test_a_mark_lies_on_every_chunk_its_span_overlaps() -> None:
    assert chunks_under(mark_at(1, 90, 95), CHUNKS) == [uuid.UUID(int=1), uuid.UUID(int=2)]
    assert chunks_under(mark_at(1, 100, 120), CHUNKS) == [uuid.UUID(int=2)]
    # A chunk across a page break covers the rest of its first page and the start of its last.
    assert chunks_under(mark_at(1, 500, 510), CHUNKS) == [uuid.UUID(int=3)]
    assert chunks_under(mark_at(2, 40, 60), CHUNKS) == [uuid.UUID(int=3), uuid.UUID(int=4)]
    assert chunks_under(mark_at(3, 0, 10), CHUNKS) == []
    assert chunks_under(mark_at(1, None, None), CHUNKS) == []


def test_a_note_lies_on_the_chunks_holding_the_character_under_it() -> None:
    assert chunks_under(mark_at(1, 100, 100), CHUNKS) == [uuid.UUID(int=2)]
    assert chunks_under(mark_at(2, 50, 50), CHUNKS) == [uuid.UUID(int=4)]
    assert chunks_under(mark_at(2, 49, 49), CHUNKS) == [uuid.UUID(int=3)]


@dataclass(frozen=True)
class Hit:
    chunk_id: uuid.UUID
    document_id: uuid.UUID
    distance: float
    content: str = ""
    page_start: int = 1
    page_end: int = 1
    page_span_start: int = 0


hits = st.lists(
    st.builds(
        Hit,
        chunk_id=st.uuids(),
        document_id=st.just(uuid.UUID(int=0)),
        distance=st.floats(0.0, 2.0, allow_nan=False),
    ),
    max_size=30,
    unique_by=lambda hit: hit.chunk_id,
)
SIGNAL = AnnotationSignal(alpha=0.02, cap=5)


def reranked(ranked: list[Hit], counts: dict[uuid.UUID, int]) -> list[Hit]:
    return rerank(ranked, counts, SIGNAL, score=lambda hit: hit.distance)


@given(hits, st.data())
def test_rerank_keeps_the_candidates_and_bounds_every_move(
    ranked: list[Hit], data: st.DataObject
) -> None:
    counts = {hit.chunk_id: data.draw(st.integers(0, 12)) for hit in ranked}
    after = reranked(ranked, counts)
    assert sorted(after, key=lambda hit: hit.chunk_id) == sorted(ranked, key=lambda h: h.chunk_id)
    limit = SIGNAL.alpha * SIGNAL.cap + 1e-9
    for position, hit in enumerate(after):
        for later in after[position + 1 :]:
            # `hit` may have passed `later` only if `later` was better by at most alpha * cap.
            assert hit.distance - later.distance <= limit


@given(hits, st.data())
def test_rerank_is_deterministic_whatever_the_input_order(
    ranked: list[Hit], data: st.DataObject
) -> None:
    counts = {hit.chunk_id: data.draw(st.integers(0, 12)) for hit in ranked}
    shuffled = data.draw(st.permutations(ranked))
    assert reranked(list(shuffled), counts) == reranked(ranked, counts)


def test_rerank_without_marks_is_the_score_order() -> None:
    ranked = [Hit(uuid.UUID(int=k), uuid.UUID(int=0), 0.1 * k) for k in range(5)]
    assert reranked(list(reversed(ranked)), {}) == ranked


def test_marks_beyond_the_cap_add_nothing() -> None:
    assert SIGNAL.boost(5) == SIGNAL.boost(50) == 0.1
    assert SIGNAL.boost(0) == 0.0
