"""Citation-locked extractive answers: claims quoted from the context, ranked by worth.

No language model: the answer is made of claim units (app/answer/units.py: sentences, lead-ins
with their items, table rows with their headers) taken from the context chunks, each followed by
a marker `[n]` for the pages it lies on (app/answer/claims.py). A unit is scored by the share
of the question's terms it holds (those only in its table's header or its chunk's context
header count half), whether it holds the kind of answer asked for (a count, an amount, a date,
a version, code, a definition, a cause: app/answer/kinds.py) and its chunk's rank, and the
best of them by that (EMBEDDED_UNITS) by their similarity to the question as well (the
embedding model that ranked the chunks, those units in one batch, the question's vector
retrieval's). The best units are the answer, best first. A question that joins asks with
"and" ("How much did Amazon invest ..., and how much more did it agree to invest?") has each
ask answered: the best unit for an ask that the claims chosen do not say is added. A best
claim that only announces the answer (it echoes the question, lacks the kind asked, or names
none of the several things asked) is followed by the sentence after it in its paragraph.

When none of the best units is close enough to the question, or its chunk lacks the question's
rarer words, there is no answer rather than a wrong one (ANSWER_FLOOR). `confidence`
estimates how likely the answer is to state what was asked: a logistic function of each
claim's similarity, coverage and kind, fitted on bench/data's questions, and never confident
for a claim that lacks the kind asked for.
"""

from __future__ import annotations

import math
import re
import uuid
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

from app.answer.claims import (
    EMPTY_ANSWER,
    Answer,
    Quote,
    cite,
    shown_text,
    terms,
)
from app.answer.extremes import asked_extremes
from app.answer.kinds import (
    asks_list,
    counted_things,
    defined_things,
    framed_elsewhen,
    holds_kind,
    other_measure,
    states_counts,
    states_default,
    states_definition,
    year_asked,
)
from app.answer.units import (
    MAX_LIST_ITEMS,
    Span,
    Unit,
    announced_count,
    chunk_sentences,
    claim_units,
    continued_items,
    holds_series,
    item_texts,
    items_at_start,
    last_counted,
    lead_in_at_end,
    list_room,
    list_runs_on,
    marked_items,
    release_heading,
    sentence_cut_at_end,
    sentence_ending_at_start,
)
from app.core.abbreviations import asked_abbreviations, spelled_out
from app.core.asked import Asked, asked_kinds, asks_default
from app.core.chunks import Candidate
from app.core.geometry import page_break_at
from app.core.questions import code_terms, question_parts
from app.core.rows import row_label
from app.embedding import Embedder, embed_query, embed_texts
from app.embedding.backends import FloatArray

EMBEDDED_UNITS = 16
"""Claim units embedded for an answer at most, the best by the rest of their worth: embedding
every unit of the context was most of the answer's time. On bench/data's 120 questions and 47
off-topic ones (top_k 5: 18 units a context, median; 27 at the 90th percentile), 16 gave
every answer and confidence that embedding every unit gave; 12 changed one, 8 eight."""

MAX_CLAIMS = 3
"""At most this many claims make an answer: enough to answer, few enough to check."""

SIMILARITY_WEIGHT = 1.0
COVERAGE_WEIGHT = 1.0
KIND_WEIGHT = 0.2
"""A unit's worth: similarity to the question, plus these shares of its coverage of the
question's terms and of holding (or lacking, subtracted) the kind of answer asked for. On
bench/data's docs and 10-Q questions the figures are flat around these weights (similarity
0 to 1, coverage 0.5 to 1, kind 0 to 0.2 all within a question of each other)."""

HEADER_SHARE = 0.5
"""In a table row's worth, the question's terms found only in its table's header count at this
share of its coverage: the header is every row's, so a row's own label (a "Total net sales"
among segments) must decide between the rows of a table, and between tables whose headers
match alike. The floor and the confidence take the whole coverage."""

LABEL_WEIGHT = 0.45
"""Added to a table row's worth times the share of its label's terms the question holds:
"Operating income" answers "What was Microsoft's operating income...?" where the segment rows
under a header of "Segment revenue and operating income" do not, though every row of either
table holds as many of the question's words with its header."""

CONTEXT_SHARE = 0.5
"""In a unit's worth, the question's terms found only in its chunk's context header (whose the
document is, its period, its chapter and section) count at this share of its coverage: "What
was Microsoft's revenue for the quarter ended September 30, 2022?" is answered from that
filing, not from a look-alike sentence of another company's in the same collection."""

YEAR_WEIGHT = 0.2
"""Added to the worth of a unit that names a year the question names: "In 2021, we delivered 142
aircraft" answers "How many F-35 aircraft did Lockheed Martin deliver in 2021?" where "Since
program inception, we have delivered 753" does not. Taken from a table row whose header names
only other years ("For the Year Ended December 29, 2018" for FY2019); a sentence naming other
years may still answer (a FY2020 report's capital plan for 2021 to 2030). On bench/data's
FinanceBench-style questions, stated answer-hit +2 (one collection) and +3 (own filing); no
other answer-hit moved, two of FinanceBench's right answers became confident."""

CODED_WEIGHT = 0.1
"""Added to the worth of a claim that writes code the question writes (app.core.questions.
code_terms), as written: asked what "\\Large" gives, the row of "\\large" holds the same
terms and is another command. A name with a hyphen and digits ("F-35") is the topic's, which
claims that say "the program" answer as well."""
CODED_SHARE = 0.1
"""Taken off the answer floor for a claim that writes a name the question writes with symbols
("What does the special name ?CURRENT refer to?"): the likeness of a sentence to a question
says little of such a name, and a text that writes it is about it."""

DEFINED_SHARE = 0.1
"""Taken off the answer floor for a claim that defines each thing the question asks the
definition of (kinds.states_definition): "According to [Gad06] creativity is “the ability to
use your imagination ...”" answers "How does Thoma's paper define creativity in its
introduction?", whose other words (paper, introduction) no definition repeats."""

COUNTED_SHARE = 0.1
"""Taken off the answer floor for a claim that gives a count just before each thing the
question asks how many of (kinds.states_counts): "Each of our 57,500 full- and part-time
employees in 44 countries make an important contribution, whether in one of our ..." answers
"How many employees did Corning have, and in how many countries?" at cosine 0.42, its words
spent on what else it says."""

LABELLED_SHARE = 0.1
"""Taken off the answer floor for a table row that holds the kind of answer asked for under a
label made only of the question's words: "Marketing, general, and administrative 1,303 1,752"
answers "How much did Intel spend on marketing, general, and administrative expenses in the
quarter ended April 1, 2023?", though a row of figures under a statement's header reads little
like a question."""

LISTED_SHARE = 0.1
"""Taken off the answer floor for a lead-in with the items after it when the question asks for
several things: "The Company has determined that it has five reportable segments for financial
reporting purposes, as follows: • Optical Communications - manufactures ..." answers "What are
Corning's reportable segments ...?" at cosine 0.42, its words spent on what each item makes."""

CODE_TERM_SHARE = 0.1
"""Taken off the floor of the question's terms a claim's chunk must hold (FLOOR_TERM_COVERAGE)
when the question asks how to do something and the claim shows code: "> sink("record.lis") will
divert all subsequent output from the console to an external file" answers "How can I send R's
output to a file instead of the console, and switch it back?" in words of its own."""

_CODED = re.compile(r"[^\W_]*[_?\-./()#][\w?\-./()#]*[^\W_]")
"""A word with symbols inside or before it ("?CURRENT", "asn1_write_value", "Coca-Cola")."""


def is_code_name(word: str) -> bool:
    """Whether a word written with symbols names code: with an underscore, a question mark,
    a dot, a slash or brackets, or a hyphen beside digits ("Qwen2-72B"); "Coca-Cola" does not."""
    if len(word) <= 3 or not any(c.isalpha() for c in word):
        return False
    return any(c in "_?./()#" for c in word) or ("-" in word and any(c.isdigit() for c in word))


RANK_BONUS = 0.2
"""Added as RANK_BONUS / (1 + rank of the unit's chunk): retrieval's order counts a little."""

CLAIM_MARGIN = 0.5
"""A further claim is kept when its worth is within this of the best claim's: the second and
third best often state the fact where the best misses it."""

REDUNDANT_JACCARD = 0.6
"""A unit whose terms overlap a chosen one's this much (Jaccard) says the same thing."""

CONFIDENCE_BIAS = -1.12
CONFIDENCE_SIMILARITY = 0.25
CONFIDENCE_COVERAGE = 0.61
CONFIDENCE_KIND = -0.27
CONFIDENCE_LEAD = 2.63
"""A claim's confidence = logistic(bias + these times its similarity, coverage, kind (+1
holds the asked kind, -1 lacks it, 0 none asked) and lead (how much more it is worth than the
next unit)): a logistic regression of "the answer states the gold fact" on bench/data's
answered questions. How far ahead of the rest a claim stands says most; the kind's negative
weight is the regression's, not a preference (questions that ask for a figure are harder)."""

LACKING_KIND_CONFIDENCE = 0.45
"""A claim that lacks the kind of answer asked for (a date asked, none quoted), that echoes
the question, that names no series where several things are asked for, or that answers which
had the highest or lowest, is never confident, whatever the fit says: on bench/data the first
took confident-wrong from 7.5 to 5.7%, the third from 4.9 to 2.4% (three answers that announced
a list without its items), the last from 12.5% to 4.2% on the FinanceBench-style questions
(a list of resorts, a table's total row: quotes that named no extreme)."""

ECHO_SHARE = 0.75
"""A claim of whose own terms the question holds this share or more echoes it: "The
reference architecture divides an HPC system into four function zones." for "What are the four
function zones...?" covers the question and says nothing it did not. On bench/data's answers
this took confident-wrong from 5.3 to 4.4% (one of the two answers below it was right)."""

TRUSTED = 0.5
CALIBRATED_TRUSTED = 0.7
"""The fit's confidence read onto what it measured: of bench/data's answers the fit puts at
TRUSTED or more, 86% state the gold fact (30 of 35), so they read CALIBRATED_TRUSTED and more
(the rest of the scale shrunk in proportion); under TRUSTED it stands, cautious (70% of those
are right), because a wrong answer at TRUSTED or more is what a reader must not meet."""

MAX_LEAD = 0.5
"""A lead counts up to this: a context with a single unit says little about its worth."""

ANSWER_FLOOR = 0.55
FLOOR_COVERAGE = 0.25
FLOOR_TERM_COVERAGE = 0.40
"""A unit answers the question when its similarity plus FLOOR_COVERAGE times its coverage
reaches ANSWER_FLOOR and its chunk holds FLOOR_TERM_COVERAGE of the question's terms weighed
by their rarity (Candidate.term_coverage); when none of the MAX_CLAIMS best does, the answer
is empty (status no_answer). The best by worth need not be the one that passes: its worth may
come from its kind or its chunk's context header more than from its likeness to the question.
The rarity asks what likeness cannot: "What is the population of Germany?" lies near a table
of EU countries' populations that never names Germany. Fitted on bench/data: of the 47
questions the documents do not answer, 4 pass; of the 79 of 120 answered right with no floor,
78 do (a floor of likeness alone at 0.66 kept 73 for 5 of the 47; 0.50 to 0.55 and 0.45 all
give the same). The term floor was 0.45 until session 47: at 0.40 six more answers of bench/data
are right, their chunk holding the question's rarest terms but not its paraphrase ("how do I
stop a one-row subset of a matrix from being turned into a plain vector?" over the R FAQ's
`drop = FALSE`, 0.43); seven more are wrong, all under TRUSTED; none of the 47 is answered."""


@dataclass(frozen=True)
class RunOn:
    """A sentence a page break cut: its beginning ends one chunk, its ending opens the chunk
    after it, on the next page. The chunker ends a chunk at a page's running head or number,
    so the two halves are apart: "... operated by Lion Air (Lion Air Flight 610) was involved
    in an accident after takeoff from Soekarno-" and "Hatta International Airport in Jakarta,
    Indonesia, resulting in 189 fatalities.". Or a list's lead-in that ends one chunk, its items
    (`ending` spans them) opening the next, on the same page or the next."""

    beginning: Span
    after: Candidate
    ending: Span

    @property
    def ending_text(self) -> str:
        return shown_text(self.after.content, [self.ending])


@dataclass(frozen=True)
class ScoredUnit:
    worth: float
    similarity: float
    coverage: float
    kind: int
    """+1 holds the kind of answer asked for, -1 lacks it, 0 when none is asked."""
    rank: int
    lead: float
    """How much more this unit is worth than the next best one."""
    chunk: Candidate
    parts: tuple[Span, ...]
    text: str
    words: frozenset[str]
    """The terms of its own text: a table's header, shared by its rows, is left out."""
    headed: bool = False
    """A table row quoted with its table's header (Unit.headed)."""
    echoes: bool = False
    """Its own terms are mostly the question's (ECHO_SHARE)."""
    unlisted: bool = False
    """The question asks for several things ("What are the four zones?") and it names no series
    of them: it announces the list at most."""
    uncompared: bool = False
    """The question asks which thing had the highest or lowest figure of a year
    (answer.extremes), which no quote settles: the answer worked out from a table did not find
    one."""
    coded: bool = False
    """It writes a name the question writes with symbols ("?CURRENT", "asn1_write_value")."""
    counted: bool = False
    """It counts each thing the question asks how many of (kinds.states_counts)."""
    shows_code: bool = False
    """The question asks how to do something or which function does it, and it shows code."""
    defines: bool = False
    """It defines each thing the question asks the definition of (kinds.states_definition)."""
    lists: bool = False
    """It is a lead-in with the list items that follow it (Unit.kind "list")."""
    labelled: bool = False
    """A table row whose label's terms are all the question's (LABELLED_SHARE)."""
    run_on: RunOn | None = None
    """The sentence it begins ends in the next chunk: its text is both halves."""
    listed: bool = False
    """It is a list (lists) and the question asks for several things (LISTED_SHARE)."""

    @property
    def answers(self) -> bool:
        telling = self.chunk.term_coverage
        floor = (
            ANSWER_FLOOR
            - (CODED_SHARE if self.coded else 0.0)
            - (COUNTED_SHARE if self.counted else 0.0)
            - (DEFINED_SHARE if self.defines else 0.0)
            - (LABELLED_SHARE if self.labelled and self.kind > 0 else 0.0)
            - (LISTED_SHARE if self.listed else 0.0)
        )
        telling_floor = FLOOR_TERM_COVERAGE - (CODE_TERM_SHARE if self.shows_code else 0.0)
        return self.similarity + FLOOR_COVERAGE * self.coverage >= floor and (
            telling is None or telling >= telling_floor
        )

    @property
    def confidence(self) -> float:
        logit = (
            CONFIDENCE_BIAS
            + CONFIDENCE_SIMILARITY * self.similarity
            + CONFIDENCE_COVERAGE * self.coverage
            + CONFIDENCE_KIND * self.kind
            + CONFIDENCE_LEAD * self.lead
        )
        sure = 1 / (1 + math.exp(-logit))
        if sure >= TRUSTED:
            sure = CALIBRATED_TRUSTED + (sure - TRUSTED) * (1 - CALIBRATED_TRUSTED) / (1 - TRUSTED)
        lacking = self.kind < 0 or self.echoes or self.unlisted or self.uncompared
        return min(sure, LACKING_KIND_CONFIDENCE) if lacking else sure


def synthesize(
    query: str,
    ranked: Sequence[Candidate],
    context: Sequence[Candidate],
    embedder: Embedder,
    *,
    query_vector: FloatArray | None = None,
    selected: bool = False,
    following: Following | None = None,
) -> Answer:
    """Returns the extractive answer to `query` from `context`, each claim cited, best first.

    `ranked` is the retrieved chunks best first; `context` the ones the answer may use. Up to
    MAX_CLAIMS units are chosen by worth, each within CLAIM_MARGIN of the best and none
    redundant with one already chosen; ties go to the better-ranked chunk, then the smaller
    chunk id, then the earlier unit. No unit, or none of the best under ANSWER_FLOOR, is no
    answer.

    `query_vector` is the query's embedding when retrieval has it (else it is embedded here).
    `selected`: the reader selected the passage that opens `ranked` and asks about it ("what
    does this mean?"), so its units come first and the floor does not apply: the question's
    subject is the passage, whatever its words.
    `following` reads the chunk after a given one of its document: a list a claim quotes that
    runs on past its chunk is quoted on from there (_continued), a why-question reads the
    prose under each ranked table (_explanations), one asking a total the rest of each
    ranked table (_table_ends), and a sentence a page break cuts at a chunk's end is read to
    its end on the next page (_runs_on).
    """
    passage = ranked[0].chunk_id if selected and ranked else None
    if following is not None and Asked.REASON in asked_kinds(query):
        context = [*context, *_explanations(ranked, context, following)]
    elif following is not None and _ASKS_TOTAL.search(query):
        context = [*context, *_table_ends(ranked, context, following)]
    embedded: dict[str, FloatArray] = {}
    runs_on = _runs_on(context, following) if following is not None and not selected else {}
    scored = score_units(
        query,
        ranked,
        context,
        embedder,
        query_vector=query_vector,
        kept_chunk=passage,
        embedded=embedded,
        runs_on=runs_on,
    )
    if not scored:
        return EMPTY_ANSWER
    if selected:
        scored.sort(key=lambda unit: (unit.chunk.chunk_id != passage, *_order(unit)))
    elif not any(unit.answers for unit in scored[:MAX_CLAIMS]):
        return EMPTY_ANSWER
    best = scored[0]
    chosen = [best]
    for unit in scored[1:]:
        if len(chosen) == MAX_CLAIMS or unit.worth < best.worth - CLAIM_MARGIN:
            break
        if not any(_redundant(unit, other) for other in chosen):
            chosen.append(unit)
    quotes = []
    said = [_flat(unit.text) for unit in chosen]
    default_asked = asks_default(query)
    for unit in chosen:
        quoted = _quoted(unit, unit.confidence)
        if not selected and (_announces(unit) or _defined_next(unit, query)):
            quoted[1:1] = _going_on(unit, chosen, following)
        elif not selected and unit is best and default_asked and not states_default(unit.text):
            quoted[1:1] = _default_after(unit, chosen)
        quotes += quoted
        if unit.lists and following is not None:
            quotes += _continued(unit, following, said)
    if not selected:
        quotes += _other_asks(query, ranked, context, embedder, chosen, embedded, runs_on)
    return cite(_unrepeated(quotes))


def _runs_on(context: Sequence[Candidate], following: Following) -> dict[uuid.UUID, RunOn]:
    """Returns, by chunk, the sentence of prose a page break cuts at its end, where the chunk
    after it, on the next page, opens with the sentence's ending; or the lead-in it ends with,
    where the chunk after it opens with the list's items."""
    found = {}
    for chunk in context:
        if chunk.table_header is not None:
            continue
        beginning = sentence_cut_at_end(chunk.content, page_break_at(chunk))
        lead_in = lead_in_at_end(chunk.content, page_break_at(chunk)) if beginning is None else None
        if beginning is None and lead_in is None:
            continue
        after = following(chunk)
        if after is None or after.table_header is not None:
            continue
        if beginning is not None and after.page_start == chunk.page_end + 1:
            ending = sentence_ending_at_start(after.content, page_break_at(after))
            if ending is not None:
                found[chunk.chunk_id] = RunOn(beginning, after, ending)
        elif lead_in is not None and after.page_start in (chunk.page_end, chunk.page_end + 1):
            # A lead-in the chunk ends with, whose items open the chunk after it.
            items = items_at_start(after.content, page_break_at(after))
            if items is not None:
                found[chunk.chunk_id] = RunOn(lead_in, after, items)
    return found


def _quoted(unit: ScoredUnit, confidence: float) -> list[Quote]:
    """Returns what citing `unit` quotes: the unit, or a sentence a page break cut as its two
    halves, each cited on its own page."""
    if unit.run_on is None:
        return [Quote(unit.chunk, unit.parts, unit.text, confidence, _header(unit))]
    ending = unit.run_on.ending_text
    return [
        Quote(unit.chunk, unit.parts, unit.text.removesuffix(f" {ending}"), confidence),
        Quote(unit.run_on.after, (unit.run_on.ending,), ending, confidence),
    ]


def _unrepeated(quotes: list[Quote]) -> list[Quote]:
    """Returns `quotes` less those that repeat an earlier one's text: the sentence a claim
    goes on to (_going_on) may be the one that answers another of the question's asks."""
    said: set[str] = set()
    kept = []
    for quote in quotes:
        text = _flat(quote.text)
        if text not in said:
            said.add(text)
            kept.append(quote)
    return kept


Following = Callable[[Candidate], Candidate | None]
"""Reads the chunk after a chunk in its document (furniture left out), None after the last."""
FOLLOWING_CHUNKS = 2
"""A list is quoted on through at most this many chunks after its lead-in's."""


def _explanations(
    ranked: Sequence[Candidate], context: Sequence[Candidate], following: Following
) -> list[Candidate]:
    """Returns the prose under each ranked table or heading, where it is not in `context`: a
    filing says why a table's figures moved in the paragraph after it ("In 2020, the Company's
    capital expenditures increased $168 million primarily due to ..." under the capital
    expenditures by category), which the search may leave out, and a heading that ranks alone
    ("Market-Based Businesses") stands over its table and the prose that explains it."""
    found = []
    for chunk in ranked:
        table: Candidate | None = chunk
        if _is_heading(chunk):
            table = following(chunk)
            if table is not None and table.table_header is None:
                found.append((chunk, table))
                continue
        if table is None or table.table_header is None:
            continue
        _, after = _table_rest(table, following, FOLLOWING_CHUNKS - 1)
        if after is not None and after.table_header is None:
            found.append((chunk, after))
    return _read_on(found, context)


_SENTENCE_END = re.compile(r"[.:;!?]\s*$")
HEADING_CHARS = 80
"""A chunk of one line shorter than this, ending no sentence, is a heading alone."""


def _is_heading(chunk: Candidate) -> bool:
    """Says whether a chunk is a heading alone, cut from the table or prose it heads."""
    text = chunk.content.strip()
    return (
        chunk.table_header is None
        and "\n" not in text
        and len(text) < HEADING_CHARS
        and not _SENTENCE_END.search(text)
    )


_ASKS_TOTAL = re.compile(r"\btotal\b", re.I)


def _table_ends(
    ranked: Sequence[Candidate], context: Sequence[Candidate], following: Following
) -> list[Candidate]:
    """Returns the rest of each ranked table, where it is not in `context`: a table's total
    stands in its last row, which the chunk of its first rows lacks ("Total 3,006.1 456.1"
    after Adobe's notes, leases and purchase obligations, a chunk later)."""
    found = []
    for table in _tables(ranked):
        rest, _ = _table_rest(table, following, FOLLOWING_CHUNKS)
        found += [(table, chunk) for chunk in rest]
    return _read_on(found, context)


def _tables(ranked: Sequence[Candidate]) -> list[Candidate]:
    return [chunk for chunk in ranked if chunk.table_header is not None]


def _table_rest(
    table: Candidate, following: Following, limit: int
) -> tuple[list[Candidate], Candidate | None]:
    """Returns the chunks after `table` that go on with its rows, at most `limit`, and the
    chunk after those (None at the document's end)."""
    rest: list[Candidate] = []
    after = following(table)
    while (
        after is not None
        and len(rest) < limit
        and after.table_header_text == table.table_header_text
    ):
        rest.append(after)
        after = following(after)
    return rest, after


def _read_on(
    found: Sequence[tuple[Candidate, Candidate]], context: Sequence[Candidate]
) -> list[Candidate]:
    """Returns each chunk read on from a ranked table, but those in `context` or found before;
    each as telling as its table (Candidate.term_coverage): it is about the table's rows."""
    seen = {chunk.chunk_id for chunk in context}
    added = []
    for table, chunk in found:
        if chunk.chunk_id not in seen:
            seen.add(chunk.chunk_id)
            added.append(replace(chunk, term_coverage=table.term_coverage))
    return added


def _continued(unit: ScoredUnit, following: Following, said: list[str]) -> list[Quote]:
    """Returns the items with which the chunks after `unit`'s go on with the marked list it
    quotes ("In HPC, multiple physical networks are constructed ...:", then the management
    network, its long description cut by the chunk's end, and the two networks after it in the
    next chunk), up to the list's limits, but for those a text already `said` (the answer's
    claims, whitespace collapsed) holds: chunks overlap. What they quote is added to `said`.
    No more sure than the claim whose list they end."""
    chunk, parts = unit.chunk, unit.parts
    taken, taken_chars = marked_items(unit.text), len(unit.text)
    # A lead-in that counts its items ("centered on five central themes:") or numbers them is
    # quoted to its last, whatever room the items before took.
    announced = announced_count(unit.text)
    room_chars = list_room(unit.text, [chunk.content[start:end] for start, end in parts])
    quotes: list[Quote] = []
    for _ in range(FOLLOWING_CHUNKS):
        if not list_runs_on(chunk.content, parts):
            break
        after = following(chunk)
        if after is None:
            break
        items = continued_items(
            after.content,
            page_break_at(after),
            (MAX_LIST_ITEMS if announced is None else min(announced, MAX_LIST_ITEMS)) - taken,
            room_chars - taken_chars,
        )
        if not items:
            break
        fresh = [
            span
            for span in items
            if not any(_flat(shown_text(after.content, [span])) in text for text in said)
        ]
        if fresh:
            text = shown_text(after.content, fresh)
            quotes.append(Quote(after, tuple(fresh), text, unit.confidence))
            said.append(_flat(text))
        chunk, parts = after, tuple(items)
        taken += len(items)
        taken_chars += sum(end - start for start, end in items)
    return quotes


def _flat(text: str) -> str:
    return " ".join(text.split())


def _announces(unit: ScoredUnit) -> bool:
    """Whether a claim says that the answer exists rather than what it is: it echoes the
    question, lacks the kind of answer asked for, or names no series of the things asked."""
    return unit.echoes or unit.kind < 0 or unit.unlisted


_DEFINING = re.compile(r"(?:An?|The) (?P<word>[^\W\d][\w-]*) (?:is|are|means|refers to)\b")
"""A sentence that opens by saying what a thing is: "A region is an subprogram worth ..."."""


def _defined_next(unit: ScoredUnit, query: str) -> bool:
    """Whether the sentence after `unit` in its paragraph says what one of the question's
    words is: "Suganuma et al. (18) described region-based compilation (RBC), a relative of
    tracing." names what "What is region-based compilation ...?" asks, the next sentence
    defines it ("A region is an subprogram worth optimizing that can include subsets of any
    number of methods.")."""
    found = _next_in_paragraph(unit.chunk, unit.parts[-1][1], None)
    if found is None:
        return False
    defining = _DEFINING.match(shown_text(found[0].content, found[1]))
    return defining is not None and bool(terms(defining.group("word")) & terms(query))


def _going_on(
    unit: ScoredUnit, chosen: Sequence[ScoredUnit], following: Following | None
) -> list[Quote]:
    """Returns the sentence that goes on from `unit` in its paragraph, when no chosen claim
    quotes it: what a claim announces is said next ("SpiderMonkey, like many VMs, needs to
    preempt the user program periodically. The main reasons are to prevent ..."). A claim
    that counts what it announces and names the first of them ("Recurrent networks apply two
    main ideas in order to learn: The first is called unrolling ...") goes on to the sentence
    that names the last ("The second idea is weight sharing ..."), at most GOING_ON_SENTENCES
    on. Either reads into the chunk after its own when the paragraph runs on there ("...
    quoting from this article: [...] we use David A. Wheeler's sloccount system to determine
    the number of physical source lines of code (SLOC) of Debian 2.2" | "We show that Debian
    2.2 includes more than 55,000,000 physical SLOC"). No more sure than the claim it goes on
    from."""
    last = last_counted(unit.text)
    chunk, end = unit.chunk, unit.parts[-1][1]
    quotes: list[Quote] = []
    for _ in range(GOING_ON_SENTENCES if last is not None else 1):
        found = _next_in_paragraph(chunk, end, following)
        if found is None:
            break
        chunk, parts = found
        if _quoted_by(chosen, chunk, parts):
            break
        text = shown_text(chunk.content, parts)
        quotes.append(Quote(chunk, parts, text, unit.confidence))
        if last is None or last.match(text):
            return quotes
        end = parts[-1][1]
    return quotes[:1]


GOING_ON_SENTENCES = 4
"""The most sentences a claim that counts what it announces goes on through to the last."""


def _default_after(unit: ScoredUnit, chosen: Sequence[ScoredUnit]) -> list[Quote]:
    """Returns the sentence later in `unit`'s paragraph that states a default, when no chosen
    claim quotes it: a reference entry describes its setting first and ends with its default
    ("int tc_level: ... On levels up to level tc_level, inclusive, an expensive but highly
    effective rule is used. ... For easier graphs, use 0. Default 100."), however short, at
    most DEFAULT_SENTENCES on. No more sure than the claim it goes on from."""
    chunk, end = unit.chunk, unit.parts[-1][1]
    sentences = chunk_sentences(chunk.content, page_break_at(chunk))
    later = [span for span in sentences if span[0] >= end]
    for start, stop in later[:DEFAULT_SENTENCES]:
        if "\n\n" in chunk.content[end:start]:
            return []
        text = shown_text(chunk.content, ((start, stop),))
        if states_default(text):
            quoted = _quoted_by(chosen, chunk, ((start, stop),))
            return [] if quoted else [Quote(chunk, ((start, stop),), text, unit.confidence)]
    return []


DEFAULT_SENTENCES = 8
"""The most sentences a claim is read on through to the default its paragraph states."""


def _quoted_by(chosen: Sequence[ScoredUnit], chunk: Candidate, parts: tuple[Span, ...]) -> bool:
    """Whether one of the `chosen` claims quotes any of `parts` of `chunk`."""
    return any(
        other.chunk.chunk_id == chunk.chunk_id
        and any(a < d and c < b for a, b in parts for c, d in other.parts)
        for other in chosen
    )


def _next_in_paragraph(
    chunk: Candidate, end: int, following: Following | None
) -> tuple[Candidate, tuple[Span, ...]] | None:
    """Returns the claim unit after `end` in `chunk`'s paragraph, or, given `following`, in the
    chunk after it, on the same page or the next, when the paragraph runs on past `chunk`'s
    end with a sentence that opens there; None at a paragraph's end or before a table's row.
    Chunks overlap: what the chunk after repeats of this one is passed over."""
    for claim in claim_units(chunk.content, page_break_at(chunk), _header_end(chunk)):
        start = claim.parts[0][0]
        if start < end:
            continue
        between = chunk.content[end:start]
        if between.strip() or "\n\n" in between or claim.headed:
            return None
        return chunk, claim.parts
    if following is None or "\n\n" in chunk.content[end:] or chunk.content[end:].strip():
        return None
    after = following(chunk)
    if after is None or after.page_start not in (chunk.page_end, chunk.page_end + 1):
        return None
    said, repeated_end = _flat(chunk.content), 0
    for claim in claim_units(after.content, page_break_at(after), _header_end(after)):
        if _flat(shown_text(after.content, claim.parts)) in said:
            repeated_end = claim.parts[-1][1]
            continue
        opening = after.content[repeated_end : claim.parts[0][0]]
        if claim.headed or "\n\n" in opening or not after.content[claim.parts[0][0]].isupper():
            return None
        return after, claim.parts
    return None


def _other_asks(
    query: str,
    ranked: Sequence[Candidate],
    context: Sequence[Candidate],
    embedder: Embedder,
    chosen: list[ScoredUnit],
    embedded: dict[str, FloatArray],
    runs_on: Mapping[uuid.UUID, RunOn],
) -> list[Quote]:
    """Returns a claim for each of the things the question asks ("How much did Amazon invest
    ..., and how much more did it agree to invest?", app.core.questions.question_parts) that
    the claims chosen do not say: of the best units for that ask alone, the first that
    answers it, else the first that goes on from a chosen claim (the sentence after it says
    "We have an agreement ... to invest up to an additional $2.75 billion", naming the
    question's subject only by the one before) and holds the kind asked; no more sure than
    the answer's best claim (the ask alone names less of what was asked)."""
    parts = question_parts(query)
    if len(parts) < 2:
        return []
    quotes = []
    for part in parts:
        fresh = [
            unit
            for unit in score_units(
                part, ranked, context, embedder, embedded=embedded, runs_on=runs_on
            )[:PART_UNITS]
            if not any(_redundant(unit, other) for other in chosen)
        ]
        going_on = (u for u in fresh if u.kind >= 0 and u.coverage > 0 and _next_to(u, chosen))
        found = next((u for u in fresh[:MAX_CLAIMS] if u.answers), None) or next(going_on, None)
        if found is not None:
            chosen.append(found)
            sure = min(found.confidence, chosen[0].confidence)
            quotes += _quoted(found, sure)
    return quotes


PART_UNITS = 8
"""Of the units an ask alone makes best, those that may answer it for going on from a claim."""


def _next_to(unit: ScoredUnit, chosen: Sequence[ScoredUnit]) -> bool:
    """Whether `unit` stands right before or after one of the `chosen` claims in its chunk,
    with only spaces between, in one paragraph."""
    content = unit.chunk.content
    for other in chosen:
        if other.chunk.chunk_id != unit.chunk.chunk_id:
            continue
        after = (other.parts[-1][1], unit.parts[0][0])
        before = (unit.parts[-1][1], other.parts[0][0])
        for start, end in (after, before):
            between = content[start:end] if start <= end else None
            if between is not None and not between.strip() and "\n\n" not in between:
                return True
    return False


_POINTER = re.compile(
    r"(?:^|[,;(]\s*)(?:see|refer to)\s+(?:Item|Note|Part|Section)\b.*\bfor (?:additional|more|"
    r"further) (?:information|details|discussion)\b",
    re.I,
)
"""A sentence that sends the reader elsewhere for what it is about ("On January 1, 2022, the
Company completed the sale of its New York subsidiary, see Item 1—Business— ... and Note 5 ...
for additional information"): it holds no answer of the kind asked, whatever its figures."""


def score_units(
    query: str,
    ranked: Sequence[Candidate],
    context: Sequence[Candidate],
    embedder: Embedder,
    *,
    query_vector: FloatArray | None = None,
    kept_chunk: uuid.UUID | None = None,
    embedded: dict[str, FloatArray] | None = None,
    runs_on: Mapping[uuid.UUID, RunOn] | None = None,
) -> list[ScoredUnit]:
    """Returns the claim units of `context` worth embedding scored, best first.

    `embedded` holds the vectors of units embedded before for the same answer (each of a
    question's asks weighs mostly the same units), by the text embedded: those are not
    embedded again, and those embedded here are added. A unit is embedded with each
    abbreviation that the question writes the other way spelled out (_asked_abbreviations).

    Only the EMBEDDED_UNITS units that the question's terms, the kind asked for and their
    chunk's rank make worth most are embedded and scored (and every unit of `kept_chunk`): the
    similarity is the costly part of a unit's worth, and one weighs no more than the coverage
    that ranks them here. A text that comes more than once (overlapping chunks repeat their
    sentences) is embedded once.

    `runs_on` gives the sentences a page break cuts at a chunk's end (_runs_on): each is
    scored whole in place of its beginning, and its ending is no unit of its own.
    """
    query_terms = terms(query)
    kinds = asked_kinds(query)
    causes = Asked.REASON in kinds
    several = asks_list(query)
    # Of no year, a sentence settles it as often ("the most common attack is ...").
    compares = any(ask.year is not None for ask in asked_extremes(query))
    # Code proper (a TeX command "\Large", an option, an identifier: code_terms) is matched as
    # written and weighs in a claim's worth; a product's name ("F-35") only lowers the floor.
    written_code = set(code_terms(query))
    coded = {word for word in _CODED.findall(query) if is_code_name(word)} | written_code
    counted = counted_things(query)
    # A default's figure may follow what it counts: "the last HISTSIZE commands (default 500)".
    default_asked = asks_default(query)
    released = bool(kinds & {Asked.VERSION, Asked.DATE})
    defined = defined_things(query)
    rank_of = {chunk.chunk_id: rank for rank, chunk in enumerate(ranked)}
    runs_on = runs_on or {}
    endings = {(run_on.after.chunk_id, run_on.ending) for run_on in runs_on.values()}
    abbreviations = _asked_abbreviations(query, kinds, context)
    spelled: dict[str, str] = {}
    found = []
    for chunk in context:
        rank = rank_of.get(chunk.chunk_id, len(rank_of))
        header = chunk.table_header_text
        placed = terms(chunk.context_header) & query_terms
        run_on = runs_on.get(chunk.chunk_id)
        claims = [
            claim
            for claim in claim_units(chunk.content, page_break_at(chunk), _header_end(chunk))
            if (chunk.chunk_id, claim.parts[0]) not in endings
            and (run_on is None or claim.parts[0][0] < run_on.beginning[0])
        ]
        if run_on is not None:
            claims.append(Unit((run_on.beginning,), "sentence"))
        for claim in claims:
            if causes and claim.kind == "row":
                continue  # a row of figures says what moved, never why
            shown = shown_text(chunk.content, claim.parts)
            if released and not holds_kind(shown, kinds, query):
                # A changelog's entry came with the release it stands under ("2007/01/21
                # v2.11", then "color names lime and teal added"): asked which or when, it
                # is quoted with that heading.
                heading = release_heading(chunk.content, claim.parts[0][0])
                if heading is not None:
                    claim = replace(claim, parts=(heading, *claim.parts))
                    shown = shown_text(chunk.content, claim.parts)
            joined = run_on if run_on is not None and claim.parts == (run_on.beginning,) else None
            if joined is not None:
                shown = f"{shown} {joined.ending_text}"
            text = f"{header} {shown}" if claim.headed and header else shown
            judged, judged_shown = text, shown
            quoted = terms(text)
            words = frozenset(terms(shown) if claim.headed else quoted)
            if claim.kind == "list" and not several:
                # A list answers one thing in one item: the words and figures of all its items
                # together would make "Highlights ... included: • Cloud revenue increased 24% to
                # $31.8 billion. • ..." about anything and say any amount.
                judged = judged_shown = _best_item(chunk.content, claim.parts, query_terms)
                quoted = terms(judged)
                words = frozenset(quoted)
            # An abbreviation's other form counts as its header's terms do: the text says it
            # only by the definition elsewhere ("In the NOPAs, the IRS is seeking ...").
            abbreviated = abbreviations.get(chunk.document_id)
            if abbreviated:
                quoted |= terms(spelled_out(judged, abbreviated))
            spelled.setdefault(text, spelled_out(text, abbreviated) if abbreviated else text)
            found_terms = quoted & query_terms
            own = len(words & query_terms)
            coverage = len(found_terms) / len(query_terms) if query_terms else 0.0
            weighed_terms = (
                own
                + HEADER_SHARE * (len(found_terms) - own)
                + CONTEXT_SHARE * len(placed - found_terms)
            )
            kind = 0 if not kinds else (1 if holds_kind(judged, kinds, query) else -1)
            counts = states_counts(judged_shown, counted, query)
            if (
                kinds == {Asked.COUNT}
                and counted
                and not counts
                and claim.kind != "row"
                and not (default_asked and states_default(judged_shown))
            ):
                # Its figures count other things, if any ("all 737 MAX airplanes" counts no
                # airplanes); a row's label names what its figures count.
                kind = -1
            if kind > 0 and Asked.AMOUNT in kinds and other_measure(judged, query):
                kind = -1  # an amount of another measure: "operating revenues ... totaled"
            label_share = _label_share(shown, query_terms) if claim.headed else 0.0
            year = _year_worth(text, query, claim.headed)
            if kind > 0 and year < 0 and kinds & {Asked.AMOUNT, Asked.COUNT}:
                kind = -1  # the figures of other years
            if _POINTER.search(shown):
                kind = -1
            writes_code = any(word in shown for word in written_code)
            worth = (
                COVERAGE_WEIGHT * weighed_terms / max(len(query_terms), 1)
                + KIND_WEIGHT * kind
                + YEAR_WEIGHT * year
                + RANK_BONUS / (1 + rank)
                + LABEL_WEIGHT * label_share
                + CODED_WEIGHT * writes_code
            )
            found.append(
                ScoredUnit(
                    worth, 0.0, coverage, kind, rank, 0.0, chunk, claim.parts, text, words,
                    claim.headed, own >= ECHO_SHARE * len(words),
                    several and claim.kind != "list" and not holds_series(shown), compares,
                    any(word in shown for word in coded), counts,
                    Asked.CODE in kinds and kind > 0, states_definition(shown, defined),
                    claim.kind == "list", label_share == 1.0, joined,
                    several and claim.kind == "list",
                )
            )  # fmt: skip
    found.sort(key=_order)
    weighed = dict.fromkeys(unit.text for unit in found if unit.chunk.chunk_id == kept_chunk)
    best = dict.fromkeys(unit.text for unit in found if unit.chunk.chunk_id != kept_chunk)
    weighed |= dict.fromkeys(list(best)[:EMBEDDED_UNITS])
    kept = [unit for unit in found if unit.text in weighed]
    if not kept:
        return []
    texts = [spelled[text] for text in weighed]
    if query_vector is None:
        query_vector = embed_query(embedder, query)
    vectors = {} if embedded is None else embedded
    missing = list(dict.fromkeys(text for text in texts if text not in vectors))
    if missing:
        vectors.update(zip(missing, embed_texts(embedder, missing), strict=True))
    similarities = np.clip(
        np.stack([vectors[text] for text in texts]) @ query_vector, 0.0, 1.0
    ).tolist()
    similarity_of = dict(zip(weighed, similarities, strict=True))
    scored = []
    for unit in kept:
        similarity = similarity_of[unit.text]
        worth = unit.worth + SIMILARITY_WEIGHT * similarity
        scored.append(replace(unit, worth=worth, similarity=similarity))
    scored.sort(key=_order)
    return [
        replace(unit, lead=min(unit.worth - after.worth, MAX_LEAD))
        for unit, after in zip(scored, [*scored[1:], replace(scored[-1], worth=0.0)], strict=True)
    ]


def _asked_abbreviations(
    query: str, kinds: frozenset[Asked], context: Sequence[Candidate]
) -> dict[uuid.UUID, dict[str, str]]:
    """Returns, by document, the abbreviations its chunks in `context` define that are worth
    spelling out for `query` (app.core.abbreviations.asked_abbreviations); none for a question
    asking what a thing means, which the sentence defining it answers, holding both forms."""
    if Asked.DEFINITION in kinds:
        return {}
    contents: dict[uuid.UUID, list[str]] = {}
    for chunk in context:
        contents.setdefault(chunk.document_id, []).append(chunk.content)
    asked = {document: asked_abbreviations(query, texts) for document, texts in contents.items()}
    return {document: found for document, found in asked.items() if found}


def _best_item(content: str, parts: Sequence[Span], query_terms: set[str]) -> str:
    """Returns a list's lead-in with the item that holds most of the query's terms, each
    weighed by how few items hold it (the first of those), or the whole list when its items
    are not marked. A marked line that ends in a colon ("(d) Gross impairment losses ...
    included the following:") leads in too."""
    lead, *items = item_texts(content, parts)
    leads = [item for item in items if item.rstrip().endswith(":")]
    items = [item for item in items if item not in leads]
    lead = " ".join([lead, *leads])
    if not items:
        return lead
    # A query term few items hold tells them apart more than one all of them hold ("Dynamics"
    # against "revenue" in a list of each business's revenue growth).
    held = [terms(item) & query_terms for item in items]
    items_holding = Counter(term for found in held for term in found)
    weights = [sum(1 / items_holding[term] for term in found) for found in held]
    return f"{lead} {items[weights.index(max(weights))]}"


def _year_worth(text: str, query: str, headed: bool) -> int:
    # A row under a header of other years is of another period, as is a sentence its first
    # words place in one; a sentence naming only other years elsewhere may still answer (a
    # FY2020 report's capital plan for 2021 to 2030).
    if framed_elsewhen(text, query):
        return -1
    year = year_asked(text, query)
    return year if headed else max(year, 0)


def _label_share(row: str, query_terms: set[str]) -> float:
    label = terms(row_label(row))
    return len(label & query_terms) / len(label) if label else 0.0


def _header(unit: ScoredUnit) -> tuple[int, int] | None:
    return unit.chunk.table_header if unit.headed else None


def _header_end(chunk: Candidate) -> int | None:
    """Returns where a table chunk's table header ends in its content (at or before 0 when it
    stands before the chunk), None for a chunk of no table."""
    if chunk.table_header is None:
        return None
    return chunk.table_header[1] - chunk.page_span_start


def _order(unit: ScoredUnit) -> tuple[float, int, uuid.UUID, int]:
    return (-unit.worth, unit.rank, unit.chunk.chunk_id, unit.parts[0][0])


def _redundant(candidate: ScoredUnit, other: ScoredUnit) -> bool:
    # Overlapping chunks repeat sentences; near-copies add nothing to an answer either.
    if _quoted_by([other], candidate.chunk, candidate.parts):
        return True
    union = candidate.words | other.words
    return not union or len(candidate.words & other.words) / len(union) >= REDUNDANT_JACCARD
