"""Words a filing writes for what a reader asks in other words.

A question's "stock buybacks" are Adobe's "stock repurchases", its "shareholders" Adobe's
"stockholders" and Coca-Cola's "shareowners". The answer's stemmer reads each group as one
term (app.answer.claims.stem) and the query's term coverage counts a chunk holding any of a
group's words as holding the question's (app.retrieval.coverage).
"""

from __future__ import annotations

SAME_WORDS: dict[str, tuple[str, ...]] = {
    "repurchas": ("buyback", "buybacks", "buy-backs", "repurchase", "repurchases"),
    "shareholder": (
        "shareholder",
        "shareholders",
        "stockholder",
        "stockholders",
        "shareowner",
        "shareowners",
    ),
}
"""Each group's words under the term the answer's stemmer reads them as (the stem of the
group's other forms: "repurchased" is "repurchas")."""
