"""The answer built on a context: extractive or written by a model, every claim cited, and
the evidence of each claim on its page."""

from app.answer.claims import Answer, Citation, Claim
from app.answer.evidence import Evidence, collect_evidence
from app.answer.llm import ChatModel, synthesize_with_model
from app.answer.synthesis import Following, synthesize

__all__ = [
    "Answer",
    "ChatModel",
    "Citation",
    "Claim",
    "Evidence",
    "Following",
    "collect_evidence",
    "synthesize",
    "synthesize_with_model",
]
