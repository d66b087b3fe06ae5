"""Locating a selection in page texts: normalisation with offsets, exact and fuzzy matches."""

from __future__ import annotations

import uuid

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.core.records import PAGE_BREAK
from app.retrieval.selection import (
    FUZZY_MIN_SCORE,
    PageRun,
    key_words,
    locate,
    normalize,
    page_runs,
)

DOC = uuid.UUID(int=7)
PAGE_3 = (
    "Trace trees record hot loops in a dynamic language.\n"
    "A tracing compiler turns the recorded loops into fast native code."
)
PAGE_4 = "Side exits return to the interpreter.\nThe monitor then decides\nwhat to record next."
RUN = PageRun(DOC, 3, (PAGE_3, PAGE_4))


def test_normalize_folds_case_whitespace_ligatures_and_quotes() -> None:
    folded = normalize("  The \ufb01rst\n\n\u201cword\u201d\u2014done  ")
    assert folded.text == 'the first "word"-done'


def test_normalize_joins_words_broken_at_line_ends() -> None:
    assert normalize("a hyphen-\nated word").text == "a hyphenated word"
    assert normalize("soft\u00adhyphen").text == "softhyphen"
    assert normalize("a well-known fact").text == "a well-known fact"


def test_normalize_maps_every_character_to_its_source() -> None:
    source = " Hyphen-\n  ated \ufb01ne\tline "
    folded = normalize(source)
    assert len(folded.origin) == len(folded.text)
    for char, origin in zip(folded.text, folded.origin, strict=True):
        if char == " ":
            assert source[origin].isspace()
        else:
            assert char in normalize(source[origin]).text


@given(st.text(max_size=200))
def test_normalize_keeps_offsets_in_order_and_in_the_source(source: str) -> None:
    folded = normalize(source)
    assert len(folded.origin) == len(folded.text)
    assert list(folded.origin) == sorted(folded.origin)
    assert all(0 <= origin < len(source) for origin in folded.origin)


def test_exact_match_maps_back_to_page_offsets() -> None:
    match = locate("tracing   compiler turns", [RUN])
    assert match is not None
    assert match.exact
    assert (match.start_page, match.end_page) == (3, 3)
    assert PAGE_3[match.start_offset : match.end_offset] == "tracing compiler turns"
    assert match.text == "tracing compiler turns"


def test_a_selection_across_a_page_break_spans_both_pages() -> None:
    selected = "fast native code. Side exits return"
    match = locate(selected, [RUN])
    assert match is not None
    assert (match.start_page, match.end_page) == (3, 4)
    assert PAGE_3[match.start_offset :].startswith("fast native code.")
    assert PAGE_4[: match.end_offset] == "Side exits return"
    assert match.text == PAGE_3[match.start_offset :] + PAGE_BREAK + PAGE_4[: match.end_offset]


def test_a_viewer_selection_with_a_kept_hyphen_is_exact() -> None:
    match = locate("The moni-\ntor then decides", [RUN])
    assert match is not None
    assert match.exact
    assert match.text == "The monitor then decides"


def test_fuzzy_match_tolerates_a_few_differences() -> None:
    match = locate("A tracing compilor turns the recorded loops into fast native kode", [RUN])
    assert match is not None
    assert not match.exact
    assert FUZZY_MIN_SCORE <= match.score < 100
    assert match.start_page == 3
    assert "recorded loops into fast native" in match.text


@pytest.mark.parametrize(
    "selected",
    ["", "   \n ", "Vector search finds passages whose meaning is close to the question"],
)
def test_no_match(selected: str) -> None:
    assert locate(selected, [RUN]) is None


def test_the_first_exact_match_wins_over_later_runs() -> None:
    other = PageRun(uuid.UUID(int=8), 1, ("the recorded loops",))
    match = locate("recorded loops", [other, RUN])
    assert match is not None
    assert match.document_id == other.document_id


def test_page_runs_split_at_gaps() -> None:
    runs = page_runs(DOC, [(1, "a"), (2, "b"), (5, "c")])
    assert [(run.first_page, run.texts) for run in runs] == [(1, ("a", "b")), (5, ("c",))]


def test_key_words_are_the_longest_words() -> None:
    selection = "A tracing compiler turns the recorded loops of a running program into traces"
    assert key_words(selection) == [
        "compiler",
        "recorded",
        "program",
        "running",
        "tracing",
        "traces",
        "loops",
        "turns",
    ]
    assert key_words(" ... ") == []
