"""LLM synthesis's pure parts: reading cited sentences from a reply, finding their support."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from app.answer.llm import SUPPORT_FLOOR, chat_messages, cited_sentences, supporting_sentence
from app.core.config import Settings
from tests.helpers.chunks import SEARCH, TRACING


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("Loops are recorded [1]. They become native code. [2]",
         [("Loops are recorded.", [1]), ("They become native code.", [2])]),
        ("An uncited opening. The cited claim [1].", [("The cited claim.", [1])]),
        ("A claim [1][3]. Trailing words without a marker.", [("A claim.", [1, 3])]),
        ("- First point [2]\n- Second point [1]", [("First point", [2]), ("Second point", [1])]),
        ("No markers at all.", []),
        ("[1]", []),
    ],
)  # fmt: skip
def test_cited_sentences(reply: str, expected: list[tuple[str, list[int]]]) -> None:
    assert cited_sentences(reply) == expected


def test_verbatim_claim_is_supported_by_its_sentence() -> None:
    sentence = "A tracing compiler turns the recorded loops into fast native code."
    start, end, support = supporting_sentence(sentence, TRACING) or (0, 0, 0.0)
    assert " ".join(TRACING.content[start:end].split()) == sentence and support == 1.0


def test_paraphrase_is_supported_by_the_closest_sentence() -> None:
    found = supporting_sentence("Recorded loops are compiled to native code.", TRACING)
    assert found is not None
    start, end, support = found
    assert TRACING.content[start:end].startswith("A tracing compiler")
    assert SUPPORT_FLOOR <= support < 1.0


def test_unsupported_claim_finds_no_sentence() -> None:
    assert supporting_sentence("The moon is made of green cheese.", TRACING) is None


def test_chat_messages_number_the_chunks() -> None:
    system, user = chat_messages("how are loops compiled?", [TRACING, SEARCH])
    assert system["role"] == "system" and "[2]" in system["content"]
    assert user["content"].startswith("Sources:\n\n[1] tracemonkey.pdf, p. 3\nTrace trees")
    assert "\n\n[2] tracemonkey.pdf, p. 7\nVector search" in user["content"]
    assert user["content"].endswith("Question: how are loops compiled?")


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"synthesis": "llm"}, "needs LLM_BASE_URL and LLM_MODEL"),
        ({"synthesis": "llm", "llm_base_url": "http://127.0.0.1:1"}, "needs LLM_BASE_URL"),
        ({"synthesis": "llm", "llm_base_url": "127.0.0.1:1", "llm_model": "m"}, "http://"),
    ],
)
def test_llm_settings_refuse_incomplete_values(values: dict[str, str], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        Settings(_env_file=None, **values)  # type: ignore[call-arg, arg-type]
