"""Chunking on hand-made pages with a word counter: sentences, budgets, overlap, pages, headings."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from app.chunking.chunker import CountTokens, chunk_pages, split_sentences
from app.core.records import NO_LINE, PageText, TocEntry
from tests.helpers.chunks import assert_chunk_invariants, count_words


def count_with_specials(texts: list[str]) -> list[int]:
    """Counts like a BERT tokenizer that adds [CLS] and [SEP]: two more for every text."""
    return [len(text.split()) + 2 for text in texts]


def count_characters(texts: list[str]) -> list[int]:
    """Counts that do not add up over pieces: one token per started four characters."""
    return [math.ceil(len(text) / 4) for text in texts]


def make_page(number: int, text: str) -> PageText:
    """Returns a page whose lines sit 20 points apart from y=100, with boxes like extraction's."""
    boxes, ids, line = [], [], 0
    x = 72.0
    for index, char in enumerate(text):
        if char == "\n":
            boxes.append((math.nan,) * 4)
            ids.append(NO_LINE)
            if index and text[index - 1] != "\n":
                line += 1
            x = 72.0
            continue
        top = 100.0 + 20 * line
        boxes.append((x, top, x + 5, top + 10))
        ids.append(line)
        x += 5
    return PageText(
        number=number,
        text=text,
        width=612,
        height=792,
        char_boxes=np.array(boxes, dtype=np.float32).reshape(-1, 4),
        line_ids=np.array(ids, dtype=np.int32),
    )


def sentence(words: int, tag: str) -> str:
    """Returns a sentence of `words` words that starts with `tag`, capitalised."""
    return " ".join([tag.capitalize()] + ["word"] * (words - 2) + ["end."])


@pytest.mark.parametrize(
    ("text", "sentences"),
    [
        ("One here. Two there! Three? Four", ["One here.", "Two there!", "Three?", "Four"]),
        ("See e.g. the table. Next.", ["See e.g. the table.", "Next."]),
        ("Gal et al. showed it. Then Fig. 3 and Eq. 2 agree.", ["Gal et al. showed it.",
                                                               "Then Fig. 3 and Eq. 2 agree."]),
        ("Pi is 3.14 roughly. J. R. Smith and the U.S. Army agree.",
         ["Pi is 3.14 roughly.", "J. R. Smith and the U.S. Army agree."]),
        ("It is 22%, says Resources, Inc.\nHowever, Coca-Cola holds 19%.",
         ["It is 22%, says Resources, Inc.", "However, Coca-Cola holds 19%."]),
        ("Sold in the U.S. The rest abroad. Smith et al. The method. See Fig. The end.",
         ["Sold in the U.S.", "The rest abroad.", "Smith et al.", "The method.",
          "See Fig. The end."]),
        ('He said "stop." Then left.', ['He said "stop."', "Then left."]),
        ("Lower case after a period. continues it.", ["Lower case after a period. continues it."]),
        ("  padded.\n  Next line starts.  ", ["padded.", "Next line starts."]),
        ("   ", []),
    ],
)  # fmt: skip
def test_split_sentences(text: str, sentences: list[str]) -> None:
    assert [text[a:b] for a, b in split_sentences(text)] == sentences


def test_chunks_pack_whole_sentences_within_the_budget() -> None:
    pages = [make_page(1, " ".join(sentence(6, f"s{i}") for i in range(20)))]
    chunks = chunk_pages(pages, [], max_tokens=20, overlap_tokens=0, count_tokens=count_words)
    assert_chunk_invariants(chunks, pages, 20)
    assert [c.token_count for c in chunks] == [18] * 6 + [12]
    assert all(c.content.endswith("end.") for c in chunks)
    assert "".join(c.content + " " for c in chunks).strip() == pages[0].text


def test_overlap_repeats_trailing_sentences() -> None:
    pages = [make_page(1, " ".join(sentence(5, f"s{i}") for i in range(12)))]
    chunks = chunk_pages(pages, [], max_tokens=20, overlap_tokens=6, count_tokens=count_words)
    assert_chunk_invariants(chunks, pages, 20)
    assert len(chunks) > 1
    for before, after in itertools.pairwise(chunks):
        shared = before.document_span_end - after.document_span_start
        assert shared > 0
        assert count_words([before.content[len(before.content) - shared :]])[0] <= 6
        assert before.content.endswith(after.content[:shared])


def test_long_sentence_is_cut_at_word_boundaries() -> None:
    pages = [make_page(1, "Short one. " + " ".join(f"w{i}" for i in range(57)) + ".")]
    chunks = chunk_pages(pages, [], max_tokens=16, overlap_tokens=4, count_tokens=count_words)
    assert_chunk_invariants(chunks, pages, 16)
    assert {word for c in chunks for word in c.content.split()} >= {f"w{i}" for i in range(56)}


@pytest.mark.parametrize("count_tokens", [count_with_specials, count_characters])
def test_budget_holds_for_any_tokenizer(count_tokens: CountTokens) -> None:
    text = "\n\n".join(" ".join(sentence(7, f"p{p}s{i}") for i in range(5)) for p in range(4))
    pages = [make_page(1, text), make_page(2, text)]
    chunks = chunk_pages(pages, [], max_tokens=24, overlap_tokens=8, count_tokens=count_tokens)
    assert_chunk_invariants(chunks, pages, 24)


def test_chunk_more_than_half_full_ends_at_a_paragraph() -> None:
    paragraphs = [" ".join(sentence(4, f"p{p}s{i}") for i in range(3)) for p in range(4)]
    pages = [make_page(1, "\n\n".join(paragraphs))]
    chunks = chunk_pages(pages, [], max_tokens=20, overlap_tokens=0, count_tokens=count_words)
    assert [c.content for c in chunks] == paragraphs


def test_chunk_crosses_a_page_only_to_finish_its_sentence() -> None:
    pages = [
        make_page(1, "A whole sentence. This one runs over the"),
        make_page(2, "page break and ends here. Another starts."),
        make_page(3, "Complete on its own."),
    ]
    chunks = chunk_pages(pages, [], max_tokens=50, overlap_tokens=10, count_tokens=count_words)
    assert_chunk_invariants(chunks, pages, 50)
    assert [(c.page_start, c.page_end) for c in chunks] == [(1, 2), (2, 2), (3, 3)]
    assert chunks[0].content.endswith("over the\n\npage break and ends here.")
    assert chunks[1].content == "Another starts."


def test_finished_page_does_not_run_over() -> None:
    pages = [make_page(1, "Ends with a period."), make_page(2, "starts low anyway.")]
    chunks = chunk_pages(pages, [], max_tokens=50, overlap_tokens=0, count_tokens=count_words)
    assert [(c.page_start, c.page_end) for c in chunks] == [(1, 1), (2, 2)]


def test_chapter_and_section_come_from_the_outline() -> None:
    lines = ["Intro sentence one.", "Methods begin here.", "Details follow now.", "Results."]
    pages = [make_page(1, "\n\n".join(lines[:2])), make_page(2, "\n\n".join(lines[2:]))]
    toc = [
        TocEntry(1, "Intro", 1, 90.0),
        TocEntry(1, "Methods", 1, 118.0),  # the second line's top is 120
        TocEntry(2, "Details", 2, None),
        TocEntry(1, "Results", 2, 119.5),
    ]
    chunks = chunk_pages(pages, toc, max_tokens=3, overlap_tokens=0, count_tokens=count_words)
    assert [(c.content, c.chapter, c.section) for c in chunks] == [
        ("Intro sentence one.", "Intro", None),
        ("Methods begin here.", "Methods", None),
        ("Details follow now.", "Methods", "Details"),
        ("Results.", "Results", None),
    ]


def test_a_chunk_ends_where_an_outline_section_begins() -> None:
    intro = sentence(30, "intro")
    methods = sentence(30, "methods")
    pages = [make_page(1, f"{intro}\n\n{methods}")]
    toc = [TocEntry(1, "Intro", 1, 90.0), TocEntry(1, "Methods", 1, 118.0)]
    # Room for both, and the first under half the room: only the section parts them.
    chunks = chunk_pages(pages, toc, max_tokens=100, overlap_tokens=10, count_tokens=count_words)
    assert [(c.content, c.chapter) for c in chunks] == [(intro, "Intro"), (methods, "Methods")]
    [whole] = chunk_pages(pages, [], max_tokens=100, overlap_tokens=10, count_tokens=count_words)
    assert whole.content == f"{intro}\n\n{methods}"


def test_no_outline_means_no_headings_and_empty_pages_are_skipped() -> None:
    pages = [make_page(1, ""), make_page(2, "Only text.")]
    chunks = chunk_pages(pages, [], max_tokens=10, overlap_tokens=2, count_tokens=count_words)
    assert [(c.page_start, c.chapter, c.section) for c in chunks] == [(2, None, None)]
    assert chunk_pages([], [], max_tokens=10, overlap_tokens=2, count_tokens=count_words) == []


def test_chunking_is_deterministic() -> None:
    pages = [make_page(n, " ".join(sentence(3 + n, f"n{n}i{i}") for i in range(9))) for n in (1, 2)]
    runs = [
        chunk_pages(pages, [], max_tokens=17, overlap_tokens=5, count_tokens=count_words)
        for _ in range(2)
    ]
    assert runs[0] == runs[1]
