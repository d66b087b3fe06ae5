"""Abbreviations a text defines, and a sentence written out with the form it leaves unsaid."""

from __future__ import annotations

from app.core.abbreviations import asked_abbreviations, defined_abbreviations, spelled_out

FILING = (
    "With respect to the audit for tax years 2004 to 2013, on September 26, 2023, we received "
    "Notices of Proposed Adjustment (\u201cNOPAs\u201d) from the IRS. Revenue of our "
    "Datacenter and AI (DCAI) segment fell; Common Equity Tier 1 (CET1) capital rose."
)


def test_a_parenthesised_short_form_is_defined_by_the_words_that_spell_it() -> None:
    assert defined_abbreviations(FILING) == {
        "NOPAs": "Notices of Proposed Adjustment",
        "DCAI": "Datacenter and AI",
        "CET1": "Common Equity Tier 1",
    }


def test_a_name_a_ticker_or_a_lower_case_aside_defines_nothing() -> None:
    text = "Microsoft (MSFT) grew in the U.S. (mostly) and the model (see above) (ok)."
    assert defined_abbreviations(text) == {}


def test_the_first_definition_of_a_short_form_stands() -> None:
    text = "Return on equity (ROE) rose. Rate of exchange (ROE) fell."
    assert defined_abbreviations(text) == {"ROE": "Return on equity"}


def test_a_sentence_is_spelled_out_with_the_form_it_leaves_unsaid() -> None:
    defined = defined_abbreviations(FILING)
    assert spelled_out("In the NOPAs, the IRS is seeking $28.9 billion.", defined) == (
        "In the NOPAs (Notices of Proposed Adjustment), the IRS is seeking $28.9 billion."
    )
    assert spelled_out("Datacenter and AI revenue fell.", defined) == (
        "Datacenter and AI (DCAI) revenue fell."
    )
    both = "Notices of Proposed Adjustment (NOPAs) were received."
    assert spelled_out(both, defined) == both


def test_only_what_a_question_writes_one_way_is_asked_the_other() -> None:
    question = "Why did Datacenter and AI (DCAI) revenue fall, and what NOPAs were received?"
    assert asked_abbreviations(question, [FILING]) == {"NOPAs": "Notices of Proposed Adjustment"}


def test_a_form_most_sentences_write_is_not_spelled_out() -> None:
    directive = (
        "The FAA proposes to supersede Airworthiness Directive (AD) 2018-23-51. This AD applies "
        "to all 737 MAX airplanes. The AD requires new software. Comments on the AD are due."
    )
    question = "When was the airworthiness directive issued?"
    assert asked_abbreviations(question, [directive]) == {}
    assert asked_abbreviations(
        question, [directive + " It was issued in August. Boeing built them."]
    ) == {"AD": "Airworthiness Directive"}
