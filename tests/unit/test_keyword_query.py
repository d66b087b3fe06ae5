"""The keyword side's query: any of the question's words, each word's parts as a phrase."""

from __future__ import annotations

import pytest

from app.retrieval.search import keyword_query


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        (
            "What is the maximum context length Qwen2 can handle?",
            "(What) | (is) | (the) | (maximum) | (context) | (length) | (Qwen2) | (can) | (handle)",
        ),
        (
            "131,072 asn1_der_coding FY2023 10-K",
            "(131 <-> 072) | (asn1 <-> der <-> coding) | (FY2023) | (10 <-> K)",
        ),
        ("Adobe's cash-flow?", "(Adobe <-> s) | (cash <-> flow)"),
        # Nothing of tsquery's syntax gets through: only letters and digits.
        ("a & b | !c <-> (d) 'e':*", "(a) | (b) | (c) | (d) | (e)"),
        ("?! ... --", ""),
    ],
)
def test_keyword_query(question: str, expected: str) -> None:
    assert keyword_query(question) == expected
