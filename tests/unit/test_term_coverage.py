"""Term coverage: the weighed share of a query's terms that the chunks found hold."""

from __future__ import annotations

import uuid

import pytest

from app.db.terms import TermStat
from app.retrieval.coverage import folded, same_words_asked, term_coverage
from app.retrieval.keywords import term_weight

CHOSEN = uuid.UUID(int=1)
OTHER = uuid.UUID(int=2)
HELD = frozenset({CHOSEN})


def test_a_rare_term_weighs_more_than_a_common_one() -> None:
    assert term_weight(0, 1000) > term_weight(5, 1000) > term_weight(900, 1000)


def test_coverage_is_the_weighed_share_of_terms_held() -> None:
    terms = [TermStat("everest", 0), TermStat("tall", 3), TermStat("mount", 12, HELD)]
    coverage = term_coverage(terms, 1000, [CHOSEN])
    assert coverage is not None
    assert 0 < coverage < 1 / 3  # the one term held is the most common of the three

    both = [TermStat("qwen2", 77, HELD), TermStat("kind", 86, HELD)]
    assert term_coverage(both, 1000, [CHOSEN]) == 1.0


def test_a_common_word_missing_costs_little() -> None:
    terms = [
        TermStat("libtasn1", 11, HELD),
        TermStat("header", 25, HELD),
        TermStat("use", 900),
    ]
    assert term_coverage(terms, 1000, [CHOSEN]) == pytest.approx(1.0, abs=0.05)


def test_in_a_small_library_the_words_it_holds_count_as_telling() -> None:
    terms = [TermStat("trace", 2, HELD), TermStat("loop", 2, HELD), TermStat("speed", 0)]
    coverage = term_coverage(terms, 2, [CHOSEN])
    assert coverage is not None and coverage > 0.6


def test_a_query_of_stopwords_alone_is_not_judged() -> None:
    assert term_coverage([], 1000, [CHOSEN]) is None


def test_cjk_terms_are_not_judged() -> None:
    # The text search reads a run of CJK letters as one term, which no chunk repeats.
    terms = [TermStat("诸暨朗臻幸福家园小区", 0), TermStat("14", 30, HELD)]
    assert term_coverage(terms, 1000, [CHOSEN]) == 1.0
    assert term_coverage([TermStat("评估价值是多少", 0)], 1000, [CHOSEN]) is None


def test_a_chunk_holds_only_its_own_terms() -> None:
    terms = [TermStat("libtasn1", 11, HELD), TermStat("der", 30, frozenset({OTHER}))]
    both = term_coverage(terms, 1000, [CHOSEN, OTHER])
    mine = term_coverage(terms, 1000, [CHOSEN])
    theirs = term_coverage(terms, 1000, [OTHER])
    assert both == 1.0
    assert mine is not None and theirs is not None
    assert mine + theirs == pytest.approx(1.0)
    assert mine > theirs  # the rarer term weighs more


def test_a_filing_s_word_for_the_question_s_holds_its_term() -> None:
    """ "Stock buybacks" are the filing's "stock repurchases": the chunk holding the latter
    holds the question's term, weighed as the question's own."""
    asked = "Did Adobe return capital through stock buybacks?"
    assert same_words_asked(asked) == ["buyback buybacks buy-backs repurchase repurchases"]
    assert same_words_asked("How much stock did it issue?") == []
    terms = [TermStat("stock", 40, HELD), TermStat("buyback", 2)]
    group = [TermStat("buyback", 2), TermStat("repurchas", 30, HELD)]
    assert term_coverage(folded(terms, [group]), 1000, [CHOSEN]) == 1.0
    assert folded(terms, [group])[1].chunk_count == 2
    assert folded(terms, []) == terms
