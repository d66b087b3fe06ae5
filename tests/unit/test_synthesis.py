"""Extractive synthesis: claims ranked by worth, quoted from the chunks, markers pointing at
page-exact sources, and no answer rather than a wrong one."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from app.answer.claims import (
    EMPTY_ANSWER,
    Answer,
    Quote,
    sentence_pages,
    shown_text,
    source_label,
    stem,
    terms,
)
from app.answer.kinds import (
    counted_things,
    defined_things,
    exemplified,
    framed_elsewhen,
    gives_examples,
    holds_kind,
    measures_named,
    other_measure,
    states_counts,
    states_default,
    states_definition,
    year_asked,
)
from app.answer.synthesis import (
    CALIBRATED_TRUSTED,
    EMBEDDED_UNITS,
    LACKING_KIND_CONFIDENCE,
    MAX_CLAIMS,
    TRUSTED,
    ScoredUnit,
    _unrepeated,
    is_code_name,
    score_units,
    synthesize,
)
from app.answer.units import MAX_LIST_CHARS, chunk_sentences
from app.core.asked import Asked, asked_kinds, asks_default
from app.core.geometry import chunk_segments
from app.core.questions import (
    fiscal_years_spelled,
    question_core,
    question_parts,
    without_frame_words,
)
from app.core.records import PAGE_BREAK
from app.core.sentences import split_sentences
from app.embedding import Embedder
from app.embedding.backends import FloatArray
from tests.helpers.chunks import DOC_B, SEARCH, TRACING, Chunk, chunk, statement_chunk

QUERY = "how does a tracing compiler speed up hot loops"


def test_terms_drop_stopwords_and_stem() -> None:
    assert terms("How does the Tracing compiler record loops?") == {
        "trac",
        "compiler",
        "record",
        "loop",
    }
    assert stem("speed") == "speed" and stem("speeds") == "speed"
    # An irregular verb's past form is its verb: "How much did Verizon pay?" meets "paid".
    assert stem("paid") == stem("pay") and stem("drove") == stem("driven") == stem("drives")
    # A plural in "-ues" is its singular; a filing's word is a question's.
    assert stem("revenues") == stem("revenue") and stem("values") == stem("value")
    assert stem("buybacks") == stem("repurchases") == stem("repurchase")
    assert stem("shareholders") == stem("stockholders") == stem("shareowners")


def test_source_label() -> None:
    assert source_label("tracemonkey.pdf", 3, 3) == "tracemonkey.pdf, p. 3"
    assert source_label("tracemonkey.pdf", 3, 4) == "tracemonkey.pdf, pp. 3-4"


def assert_quoted(answer_text: str, claims: list, sources: list[str]) -> None:  # type: ignore[type-arg]
    """Every claim is its chunk's text up to whitespace and dropped markers, and every [n] in
    the answer is a marker of an existing source."""
    assert claims
    numbers = [int(n) for n in re.findall(r"(?<=\s)\[(\d+)\]", answer_text)]
    assert len(numbers) == len(claims)
    assert all(1 <= n <= len(sources) for n in numbers)
    for claim in claims:
        assert claim.text == shown_text(claim.chunk.content, claim.parts)
        assert f"{claim.text} [{claim.source}]" in answer_text


def test_answer_quotes_and_cites(embedder: Embedder) -> None:
    answer = synthesize(QUERY, [TRACING, SEARCH], [TRACING, SEARCH], embedder)
    assert answer.sources == ["tracemonkey.pdf, p. 3"]
    assert answer.claims[0].text == (
        "A tracing compiler turns the recorded loops into fast native code."
    )
    assert "weather" not in answer.text
    assert_quoted(answer.text, answer.claims, answer.sources)
    [citation] = answer.citations
    assert (citation.n, citation.document_name, citation.page_start, citation.page_end) == (
        1,
        "tracemonkey.pdf",
        3,
        3,
    )
    assert citation.chunk_id == TRACING.chunk_id
    assert 0 < answer.confidence <= 1


def test_claims_are_ordered_by_worth_not_position(embedder: Embedder) -> None:
    airplanes = chunk(
        6,
        "This proposed AD was prompted by reports of cracking in the wing structure of "
        "certain transport category airplanes operated under a range of conditions. "
        "The FAA estimates that this proposed AD affects 73 airplanes of U.S. registry.",
        document_filename="register.pdf",
    )
    answer = synthesize(
        "How many airplanes of U.S. registry does the proposed AD affect?",
        [airplanes],
        [airplanes],
        embedder,
    )
    assert answer.claims[0].text.endswith("affects 73 airplanes of U.S. registry.")


def test_sources_are_numbered_as_first_cited(embedder: Embedder) -> None:
    other = chunk(
        3,
        "Hot loops are where a tracing compiler spends its effort to speed them up.",
        page_start=9,
        page_end=9,
        document_id=DOC_B,
        document_filename="other.pdf",
    )
    answer = synthesize(QUERY, [TRACING, other], [other, TRACING], embedder)
    numbers = [int(n) for n in re.findall(r"\[(\d+)\]", answer.text)]
    assert sorted(set(numbers)) == list(range(1, len(answer.sources) + 1))
    assert numbers == sorted(numbers)
    assert [c.n for c in answer.citations] == list(range(1, len(answer.sources) + 1))
    assert len(answer.claims) <= MAX_CLAIMS


def test_quoted_bracket_numbers_are_not_markers(embedder: Embedder) -> None:
    cited = chunk(
        7,
        "As shown in [21], a tracing compiler [4, 5] speeds up hot loops by compiling them.",
    )
    answer = synthesize(QUERY, [cited], [cited], embedder)
    [claim] = answer.claims
    assert claim.text == "As shown in, a tracing compiler speeds up hot loops by compiling them."
    assert re.findall(r"\[\d+\]", answer.text) == ["[1]"]
    # The claim still rests on the exact text, markers and all.
    assert cited.content[claim.start : claim.end] == cited.content


def test_answer_is_deterministic_and_order_free(embedder: Embedder) -> None:
    twin = chunk(4, TRACING.content, page_start=5, page_end=5, page_span_end=160)
    first = synthesize(QUERY, [TRACING, twin], [TRACING, twin], embedder)
    assert first == synthesize(QUERY, [TRACING, twin], [TRACING, twin], embedder)
    # A repeated sentence is quoted once, from the better-ranked chunk.
    assert first.sources == ["tracemonkey.pdf, p. 3"]
    swapped = synthesize(QUERY, [twin, TRACING], [TRACING, twin], embedder)
    assert swapped.sources == ["tracemonkey.pdf, p. 5"]


def test_no_context_is_an_empty_answer(embedder: Embedder) -> None:
    answer = synthesize(QUERY, [], [], embedder)
    assert (answer.text, answer.sources, answer.confidence, answer.claims) == ("", [], 0.0, [])


def test_an_unrelated_question_gets_no_answer(embedder: Embedder) -> None:
    answer = synthesize("What is the capital of France?", [TRACING, SEARCH], [TRACING], embedder)
    assert (answer.text, answer.sources, answer.citations, answer.claims) == ("", [], [], [])


def test_a_passage_lacking_the_questions_rarer_words_does_not_answer(embedder: Embedder) -> None:
    # Near in meaning, but retrieval found its chunk holds little of what the question names.
    populations = chunk(
        3,
        "Table 1 lists the population of each EU country in millions: Austria 8.9, Belgium 11.5.",
    )
    query = "What is the population of Germany?"
    assert synthesize(query, [populations], [populations], embedder).text
    lacking = replace(populations, term_coverage=0.3)
    assert synthesize(query, [lacking], [lacking], embedder) == EMPTY_ANSWER
    holding = replace(populations, term_coverage=0.8)
    assert synthesize(query, [holding], [holding], embedder).text


def test_a_claim_that_echoes_the_question_is_never_confident(embedder: Embedder) -> None:
    echo = chunk(6, "The reference architecture divides an HPC system into four function zones.")
    query = "What are the four function zones of the HPC system reference architecture?"
    answer = synthesize(query, [echo], [echo], embedder)
    assert answer.text and answer.confidence <= LACKING_KIND_CONFIDENCE


def test_a_trusted_confidence_reads_at_least_the_share_found_right() -> None:
    # Nothing between TRUSTED and CALIBRATED_TRUSTED: what the fit trusts reads as what
    # bench/data measured of it, and the scale keeps its order.
    confidences = [
        ScoredUnit(
            0.0, similarity, coverage, kind, 0, lead, TRACING, ((0, 10),), "", frozenset()
        ).confidence
        for similarity in (0.2, 0.5, 0.8)
        for coverage in (0.0, 0.5, 1.0)
        for kind in (0, 1)
        for lead in (0.0, 0.1, 0.2, 0.3, 0.5)
    ]
    assert not any(TRUSTED <= c < CALIBRATED_TRUSTED for c in confidences)
    assert any(c >= CALIBRATED_TRUSTED for c in confidences)
    assert any(c < TRUSTED for c in confidences)
    assert all(0.0 <= c <= 1.0 for c in confidences)


def table_chunk(n: int, header: list[str], rows: list[str], **fields: object) -> Chunk:
    head = "\n".join(header)
    content = "\n".join([head, *rows])
    return chunk(
        n,
        content,
        page_span_end=len(content),
        table_header=(0, len(head)),
        table_header_text=" ".join(header),
        **fields,
    )


def test_the_row_whose_label_is_asked_for_answers(embedder: Embedder) -> None:
    period = ["(In millions)", "Three Months Ended March 31,", "2023 2022"]
    segments = table_chunk(
        4,
        ["Segment revenue and operating income were as follows:", *period],
        ["Intelligent Cloud 22,081 18,987", "More Personal Computing 13,260 14,584"],
    )
    summary = table_chunk(
        5,
        [
            "PART I Item 2",
            "(In millions, except percentages and per share amounts)",
            "SUMMARY RESULTS OF OPERATIONS",
            "Three Months Ended March 31,",
            "Percentage Change",
            "2023 2022",
        ],
        [
            "Revenue $ 52,857 $ 49,360 7%",
            "Gross margin 36,794 33,740 9%",
            "Operating income 22,352 20,364 10%",
            "Net income 18,299 16,728 9%",
            "Diluted earnings per share 2.45 2.22 10%",
        ],
        distance=0.4,
    )
    query = "What was the operating income for the three months ended March 31, 2023?"
    # The segments' table ranked first, and its header holds every word the question asks.
    ranked = [segments, TRACING, SEARCH, summary]
    answer = synthesize(query, ranked, [segments, summary], embedder)
    assert answer.claims[0].text.endswith("Operating income 22,352 20,364 10%")


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


def test_sentence_across_a_page_break_cites_both_pages(embedder: Embedder) -> None:
    crossing, page_3, page_4 = crossing_chunk()
    spans = chunk_sentences(crossing.content, len(crossing.content) - 40 - 2)
    sentences = [crossing.content[a:b] for a, b in spans]
    assert sentences[0].startswith("A tracing compiler") and sentences[0].endswith("native code.")
    assert sentence_pages(crossing, *spans[0]) == (3, 4)
    assert sentence_pages(crossing, *spans[1]) == (4, 4)
    answer = synthesize(QUERY, [crossing], [crossing], embedder)
    assert answer.sources[0] == "tracemonkey.pdf, pp. 3-4"
    assert answer.claims[0].text == " ".join(sentences[0].split())
    segments = chunk_segments(crossing)
    for segment, page in zip(segments, (page_3, page_4), strict=True):
        piece = crossing.content[segment.start : segment.end]
        assert page[segment.page_offset : segment.page_offset + len(piece)] == piece


def test_a_selected_passage_answers_what_is_asked_about_it(embedder: Embedder) -> None:
    answer = synthesize("what does this mean?", [SEARCH, TRACING], [SEARCH, TRACING], embedder)
    assert answer.claims == []
    selected = synthesize(
        "what does this mean?", [SEARCH, TRACING], [SEARCH, TRACING], embedder, selected=True
    )
    assert selected.claims[0].chunk == SEARCH


class CountingEmbedder:
    """The real model, noting the texts it is given."""

    def __init__(self, model: Embedder) -> None:
        self.model = model
        self.name, self.dim, self.batch_size = model.name, model.dim, model.batch_size
        self.parallel_batches = 1  # the texts noted in the order given
        self.texts: list[str] = []

    def embed_batch(self, texts: Sequence[str]) -> FloatArray:
        self.texts += texts
        return self.model.embed_batch(texts)

    def embed_queries(self, texts: Sequence[str]) -> FloatArray:
        self.texts += texts
        return self.model.embed_queries(texts)


def test_only_the_units_that_hold_most_of_the_question_are_embedded(embedder: Embedder) -> None:
    filler = [
        chunk(10 + n, f"Section {n} lists the fees charged in the year {2000 + n}. " * 3)
        for n in range(EMBEDDED_UNITS)
    ]
    counting = CountingEmbedder(embedder)
    answer = synthesize(QUERY, [*filler, TRACING], [*filler, TRACING], counting)
    # Each text once, and of the units only the EMBEDDED_UNITS that hold most of the
    # question's terms: not the last-ranked chunk's sentence that holds none of them.
    assert len(counting.texts) == len(set(counting.texts)) == EMBEDDED_UNITS + 1
    assert "Trace trees record hot loops in a dynamic language." in counting.texts
    assert "The weather was pleasant that year." not in counting.texts
    assert answer.claims[0].text == (
        "A tracing compiler turns the recorded loops into fast native code."
    )


def test_in_selection_mode_every_unit_of_the_selected_passage_is_weighed(
    embedder: Embedder,
) -> None:
    days = " ".join(f"Nothing else happened on day {n}." for n in range(EMBEDDED_UNITS))
    passage = chunk(9, f"{days} The weather was pleasant that year.")
    counting = CountingEmbedder(embedder)
    synthesize(QUERY, [passage, TRACING], [passage, TRACING], counting, selected=True)
    assert "The weather was pleasant that year." in counting.texts


def test_how_do_i_asks_for_code() -> None:
    question = "Which asn1Decoding option turns on strict DER decoding?"
    kinds = asked_kinds(question)
    assert kinds == {Asked.CODE}
    assert holds_kind("-s, --strict use strict DER decoding", kinds, question)
    assert holds_kind("To see it, type help(solve) at the prompt.", kinds, question)
    assert holds_kind("To delete it, use value=NULL and len=0.", kinds, question)
    # The tool the question names is no answer, nor is prose.
    assert not holds_kind("asn1Decoding decodes DER data.", kinds, question)
    assert not holds_kind("A well-known decoder (see below) is strict.", kinds, question)
    assert not holds_kind("Set x = 1 first.", kinds, question)
    assert not asked_kinds("How does a tracing compiler speed up hot loops?")


def test_when_asks_for_a_date_as_the_questions_word_not_as_a_clauses() -> None:
    dated = {Asked.DATE}
    assert asked_kinds("When did Amazon complete its acquisition of One Medical?") == dated
    assert asked_kinds("When and where was the very first DebConf held?") == dated
    assert asked_kinds("Who created the ELIZA chatbot, and when?") == dated
    assert not asked_kinds("When reading a BioTapestry model, which links does BoolNet keep?")
    assert not asked_kinds("Which startup files does bash read when it starts as a login shell?")


def test_a_definition_is_asked_of_something_not_named_by_one() -> None:
    assert asked_kinds("How does the paper define chatbots?") == {Asked.DEFINITION}
    assert asked_kinds("Whose formal definition of machine learning does it quote?") == {
        Asked.DEFINITION
    }
    assert not asked_kinds("For a function definition, where does the opening brace go?")


def test_the_longest_or_most_allowed_asks_for_an_amount() -> None:
    assert Asked.AMOUNT in asked_kinds("What is the longest a token in a kinemage file may be?")
    assert Asked.AMOUNT in asked_kinds("What is the maximum number of pointmasters?")


def test_why_asks_for_a_cause_not_the_figure_it_names() -> None:
    question = "Why did Walmart's consolidated net income decline in fiscal 2018?"
    kinds = asked_kinds(question)
    assert kinds == {Asked.REASON}
    assert asked_kinds("What drove General Mills' net sales growth in fiscal 2020?") == kinds
    assert asked_kinds("What were the main factors behind Kraft Heinz's sales decline?") == kinds
    assert asked_kinds("What were the main reasons PBNA's operating profit rose in 2021?") == kinds
    assert asked_kinds("Which programs and factors accounted for the increase?") == kinds
    assert asked_kinds("What is the reason code of the error?") != kinds
    assert asked_kinds("What makes a computer-engraved score feel cold?") == kinds
    assert asked_kinds("What makes up the company's total debt?") != kinds
    rationale = "What is the reasoning behind preferring deep indents?"
    assert asked_kinds(rationale) == kinds
    assert holds_kind(
        "Rationale: The whole idea behind indentation is to clearly define where a block of "
        "control starts and ends.",
        kinds,
        rationale,
    )
    assert holds_kind(
        "The decline was primarily due to the loss on extinguishment of debt.", kinds, question
    )
    assert not holds_kind(
        "Consolidated net income attributable to Walmart $ 9,862 $ 13,643", kinds, question
    )
    # A small number between a name and a word is part of the name, a row's figure is not.
    asked = "How much revenue did Microsoft's Dynamics products generate in the quarter?"
    amount = asked_kinds(asked)
    assert not holds_kind("revenue increased 22% driven by Dynamics 365 growth", amount, asked)
    assert holds_kind("Dynamics 1,540 1,260", amount, asked)
    assert holds_kind("Other 95 87", amount, asked)
    # What went on as a figure changed is its cause; a comparison is none.
    assert holds_kind(
        "Revenue was $1.4 billion, down $847 million, as customers tempered purchases",
        kinds,
        question,
    )
    assert not holds_kind("Net income was up 5%, as compared to last year", kinds, question)


def test_a_year_the_question_names() -> None:
    question = "How many F-35 aircraft did Lockheed Martin deliver in FY2021?"
    assert year_asked("In 2021, we delivered 142 aircraft.", question) == 1
    assert year_asked("Since inception, we have delivered 753 aircraft.", question) == 0
    assert year_asked("For the Year Ended December 29, 2018 Goodwill impairment", question) == -1
    assert year_asked("In 2021, we delivered 142 aircraft.", "How many were delivered?") == 0


def test_a_sentence_placed_in_another_year_by_its_first_words() -> None:
    question = "Why did Walmart's consolidated gross profit rate decline in fiscal 2018?"
    assert framed_elsewhen("For fiscal 2017, the increase was due to lower fuel costs.", question)
    assert framed_elsewhen("In 2016, the rate rose.", question)
    assert not framed_elsewhen("For fiscal 2018, the decrease was due to price cuts.", question)
    # A year further on, or one the question does not name, places nothing.
    assert not framed_elsewhen("The rate fell in fiscal 2017, then rose.", question)
    assert not framed_elsewhen("In 2018 compared to 2017, the rate fell.", question)
    assert not framed_elsewhen("For fiscal 2017, the rate rose.", "Why did the rate fall?")
    # A measure in its year is the subject.
    assert framed_elsewhen(
        "The gross profit rate in fiscal 2017 increased 10 basis points.", question
    )
    assert not framed_elsewhen("The gross profit rate in fiscal 2018 decreased.", question)
    # The months ended at the first year a sentence names are its period.
    deposits = "How much did average deposits grow in the first quarter of 2021?"
    assert framed_elsewhen(
        "Average deposits increased for the three months ended June 30, 2022 compared to the "
        "three months ended June 30, 2021.",
        deposits,
    )
    assert not framed_elsewhen(
        "Average deposits increased for the three months ended March 31, 2021 compared to the "
        "three months ended March 31, 2020.",
        deposits,
    )


def test_a_sentence_of_other_months_than_the_question_asks_of() -> None:
    question = (
        "What drove the increase in AWS operating income in the three months ended September "
        "30, 2023?"
    )
    nine = "The decrease in AWS operating income for the nine months ended September 30, 2023"
    assert framed_elsewhen(f"{nine} is primarily due to increased payroll.", question)
    assert not framed_elsewhen(
        "The increase in AWS operating income in Q3 2023 is due to", question
    )
    # A sentence of both periods is of the one asked too; one that names no months is of none.
    assert not framed_elsewhen(
        "AWS sales increased 12% in Q3 2023, and 13% for the nine months ended September 30, 2023.",
        question,
    )
    assert not framed_elsewhen("AWS operating income increased on higher sales.", question)
    both = "Net sales by segment for the three- and nine-month periods ended September 30, 2023"
    assert not framed_elsewhen(both, question)
    assert framed_elsewhen(
        "In the quarter, AWS operating income rose.",
        "What did AWS earn in the six months ended June 30, 2023?",
    )


def test_the_chunk_whose_header_names_the_company_answers(embedder: Embedder) -> None:
    apple = chunk(
        30,
        "Total revenue was $82,959 million for the quarter.",
        context_header="Apple Inc.; Form 10-Q, quarterly period ended June 25, 2022",
    )
    microsoft = chunk(
        31,
        "Total revenue was $50,122 million for the quarter.",
        context_header="Microsoft Corp; Form 10-Q, quarterly period ended September 30, 2022",
        document_id=DOC_B,
        document_filename="2022_Q3_MSFT.pdf",
    )
    ranked = [apple, microsoft]
    question = "What was Microsoft's total revenue for the quarter ended September 30, 2022?"
    answer = synthesize(question, ranked, ranked, embedder)
    # The same words, the better-ranked chunk: the header's company and period decide.
    assert answer.claims[0].chunk.chunk_id == microsoft.chunk_id


def test_a_claim_without_the_kind_asked_for_is_never_confident(embedder: Embedder) -> None:
    sample = chunk(40, "This is a sample document with two columns filled with Lorem Ipsum text.")
    answer = synthesize(
        "What date appears on the two-column Lorem Ipsum sample document?",
        [sample],
        [sample],
        embedder,
    )
    assert answer.claims and answer.confidence < 0.5


def test_which_had_the_highest_is_never_answered_confidently_by_a_quote(
    embedder: Embedder,
) -> None:
    resorts = chunk(
        5,
        "At December 31, 2018, our Las Vegas Strip resorts were Bellagio, MGM Grand Las Vegas, "
        "Mandalay Bay, The Mirage, Luxor and Excalibur, with 36,000 guestrooms in all.",
    )
    asked = "How many guestrooms did MGM Resorts' Las Vegas Strip resorts have in 2018?"
    compared = "Which of MGM Resorts' Las Vegas Strip resorts had the most guestrooms in 2018?"
    assert synthesize(asked, [resorts], [resorts], embedder).confidence > LACKING_KIND_CONFIDENCE
    answer = synthesize(compared, [resorts], [resorts], embedder)
    assert answer.claims and answer.confidence <= LACKING_KIND_CONFIDENCE


def test_cjk_text_is_split_into_sentences_and_pairs_of_letters() -> None:
    text = "根据报告\uff0c评估价值为7,013.685万元。我们查看了\n报告。"
    assert [text[a:b] for a, b in split_sentences(text)] == [
        "根据报告\uff0c评估价值为7,013.685万元。",
        "我们查看了\n报告。",
    ]
    assert {"评估", "估价", "价值"} <= terms("评估价值是多少")
    # A line break inside CJK text cuts no word: the quoted claim reads without it.
    assert shown_text(text, [(text.index("我"), len(text))]) == "我们查看了报告。"


def test_a_questions_core_leaves_its_instructions_out() -> None:
    question = (
        "What is the FY2021 capital expenditure amount (in USD billions) for PepsiCo? Respond "
        "to the question by assuming the perspective of an investment analyst. Round your "
        "answer to two decimal places."
    )
    assert question_core(question) == "What is the FY2021 capital expenditure amount for PepsiCo?"
    announced = (
        "We need to calculate a reasonable approximation of a financial metric. Here's the "
        "question: what is Adobe's FY2015 unadjusted EBITDA in USD millions?"
    )
    assert question_core(announced) == "what is Adobe's FY2015 unadjusted EBITDA?"
    assert fiscal_years_spelled("What is MGM's FY2018 - FY 2020 capex?") == (
        "What is MGM's fiscal year 2018 - fiscal year 2020 capex?"
    )
    assert fiscal_years_spelled("What was FY23 revenue?") == "What was FY23 revenue?"
    framed = "According to R's introduction manual, how does the paper define locator()?"
    framed_out = " ".join(without_frame_words(framed).split())
    assert framed_out == "to R's introduction , how does the locator()?"
    # A filing says why in its own words ("primarily due to"), never "drove".
    drove = "What drove the increase in AWS operating income?"
    assert (
        " ".join(without_frame_words(drove).split()) == "What the increase in AWS operating income?"
    )
    # Nor "much": a statement writes the amount ("$ 6,628").
    spent = "How much did Microsoft spend on research and development?"
    assert " ".join(without_frame_words(spent).split()) == (
        "did Microsoft spend on research and development?"
    )
    # A sentence that asks stays, whatever it opens with; a plain question is left alone.
    asking = "Basing your judgments off of the balance sheet, what is the FY2018 payable?"
    assert question_core(asking) == asking
    assert question_core("Round your answer.") == "Round your answer."


def test_the_asks_a_question_joins() -> None:
    assert question_parts(
        "What change did Microsoft make to the useful lives of its servers, and by how much did "
        "it increase operating income?"
    ) == [
        "What change did Microsoft make to the useful lives of its servers",
        "by how much did it increase operating income?",
    ]
    # "and" between things asked of is one ask.
    assert question_parts("What were the revenue and operating income in 2021?") == [
        "What were the revenue and operating income in 2021?"
    ]


def test_each_thing_asked_is_answered(embedder: Embedder) -> None:
    note = chunk(
        40,
        "In September 2023 we invested in a $1.25 billion note from Anthropic, PBC, which is "
        "convertible to equity. We have an agreement that expires in Q1 2024 to invest up to an "
        "additional $2.75 billion in a second convertible note. We also have a commercial "
        "arrangement for the provision of cloud services.",
    )
    question = (
        "How much did Amazon invest in Anthropic in September 2023, and how much more did it "
        "agree to invest?"
    )
    answer = synthesize(question, [note], [note], embedder)
    claims = [claim.text for claim in answer.claims]
    assert any("$1.25 billion" in claim for claim in claims)
    assert any("$2.75 billion" in claim for claim in claims)
    assert_quoted(answer.text, answer.claims, answer.sources)
    # The second ask's claim is no surer than the first's.
    assert answer.claims[-1].confidence <= answer.claims[0].confidence


def test_a_row_of_figures_never_says_why(embedder: Embedder) -> None:
    results = chunk(
        41,
        "THE COCA-COLA COMPANY CONSOLIDATED STATEMENTS OF INCOME\n"
        "Year Ended December 31, 2017 2016 2015\n"
        "NET OPERATING REVENUES $ 35,410 $ 41,863 $ 44,294\n"
        "Operating income 7,501 8,626 8,728\n\n"
        "The refranchising of company-owned bottling operations in North America reduced "
        "revenues.",
    )
    question = "Why did Coca-Cola's net operating revenues decline in FY2017?"
    answer = synthesize(question, [results], [results], embedder)
    assert [claim.text for claim in answer.claims] == [
        "The refranchising of company-owned bottling operations in North America reduced revenues."
    ]


def test_a_claim_that_announces_the_answer_goes_on_to_it(embedder: Embedder) -> None:
    preemption = chunk(
        42,
        "SpiderMonkey, like many VMs, needs to preempt the user program periodically. The main "
        "reasons are to prevent infinitely looping scripts from locking up the host system and "
        "to schedule GC.\n\nIn the interpreter, this had been implemented by a flag.",
    )
    question = "Why does SpiderMonkey need to preempt the running program periodically?"
    answer = synthesize(question, [preemption], [preemption], embedder)
    claims = [claim.text for claim in answer.claims]
    assert claims[:2] == [
        "SpiderMonkey, like many VMs, needs to preempt the user program periodically.",
        "The main reasons are to prevent infinitely looping scripts from locking up the host "
        "system and to schedule GC.",
    ]
    assert "interpreter" not in answer.text
    assert answer.claims[1].confidence <= answer.claims[0].confidence
    assert_quoted(answer.text, answer.claims, answer.sources)


def test_no_claim_is_quoted_twice() -> None:
    # Overlapping chunks: the sentence a claim goes on to may open the next chunk, where
    # another of the question's asks finds it.
    ending = chunk(
        52, "In particular, the bitops benchmarks are short. TraceMonkey runs the\nrest."
    )
    opening = chunk(53, "TraceMonkey runs the rest.\n\nregexp-dna is dominated by matching.")
    quotes = [
        Quote(ending, ((0, 49),), "In particular, the bitops benchmarks are short.", 0.5),
        Quote(ending, ((50, 75),), "TraceMonkey runs the\nrest.", 0.5),
        Quote(opening, ((0, 26),), "TraceMonkey runs the rest.", 0.5),
    ]
    assert _unrepeated(quotes) == quotes[:2]


def test_a_claim_writing_the_code_name_asked_about_answers_at_a_lower_floor(
    embedder: Embedder,
) -> None:
    reference = chunk(
        43,
        "The first element of a SEQUENCE OF or SET OF is named ?1. If the root provided is a "
        'node to specific sequence element, then the keyword "?CURRENT" is also acceptable and '
        "indicates the current sequence element of this node.",
    )
    question = "When reading values with libtasn1, what does the special name ?CURRENT refer to?"
    answer = synthesize(question, [reference], [reference], embedder)
    assert "?CURRENT" in answer.text
    # A company's name with a hyphen is no code.
    assert all(map(is_code_name, ["?CURRENT", "asn1_write_value", "Qwen2-72B"]))
    assert not is_code_name("Coca-Cola") and not is_code_name("C-Eval")


def test_the_row_of_the_command_asked_as_written_comes_before_a_command_of_other_case(
    embedder: Embedder,
) -> None:
    # LaTeX's font guide: \large and \Large are two commands, the same words to the terms.
    sizes = chunk(45, "\\normalsize size 10pt\n\\large size 12pt\n\\Large size 14.4pt\n")
    question = "In LaTeX's standard article class, what font size does the \\Large command give?"
    best = score_units(question, [sizes], [sizes], embedder)[0]
    assert best.text.endswith("\\Large size 14.4pt")


def test_a_claim_counting_each_thing_asked_how_many_of_answers_at_a_lower_floor(
    embedder: Embedder,
) -> None:
    overview = chunk(
        44,
        "Each of our 57,500 full- and part-time employees in 44 countries make an important "
        "contribution, whether in one of our manufacturing or processing facilities, research "
        "labs, sales offices or other facilities.",
    )
    question = "How many employees did Corning have, and in how many countries, in FY2022?"
    assert counted_things(question) == ["employe", "countr"]
    answer = synthesize(question, [overview], [overview], embedder)
    assert "57,500" in answer.text
    # A count must stand before the thing it counts, and a year counts nothing.
    assert states_counts("we delivered 142 F-35 aircraft", counted_things("How many aircraft?"))
    assert not states_counts("aircraft delivered: 142", ["aircraft"])
    assert not states_counts("In 2021 aircraft deliveries rose", ["aircraft"])
    assert counted_things("How many of the zones are there?") == []
    # A figure's comma is no part of it: "0," counts no commands.
    commands = counted_things("How many commands does the history list keep?")
    assert not states_counts("If the value is 0, commands are not saved", commands)
    assert states_counts("it keeps 500 commands", commands)


def test_a_default_asked_is_read_on_to_the_default_its_entry_ends_with(
    embedder: Embedder,
) -> None:
    # nauty's guide: the entry describes its option, then "Default 100.", too short a claim.
    entry = chunk(
        57,
        "int tc_level: Two rules are available to choose target cells. On levels up to level\n"
        "tc_level, inclusive, an expensive but (empirically) highly effective rule is used.\n"
        "(The root of the search tree is at level one.) At deeper levels, a cheaper rule is "
        "used.\nFor difficult graphs, a large value is recommended. For easier graphs, use 0. "
        "Default\n100.\n\nint mininvarlevel: The minimum level at which invarproc will be "
        "applied. Default 0.",
    )
    question = "What is the default value of nauty's tc_level option?"
    answer = synthesize(question, [entry], [entry], embedder)
    assert "Default 100." in answer.text and "Default 0." not in answer.text


def test_a_default_asked_is_answered_by_the_claim_that_gives_it(embedder: Embedder) -> None:
    history = chunk(
        56,
        "The value of the HISTSIZE variable is used as the number of commands to save in a "
        "history list. If the value is 0, commands are not saved in the history list. The text "
        "of the last HISTSIZE commands (default 500) is saved.",
    )
    question = "How many commands does the history list keep by default?"
    assert asks_default(question) and asks_default("What is KLU's default pivot tolerance?")
    assert not asks_default("What counts as an Event of Default under the agreement?")
    assert not asks_default("Which notes are in default?")
    assert states_default("the predefined number of 1000 iterations")
    answer = synthesize(question, [history], [history], embedder)
    assert answer.text.startswith("The text of the last HISTSIZE commands (default 500)")
    # Nor does a number the question writes itself count what it names.
    about_max = "How many 737 MAX airplanes of U.S. registry would the AD affect?"
    assert not states_counts("applies to all 737 MAX airplanes", ["airplan"], about_max)
    assert not states_counts("Model 737-8 and 737- 9 (737 MAX) airplanes", ["airplan"], about_max)
    assert states_counts("this AD affects 73 airplanes of U.S. registry", ["airplan"], about_max)
    assert states_counts(
        "26 short-running (under 250ms, average 26ms) JavaScript programs", ["program"]
    )


def test_a_claim_whose_figures_count_other_things_is_never_confident(
    embedder: Embedder,
) -> None:
    applicability = chunk(
        47,
        "This proposed AD would apply only to the 737 MAX airplanes identified in Boeing "
        "Special Attention Service Bulletin 737-31-1860, dated June 12, 2020.",
    )
    query = "How many airplanes of U.S. registry would the proposed 737 MAX AD affect?"
    answer = synthesize(query, [applicability], [applicability], embedder)
    assert answer.confidence <= LACKING_KIND_CONFIDENCE
    costs = chunk(
        48, "The FAA estimates that this proposed AD affects 73 airplanes of U.S. registry."
    )
    answer = synthesize(query, [costs, applicability], [costs, applicability], embedder)
    assert answer.text.startswith("The FAA estimates that this proposed AD affects 73 airplanes")


def test_a_question_asking_for_examples_is_answered_by_examples_of_what_it_names(
    embedder: Embedder,
) -> None:
    query = "Which container runtimes does the NIST HPC security guide give as examples?"
    assert asked_kinds(query) == {Asked.EXAMPLE}
    assert exemplified(query) == {"container", "runtim"}
    sanitizing = "What practices does SP 800-223 list as examples of sanitizing compute nodes?"
    assert gives_examples("Examples of compute node sanitization include:", exemplified(sanitizing))
    # Examples of something else ("tools") give none of container runtimes.
    assert not gives_examples("there are tools (e.g., Qualys, Anchore)", exemplified(query))
    surface = chunk(
        25,
        "Containers, container runtimes, and container orchestrators all increase the security "
        "attack surface for HPC systems.",
    )
    runtimes = chunk(
        17,
        "Containers are executed by a container runtime, such as Docker, Containerd, Apptainer, "
        "or Charliecloud.",
    )
    assert synthesize(query, [surface], [surface], embedder).confidence <= LACKING_KIND_CONFIDENCE
    answer = synthesize(query, [surface, runtimes], [surface, runtimes], embedder)
    assert "such as Docker" in answer.text
    assert answer.confidence > LACKING_KIND_CONFIDENCE


def test_an_amount_of_another_measure_is_never_confident(embedder: Embedder) -> None:
    revenues = chunk(
        54,
        "The Consumer segment's operating revenues for the year ended December 31, 2021 totaled "
        "$95.3 billion, an increase of $6.8 billion, or 7.6%, compared to 2020.",
    )
    query = "What was the segment operating income of Verizon's Consumer segment in 2021?"
    assert measures_named(query) == {"income"}
    assert measures_named(revenues.content) == {"revenue"}
    answer = synthesize(query, [revenues], [revenues], embedder)
    assert answer.confidence <= LACKING_KIND_CONFIDENCE
    # Earnings are income, in the filings' words; net income is not net interest income.
    assert measures_named("net earnings rose to $2.1 billion") == {"income"}
    nii = "What was JPMorgan's net interest income in the second quarter of 2023?"
    assert other_measure("JPMorgan reported net income of $14.5 billion", nii)
    assert not other_measure("Net interest income was $21.9 billion, up 44%", nii)
    # A statement's name, over every row of it, is no measure of the row's.
    mga = "How much did Intel spend on marketing, general, and administrative expenses?"
    row = "Consolidated Condensed Statements of Income Marketing, general, and administrative 1,303"
    assert not other_measure(row, mga)
    assert other_measure("Consolidated Statements of Income Net revenue $ 11,715", mga)


def test_a_statement_row_labelled_in_the_questions_words_answers(embedder: Embedder) -> None:
    header = (
        "Consolidated Condensed Statements of Income\nThree Months Ended\n(In Millions, Except "
        "Per Share Amounts; Unaudited) Apr 1, 2023 Apr 2, 2022"
    )
    rows = (
        f"{header}\nNet revenue $ 11,715 $ 18,353\nCost of sales 7,707 9,109\n"
        "Research and development 4,109 4,362\nMarketing, general, and administrative 1,303 1,752\n"
        "Operating expenses 5,476 4,903"
    )
    statement = replace(
        statement_chunk(1, rows, page=6, context="INTEL CORPORATION; Form 10-Q", header=header),
        table_header=(0, len(header)),
        term_coverage=0.79,
    )
    question = (
        "How much did Intel spend on marketing, general, and administrative expenses in the "
        "quarter ended April 1, 2023?"
    )
    answer = synthesize(question, [statement], [statement], embedder)
    assert answer.claims[0].text.endswith("Marketing, general, and administrative 1,303 1,752")


def test_a_list_is_judged_by_the_item_that_answers(embedder: Embedder) -> None:
    highlights = chunk(
        55,
        "Highlights from the second quarter compared with the second quarter of the prior "
        "year included:\n\n• Microsoft Cloud revenue increased 22% to $27.1 billion.\n"
        "• Office Commercial revenue increased 7% driven by Office 365 Commercial growth.\n"
        "• Devices revenue decreased 39%.",
    )
    query = "Why did Microsoft's Devices revenue fall in the second quarter?"
    # Its Office item's cause is no cause of the Devices item's fall.
    answer = synthesize(query, [highlights], [highlights], embedder)
    assert answer.confidence <= LACKING_KIND_CONFIDENCE
    # The item is the one of the business asked, though another holds as many of its words.
    dynamics = replace(
        highlights,
        content=highlights.content.replace(
            "• Devices revenue decreased 39%.",
            "• Office Consumer cloud services revenue increased 3% and Microsoft 365 Consumer "
            "subscribers grew to 76.7 million.\n• Dynamics cloud services revenue increased 22% "
            "driven by Dynamics 365 growth of 28%.",
        ),
    )
    asked = "How much revenue did Microsoft's Dynamics cloud services generate in the quarter?"
    answer = synthesize(asked, [dynamics], [dynamics], embedder)
    assert answer.confidence <= LACKING_KIND_CONFIDENCE


def test_a_figure_of_other_years_is_never_confident(embedder: Embedder) -> None:
    results = chunk(
        56,
        "MFC's operating profit in 2020 increased $104 million, or 7%, compared to 2019, to "
        "$1,545 million.",
    )
    query = "What was the operating profit of Lockheed Martin's MFC segment in 2022?"
    assert synthesize(query, [results], [results], embedder).confidence <= LACKING_KIND_CONFIDENCE


def test_a_claim_defining_the_thing_asked_answers_at_a_lower_floor(embedder: Embedder) -> None:
    introduction = chunk(
        46,
        "I. INTRODUCTION\n\nAccording to [Gad06] creativity is \u201cthe ability to use your "
        "imagination to produce new ideas, make things etc.\u201d and imagination is \u201cthe "
        "ability to form pictures or ideas in your mind\u201d.",
    )
    question = "How does Thoma's paper define creativity in its introduction?"
    assert defined_things(question) == ["creativity"]
    answer = synthesize(question, [introduction], [introduction], embedder)
    assert "the ability to use your imagination" in answer.text
    # The thing defined must be what the definition is of.
    assert states_definition(
        "Recursion refers to a call of itself", defined_things("Define recursion")
    )
    assert not states_definition("the imagination is \u201cthe ability", ["creativity"])
    # The thing after an article, not the article; a pronoun names none; "mean by" asks too.
    assert defined_things("What is meant by the basin of attraction?") == ["basin"]
    assert defined_things("As the article defines it, what is a widow?") == ["widow"]
    assert defined_things("What does the guide mean by Hungarian notation?") == ["notation"]
    assert defined_things("What is the total revenue?") == []
    assert states_definition("A \u201cwidow\u201d occurs when the last line", ["widow"])


def test_a_sentence_sending_the_reader_elsewhere_is_not_the_answer(embedder: Embedder) -> None:
    overview = chunk(
        47,
        "On January 1, 2022, the Company completed the sale of its New York subsidiary, see "
        "Item 1—Business—Regulated Businesses—Sale of New York American Water Company, Inc. "
        "below and Note 5—Acquisitions and Divestitures in the Notes to Consolidated Financial "
        "Statements for additional information.",
    )
    sale = chunk(
        48,
        "On January 1, 2022, the Company completed the sale of its New York subsidiary to "
        "Liberty Utilities (Eastern Water Holdings) Corp. (\u201cLiberty\u201d).",
    )
    question = "To whom did American Water Works sell its New York subsidiary, and at what price?"
    answer = synthesize(question, [overview, sale], [overview, sale], embedder)
    assert answer.text.startswith(
        "On January 1, 2022, the Company completed the sale of its New York subsidiary to Liberty"
    )


def test_code_shown_for_a_how_to_question_needs_fewer_of_its_words_in_the_chunk(
    embedder: Embedder,
) -> None:
    diversion = chunk(
        45,
        '> sink("record.lis")\nwill divert all subsequent output from the console to an '
        "external file, record.lis. The command\n\n> sink()\nrestores it to the console "
        "once again.",
        term_coverage=0.38,
    )
    question = "How can I send R's output to a file instead of the console, and switch it back?"
    assert "sink" in synthesize(question, [diversion], [diversion], embedder).text
    # The same chunk holding as little of a question that asks for no code does not answer it.
    told = "Where does R's output go instead of the console when it is switched to a file?"
    assert synthesize(told, [diversion], [diversion], embedder) == EMPTY_ANSWER


def answered_over_two_chunks(question: str, ranked: str, after: str, embedder: Embedder) -> Answer:
    """Returns the answer to `question` from a ranked chunk of page 3 whose text goes on in
    the chunk after it, on page 4."""
    first = chunk(20, ranked, page_span_end=len(ranked))
    following = chunk(21, after, page_start=4, page_end=4, page_span_end=len(after))
    return synthesize(
        question,
        [first],
        [first],
        embedder,
        following=lambda chunk: following if chunk.chunk_id == first.chunk_id else None,
    )


def test_a_sentence_a_page_break_cuts_is_weighed_and_quoted_whole(embedder: Embedder) -> None:
    answer = answered_over_two_chunks(
        "How many people died in the Lion Air Flight 610 accident?",
        "Background\n\nOn October 29, 2018, a Boeing Model 737-8 airplane operated by Lion Air "
        "(Lion Air Flight 610) was involved in an\naccident after takeoff from Soekarno-",
        "Hatta International Airport in Jakarta,\nIndonesia, resulting in 189 fatalities. "
        "Investigation of the accident has been completed by the Indonesian authorities.",
        embedder,
    )
    beginning, ending = answer.claims[:2]
    assert beginning.text.endswith("after takeoff from Soekarno-")
    assert ending.text.endswith("Indonesia, resulting in 189 fatalities.")
    assert (beginning.first_page, ending.first_page) == (3, 4)
    assert all("Hatta" not in claim.text for claim in answer.claims[2:])


def test_a_lead_in_ending_its_chunk_is_quoted_with_the_items_opening_the_next(
    embedder: Embedder,
) -> None:
    answer = answered_over_two_chunks(
        "What formatting errors did the comparison with the hand-engraved score show?",
        "The LilyPond 1.4 output is certainly readable, but close comparison with the "
        "hand-engraved score showed a lot of errors in the formatting details:",
        "• there is too much space before the time signature\n"
        "• the stems of the beamed notes are too long\n"
        "• the trill marks are too big",
        embedder,
    )
    lead_in, items = answer.claims[:2]
    assert lead_in.text.endswith("errors in the formatting details:")
    assert items.text.startswith("• there is too much space") and "trill" in items.text
    assert (lead_in.first_page, items.first_page) == (3, 4)


def test_a_changelog_entry_is_quoted_with_its_release_when_one_is_asked(
    embedder: Embedder,
) -> None:
    history = chunk(
        59,
        "History\n\n2016/05/11 v2.12\n\n• New features:\n\n\u2013 luatex driver option to fix "
        "incompatibilities.\n\n2007/01/21 v2.11\n\n• New features:\n\n\u2013 color names lime and "
        "teal added to the set of predefined colors.\n\n2006/11/28 v2.10\n\n• Bugfixes:\n\n"
        "\u2013 incorrect internal macro.",
    )
    question = "In which release were the predefined colors lime and teal added?"
    answer = synthesize(question, [history], [history], embedder)
    assert answer.text.startswith("2007/01/21 v2.11 \u2013 color names lime and teal added")


def test_a_list_that_runs_past_its_chunk_is_quoted_on_from_the_next(embedder: Embedder) -> None:
    lead_in = (
        "In HPC, multiple physical networks are constructed as a means of access control:\n"
        "• Management network: it lets administrators control the nodes. It is dedicated."
    )
    # Chunks overlap: the next one repeats the item its chunk before ends on.
    rest = (
        "• Management network: it lets administrators control the nodes. It is dedicated.\n"
        "IPMIs are connected to it.\n"
        "• High-performance networks: they connect the computing nodes.\n"
        "• Auxiliary networks: a user network is one of them."
    )
    answer = answered_over_two_chunks(
        "Which physical networks are constructed in HPC for access control?",
        lead_in,
        rest,
        embedder,
    )
    assert [claim.text for claim in answer.claims[:2]] == [
        "In HPC, multiple physical networks are constructed as a means of access control: "
        "• Management network: it lets administrators control the nodes.",
        "• High-performance networks: they connect the computing nodes. "
        "• Auxiliary networks: a user network is one of them.",
    ]
    assert answer.sources == ["tracemonkey.pdf, p. 3", "tracemonkey.pdf, p. 4"]


def test_a_list_whose_lead_in_counts_its_items_is_quoted_to_its_last(
    embedder: Embedder,
) -> None:
    themes = ["Safety", "Customers", "People", "Operational Excellence", "Growth"]
    items = [
        f"• {theme}—The Company's {theme.lower()} theme guides how it serves the customers of "
        "its regulated water and wastewater utilities in every state where it operates today."
        for theme in themes
    ]
    lead_in = "The Company's strategy is centered on five central themes:\n" + "\n".join(items[:3])
    rest = "\n".join(items[3:])
    answer = answered_over_two_chunks(
        "On which five central themes is the Company's strategy centered?",
        lead_in,
        rest,
        embedder,
    )
    assert len(lead_in) + len(items[3]) > MAX_LIST_CHARS  # past a list's room without its count
    assert all(theme in answer.text for theme in themes)


def test_a_claim_that_lacks_what_was_asked_goes_on_though_another_is_best(
    embedder: Embedder,
) -> None:
    # R's data import guide: the best claim is off the point, the second tells the trouble and
    # the sentence after it how to mend it.
    quoting = chunk(
        1,
        '"one more" can be read by read.table("testfile", sep = ",") This does not work with '
        "the default separator.",
    )
    white_space = chunk(
        2,
        "To read such files set fill = TRUE.\n\n7. White space in character fields\nIf a "
        "separator is specified, leading and trailing white space in character fields is "
        "regarded as part of the field. To strip the space, use argument strip.white = TRUE.",
    )
    answer = synthesize(
        "When read.table uses a separator, leading and trailing spaces stay in character "
        "fields; how do I remove them?",
        [white_space, quoting],
        [white_space, quoting],
        embedder,
    )
    texts = [claim.text for claim in answer.claims]
    assert texts[0].startswith('"one more" can be read')
    assert texts[1].endswith("is regarded as part of the field.")
    assert texts[2] == "To strip the space, use argument strip.white = TRUE."


def test_a_claim_that_names_what_was_asked_goes_on_to_the_sentence_defining_it(
    embedder: Embedder,
) -> None:
    related = chunk(
        1,
        "Suganuma et al. (18) described region-based compilation (RBC), a relative of "
        "tracing. A region is a subprogram worth optimizing that can include subsets of any "
        "number of methods. Thus, the compiler has more flexibility.",
    )
    answer = synthesize(
        "What is region-based compilation as described in the related work?",
        [related],
        [related],
        embedder,
    )
    texts = [claim.text for claim in answer.claims]
    assert texts[:2] == [
        "Suganuma et al. (18) described region-based compilation (RBC), a relative of tracing.",
        "A region is a subprogram worth optimizing that can include subsets of any number of "
        "methods. Thus, the compiler has more flexibility.",
    ]


def test_a_numbered_list_is_quoted_to_its_last_number(embedder: Embedder) -> None:
    places = ["current", "configured", "home", "system", "examples"]
    items = [
        f"{number}. The {place} directory, which is searched for Asymptote files when asy "
        f"is run (by default, /usr/share/asymptote/{place} under UNIX and C:\\Program Files"
        f"\\Asymptote\\{place} under MSDOS);"
        for number, place in enumerate(places, start=1)
    ]
    lead_in = (
        "In looking for Asymptote files, asy will search the following paths, in the order "
        "listed:\n" + "\n".join(items[:4])
    )
    answer = answered_over_two_chunks(
        "Where does asy look for Asymptote files, and in what order?",
        lead_in,
        items[4],
        embedder,
    )
    assert len(lead_in) > MAX_LIST_CHARS  # past a list's room without its numbers
    assert all(f"The {place} directory" in answer.text for place in places)


def test_a_why_question_reads_the_prose_under_a_ranked_table(embedder: Embedder) -> None:
    caption = "Presented in the table below is a summary of the capital expenditures by category:"
    rows = (
        f"{caption}\n(In millions) 2020 2019\n"
        "Transmission and distribution $ 704 $ 661\nTreatment and pumping 306 190\n"
        "Total capital expenditures $ 1,822 $ 1,654"
    )
    table = replace(
        statement_chunk(1, rows, page=67, header=caption),
        table_header=(0, len(caption)),
        term_coverage=0.6,
    )
    why = (
        "In 2020, the Company's capital expenditures increased $168 million primarily due to "
        "investment in transmission and distribution and treatment and pumping infrastructure."
    )
    explanation = statement_chunk(2, why, page=67)
    risk = statement_chunk(
        3, "We may be unable to make required capital expenditures on time.", page=32
    )
    question = "Why did the capital expenditures increase in 2020?"
    answer = synthesize(
        question,
        [table, risk],
        [table, risk],
        embedder,
        following=lambda chunk: explanation if chunk.chunk_id == table.chunk_id else None,
    )
    assert answer.claims[0].text == why
    # Only a why-question reads on: the table's rows say how much.
    assert explanation.chunk_id not in {
        claim.chunk.chunk_id
        for claim in synthesize(
            "How much were the capital expenditures in 2020?",
            [table, risk],
            [table, risk],
            embedder,
            following=lambda chunk: explanation if chunk.chunk_id == table.chunk_id else None,
        ).claims
    }


def test_a_why_question_reads_the_prose_under_a_ranked_heading_and_its_table(
    embedder: Embedder,
) -> None:
    heading = replace(statement_chunk(1, "Market-Based Businesses", page=67), term_coverage=0.5)
    caption = "Presented in the table below is information for the Market-Based Businesses:"
    table = replace(
        statement_chunk(
            2, f"{caption}\n(In millions) 2021 2020\nOperating revenues $ 563 $ 540", page=67
        ),
        table_header=(0, len(caption)),
        table_header_text=caption,
    )
    why = (
        "In 2021, as compared to 2020, operating revenues increased $23 million primarily due "
        "to a $32 million increase in capital and O&M projects in the Military Services Group."
    )
    explanation = statement_chunk(3, why, page=67)
    size = statement_chunk(
        4,
        "Operating revenues for the Company's Market-Based Businesses were $563 million for "
        "2021 and $540 million for 2020.",
        page=14,
    )
    after = {heading.chunk_id: table, table.chunk_id: explanation}
    answer = synthesize(
        "Why did operating revenues of the Market-Based Businesses increase in 2021?",
        [size, heading],
        [size, heading],
        embedder,
        following=lambda chunk: after.get(chunk.chunk_id),
    )
    assert why in [claim.text for claim in answer.claims]


def test_a_question_asking_a_total_reads_the_rest_of_a_ranked_table(embedder: Embedder) -> None:
    caption = "The following table summarizes our contractual obligations (in millions):"
    head = f"{caption}\nTotal Less than 1 year 1-3 years\n"
    first = replace(
        statement_chunk(
            1,
            f"{head}Notes $ 2,401.1 $ 75.3 $ 150.5\nOperating lease obligations 185.2 39.5 57.1",
            page=54,
            header=caption,
        ),
        table_header=(0, len(head)),
        term_coverage=0.6,
    )
    rest = replace(
        statement_chunk(
            2,
            "Purchase obligations 419.8 341.3 74.6\nTotal $ 3,006.1 $ 456.1 $ 282.2",
            page=54,
            header=caption,
        ),
        table_header=(0, 0),
    )
    question = "What were the total contractual obligations, and how much was due in one year?"
    answer = synthesize(
        question,
        [first],
        [first],
        embedder,
        following=lambda chunk: rest if chunk.chunk_id == first.chunk_id else None,
    )
    assert answer.claims[0].text.endswith("Total $ 3,006.1 $ 456.1 $ 282.2")


def test_a_sentence_writing_an_abbreviation_is_weighed_with_what_it_stands_for(
    embedder: Embedder,
) -> None:
    # Microsoft's 10-Q defines the abbreviation once; the figure's sentence writes it alone.
    audit = chunk(
        71,
        "We are currently under Internal Revenue Service audit for prior tax years and have "
        "received Notices of Proposed Adjustment (\u201cNOPAs\u201d) from the IRS for the tax "
        "years 2004 to 2013. The primary issues in the NOPAs relate to intercompany transfer "
        "pricing. In the NOPAs, the IRS is seeking an additional tax payment of $28.9 billion "
        "plus penalties and interest.",
    )
    positions = chunk(
        72,
        "We remain under audit by the IRS for tax years 2014 to 2017. With respect to the audit "
        "for tax years 2004 to 2013, on September 26, 2023, we received Notices of Proposed "
        "Adjustment (\u201cNOPAs\u201d) from the IRS. As of September 30, 2023, we believe our "
        "allowances for income tax contingencies are adequate.",
    )
    rate = chunk(
        73,
        "The decrease in our effective tax rate for the current quarter compared to the prior "
        "year was primarily due to tax benefits from tax law changes in the first quarter of "
        "fiscal year 2024, including the impact from the issuance of Notice 2023-55 by the "
        "Internal Revenue Service (\u201cIRS\u201d) and U.S. Treasury Department.",
    )
    question = (
        "What additional tax is the IRS seeking from Microsoft in the Notices of Proposed "
        "Adjustment disclosed in its 10-Q for fiscal 2024 first quarter (ended September 30, "
        "2023)?"
    )
    ranked = [audit, positions, rate]
    answer = synthesize(question, ranked, ranked, embedder)
    assert any("$28.9 billion" in claim.text for claim in answer.claims)


def test_a_claim_counting_what_it_announces_goes_on_to_the_last_past_its_chunk(
    embedder: Embedder,
) -> None:
    # Thoma's paper: the chunk ends after the first idea; the second is two sentences on.
    first = chunk(
        81,
        "Recurrent networks apply two main ideas in order to learn: The first is called "
        "unrolling and means that an recurrent network is imagined to be an infinite network "
        "over time.",
        page_start=3,
        page_end=3,
    )
    rest = chunk(
        82,
        "At each time step the recurrent neurons get duplicated. The second idea is weight "
        "sharing which means that those unrolled neurons share the same weight.\n\n"
        "A. Similar Texts Generation",
        page_start=3,
        page_end=3,
    )
    answer = synthesize(
        "What are the two main ideas recurrent networks apply in order to learn?",
        [first],
        [first],
        embedder,
        following=lambda chunk: rest if chunk.chunk_id == first.chunk_id else None,
    )
    assert [claim.text for claim in answer.claims][1:] == [
        "At each time step the recurrent neurons get duplicated.",
        "The second idea is weight sharing which means that those unrolled neurons share the "
        "same weight.",
    ]


def test_a_list_answers_a_question_asking_for_several_things_at_a_lower_likeness(
    embedder: Embedder,
) -> None:
    # Corning's 10-K: the items' descriptions take the list's words, not the question's.
    segments = chunk(
        91,
        "The Company has determined that it has five reportable segments for financial "
        "reporting purposes, as follows:\n"
        "\u2022 Optical Communications - manufactures carrier network and enterprise network "
        "components for the telecommunications industry.\n"
        "\u2022 Display Technologies - manufactures glass substrates for flat panel liquid "
        "crystal displays and other high-performance display panels.\n"
        "\u2022 Specialty Materials - manufactures products that provide more than 150 material "
        "formulations for glass, glass ceramics and crystals.\n"
        "\u2022 Environmental Technologies - manufactures ceramic substrates and filter products "
        "for emissions control in mobile, gasoline and diesel applications.\n"
        "\u2022 Life Sciences - manufactures glass and plastic labware, equipment, media, sera "
        "and reagents for cell culture research and drug discovery.",
        term_coverage=0.98,
    )
    answer = synthesize(
        "What are Corning's reportable segments according to its FY2022 10-K?",
        [segments],
        [segments],
        embedder,
    )
    assert answer.claims and "Optical Communications" in answer.claims[0].text


def test_a_claim_that_lacks_what_was_asked_goes_on_past_its_chunk(embedder: Embedder) -> None:
    # A Brief History of Debian: the chunk ends where the quoted study's figure begins.
    first = chunk(
        91,
        "This was studied thoroughly in an article called Counting potatoes: The size of "
        "Debian 2.2, quoting from this article: we use David A. Wheeler's sloccount system to "
        "determine the number of physical source lines of code (SLOC) of Debian 2.2.",
        page_start=14,
        page_end=14,
    )
    rest = chunk(
        92,
        "We show that Debian 2.2 includes more than 55,000,000 physical SLOC, almost twice "
        "as many as Red Hat 7.1.",
        page_start=14,
        page_end=14,
    )
    answer = synthesize(
        'How big was Debian 2.2 in lines of source code, according to the "Counting potatoes" '
        "study?",
        [first],
        [first],
        embedder,
        following=lambda chunk: rest if chunk.chunk_id == first.chunk_id else None,
    )
    assert any("55,000,000" in claim.text for claim in answer.claims)
