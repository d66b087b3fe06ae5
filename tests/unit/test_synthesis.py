"""Extractive synthesis: claims quoted verbatim, markers pointing at page-exact sources."""

from __future__ import annotations

import re

import pytest

from app.answer.synthesis import (
    MAX_CLAIMS,
    chunk_sentences,
    sentence_pages,
    source_label,
    stem,
    synthesize,
    terms,
)
from app.core.geometry import chunk_segments
from app.core.records import PAGE_BREAK
from tests.helpers.chunks import DOC_B, SEARCH, TRACING, Chunk, chunk

QUERY = "how does a tracing compiler speed up hot loops"


def test_terms_drop_stopwords_and_stem() -> None:
    assert terms("How does the Tracing compiler record loops?") == {
        "trac",
        "compiler",
        "record",
        "loop",
    }
    assert stem("speed") == "speed" and stem("speeds") == "speed"


def test_source_label() -> None:
    assert source_label("tracemonkey.pdf", 3, 3) == "tracemonkey.pdf, p. 3"
    assert source_label("tracemonkey.pdf", 3, 4) == "tracemonkey.pdf, pp. 3-4"


def test_answer_quotes_and_cites() -> None:
    answer = synthesize(QUERY, [TRACING, SEARCH], [TRACING, SEARCH])
    assert answer.sources == ["tracemonkey.pdf, p. 3"]
    assert answer.text == (
        "Trace trees record hot loops in a dynamic language. [1] "
        "A tracing compiler turns the recorded loops into fast native code. [1]"
    )
    assert len(answer.claims) == 2
    for claim in answer.claims:
        exact = claim.chunk.content[claim.start : claim.end]
        assert claim.text == exact.replace("\n", " ")
        assert f"{claim.text} [{claim.source}]" in answer.text
    assert 0 < answer.confidence <= 1
    # Similarity 0.7 and every query term but "speed" covered: 0.7 * (1 + 4/5) / 2.
    assert answer.confidence == pytest.approx(0.63)


def test_sources_follow_the_order_of_claims() -> None:
    other = chunk(
        3,
        "Hot loops are where a tracing compiler spends its effort.",
        page_start=9,
        page_end=9,
        document_id=DOC_B,
        document_filename="other.pdf",
    )
    answer = synthesize(QUERY, [TRACING, other], [other, TRACING])
    numbers = [int(n) for n in re.findall(r"\[(\d+)\]", answer.text)]
    assert numbers[0] == 1 and answer.sources[0] == "other.pdf, p. 9"
    assert sorted(set(numbers)) == list(range(1, len(answer.sources) + 1))
    assert numbers == sorted(numbers)
    assert len(answer.claims) <= MAX_CLAIMS


def test_answer_is_deterministic_and_order_free() -> None:
    twin = chunk(4, TRACING.content, page_start=5, page_end=5, page_span_end=160)
    first = synthesize(QUERY, [TRACING, twin], [TRACING, twin])
    assert first == synthesize(QUERY, [TRACING, twin], [TRACING, twin])
    # A repeated sentence is quoted once, from the better-ranked chunk.
    assert first.sources == ["tracemonkey.pdf, p. 3"]
    swapped = synthesize(QUERY, [twin, TRACING], [TRACING, twin])
    assert swapped.sources == ["tracemonkey.pdf, p. 5"]


def test_no_context_is_an_empty_answer() -> None:
    answer = synthesize(QUERY, [], [])
    assert (answer.text, answer.sources, answer.confidence, answer.claims) == ("", [], 0.0, [])


def test_no_shared_words_quotes_the_best_chunk() -> None:
    answer = synthesize("semantic closeness", [SEARCH], [SEARCH])
    assert answer.text == "Vector search finds passages whose meaning is close to the question. [1]"
    assert answer.sources == ["tracemonkey.pdf, p. 7"]
    assert answer.confidence == pytest.approx(0.25)


def test_headings_are_not_glued_to_sentences() -> None:
    content = "Results\n\nThe tracing compiler wins on hot loops."
    spans = chunk_sentences(content, None)
    assert [content[a:b] for a, b in spans] == [
        "Results",
        "The tracing compiler wins on hot loops.",
    ]


def crossing_chunk() -> tuple[Chunk, str, str]:
    page_3 = "Intro text here.\n\nA tracing compiler records hot loops and"
    page_4 = "turns them into native code. Later text."
    first_part = page_3[18:]
    second_part = page_4[: page_4.index(".") + 1] + " Later text."
    content = first_part + PAGE_BREAK + second_part
    crossing = chunk(
        5,
        content,
        page_start=3,
        page_end=4,
        page_span_start=18,
        page_span_end=len(second_part),
    )
    return crossing, page_3, page_4


def test_sentence_across_a_page_break_cites_both_pages() -> None:
    crossing, page_3, page_4 = crossing_chunk()
    spans = chunk_sentences(crossing.content, len(crossing.content) - 40 - 2)
    sentences = [crossing.content[a:b] for a, b in spans]
    assert sentences[0].startswith("A tracing compiler") and sentences[0].endswith("native code.")
    assert sentence_pages(crossing, *spans[0]) == (3, 4)
    assert sentence_pages(crossing, *spans[1]) == (4, 4)
    answer = synthesize(QUERY, [crossing], [crossing])
    assert answer.sources[0] == "tracemonkey.pdf, pp. 3-4"
    assert answer.claims[0].text == sentences[0].replace("\n", " ")
    segments = chunk_segments(crossing)
    for segment, page in zip(segments, (page_3, page_4), strict=True):
        piece = crossing.content[segment.start : segment.end]
        assert page[segment.page_offset : segment.page_offset + len(piece)] == piece
