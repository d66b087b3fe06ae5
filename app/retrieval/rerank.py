"""The reader's annotations as a bounded rerank signal over already-selected chunks.

`final_score = score - alpha * min(hl_count, cap)`, lower is better, where `score` is the
ranking score of the search mode (cosine distance in "vector", the scaled fused score in
"hybrid") and `hl_count` the reader's marks on the chunk that count (strike-outs do not).
The signal only reorders: it is applied after the candidates are chosen, so the same chunks
come back with and without it, and no chunk passes one whose score is better by more than
`alpha * cap`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from app.core.chunks import Candidate


@dataclass(frozen=True)
class AnnotationSignal:
    alpha: float = 0.02
    """Score taken off per mark."""
    cap: int = 5
    """Marks beyond this many add nothing: a page marked all over is not worth more."""

    def boost(self, hl_count: int) -> float:
        return self.alpha * min(hl_count, self.cap)


def rerank(
    ranked: Sequence[Candidate],
    hl_counts: Mapping[Any, int],
    signal: AnnotationSignal,
    *,
    score: Callable[[Candidate], float],
) -> list[Candidate]:
    """Returns `ranked` sorted by (final_score, distance, chunk id), best first."""

    def key(item: Candidate) -> tuple[float, float, str]:
        boost = signal.boost(hl_counts.get(item.chunk_id, 0))
        return (score(item) - boost, item.distance, str(item.chunk_id))

    return sorted(ranked, key=key)
