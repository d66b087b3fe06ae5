"""Reference sections and lists, and OCR noise, on hand-made text and pages."""

from __future__ import annotations

import math

import numpy as np
import pytest

from app.chunking.chunker import chunk_pages
from app.chunking.flags import OCR_NOISE, flag_chunks, flag_ocr_noise, ocr_noise_score
from app.chunking.references import (
    REFERENCES,
    flag_references,
    is_reference_list,
    reference_sections,
)
from app.core.chunks import ChunkDraft
from app.core.geometry import page_lines
from app.core.records import NO_LINE, PAGE_BREAK, PageText, TocEntry
from tests.helpers.chunks import count_words

NUMBERED = """[1] A. Aho, R. Sethi, and J. Ullman. Compilers: Principles, techniques,
and tools, 2006.
[2] V. Bala, E. Duesterwald, and S. Banerjia. Dynamo: A transparent
dynamic optimization system. In Proceedings of the ACM SIGPLAN
Conference on Programming Language Design and Implementation,
pages 1-12. ACM Press, 2000.
[3] M. Chang, B. Mathiske, and E. Smith. The impact of optional type
information on JIT compilation. ACM Press, 2007."""

AUTHOR_YEAR = """Joshua Ainslie, James Lee-Thorp, Michiel de Jong, Yury Zemlyanskiy, and Sumit
Sanghai. GQA: Training generalized multi-query Transformer models. In EMNLP,
pp. 4895-4901. Association for Computational Linguistics, 2023.
Chenxin An, Fei Huang, Jun Zhang, Shansan Gong, Xipeng Qiu, Chang Zhou, and Lingpeng Kong.
Training-free long-context scaling of large language models. CoRR, abs/2402.17463, 2024.
Anthropic. The Claude 3 model family. Technical report, Anthropic, 2024."""

BODY = """Many of these models, including Qwen (Bai et al., 2023a), Mistral (Jiang et al.,
2023), and Gemma (Team et al., 2024), have been released with open weights, which
lets the community fine-tune them for their own tasks. Since then the field has
grown quickly, and we describe here what changed in the second generation."""

TITLE_PAGE = """QWEN2 TECHNICAL REPORT
An Yang, Baosong Yang, Binyuan Hui, Bo Zheng, Bowen Yu, Chang Zhou, Chengpeng Li,
Chengyuan Li, Dayiheng Liu, Fei Huang, Guanting Dong, Haoran Wei, Huan Lin,
Jialong Tang, Jialin Wang, Jian Yang, Jianhong Tu, Jianwei Zhang, Jianxin Ma"""

NARROW_COLUMN = """[3] K. Brown. The typographical widow. Bulletin
of the New York Public Library 52(1):3-25, Jan.
1948. hdl.handle.net/2027/uc1.b3310084
[4] K. Brown. The typographical widow: Encore.
Bulletin of the New York Public Library
52(9):458-466, Sept. 1948.
[6] P. Isambert. Strategies against widows.
TUGboat 31(1):12-17, 2010.
tug.org/TUGboat/tb31-1/tb97isambert.
pdf"""
"""A bibliography set in a narrow column: an entry over three or four lines, most of which
name a source only by an address without its scheme, a volume's pages or a month."""

R_OUTPUT = """> x <- c(TRUE, FALSE, NA)
[1] TRUE FALSE NA
> seq(1, 9, by = 2)
[1] 1 3 5 7 9
> search()
[1] ".GlobalEnv" "Autoloads" "package:base\""""


@pytest.mark.parametrize(
    ("text", "expected"),
    [(NUMBERED, True), (AUTHOR_YEAR, True), (NARROW_COLUMN, True), (BODY, False),
     (TITLE_PAGE, False),
     (R_OUTPUT, False), ("[1] A. Aho. Compilers, 2006.", False)],
)  # fmt: skip
def test_reference_lists_are_told_from_body_text(text: str, expected: bool) -> None:
    assert is_reference_list(text) is expected


def make_page(number: int, text: str) -> PageText:
    """Returns a page whose lines sit 20 points apart from y=100, each line its own id."""
    boxes, ids, line = [], [], 0
    for index, char in enumerate(text):
        if char == "\n":
            boxes.append((math.nan,) * 4)
            ids.append(NO_LINE)
            line += index > 0 and text[index - 1] != "\n"
            continue
        boxes.append((72.0, 100.0 + 20 * line, 77.0, 110.0 + 20 * line))
        ids.append(line)
    return PageText(
        number=number,
        text=text,
        width=612,
        height=792,
        char_boxes=np.array(boxes, dtype=np.float32).reshape(-1, 4),
        line_ids=np.array(ids, dtype=np.int32),
    )


def sections_of(pages: list[PageText], toc: list[TocEntry]) -> list[tuple[int, int]]:
    return reference_sections([page_lines(page) for page in pages], toc)


def document(pages: list[PageText]) -> str:
    return PAGE_BREAK.join(page.text for page in pages)


PAPER = [
    make_page(1, "1 Introduction\n\nWe study things. They matter."),
    make_page(2, "5 Conclusion\n\nThings were studied.\n\nReferences\n\n" + NUMBERED),
    make_page(3, "A Appendix\n\nMore tables of things."),
]


def test_reference_section_from_the_outline_ends_at_the_next_entry() -> None:
    toc = [
        TocEntry(1, "1 Introduction", 1, 100.0),
        TocEntry(1, "5 Conclusion", 2, 100.0),
        TocEntry(1, "References", 2, 160.0),
        TocEntry(2, "Further notes", 3, 120.0),  # deeper: the section runs past it
        TocEntry(1, "A Appendix", 3, 100.0),
    ]
    text = document(PAPER)
    [(start, end)] = sections_of(PAPER, toc)
    assert text[start:end] == "References\n\n" + NUMBERED + PAGE_BREAK


def test_reference_heading_in_the_text_runs_to_an_appendix_heading() -> None:
    text = document(PAPER)
    [(start, end)] = sections_of(PAPER, [])
    assert text[start:end] == "References\n\n" + NUMBERED + PAGE_BREAK
    last = [make_page(1, "Body here.\n\nREFERENCES\n\n" + AUTHOR_YEAR)]
    [(start, end)] = sections_of(last, [])
    assert document(last)[start:end] == "REFERENCES\n\n" + AUTHOR_YEAR


def test_reference_heading_in_the_text_ends_at_the_next_heading_read_off_the_pages() -> None:
    pages = [
        make_page(1, "Body here.\n\nReferences\n\n" + NUMBERED),
        make_page(2, "Updates to the article\n\nA second article follows."),
    ]
    text = document(pages)
    read_off = [
        TocEntry(2, "References", 1, offset=pages[0].text.index("References")),
        TocEntry(2, "Updates to the article", 2, offset=0),
    ]
    [(start, end)] = sections_of(pages, read_off)
    assert text[start:end] == "References\n\n" + NUMBERED + PAGE_BREAK
    # A heading read off a page starts no section without a bibliography after it (a
    # manual's "Reference" chapter), as one found in the text does not.
    manual = [make_page(1, "Reference\n\nThe commands, one by one.\n\nUsage\n\nMore.")]
    headings = [TocEntry(2, "Reference", 1, offset=0), TocEntry(2, "Usage", 1, offset=37)]
    assert sections_of(manual, headings) == []


@pytest.mark.parametrize(
    "text",
    [
        "Contents\n\nIntroduction\n\nReferences\n\nIndex",  # a table of contents
        "Results\n\nReferences\n\n" + BODY,  # a heading not followed by a bibliography
        "See the References section for sources.\n\n" + NUMBERED[:40],  # not a heading line
    ],
)
def test_reference_headings_need_a_bibliography_after_them(text: str) -> None:
    assert sections_of([make_page(1, text)], []) == []


def draft(ordinal: int, start: int, end: int, text: str, flags: tuple[str, ...] = ()) -> ChunkDraft:
    return ChunkDraft(
        ordinal=ordinal, page_start=1, page_end=1, page_span_start=start, page_span_end=end,
        document_span_start=start, document_span_end=end, content=text[start:end],
        token_count=len(text[start:end].split()), flags=flags,
    )  # fmt: skip


def test_chunks_mostly_in_a_section_or_reading_like_references_are_flagged() -> None:
    text = "Body sentence number one here.\n\nReferences list.\n\n" + NUMBERED
    heading = text.index("References")
    chunks = [
        draft(0, 0, heading + 5, text),  # touches the section
        draft(1, heading - 10, heading + 40, text),  # mostly inside it
        draft(2, heading + 18, len(text), text, flags=("furniture",)),
    ]
    flagged = flag_references(chunks, [(heading, heading + 60)])
    assert [c.flags for c in flagged] == [(), (REFERENCES,), ("furniture", REFERENCES)]
    assert flag_references(flagged, [(heading, heading + 60)]) == flagged


def test_chunks_never_straddle_a_reference_section() -> None:
    pages = [make_page(1, "Body here. Then more.\n\nReferences\n\n" + NUMBERED)]
    sections = sections_of(pages, [])
    chunks = chunk_pages(
        pages, [], max_tokens=200, overlap_tokens=20, count_tokens=count_words, regions=sections
    )
    flagged = flag_chunks(chunks, references=sections)
    assert [(c.content.split("\n")[0], c.flags) for c in flagged] == [
        ("Body here. Then more.", ()),
        ("References", (REFERENCES,)),
    ]


def test_region_edges_cut_paragraphs_and_page_breaks() -> None:
    pages = [
        make_page(1, "First words here and more words"),
        make_page(2, "follow on the next page."),
    ]
    text = document(pages)
    edges = [(text.index("and"), text.index("follow"))]
    chunks = chunk_pages(
        pages, [], max_tokens=50, overlap_tokens=5, count_tokens=count_words, regions=edges
    )
    assert [c.content for c in chunks] == [
        "First words here", "and more words", "follow on the next page."
    ]  # fmt: skip


CLEAN_ZH = (
    "关于浙江菲达环保科技股份有限公司2015年年度报告中有关财务事项的说明。"
    "截至2015年12月31日，神鹰集团在该担保项下实际融资余额为1.57亿元，"  # noqa: RUF001
    "中信银行杭州分行 2,000 2015-09-07 2016-03-07。"
)
NOISY_ZH = (
    "关于浙江菲达环保科技股份有限公司ZOq5年年度报告中有关财务事项的说阴。"
    "神鹰集团自Z0l5年4个月6 日起已明显出现无法按期偿还银行贷款的情况，(上证公函[20I6]0512 号)"  # noqa: RUF001
    "浦发银行诸璧艾行 3,000 2015-12-11 2016-lo-28 负债总额111, 824. ·05 万元 c普通合伙) mnmm"
)


@pytest.mark.parametrize(
    ("text", "low", "high"),
    [
        ("", 0.0, 0.0),
        (BODY, 0.0, 0.0),
        (NUMBERED, 0.0, 0.0),
        ("x <- c(1, 2); y <<- x[[1]] %in% (*) {} == TRUE", 0.0, 0.0),  # code is not noise
        ("Qwen2-72B and GPT-4o run on H100 GPUs; the 10-Q for Q3 2023 (p. 12).", 0.0, 0.0),
        (CLEAN_ZH, 0.0, 0.0),
        (NOISY_ZH, 0.2, 1.0),
        ("In 20I5 the rate was l0.5% and in Z016 it rose.", 0.15, 1.0),
        ("The gly\ufffdphs are bro\ue000ken here.", 0.25, 1.0),
        # A symbol font's glyphs alone among prose (a music example, a form's checkbox) are
        # no words; a text mostly of them is garbled.
        ("Yes \uf052 No \uf0a3 Indicate by check mark whether the registrant is a shell", 0.0, 0.0),
        ("\ufffd \ufffd 8 \ufffd \ufffd \ufffd 5", 0.5, 1.0),
    ],
)
def test_ocr_noise_score(text: str, low: float, high: float) -> None:
    assert low <= ocr_noise_score(text) <= high


def test_clean_cjk_text_is_not_noise_for_being_cjk() -> None:
    assert ocr_noise_score(CLEAN_ZH * 3) == ocr_noise_score("中文") == 0.0


def test_noisy_chunks_are_flagged() -> None:
    chunks = [draft(0, 0, len(CLEAN_ZH), CLEAN_ZH), draft(1, 0, len(NOISY_ZH), NOISY_ZH)]
    assert [c.flags for c in flag_ocr_noise(chunks)] == [(), (OCR_NOISE,)]
