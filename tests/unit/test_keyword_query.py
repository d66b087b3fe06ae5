"""The keyword side's query: the question's telling terms match, all of them weigh."""

from __future__ import annotations

from app.db.terms import TermStat
from app.retrieval.keywords import FEWEST_CHUNKS_WEIGHED, keyword_query, term_weight


def stats(**counts: int) -> list[TermStat]:
    return [TermStat(term, count) for term, count in counts.items()]


def test_common_terms_weigh_but_do_not_match() -> None:
    query = keyword_query(stats(total=900, dividend=12, revenu=600, cagr=0), 10_000)
    assert query.terms == ("cagr", "dividend")
    assert query.common_terms == ("revenu", "total")
    assert query.weights == tuple(term_weight(count, 10_000) for count in (0, 12))
    assert query.common_weights == tuple(term_weight(count, 10_000) for count in (600, 900))
    weights = query.weights + query.common_weights
    assert weights[0] > weights[1] > weights[2] > weights[3] > 0


def test_a_question_of_common_words_matches_by_its_rarest() -> None:
    query = keyword_query(stats(total=900, net=950, revenu=600), 10_000)
    assert query.terms == ("revenu", "total")
    assert query.common_terms == ("net",)


def test_a_small_library_is_weighed_as_a_thousand_chunks() -> None:
    # In a 20-chunk library a term in 5 chunks is a quarter of them, yet no common word.
    query = keyword_query(stats(qwen2=5, model=3), 20)
    assert query.terms == ("model", "qwen2")
    assert query.weights[1] == term_weight(5, FEWEST_CHUNKS_WEIGHED)


def test_no_terms_match_nothing() -> None:
    query = keyword_query([], 100)
    assert query.terms == query.common_terms == ()
