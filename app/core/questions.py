"""A question's core: what it asks, without the instructions on how to answer it.

Analysts' questions come wrapped in instructions to whoever answers them ("Round your answer to
two decimal places.", "Respond to the question by assuming the perspective of an investment
analyst ..."). No passage holds those words; embedded and searched with the question they pull
it towards boilerplate. On FinanceBench, leaving them out raised page hit@5 within a filing
from 0.448 to 0.517 (hybrid); keeping the statements they name ("... primarily using the
statement of income") cost one collection a question, as every filing has those statements.
"""

from __future__ import annotations

import re

from app.core.sentences import split_sentences

_INSTRUCTION = re.compile(
    r"^(?:please\s+)?(?:round\b|answer\s+in\b|answer\s+the\s+following|respond\b|provide\s+a\s+"
    r"response|give\s+a\s+response|calculate\s+what|compute\s+or\s+extract|base\s+your|basing\s+"
    r"your|utili[sz]e\b|you\s+are\s+an?\b|if\s+.{0,80}\bnot\s+a\s+useful\b|explain\s+why)",
    re.IGNORECASE,
)


def question_core(text: str) -> str:
    """Returns `text` without its sentences that only instruct how to answer (a sentence that
    asks, with a "?", always stays); `text` itself when nothing else would be left."""
    sentences = [text[start:end] for start, end in split_sentences(text)]
    kept = [s for s in sentences if "?" in s or not _INSTRUCTION.match(s)]
    if not kept or len(kept) == len(sentences):
        return text
    return " ".join(kept)
