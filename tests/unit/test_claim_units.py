"""Claim units: sentences, lead-ins with their items, table rows with their headers, sentences
joined across a figure; never a fragment, a caption, a heading, a question or a signpost."""

from __future__ import annotations

import pytest

from app.answer.claims import shown_text
from app.answer.kinds import asks_list, holds_kind
from app.answer.units import (
    announced_count,
    claim_units,
    continued_items,
    holds_series,
    item_texts,
    last_counted,
    list_runs_on,
    sentence_cut_at_end,
    sentence_ending_at_start,
)
from app.core.asked import Asked, asked_kinds


def shown(content: str) -> list[tuple[str, str]]:
    return [(unit.kind, shown_text(content, unit.parts)) for unit in claim_units(content, None)]


def test_lead_in_takes_its_marked_items_first_sentences() -> None:
    content = (
        "An HPC system is divided into four function zones:\n"
        "1. The computing zone runs the jobs. It has many nodes.\n"
        "2. The storage zone keeps the data.\n"
        "3. The access zone faces the users.\n"
        "4. The management zone runs the rest."
    )
    [(kind, text)] = shown(content)
    assert kind == "list"
    assert text == (
        "An HPC system is divided into four function zones: 1. The computing zone runs the "
        "jobs. 2. The storage zone keeps the data. 3. The access zone faces the users. "
        "4. The management zone runs the rest."
    )


def test_a_short_lead_in_says_what_it_lists_with_the_sentence_before_it() -> None:
    content = (
        "During 2020, we engaged in aggressive cost reduction efforts to minimize cash outflows. "
        "Our efforts included:\n\n"
        "• reducing or deferring planned capital expenditures;\n\n"
        "• reducing employee costs through hiring freezes."
    )
    [(kind, text)] = shown(content)
    assert kind == "list"
    assert text.startswith("During 2020, we engaged") and text.endswith("hiring freezes.")


def test_a_lists_items_are_read_one_by_one() -> None:
    content = (
        "Highlights from the second quarter included:\n"
        "\u2022 Cloud revenue increased 22%.\n"
        "\u2022 Gaming revenue decreased 13% driven by Xbox hardware."
    )
    [unit] = claim_units(content, None)
    assert [" ".join(text.split()) for text in item_texts(content, unit.parts)] == [
        "Highlights from the second quarter included:",
        "\u2022 Cloud revenue increased 22%.",
        "\u2022 Gaming revenue decreased 13% driven by Xbox hardware.",
    ]


def test_signposts_are_never_claims() -> None:
    content = (
        "This section introduces the tokenizer and model design of Qwen2. We employ a "
        "byte-level byte-pair encoding tokenizer. The rest of this paper is organized as "
        "follows. This section of the code is slow. Listed below are the majority-owned "
        "subsidiaries of MGM Resorts International as of December 31, 2022."
    )
    assert shown(content) == [
        ("sentence", "We employ a byte-level byte-pair encoding tokenizer."),
        ("sentence", "This section of the code is slow."),
    ]


def test_table_row_carries_its_title_label_and_column_headers() -> None:
    # The line announcing the table says what its rows are of ("Pet net sales were as
    # follows:" over a row labelled "Net sales").
    content = (
        "Net sales by product were as follows (in millions):\n\n"
        "Three Months Ended\n\nJune 25,\n2022\nJune 26,\n2021\n"
        "iPhone\n\n(1)\n\n$ 40,665 $ 39,570\nMac\n\n7,382 8,235\n"
    )
    rows = [text for kind, text in shown(content) if kind == "row"]
    title = "Net sales by product were as follows (in millions):"
    assert rows == [
        f"{title} Three Months Ended June 25, 2022 June 26, 2021 iPhone $ 40,665 $ 39,570",
        f"{title} Three Months Ended June 25, 2022 June 26, 2021 Mac 7,382 8,235",
    ]
    # The end of a sentence begun on the lines above ("... as of January 31," / "2018:") is none.
    dated = "distribution facilities as of January 31,\n2018:\nOwned Leased\nWalmart U.S. 103 23\n"
    assert [text for kind, text in shown(dated) if kind == "row"] == [
        "Owned Leased Walmart U.S. 103 23"
    ]
    # The sentence introducing the table is not a list of its header lines.
    assert all(kind == "row" for kind, _ in shown(content))


def test_a_row_of_bare_figures_is_labelled_past_the_periods_above_it() -> None:
    # The reading order sets the row's label above the table's periods.
    content = (
        "The following table shows key hotel statistics for our Las Vegas Strip Resorts:\n"
        "Occupancy\nYear Ended December 31,\n2020 2019 2018\n55% 91% 91%\n"
        "Average Daily Rate (ADR) $161 $167 $161\n"
    )
    rows = [text for kind, text in shown(content) if kind == "row"]
    assert rows[0].endswith("Occupancy 55% 91% 91%")


def test_an_items_other_sentences_take_no_room_from_the_list() -> None:
    remark = "We expect " + ", ".join(["benefits from our initiatives and volume"] * 20) + "."
    content = (
        "We have outlined three key priorities for fiscal 2021:\n"
        f"1) Compete effectively, everywhere we play. {remark}\n"
        f"2) Drive efficiency to fuel investment. {remark}\n"
        "3) Reduce leverage to increase financial flexibility."
    )
    (kind, text), *_ = shown(content)
    assert kind == "list"
    assert text.endswith(
        "2) Drive efficiency to fuel investment. "
        "3) Reduce leverage to increase financial flexibility."
    )


def test_a_sentence_cut_by_a_figure_is_joined_to_its_beginning() -> None:
    content = (
        "Usually the inner loop becomes hot first. For example, the first trace may be a cycle"
        "\n\nTrace 1 Trace 2\n\nFigure 6. We handle type-unstable loops by allowing traces."
        "\n\nthrough the inner loop, {i2, i3}. The symbol marks the anchor."
    )
    assert shown(content) == [
        ("sentence", "Usually the inner loop becomes hot first."),
        (
            "sentence",
            "For example, the first trace may be a cycle through the inner loop, {i2, i3}.",
        ),
        ("sentence", "The symbol marks the anchor."),
    ]


def test_the_rest_of_a_sentence_a_page_footer_cut_is_quoted_where_it_says_something() -> None:
    content = (
        "paid $4.35 billion in cash taxes in the third quarter of fiscal year 2024, largely "
        "for previously deferred federal income tax payments.\n\nCapital Return to "
        "Shareholders\nDuring the third quarter, we returned $3.72 billion to shareholders."
    )
    assert shown(content)[0] == (
        "sentence",
        "paid $4.35 billion in cash taxes in the third quarter of fiscal year 2024, largely "
        "for previously deferred federal income tax payments.",
    )


@pytest.mark.parametrize(
    "content",
    [
        "of the loop, which the compiler then records.",  # a fragment cut at the chunk's start
        "Figure 3: The speedups of the tracing compiler on all benchmarks.",
        "Table 2. Results of the models on every benchmark we ran.",
        "What does the tracing compiler do with hot loops?",
        "2.2.3 MODEL CONFIGURATION",
        "Hot loops are recorded and the compiler then",  # cut at the chunk's end
    ],
)
def test_never_quoted(content: str) -> None:
    assert shown(content) == []


def test_a_statement_ending_in_a_year_needs_no_stop() -> None:
    cover = (
        "Yes \u2610 No \u2612\n\n10,334,030,586 shares of common stock, par value $0.01 per "
        "share, outstanding as of October 18, 2023"
    )
    assert shown(cover) == [
        (
            "sentence",
            "10,334,030,586 shares of common stock, par value $0.01 per share, outstanding as "
            "of October 18, 2023",
        )
    ]
    # Cut by a figure and going on after it, it is a beginning still, not a claim.
    cut = "Sales grew in every quarter of 2023\n\nFigure 2\n\nand fell in 2024. Costs rose."
    assert ("sentence", "Sales grew in every quarter of 2023") not in shown(cut)


def test_code_may_start_a_sentence() -> None:
    assert shown("q() quits the R session and asks whether to save it.") == [
        ("sentence", "q() quits the R session and asks whether to save it.")
    ]


@pytest.mark.parametrize(
    ("query", "kinds"),
    [
        ("How many airplanes does the AD affect?", {Asked.COUNT}),
        ("What was Apple's total net sales for the quarter?", {Asked.AMOUNT}),
        ("When do comments have to be received?", {Asked.DATE}),
        ("Which version of the library added DER coding?", {Asked.VERSION}),
        (
            "Which flight control computer software version does the proposed AD require?",
            {Asked.VERSION},
        ),
        ("How do I quit an R session?", {Asked.CODE}),
        ("In 'campaign storage', what does the word campaign mean?", {Asked.DEFINITION}),
        ("Why do tracing compilers speed up loops?", {Asked.REASON}),
        ("Why did Walmart's net income decline in fiscal 2018?", {Asked.REASON}),
        ("What turned the segment from an operating loss to operating income?", {Asked.REASON}),
        ("What weighed on gross margin in the quarter?", {Asked.REASON}),
        ("Which factors did Lockheed Martin cite for the 2% decline in net sales?", {Asked.REASON}),
        ("How does a tracing compiler speed up loops?", set()),
    ],
)
def test_asked_kinds(query: str, kinds: set[Asked]) -> None:
    assert asked_kinds(query) == kinds


def test_figures_the_question_names_are_not_an_answer() -> None:
    query = "What were net sales for the quarter ended June 25, 2022?"
    kinds = asked_kinds(query)
    assert not holds_kind("Three Months Ended June 25, 2022", kinds, query)
    assert holds_kind("Total net sales $ 82,959", kinds, query)
    date = frozenset({Asked.DATE})
    assert holds_kind("Comments must be received by October 13, 2020.", date, "When?")


def test_a_magnitude_without_a_figure_is_an_amount() -> None:
    query = "How large can the file systems of an HPC data storage zone get?"
    kinds = asked_kinds(query)
    assert holds_kind("Their capacity is often measured in petabytes.", kinds, query)
    assert not holds_kind("They store the images of the compute nodes.", kinds, query)


@pytest.mark.parametrize(
    ("query", "text", "holds"),
    [
        # A year is no amount.
        (
            "How much did Verizon pay for the C-Band licenses it won in FCC Auction 107?",
            "In July 2021, we received the licenses won in Auction 107.",
            False,
        ),
        (
            "How much did Verizon pay for the C-Band licenses it won in FCC Auction 107?",
            "Verizon paid $45.5 billion for the licenses it won.",
            True,
        ),
        # A percentage is the amount of a rate, a share or a change only.
        (
            "What was MGM China's Adjusted Property EBITDA in 2018?",
            "MGM China's Adjusted Property EBITDA increased 6% in 2018.",
            False,
        ),
        (
            "What was MGM China's Adjusted Property EBITDA in 2018?",
            "Adjusted Property EBITDA $ 568,294 $ 535,524",
            True,
        ),
        (
            "What was Lockheed Martin's operating margin in 2022?",
            "Operating margin 14.4 % 14.1 %",
            True,
        ),
        (
            "How much did MGM China's Adjusted Property EBITDA grow in 2018?",
            "It increased 6% in 2018.",
            True,
        ),
        # So is the amount a change's verb stands before: the change's size, not the level.
        (
            "How much revenue did Microsoft's Dynamics products and cloud services generate?",
            "Dynamics products and cloud services revenue increased $280 million or 22%.",
            False,
        ),
        (
            "How much revenue did Microsoft's Dynamics products and cloud services generate?",
            "Dynamics revenue increased by about $280 million to $1,540 million.",
            True,
        ),
        (
            "What were MGM China's net revenues in 2018?",
            "MGM China net revenue benefited from MGM Cotai, which contributed $729 million.",
            False,
        ),
        (
            "How much did MGM Cotai contribute to MGM China's net revenues in 2018?",
            "MGM China net revenue benefited from MGM Cotai, which contributed $729 million.",
            True,
        ),
        (
            "By how much did Dynamics revenue increase?",
            "Dynamics products and cloud services revenue increased $280 million or 22%.",
            True,
        ),
        # A note's marker is no amount.
        (
            "What were front store revenues in CVS Health's Retail/LTC segment in 2018?",
            "Percentage of Revenues 2018 2017 Front store and other (2) 23.6% 25.0%",
            False,
        ),
    ],
)
def test_the_amount_asked(query: str, text: str, holds: bool) -> None:
    assert holds_kind(text, asked_kinds(query), query) is holds


def test_a_question_asking_for_several_things_wants_a_series() -> None:
    assert asks_list("What are the four function zones in the NIST HPC reference architecture?")
    assert asks_list("On which kinds of text did Karpathy train character-level RNNs?")
    assert not asks_list("What is the maximum context length Qwen2 can handle?")
    assert asks_list("Which backward optimization filters does nanojit run after recording?")
    assert asks_list("Which ASN.1 features does the libtasn1 parser not handle?")
    assert asks_list("What reportable segments did MGM Resorts have as of December 31, 2022?")
    assert not asks_list("What net revenues did MGM Resorts report in 2018?")  # an amount
    assert asks_list("What are Corning's reportable segments according to its FY2022 10-K?")
    assert not asks_list("What were Apple's net sales in fiscal 2022?")  # an amount
    assert not asks_list("What proportion of harmful responses did Qwen2 produce?")
    # One of several, or a singular noun: no list.
    assert not asks_list("Which of JPM's business segments had the lowest net revenue?")
    assert not asks_list("Which class does the parser use?")
    assert not holds_series("Karpathy trained multiple character RNNs on different datasets.")
    assert holds_series("He trained them on Paul Graham's essays, Shakespeare, and Wikipedia.")
    assert holds_series("Zones:\n- access zone\n- management zone")


def test_rows_of_figures_and_words_and_options_are_units() -> None:
    table = (
        "Table 1: EU Countries Information\n"
        "Country Population (millions) Area (km2) Capital\n\n"
        "Austria 8.9 83,879 Vienna\nFinland 5.5 338,424 Helsinki\n"
    )
    assert [text for _, text in shown(table)][-1] == (
        "Table 1: EU Countries Information Country Population (millions) Area (km2) Capital "
        "Finland 5.5 338,424 Helsinki"
    )
    options = "-b, --benchmark perform a benchmark\n-s, --strict use strict DER decoding"
    assert shown(options) == [
        ("row", "-b, --benchmark perform a benchmark"),
        ("row", "-s, --strict use strict DER decoding"),
    ]


def test_a_row_under_a_line_of_dates_is_headed_by_it() -> None:
    cover = (
        "Class Outstanding as of October 20, 2022\n\n"
        "Common Stock, $0.00000625 par value per share 7,454,473,144 shares"
    )
    assert shown(cover) == [
        (
            "row",
            "Class Outstanding as of October 20, 2022 Common Stock, $0.00000625 par value per "
            "share 7,454,473,144 shares",
        )
    ]
    # A line of prose that ends naming a date heads nothing: the sentence stays whole.
    prose = (
        "The FAA must receive comments on this\nAD action by September 21, 2020.\n\n"
        "This AD replaces AD 2018\u201323\u201351,\nAmendment 39\u201319512 (83 FR 62697,"
    )
    assert (
        "sentence",
        "The FAA must receive comments on this AD action by September 21, 2020.",
    ) in shown(prose)
    assert all(kind != "row" for kind, _ in shown(prose))
    # Nor does a year in a line of CJK prose (\u5e74 and \u6708 for the month): no month by name.
    cjk = (
        "\u4ef7\u62a5\u544a\u300b(\u535a\u6587\u623f\u4f30\u5b57(2016) \u7b2cG012 \u53f7)\n\n"
        "2016 \u5e74i\u67084 \u65e5\u8bc4\u4f30\u4ef7\u503c\u4e3a7, 207. \u00b731 "
        "\u4e07\u5143\u3002"
    )
    assert all(kind != "row" for kind, _ in shown(cjk))


def test_a_sentence_that_points_back_is_quoted_with_what_it_points_to() -> None:
    text = (
        "We adopted the YARN mechanism and Dual Chunk Attention. These strategies enable the "
        "model to process sequences of up to 131,072 tokens."
    )
    assert shown(text) == [("sentence", text)]
    # Across a paragraph, or after "This ...", each stands alone.
    apart = "We adopted the YARN mechanism here.\n\nThese strategies enable long sequences."
    assert len(shown(apart)) == 2
    this = "The agency proposes a new rule today. This proposed rule would apply to all airplanes."
    assert len(shown(this)) == 2


def test_the_reason_for_a_change_is_quoted_with_the_change_once() -> None:
    change = (
        "Our gross profit rate decreased 26 basis points for fiscal 2018 and increased 36 basis "
        "points for fiscal 2017, when compared to the previous fiscal year."
    )
    reason = (
        "For fiscal 2018, the decrease was primarily due to strategic price investments and the "
        "mix impact from eCommerce."
    )
    earlier = "For fiscal 2017, the increase was primarily due to improved margin in food."
    assert shown(f"{change} {reason} {earlier}") == [
        ("sentence", f"{change} {reason}"),
        ("sentence", earlier),
    ]
    # A change it names itself stands alone.
    named = "The increase in net sales was primarily due to higher volume of cloud services."
    assert shown(f"{change} {named}") == [("sentence", change), ("sentence", named)]


def test_a_change_restated_without_its_owner_is_quoted_with_the_owners() -> None:
    owned = "Aeronautics\u2019 net sales in 2022 increased $239 million, or 1%, compared to 2021."
    reason = (
        "Net sales increased by approximately $375 million on classified contracts primarily "
        "due to higher volume."
    )
    assert shown(f"{owned} {reason}") == [("sentence", f"{owned} {reason}")]
    # After a sentence that gives the measure no owner, it stands alone.
    unowned = "The segment's results were mixed in 2022 as programs matured."
    assert shown(f"{unowned} {reason}") == [("sentence", unowned), ("sentence", reason)]


def test_the_cause_of_a_change_it_names_is_quoted_with_the_sentence_that_owns_it() -> None:
    owned = "Foodservice net sales decreased 8 percent in fiscal 2020 due to the pandemic."
    cause = "The decrease in net sales includes a decrease in contributions from volume growth."
    assert shown(f"{owned} {cause}") == [("sentence", f"{owned} {cause}")]
    # After a sentence on something else, it stands alone.
    other = "Operating profit decreased 20 percent in fiscal 2020 due to the pandemic."
    assert shown(f"{other} {cause}") == [("sentence", other), ("sentence", cause)]


def test_a_projected_change_is_quoted_with_its_causes_and_their_details() -> None:
    text = (
        "We expect 2022 net sales to decrease by approximately 2% from 2021 levels. The projected "
        "decline is driven by declines at three of the four business areas. Specifically, these "
        "decreases are driven by the renationalization of the Atomic Weapons Establishment."
    )
    assert shown(text) == [("sentence", text)]


def test_an_example_is_quoted_with_the_sentence_it_is_an_example_of() -> None:
    text = (
        "HPC systems may consider alternate options for malware scanning. For example, conduct "
        "scanning at write, and conduct subsequent batch scanning at read."
    )
    assert shown(text) == [("sentence", text)]


def test_a_further_reason_is_quoted_with_the_one_it_adds_to() -> None:
    text = (
        "The decrease in gross margin was primarily driven by higher freight costs. In "
        "addition, movements in foreign exchange rates had an adverse impact of $422 million."
    )
    assert shown(text) == [("sentence", text)]


def test_a_description_under_the_code_it_describes_is_quoted_with_it() -> None:
    content = (
        "y ~ poly(x,2)\ny ~ 1 + x + I(x^2)\n\nPolynomial regression of y on x of degree 2. "
        "The first form uses orthogonal\npolynomials, and the second uses explicit powers.\n"
    )
    assert shown(content) == [
        (
            "sentence",
            "y ~ poly(x,2) y ~ 1 + x + I(x^2) Polynomial regression of y on x of degree 2.",
        ),
        (
            "sentence",
            "The first form uses orthogonal polynomials, and the second uses explicit powers.",
        ),
    ]
    # A line of prose above is no code.
    prose = "The model below is fitted\n\nPolynomial regression of y on x of degree 2 is shown."
    assert shown(prose)[-1] == (
        "sentence",
        "Polynomial regression of y on x of degree 2 is shown.",
    )


def test_a_sentence_that_shows_a_command_is_quoted_with_it() -> None:
    content = (
        "R has an inbuilt help facility similar to the man facility of UNIX. To get more "
        "information\non any specific named function, for example solve, the command is\n\n"
        "> help(solve)\n\nThe help facility is described below.\n"
    )
    assert shown(content) == [
        ("sentence", "R has an inbuilt help facility similar to the man facility of UNIX."),
        (
            "sentence",
            "To get more information on any specific named function, for example solve, the "
            "command is > help(solve)",
        ),
        ("sentence", "The help facility is described below."),
    ]
    # A command whose line the next sentence's words follow, as PDFs often break them.
    content = (
        "If commands are stored in an external file, say commands.R, they may be executed at "
        'any time with the command\n\n> source("commands.R")\nFor Windows Source is also on '
        "the File menu.\n"
    )
    assert shown(content) == [
        (
            "sentence",
            "If commands are stored in an external file, say commands.R, they may be executed at "
            'any time with the command > source("commands.R") For Windows Source is also on the '
            "File menu.",
        )
    ]
    # Code shown between the words of one sentence, with or without a prompt.
    content = (
        "To work with complex numbers, supply an explicit complex part. Thus\n\nsqrt(-17)\n\n"
        "will give NaN and a warning, but\n\nsqrt(-17+0i)\n\nwill do the computations as "
        "complex numbers.\n\nSo with the above assignments the command\n\n> v <- 2*x + y + 1"
        "\n\ngenerates a new vector v of length 11.\n"
    )
    assert shown(content) == [
        ("sentence", "To work with complex numbers, supply an explicit complex part."),
        (
            "sentence",
            "Thus sqrt(-17) will give NaN and a warning, but sqrt(-17+0i) will do the "
            "computations as complex numbers.",
        ),
        (
            "sentence",
            "So with the above assignments the command > v <- 2*x + y + 1 generates a new "
            "vector v of length 11.",
        ),
    ]


def test_a_long_sentence_the_chunk_ends_inside_of_is_quoted_up_to_its_last_item() -> None:
    content = (
        "Operating revenues rose.\n\nIn 2020, as compared to 2019, operating revenues increased "
        "$161 million primarily due to: (i) $122 million increase from authorized rate increases, "
        "including infrastructure surcharges, principally from infrastructure investment in "
        "various states; (ii) $36 million increase from water and wastewater acquisitions, as "
        "well as organic growth in existing systems; (iii) $16 million increase in demand, "
        "primarily driven by (a) weather, including warmer and drier than normal weather in the"
    )
    quoted = [shown_text(content, unit.parts) for unit in claim_units(content, None)]
    assert quoted[-1].startswith("In 2020, as compared to 2019")
    assert quoted[-1].endswith("organic growth in existing systems")
    # A short line the chunk ends on is no sentence cut by the chunker.
    assert claim_units("Operating revenues rose.\n\nSee the table of revenues for", None)[-1:] == (
        claim_units("Operating revenues rose.", None)
    )


def test_a_sentence_below_a_functions_declaration_is_quoted_after_it() -> None:
    declaration = "const char * asn1_check_version (const char * req_version) [Function]"
    content = (
        f"Returns: the search result.\n\n{declaration}\n\nreq version: Required version "
        "number, or NULL .\nCheck that the version of the library is at minimum the requested "
        "one and return the version string."
    )
    quoted = [text for _, text in shown(content)]
    assert quoted[0] == "Returns: the search result."
    assert quoted[-1].startswith(declaration + " ")
    assert quoted[-1].endswith("return the version string.")
    # A declaration whose parameters go on below its category, as PyMuPDF reads a long one.
    cut = "void asn1_print_structure (FILE * out, asn1 node const [Function]"
    below = f"{cut}\n\nPrints on the out file descriptor the structure's tree from the name."
    assert shown(below)[-1][1].startswith(cut + " Prints")
    # Its parameters' descriptions, below the rest of its parameters, are quoted after it.
    described = (
        f"{cut}\n\nstructure, const char * name, int mode)\nout: pointer to the output file.\n"
        "mode: specify how much of the structure to print, can be ASN1_PRINT_NAME or "
        "ASN1_PRINT_ALL ."
    )
    assert shown(described)[-1][1] == (
        f"{cut} out: pointer to the output file. mode: specify how much of the structure to "
        "print, can be ASN1_PRINT_NAME or ASN1_PRINT_ALL ."
    )
    # A sentence's words with brackets are no declaration.
    plain = "The function returns (x)\n\nIt is called with a vector of numbers."
    assert [text for _, text in shown(plain)] == ["It is called with a vector of numbers."]


def test_what_a_caption_goes_on_to_say_after_its_label_and_title_is_quoted() -> None:
    caption = (
        "Table 15: Contamination Analysis. The contaminated samples in this table are identified "
        "using a strict criterion: any test sample with a 13-gram overlap with the pre-training "
        "or post-training data is considered contaminated."
    )
    assert [text for _, text in shown(caption)] == [caption.split("Analysis. ")[1]]
    # A label standing alone as a sentence ("Table 2.") leaves the title next to it unquoted.
    assert shown("Table 2. Results of the models. We ran every benchmark three times.") == [
        ("sentence", "We ran every benchmark three times.")
    ]


def test_a_marked_list_cut_by_its_chunks_end_goes_on_in_the_next_chunk() -> None:
    first = (
        "In HPC, multiple physical networks are constructed as a means of access control:\n"
        "• Management network: it lets administrators control the nodes. It is dedicated.\n"
        "IPMIs are connected to the management network."
    )
    unit = claim_units(first, None)[0]
    assert unit.kind == "list" and list_runs_on(first, unit.parts)
    after = (
        "Only administrators may reach it. IPMIs are connected to it.\n\n"
        "• High-performance networks: they connect the computing nodes. They are fast.\n\n"
        "• Auxiliary networks: a user network is one of them.\n"
        "• Storage networks: they carry the data.\n\n"
        "There are many benefits to having multiple networks.\n\n• Not an item of the list."
    )
    items = continued_items(after, None, room=8, room_chars=700)
    assert [shown_text(after, [span]) for span in items] == [
        "• High-performance networks: they connect the computing nodes.",
        "• Auxiliary networks: a user network is one of them.",
        "• Storage networks: they carry the data.",
    ]
    assert continued_items(after, None, room=2, room_chars=700) == items[:2]
    # A paragraph of prose ends the list, after the first (the rest of the last item); so does
    # one ending after the list's last item in its own chunk.
    assert continued_items("The rest.\n\nProse of its own.\n\n• An item.", None, 8, 700) == []
    assert not list_runs_on(first + "\n\nA new paragraph.", unit.parts)


@pytest.mark.parametrize(
    ("lead", "count"),
    [
        ("The Company's strategy is centered on five central themes: • Safety—The safety", 5),
        ("We manage our business in 3 reportable segments: • Americas", 3),
        ("Our strategy rests on the following: • Safety", None),
        ("Our four priorities are: • Growth", None),
        ("Two of our segments grew. • Not a lead-in", None),
    ],
)
def test_a_lead_in_that_counts_its_items(lead: str, count: int | None) -> None:
    assert announced_count(lead) == count


def test_a_sentence_cut_at_a_chunks_end_and_its_ending_at_the_next_ones_start() -> None:
    cut = (
        "Background\n\nOn October 29, 2018, a Boeing Model 737-8 airplane operated by Lion Air "
        "(Lion Air Flight 610) was involved in an accident after takeoff from Soekarno-"
    )
    span = sentence_cut_at_end(cut, None)
    assert span is not None and cut[span[0] :].startswith("On October 29")
    # A chunk that ends a sentence, or on a heading or a lead-in, cuts none.
    assert sentence_cut_at_end("Revenue rose 5% in 2022.", None) is None
    assert sentence_cut_at_end("Revenue rose.\n\nResults of Operations", None) is None
    lead_in = "The Company has five reportable segments, as follows:"
    assert sentence_cut_at_end(lead_in, None) is None
    ending = "Hatta International Airport, resulting in 189 fatalities. It was investigated."
    assert sentence_ending_at_start(ending, None) == (0, ending.index(" It"))
    assert sentence_ending_at_start("Results of Operations\n\nRevenue rose.", None) is None


def test_a_claim_that_counts_and_names_the_first_awaits_the_last() -> None:
    ideas = last_counted(
        "Recurrent networks apply two main ideas in order to learn: The first is called unrolling."
    )
    assert ideas is not None
    assert ideas.match("The second idea is weight sharing.")
    assert not ideas.match("At each time step the recurrent neurons get duplicated.")
    reasons = last_counted("There are three reasons. First, speed.")
    assert reasons is not None and reasons.match("Finally, cost.")
    assert last_counted("We sell two products.") is None
    assert last_counted("The two companies merged first.") is None


def test_a_titled_paragraph_is_no_list_of_its_sentences() -> None:
    # Kraft Heinz's MD&A: the segments' sentences under a run-in title are claims of their own.
    content = (
        "Description of the Company:\nWe manufacture and market food and beverage products "
        "throughout the world.\nWe manage and report our operating results through four "
        "segments. We have three reportable segments defined by geographic region: United "
        "States, Canada, and EMEA."
    )
    assert shown(content) == [
        ("sentence", "We manufacture and market food and beverage products throughout the world."),
        ("sentence", "We manage and report our operating results through four segments."),
        (
            "sentence",
            "We have three reportable segments defined by geographic region: United States, "
            "Canada, and EMEA.",
        ),
    ]
    marked = "Key Features of the Library:\n• Portable to any C89 system.\n• No POSIX needed."
    assert [kind for kind, _ in shown(marked)] == ["list"]


def test_a_table_of_words_is_quoted_row_by_row_under_its_header() -> None:
    content = (
        "type meaning (historic Unix definition)\n"
        "mtime the file modification time (ls -l)\n"
        "ctime the file status change time (ls -lc)\n"
        "atime the last file access time (ls -lu)\n\n"
        "Note ctime is not file creation time."
    )
    assert shown(content) == [
        ("row", "type meaning (historic Unix definition) mtime the file modification time (ls -l)"),
        (
            "row",
            "type meaning (historic Unix definition) ctime the file status change time (ls -lc)",
        ),
        ("row", "type meaning (historic Unix definition) atime the last file access time (ls -lu)"),
        ("sentence", "Note ctime is not file creation time."),
    ]


def test_a_list_of_terms_is_quoted_term_by_term_with_each_description() -> None:
    # R-admin's configure options and variables, each term on a line of its own (a paragraph
    # apart, as PyMuPDF reads the indent) or beside a short description, none with a stop.
    content = (
        "--enable-R-profiling\n\nattempt to compile support for Rprof() [yes]\n\n"
        "--enable-memory-profiling\n\nattempt to compile support for Rprofmem() and tracemem() "
        "[no]\n\nFFLAGS debugging and optimization flags, fixed-form Fortran\n\n"
        "Variables such as CPICFLAGS are determined where possible by configure."
    )
    assert shown(content) == [
        ("row", "--enable-R-profiling attempt to compile support for Rprof() [yes]"),
        (
            "row",
            "--enable-memory-profiling attempt to compile support for Rprofmem() and tracemem() "
            "[no]",
        ),
        ("row", "FFLAGS debugging and optimization flags, fixed-form Fortran"),
        ("sentence", "Variables such as CPICFLAGS are determined where possible by configure."),
    ]


def test_a_lone_term_a_heading_or_a_bullet_under_a_term_makes_no_list_of_terms() -> None:
    one = "--enable-R-shlib\n\nbuild R as a shared/dynamic library [no]"
    assert shown(one) == []
    # JPMorgan's highlights: a measure's name over a bullet of figures.
    bullets = (
        "ROE\n\n• Total Markets revenue of $9.1 billion, up 25%,\n\n"
        "CIB\n\n• Average loans down 7%; debit and credit card sales up"
    )
    assert [kind for kind, _ in shown(bullets)] == []


def test_short_lines_of_prose_make_no_table() -> None:
    content = "We propose a new\nmethod for tracing the\nloops of a program and compiling\nthem."
    assert [kind for kind, _ in shown(content)] == ["sentence"]


def test_a_sentence_ending_as_the_following_is_quoted_with_what_follows() -> None:
    content = (
        "If you want to limit the download bandwidth for APT, you should configure APT with "
        'its configuration parameter as the following.\n\nAPT::Acquire::http::Dl-Limit "800";'
    )
    [(kind, text)] = shown(content)
    assert kind == "list"
    assert text.endswith('as the following. APT::Acquire::http::Dl-Limit "800";')


def test_a_sentence_saying_only_what_the_one_before_is_goes_with_it() -> None:
    content = (
        "The empty option causes filled areas not to be filled. This is the default. The solid "
        "option causes filling with a solid color."
    )
    assert [text for _, text in shown(content)] == [
        "The empty option causes filled areas not to be filled. This is the default.",
        "The solid option causes filling with a solid color.",
    ]


def test_items_ending_in_semicolons_are_each_an_item_of_the_list() -> None:
    content = (
        "In looking for Asymptote files, asy will search the following paths, in the order "
        "listed:\n\n1. The current directory;\n2. A list of directories specified by the "
        "environment variable ASYMPTOTE_DIR;\n3. The directory specified by ASYMPTOTE_HOME;\n"
        "4. The Asymptote system directory."
    )
    [(kind, text)] = shown(content)
    assert kind == "list"
    assert all(name in text for name in ("current", "ASYMPTOTE_DIR", "ASYMPTOTE_HOME", "system"))


@pytest.mark.parametrize(
    "after",
    ["If no such row exists, the routine returns 0.", "Otherwise, it returns 0."],
)
def test_what_happens_otherwise_goes_with_the_sentence_before(after: str) -> None:
    before = "The routine glp_find_row returns the ordinal number of the row with that name."
    assert [text for _, text in shown(f"{before} {after}")] == [f"{before} {after}"]


def test_a_slides_bullets_say_what_they_say_without_a_stop() -> None:
    content = (
        "\u25b6 Different states:\n\n"
        "\u25b6 RFA: Request For Adopter\n\n"
        "Maintainer looking for adopter, but continues work in the meantime\n\n"
        "\u25b6 Add --disable-perl-regexp to the configure line\n\n"
        "Debian Packaging Tutorial 47 / 89"
    )
    texts = [text for _, text in shown(content)]
    assert "\u25b6 RFA: Request For Adopter" in texts
    assert "\u25b6 Add --disable-perl-regexp to the configure line" in texts
    assert not any("Different states" in text for text in texts)


def test_a_slides_bullet_says_it_with_the_aside_under_it() -> None:
    content = (
        "\u25b6 Packages migrate from unstable to testing based on several criterias\n\n"
        "(e.g. has been in unstable for 10 days, and no regressions)\n\n"
        "\u25b6 New packages can also be uploaded to experimental\n\n"
    )
    assert shown(content)[0] == (
        "sentence",
        "\u25b6 Packages migrate from unstable to testing based on several criterias "
        "(e.g. has been in unstable for 10 days, and no regressions)",
    )


def test_bullets_that_make_one_sentence_together_stand_not_alone() -> None:
    content = (
        "\u2022 increased governmental and regulatory scrutiny\n\n"
        "\u2022 negative publicity, and\n\n"
        "\u2022 increased exposure to litigation,\n\n"
        "any or all of which could increase the Firm's costs and damage its reputation."
    )
    assert "\u2022 increased governmental and regulatory scrutiny" not in [
        text for _, text in shown(content)
    ]


def test_a_faqs_answer_is_quoted_with_its_question() -> None:
    content = (
        "27 How do you make upsd reload the config file?\n\n"
        "Either find the pid of the background process and send it a SIGHUP, or just start it "
        "again with -c reload.\n\n"
        "If you send the signals yourself, be sure you hit the right process."
    )
    assert [text for _, text in shown(content)] == [
        "27 How do you make upsd reload the config file? Either find the pid of the background "
        "process and send it a SIGHUP, or just start it again with -c reload.",
        "If you send the signals yourself, be sure you hit the right process.",
    ]


def test_a_default_given_alone_is_quoted_with_what_it_is_the_default_of() -> None:
    content = (
        "tol: partial pivoting tolerance. If the diagonal entry has a magnitude greater than or "
        "equal\n\nto tol times the largest magnitude of entries in the pivot column, then the "
        "diagonal entry is chosen. Default value: 0.001.\n\n"
        "Clip clips the circle at the plot boundaries, noclip disables this. Default is clip.\n\n"
        "HISTSIZE\n\nThe number of commands to remember in the command history. "
        "The default value is 500."
    )
    texts = [text for _, text in shown(content)]
    assert texts[-3].endswith("then the diagonal entry is chosen. Default value: 0.001.")
    assert texts[-2] == (
        "Clip clips the circle at the plot boundaries, noclip disables this. Default is clip."
    )
    assert texts[-1] == (
        "The number of commands to remember in the command history. The default value is 500."
    )


def test_a_paragraph_saying_what_a_word_in_lower_case_is_continues_nothing() -> None:
    content = (
        "The resulting program, cvs, addresses the issues of release control.\n\n"
        "2. The CVS Program\n\n"
        "cvs (Concurrent Versions System) is a front end to the RCS revision control system.\n\n"
        "and unpaid interest and premium, if any."
    )
    assert shown(content) == [
        ("sentence", "The resulting program, cvs, addresses the issues of release control."),
        (
            "sentence",
            "cvs (Concurrent Versions System) is a front end to the RCS revision control system.",
        ),
    ]


def test_a_consequence_is_quoted_with_the_sentence_before() -> None:
    content = (
        "However, such a kinemage is a drawing of a molecule and not the molecule itself. "
        "Thus, the kinemage lacks most of the information in a PDB file."
    )
    assert [text for _, text in shown(content)] == [content]


def test_a_second_lead_in_after_the_lines_a_first_announced_starts_anew() -> None:
    content = (
        "The preferred way is to put the opening brace last on the line, thusly:\n\n"
        "if (x is true) {\nwe do y\n}\n\n"
        "However, there is one special case, namely functions: they have the opening brace at "
        "the beginning of the next line, thus:\n\n"
        "int function(int x)\n{\nbody of function\n}"
    )
    [first, second] = shown(content)
    assert first[1].endswith("we do y }") and second[1].startswith("However, there is one")


def test_a_sentence_opening_on_what_the_one_before_named_is_quoted_with_it() -> None:
    content = (
        "When bash is invoked as an interactive login shell, it first reads and executes "
        "commands from the file /etc/profile, if that file exists. After reading that file, "
        "it looks for ~/.bash_profile, ~/.bash_login, and ~/.profile, in that order."
    )
    [(_, text)] = shown(content)
    assert text.endswith("in that order.")


def test_a_consequence_opening_on_what_caused_it_is_quoted_with_the_cause() -> None:
    content = (
        "Most documents rarely have such long paragraphs, which are the easiest to shrink. "
        "Because of this, lua-widow-control doesn't even attempt to shrink paragraphs."
    )
    assert [text for _, text in shown(content)] == [content]


def test_a_lead_in_to_code_whose_output_is_a_table_is_quoted_with_the_code() -> None:
    content = (
        "The following performs a Markov experiment with the predefined number of 1000 "
        "iterations on the example PBN:\n\n"
        "> sim <- markovSimulation(examplePBN)\n\n"
        "States reached at the end of the simulation:\n\n"
        "x1 x2 x3 Probability\n"
        "1 0 0 0 0.15\n"
        "2 1 1 1 0.85\n"
    )
    texts = [text for _, text in shown(content)]
    assert texts[0] == (
        "The following performs a Markov experiment with the predefined number of 1000 "
        "iterations on the example PBN: > sim <- markovSimulation(examplePBN)"
    )
