"""Names in a query: the parts the text search must find for a name not to be missing."""

from __future__ import annotations

from dataclasses import replace

import pytest

from app.core.questions import code_terms, quoted_terms
from app.core.rows import full_dates
from app.retrieval import names
from app.retrieval.names import (
    holds_name,
    holds_phrases,
    name_phrases,
    name_query,
    text_words,
    writes_code,
)
from app.retrieval.pipeline import names_document, with_named_documents
from tests.helpers.chunks import statement_chunk


def test_a_name_matches_by_its_parts_and_as_the_text_search_keeps_it_whole() -> None:
    assert name_query("PC-12") == "pc | 12"
    assert name_query("Weizenbaum's") == "weizenbaum:*"
    # The parser keeps "x86" one lexeme: its part "86" alone would never match it.
    assert name_query("x86") == "86 | x86"
    assert name_query("Qwen2-72B") == "qwen:* | 72 | qwen2:* | 72b"


def test_a_name_with_no_part_of_two_characters_is_none() -> None:
    assert name_query("v8") == ""
    assert name_phrases("How does V8's TurboFan compiler work?") == [("TurboFan",)]
    assert name_phrases("How many x86 instructions does it generate?") == [("x86",)]


def test_names_run_in_phrases_and_a_word_opening_a_sentence_is_none() -> None:
    asked = "Did Intel's ESG spending change over the quarters? If so, why? Please explain."
    assert name_phrases(asked) == [("Intel",), ("ESG",)]
    asked = "On what date did the NIST Editorial Review Board approve SP 800-223?"
    assert name_phrases(asked) == [("NIST", "Editorial", "Review", "Board"), ("SP",)]
    assert name_phrases('What is the plot of "Moby-Dick"?') == [("Moby-Dick",)]


def test_chinese_written_without_spaces_is_no_name() -> None:
    # The clause around "14" is no name; Latin letters among Chinese are read on their own.
    asked = "诸暨朗臻小区14间商铺的评估价值\uff1f"
    assert name_phrases(asked) == []
    assert name_phrases("Qwen2的词表有多大\uff1f") == [("Qwen2",)]


def test_a_part_of_the_document_is_no_name_nor_its_number_a_version() -> None:
    asked = "What do Figure 4 of Thoma's paper (see Section 2.1) and Table 2 show?"
    assert name_phrases(asked) == [("Thoma",)]
    assert names.versioned_names(asked) == []


def test_a_function_written_as_a_call_is_a_name() -> None:
    assert name_phrases("What does dplyr's mutate() function do?") == [("mutate",)]
    assert name_phrases("What does asn1_der_coding() return?") == [("asn1_der_coding",)]
    # No part of two characters: nothing to seek.
    assert name_phrases("What does f() return, and is f(x) defined?") == []


def test_a_name_no_passage_holds_a_long_word_of_is_unheld_and_an_acronym_never() -> None:
    passages = ["Samsung and SK hynix supply memory", "the Patent Trial and Appeal Board"]
    asked = name_phrases(
        "Do Samsung, Micron, JPM, DRAM, EBITDA or IoT matter to the Editorial Review Board?"
    )
    said = [text_words(passage) for passage in passages]
    assert names.unheld_phrases(said, asked) == ["Micron"]
    assert names.unheld_phrases([], [("Moby-Dick",)]) == ["Moby-Dick"]


def test_a_name_with_a_version_is_read_as_the_query_writes_it() -> None:
    asked = "Does Llama 2 or GPT-4 beat Qwen2-57B-A14B, as NIST SP 800-207 or Python 3.11 ask?"
    assert names.versioned_names(asked) == [
        ("Llama", "2"), ("GPT", "4"), ("Qwen2", "57B"), ("SP", "800-207"), ("Python", "3.11")
    ]  # fmt: skip
    # Years, dates and a code then a count are no versions.
    assert names.versioned_names("What was Fiscal 2023 revenue, as of June 25, 2022?") == []
    assert names.versioned_names("What is the FY2018 - FY2020 3 year average of capex?") == []
    assert names.versioned_names("What is Lockheed Martin's 2 year revenue CAGR?") == []
    asked = "How many people died in the Ethiopian Airlines 737 MAX crash, or of Alaska's MAX 9?"
    assert names.versioned_names(asked) == [("MAX", "9")]


def test_a_name_with_a_version_is_written_with_that_version_and_the_dashes_of_a_pdf() -> None:
    texts = ["Llama\u20133-70B and Mistral 7B; NIST SP 800\u2013223", "Llama 20 and Python 3x11"]
    versions = [("Llama", "3-70B"), ("Mistral", "7B"), ("SP", "800-223")]
    assert names.unwritten_versions(texts, versions) == []
    versions = [("Llama", "2"), ("Python", "3.11"), ("SP", "800-207")]
    assert names.unwritten_versions(texts, versions) == ["Llama 2", "Python 3.11", "SP 800-207"]


def test_a_passage_holds_a_name_by_any_of_its_parts() -> None:
    text = "after Deep Blue won against the reigning world chess champion Garry Kasparov in 1997"
    words = text_words(text)
    assert all(holds_name(words, name) for name in ["Deep", "Blue", "Garry", "Kasparov"])
    assert not all(holds_name(words, name) for name in ["Deep", "Blue", "Carlsen"])
    # A short part only as a whole word: "pc" is not the start of "pcs".
    assert holds_name(text_words("the Pilatus PC-12 airplane"), "PC-12")
    assert not holds_name(text_words("three pcs"), "PC")
    assert holds_name(text_words("compiles to a single x86 instruction"), "x86")


def test_a_date_the_query_writes_whole_raises_the_passages_that_hold_it() -> None:
    asked = full_dates("How many shares were outstanding as of July 15, 2022?")
    assert asked == {(2022, 7, 15)}
    assert names.date_boost(asked, "issued and outstanding as of Jul. 15 2022.") == names.DATE_BOOST
    assert names.date_boost(asked, "issued and outstanding as of July 21, 2023.") == 0.0
    # A year alone, or a month and year, names no day: every filing of the year holds it.
    assert full_dates("What was revenue in July 2022, or in 2022?") == set()
    assert names.date_boost(frozenset(), "as of July 15, 2022") == 0.0


def query_names(query: str) -> frozenset[str]:
    return frozenset(word for phrase in name_phrases(query) for word in phrase)


def test_a_table_row_the_query_names_raises_its_passage() -> None:
    query = "How much revenue did LinkedIn generate for Microsoft in the quarter?"
    rows = names.row_names(query_names(query), "MICROSOFT CORPORATION", "2022_Q3_MSFT.pdf")
    assert rows == {"LinkedIn"}
    asked = names.text_words(query)
    table = "(In millions)\nWindows 5,313 5,674\nLinkedIn 3,663 3,136\n"
    assert names.row_boost(rows, asked, table) == names.ROW_BOOST
    # A row whose label says more than the query, or prose naming it, is not raised.
    assert names.row_boost(rows, asked, "LinkedIn Talent Solutions 1,200 1,100\n") == 0.0
    assert names.row_boost(rows, asked, "LinkedIn revenue increased 17%.\n") == 0.0
    # A name is written as the query writes it: "Management" of a segment's name is not the
    # "management" of a row's measure.
    query = "How much did Asset & Wealth Management's assets under management grow?"
    rows = names.row_names(query_names(query), "JPMORGAN CHASE & CO", "JPMORGAN_2022Q2_10Q.pdf")
    row = "Assets under management $ 2,137 $ 2,236\n"
    assert names.row_boost(rows, names.text_words(query), row) == 0.0
    # The company's own name labels no row the query asks of.
    owner = query_names("What was Microsoft's revenue?")
    assert names.row_names(owner, "MICROSOFT CORPORATION", "x.pdf") == set()


def test_a_row_the_query_names_raises_its_table_when_a_figure_is_asked() -> None:
    table = replace(
        statement_chunk(1, "(In millions)\nWindows 5,313 5,674\nLinkedIn 3,663 3,136\n", page=28),
        distance=0.45,
    )
    prose = replace(
        statement_chunk(2, "LinkedIn revenue increased 17% driven by Talent Solutions.", page=35),
        distance=0.42,
    )
    asked = "How much revenue did LinkedIn generate in the quarter?"
    assert [c.chunk_id for c in with_named_documents([prose, table], asked, "vector")] == [
        table.chunk_id,
        prose.chunk_id,
    ]
    # A row holds no cause.
    why = "Why did LinkedIn revenue increase in the quarter?"
    assert with_named_documents([prose, table], why, "vector") == [prose, table]


def test_a_company_of_two_words_and_a_year_name_one_filing() -> None:
    words = names.name_words("What is MGM Resorts's year end FY2018 accounts payable?")
    named = names.name_boost(
        words, "MGM Resorts International 10-K 2018", "MGMRESORTS_2018_10K.pdf"
    )
    other = names.name_boost(
        words, "MGM Resorts International 10-K 2020", "MGMRESORTS_2020_10K.pdf"
    )
    assert named > other > 0.0
    # A company of three words and the form ("10-K") name all its filings as much: the year
    # still tells them apart.
    words = names.name_words("How many installations did American Water Works' FY2022 10-K list?")
    title = "AMERICAN WATER WORKS COMPANY, INC."
    named = names.name_boost(words, title, "AMERICANWATERWORKS_2022_10K.pdf")
    other = names.name_boost(words, title, "AMERICANWATERWORKS_2020_10K.pdf")
    assert named == pytest.approx(other + names.NAME_BOOST)


def test_a_hyphenated_name_names_the_file_that_runs_it_together() -> None:
    words = names.name_words("How much did The Coca-Cola Company pay in dividends in 2017?")
    assert {"coca", "cola", "cocacola"} <= words
    named = names.name_boost(words, "COCACOLA_2017_10K", "COCACOLA_2017_10K.pdf")
    other = names.name_boost(words, "PepsiCo, Inc.", "PEPSICO_2017_10K.pdf")
    assert named == pytest.approx(other + names.NAME_BOOST)


def test_a_term_set_in_quotes_is_read_whole_and_an_apostrophe_opens_none() -> None:
    assert quoted_terms("What does the Qwen2 report mean by the 'alignment tax'?") == [
        "alignment tax"
    ]
    assert quoted_terms("What is \u201cDual Chunk Attention\u201d in Qwen2?") == [
        "Dual Chunk Attention"
    ]
    assert quoted_terms("What does Cope mean by a composer's 'signature'?") == ["signature"]
    # Possessives and contractions quote nothing, nor does a single letter.
    assert quoted_terms("Why did Kraft Heinz's sales fall; don't the companies' 'a' rise?") == []


def test_a_passage_writes_a_quoted_term_across_lines_and_with_its_last_word_going_on() -> None:
    assert holds_phrases("to mitigate the alignment\ntax, i.e., the", ["alignment tax"])
    assert holds_phrases("Trace Trees record hot loops", ["trace tree"])
    assert not holds_phrases("the tax on alignment", ["alignment tax"])
    assert not holds_phrases("subtrace tree", ["trace tree"])


def test_what_a_question_writes_as_code_is_read_whole() -> None:
    assert code_terms("What do I write instead of \\on-the-fly #first-page?") == [
        "\\on-the-fly",
        "#first-page",
    ]
    assert code_terms("My runs with -dbackend=eps, or --enable-memory-profiling?") == [
        "-dbackend=eps",
        "--enable-memory-profiling",
    ]
    assert code_terms("What does ${parameter:-word} give, and asn1_der_decoding2()?") == [
        "${parameter:-word}",
        "asn1_der_decoding2",
    ]
    assert code_terms("How many points does locator() collect, and what does I() do?") == [
        "locator"
    ]
    assert code_terms("Is a self-hosted 10-K in C# a lua-widow-control -1?") == []


def test_a_passage_writes_a_code_term_as_it_is_and_not_inside_a_longer_name() -> None:
    assert writes_code("2.22 syntax\n\\on-the-fly #first-page ...", ["#first-page"])
    assert writes_code("Call locator(n) to read points", ["locator"])
    assert not writes_code("tol_int_max is 1e-5", ["tol_int"])
    assert not writes_code("the TOL_INT parameter", ["tol_int"])
    assert not writes_code("\\on-the-fly-first-page", ["\\on-the-fly"])


def test_a_passage_writing_the_quoted_term_rises_only_in_the_document_the_query_names() -> None:
    query = "What does Cope mean by a composer's 'signature'?"
    signatures = replace(
        statement_chunk(1, "SIGNATURE Pursuant to the requirements of the Exchange Act", page=68),
        distance=0.4,
    )
    cope = replace(
        statement_chunk(2, "Cope looks for the \u201csignature\u201d of a composer", page=4),
        document_filename="creativity.pdf",
        document_title="Creativity in ML",
        distance=0.45,
    )
    unquoted = replace(statement_chunk(3, "Cope wrote music with EMI", page=4), distance=0.2)
    ranked = with_named_documents([unquoted, signatures, cope], query, "vector")
    assert [candidate.chunk_id for candidate in ranked] == [
        cope.chunk_id,
        unquoted.chunk_id,
        signatures.chunk_id,
    ]
    assert ranked[0].name_boost == names.QUOTED_BOOST


def test_a_name_of_the_document_is_held_by_each_of_its_passages() -> None:
    # The introduction never says "Thoma"; its file name does, as the query's "Thoma's paper".
    introduction = replace(
        statement_chunk(1, "According to [Gad06] creativity is the ability to ...", page=1),
        document_filename="creativity-in-ml_thoma.pdf",
        document_title="Creativity in Machine Learning",
    )
    assert names_document(introduction, ["Thoma"])
    assert not names_document(introduction, ["Cope"])


def test_a_month_names_a_date_not_a_thing_a_passage_must_write() -> None:
    # The CVS paper writes the date "as of 11/11/89".
    asked = "How many files did Prisma have under cvs control as of November 1989?"
    assert name_phrases(asked) == [("Prisma",)]
    assert name_phrases("What was revenue in the quarter ended June 30, 2022?") == []


def test_a_name_given_as_the_author_of_a_work_is_the_documents() -> None:
    assert names.authored_names("What is cvs, as described in Berliner's paper?") == ["Berliner"]
    assert names.authored_names("How does Thoma's creativity paper define it?") == ["Thoma"]
    assert names.authored_names("What does the report by Jane Doe find?") == ["Jane Doe"]
    assert names.authored_names("What do Vaswani et al. propose?") == ["Vaswani"]
    assert names.authored_names("What was Amazon's revenue in 2022?") == []
    # Which source is asked, like "the paper": its passages seldom write it.
    assert "Berliner" not in names.without_authors("What is cvs, in Berliner's paper?")
