"""Claim units: the pieces of a chunk a reader can use as an answer, each a span or a few spans
of the chunk's exact text.

A unit is a sentence (with the one before it when it points back: "These strategies ..."); a
lead-in ("... divided into four function zones:") with the list items that follow it; a table
row (a line of figures as the chunk's text gives it) with its label and the column headers above
it; or a sentence cut by a figure or a column break, joined to its beginning. Never quoted: a
fragment whose beginning is not in the chunk, a caption, a heading, a question, a signpost
("This section introduces ...", "Listed below are ...": it says what a text is about, never
what it says), or a sentence that is mostly a table's cells.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

from app.core.rows import (
    MONTH,
    NUMERIC_CELL,
    full_dates,
    is_period_line,
    one_figure_row_at,
    row_kind,
    table_like,
)
from app.core.sentences import CJK_LETTERS, CLOSERS, split_sentences

Span = tuple[int, int]

MIN_WORDS = 4
"""Sentences with fewer words (stray labels, axis ticks) are never quoted."""

MAX_LIST_ITEMS = 8
MAX_LIST_CHARS = 700
"""A lead-in takes at most this many items, of at most this much text together (twice as
much for a list whose last item the reader is told of: list_room)."""

MAX_HEADER_CHARS = 240
"""A row's column headers: at most this much of the lines above the table's first row."""

MAX_TITLE_CHARS = 120
"""A line that announces a table: at most this long."""

LABEL_LOOKBACK = 3
"""A row of bare figures takes its label from one of the few lines before it."""

UnitKind = Literal["sentence", "list", "row"]


@dataclass(frozen=True)
class Unit:
    """What one claim quotes: `parts`, spans of the chunk's content in reading order."""

    parts: tuple[Span, ...]
    kind: UnitKind
    headed: bool = False
    """A row of a table chunk, quoted with its table's header (the chunk's `table_header`),
    which may stand before the chunk."""


_PARAGRAPH_BREAK = re.compile(r"\n\s*\n")
_LINE = re.compile(r"[^\n]+")
_COMPLETE = re.compile(rf"[.!\u2026\u3002\uff01][{CLOSERS}\u300d\u300f\uff09]*$")
_QUESTION = re.compile(rf"[?\uff1f][{CLOSERS}\u300d\u300f\uff09]*$")
_LEAD_IN = re.compile(r":$|\b(?:as follows|the following)\.$", re.I)
"""A sentence that says what follows is what it announces: one ending in a colon, or in "as
follows." or "the following." ("you should configure APT with its configuration parameter as
the following." over the line that sets it)."""
_CODE_LINE = re.compile(
    r"[>$] \S.*|[A-Za-z_][\w.]*\(.*\)"
    r"|(?=.*(?: (?:>>?|<|\|\|?|&&) |\d>&\d))(?!.*[{}()])[a-z][\w.+\-]*(?: +[^\s.,;]\S*){1,7}"
)
"""A line of code a manual shows on its own: a command after its prompt ("> help(solve)"), a
call ("sqrt(-17+0i)"), or a shell command with a redirection or a pipe ("ls 2>&1 > dirlist")."""
_FORMULA = re.compile(r"[\w.()]+(?: ?[-+*/:|^] ?[\w.()]+)* ~ [^\s.;,][^.;]*")
"""A model formula on a line of its own, as a manual shows one: "y ~ 1 + x + I(x^2)"."""
_LINE_END_COLON = re.compile(r":[ \t]*\n\s*")
_CONTINUATION = re.compile(r"[a-z]+\b(?![(_.])")
"""A sentence that starts with a plain lower-case word continues one cut before it (a word
such as `q()`, `iPhone` or `asn1_der_coding` may start a sentence of its own)."""
_LOWER_CASE_DEFINED = re.compile(r"[a-z][\w\-]*(?: \([^()]*\))? (?:is|are) (?:an?|the)\b")
_ASIDE = re.compile(r"\([^()]*\)")
"""A parenthesis that is a sentence of its own: an aside on what comes before it."""
_PARAMETERS_DESCRIBED = re.compile(r"\)\n(?=[A-Za-z_]\w*: \S)")
"""The end of a declaration's parameters and the first of their descriptions, a line each
("structure, const char * name, int mode)" / "out: pointer to the output file")."""
_SIGNPOST = re.compile(
    r"^(?:(?:this|the present|the following|the next|in this|in the next) "
    r"(?:section|chapter|paper|part|document|article|report|appendix|manual|guide|publication)"
    r"s?\b(?:,? we)? (?:introduces?|describes?|presents?|provides? an overview|gives? an "
    r"overview|discuss(?:es)?|explains?|outlines?|summari[sz]es?|covers?|focus(?:es)? on|is "
    r"(?:structured|organi[sz]ed|divided))|.*\bis (?:structured|organi[sz]ed) as follows\b|"
    r"(?:listed|set forth|shown|presented) below (?:are|is)\b|"
    r"below (?:are|is) (?:listed|a list)\b)",
    re.I,
)
_ENDS_DATED = re.compile(r"\b(?:19|20)\d\d$")
"""A statement that ends in a year with no stop is whole all the same: a cover page's
"10,334,030,586 shares of common stock, par value $0.01 per share, outstanding as of October 18,
2023"."""
_ANAPHORA = re.compile(
    r"^(?:(?:These|Those|Such)\s+[a-z]+\b(?! of\b)|For (?:example|instance),|In addition,|"
    r"Additionally,|Specifically,|(?:This|That|It) (?:is|was) (?:\w+ ){0,3}\w+\.$|"
    r"Otherwise\b|(?:If|When|Unless) (?:no )?such\b|(?:Thus|Hence|Therefore|Consequently),|"
    r"(?:Because of|For|Due to) (?:this|that|these|those)(?: \w+)?,|As a result,|"
    r"[A-Z][a-z]+ (?:[a-z]+ )?(?:that|these|those|such) [a-z]+(?: [a-z]+)?,)"
)
"""A sentence that names its subject only by pointing back ("These strategies enable the
model to process sequences of up to 131,072 tokens"), that gives an example of the one before
("For example, conduct scanning at write, ..."), that draws its consequence ("Thus, the
kinemage lacks most of the information in a PDB file", "Because of this, lua-widow-control
doesn't even attempt to shrink paragraphs"), that opens on what the one before named
("After reading that file, it looks for ~/.bash_profile"), or that adds to it or details it ("In
addition, movements in foreign exchange rates had an adverse impact ..." after a decrease's
main causes; "Specifically, these decreases are driven by ..."), or that only says what the
one before is ("The empty option causes filled areas not to be filled. This is the
default."), or that says what happens otherwise ("If no such row exists, the routine returns
0."), is quoted with the sentence before it, which says what they are. Singular "This ..." in
a longer sentence often names the document itself ("This proposed AD would apply ..."):
joined too, it made two wrong answers confident on bench/data."""
_GIVES_DEFAULT = re.compile(r"^(?:Defaults?|The default)(?: value| setting)?s?(?: is|:)\s")
"""A sentence that only gives a default ("Default value: 0.001.", "Default is clip.", "The
default value is 500.") gives that of what the sentence before describes, and is quoted with
it: alone it is too short to say anything."""
_CHANGE_ANAPHORA = re.compile(
    r"^(?:(?:For|In|During) [^,.]{0,60}?(?:19|20)\d\d\s?,\s+)?(?:The|the|This|this) "
    r"(?:(?:projected|expected|anticipated|overall|net|year-over-year) )?"
    r"(?:increase|decrease|decline|change|improvement|growth|reduction|rise|drop)\b"
    r"(?! (?:in|of|from)\b)"
)
"""A sentence that names a change only as "the increase" or "the decrease" ("the projected
decline") says why a figure of the sentence before moved ("Our gross profit rate decreased 26
basis points for fiscal 2018 ... For fiscal 2018, the decrease was primarily due to strategic
price investments ..."): it is quoted with that sentence, once (the next year's reason,
pointing back the same way, stands alone)."""
_NAMED_CHANGE = re.compile(
    r"^(?:(?:For|In|During) [^,.]{0,60}?(?:19|20)\d\d\s?,\s+)?(?:The|the) "
    r"(?:increase|decrease|decline|change|improvement|growth|reduction|rise|drop) (?:in|of) "
    r"(?P<subject>[^,.;]{3,60}?) (?:was|were|is|includes?|included|reflects?|reflected|"
    r"resulted)\b"
)
"""A sentence that says why a change it names moved ("The decrease in net sales includes a
decrease in contributions from volume growth and unfavorable net price realization and mix."),
right after the sentence that gives that change its owner ("Convenience Stores & Foodservice
net sales decreased 8 percent in fiscal 2020 ..."): quoted with it, as _CHANGE_ANAPHORA."""
_RESTATED_CHANGE = re.compile(
    r"^(?P<measure>[A-Z][a-z]+(?: [a-z]+){0,3}) (?:increased|decreased|declined|grew|rose|fell)\b"
)
"""A sentence that opens with the measure alone ("Net sales increased by approximately $375
million on classified contracts ...") after one that names whose measure moved ("Aeronautics'
net sales in 2022 increased $239 million"): it says why that owner's figure moved, and is
quoted with the sentence that names the owner."""
_CAPTION = re.compile(r"^(?:Figure|Fig\.|Table|Listing|Algorithm|Exhibit)\s*[A-Z]?\d+[.:]", re.I)
_BULLETS = "-*\u00b7\u2013\u2022\u2023\u2043\u25aa\u25b6\u25ba\u25cf\u25e6\u27a2\uf0b7"
_MARK = rf"(?:[{_BULLETS}]|\(?[0-9a-z]{{1,3}}[.)])"
"""What opens a list item: a bullet, "1.", "(a)"."""
_ITEM_MARK = re.compile(rf"^{_MARK}\s")
_BARE_MARK = re.compile(_MARK)
_GLYPH_ITEM = re.compile(rf"[{_BULLETS.replace('-', '').replace('*', '')}]\s")
"""An item opened by a bullet's glyph, not by a hyphen, an asterisk (a footnote's) or a number."""
_ITEM_GOES_ON = re.compile(r"[;,:]$|\s(?:and|or)$")
"""An item that ends as one of a list's does, the list going on."""
_ITEM_AFTER_SEMICOLON = re.compile(rf";[ \t]*\n\s*(?={_MARK}\s)")
"""Where an item that ends in a semicolon ends, the next one starting the next line ("1. The
current directory;" / "2. A list of one or more directories ...;"): the sentence splitter
reads on past a semicolon."""
_MARKED_LINE = re.compile(rf"^[ \t]*{_MARK}\s", re.M)
_SERIES = re.compile(rf"[,;\u3001][^,;\u3001]+[,;\u3001]|^\s*[{_BULLETS}]\s", re.M)
_WORD = re.compile(rf"[{CJK_LETTERS}]{{1,2}}|(?:(?![{CJK_LETTERS}])\w)+")
"""A word; in CJK text, written without spaces, a pair of letters stands for one."""
_LETTER = re.compile(r"[A-Za-z]")


def paragraph_spans(content: str, page_break: int | None) -> list[Span]:
    """Returns the spans of the content's paragraphs; the page break at `page_break` does not
    end one (a chunk crosses pages only inside a paragraph)."""
    spans: list[Span] = []
    cursor = 0
    for match in [*_PARAGRAPH_BREAK.finditer(content), None]:
        if match and page_break is not None and match.start() <= page_break < match.end():
            continue
        stop = match.start() if match else len(content)
        if cursor < stop:
            spans.append((cursor, stop))
        cursor = match.end() if match else len(content)
    return spans


def chunk_sentences(content: str, page_break: int | None) -> list[Span]:
    """Returns the spans of the sentences of `content`, paragraph by paragraph.

    Paragraph breaks end sentences (so a heading is never glued to the sentence after it),
    except the page break at `page_break`.
    """
    return [
        (start + a, start + b)
        for start, stop in paragraph_spans(content, page_break)
        for a, b in split_sentences(content[start:stop])
    ]


def claim_units(
    content: str, page_break: int | None, table_header_end: int | None = None
) -> list[Unit]:
    """Returns the units of `content` an answer may quote, in reading order.

    `table_header_end`: for a chunk of a table's rows (app.chunking.tables), where the table's
    header ends in `content`, at or before 0 when it stands before the chunk. Its rows are
    then quoted with that header, whatever lines stand above them in the chunk.
    """
    if table_header_end is None:
        # A table of figures has lines of words too (its headers and section labels): a chunk
        # with rows of figures holds no table of words.
        rows = (row_units(content) or word_rows(content)) + term_rows(content, page_break)
    else:
        rows = table_row_units(content, table_header_end)
    row_lines = [unit.parts[-1] for unit in rows]
    units = declared(content, page_break, sentence_units(content, page_break, row_lines))
    return sorted([*units, *rows], key=lambda unit: unit.parts[-1])


_DECLARATION = re.compile(
    r"(?:[A-Za-z_]\w*[\s*]+)+(?P<name>[A-Za-z_]\w*)\s?\([^()]*"
    r"(?:\)(?P<category>\s*\[[A-Z][\w ]*\])?|(?P<cut>\s*\[[A-Z][\w ]*\]))"
)
"""A function's declaration standing as a paragraph of its own in a reference manual: its type,
its name, its parameters, and in a GNU manual its category ("const char * asn1_check_version
(const char * req_version) [Function]"), after which a long list of parameters may go on in
the next paragraph ("void asn1_print_structure (FILE * out, asn1 node const [Function]")."""


def declared(content: str, page_break: int | None, units: list[Unit]) -> list[Unit]:
    """Returns the sentence units, each that stands below a function's declaration in the
    chunk quoted after the nearest one above it: "Check that the version of the library is at
    minimum the requested one ..." says what asn1_check_version does, and names it nowhere."""
    declarations = [
        (start, stop)
        for start, stop in paragraph_spans(content, page_break)
        if (found := _DECLARATION.fullmatch(" ".join(content[start:stop].split())))
        and (found.group("category") or found.group("cut") or "_" in found.group("name"))
    ]
    if not declarations:
        return units
    quoted = []
    for unit in units:
        above = [span for span in declarations if span[1] <= unit.parts[0][0]]
        quoted.append(replace(unit, parts=(above[-1], *unit.parts)) if above else unit)
    return quoted


# Tables


def line_spans(content: str) -> list[Span]:
    return [(m.start(), m.end()) for m in _LINE.finditer(content) if m.group().strip()]


def row_units(content: str) -> list[Unit]:
    """Returns a unit per table row of `content`: its header lines, its label, the row."""
    lines = line_spans(content)
    texts = [_text(content, line) for line in lines]
    kinds = [row_kind(text) for text in texts]
    # A line of dates heads the row below it, as a cover page's "Class Outstanding as of
    # October 20, 2022" heads its one row of shares: a whole date, month by name, and no other
    # figure. One that ends in a stop or a comma is prose that names a date ("... comments on
    # this AD action by September 21, 2020."); a year alone heads nothing (a line of CJK prose
    # may hold one).
    periods = [
        bool(full_dates(text))
        and is_period_line(text)
        and not text.rstrip().endswith((".", ",", ";", ":"))
        for text in texts
    ]
    rows: list[int] = []
    for i, kind in enumerate(kinds):
        if (
            kind in ("figures", "option")
            or (
                kind == "loose"
                and (
                    any(kinds[j] for j in (i - 1, i + 1) if 0 <= j < len(kinds))
                    or (i > 0 and periods[i - 1])
                )
            )
            or (kind is None and one_figure_row_at(texts, i, under_row=rows[-1:] == [i - 1]))
        ):
            rows.append(i)
    is_row = set(rows)
    units = []
    for i in rows:
        label = _label_of(content, lines, i, is_row)
        block = i
        while block > 0 and (
            block - 1 in is_row
            or periods[block - 1]
            or table_like(_text(content, lines[block - 1]))
        ):
            block -= 1
        first_row = next(r for r in rows if r >= block)
        first_label = _label_of(content, lines, first_row, is_row)
        header_end = first_label if first_label is not None else first_row
        header: list[Span] = []
        if kinds[i] == "option":
            pass  # an option's description says all; the option above it is no header
        elif header_end > block:
            start = lines[block][0]
            kept = [j for j in range(block, header_end) if lines[j][1] - start <= MAX_HEADER_CHARS]
            if kept:
                header = [(start, lines[kept[-1]][1])]
        elif first_row != i:
            header = [lines[first_row]]
        elif label is None:
            continue  # the first row of a table without headers above it is its header
        # The line that announces the table titles its rows ("Pet net sales were as
        # follows:" over "Net sales (in millions) $ 1,694.6 18 % $ 1,430.9").
        above = _text(content, lines[block - 1]) if block > 0 else ""
        title = [lines[block - 1]] if _titles(above) else []
        parts = [*title, *header, *([lines[label]] if label is not None else []), lines[i]]
        units.append(Unit(tuple(_merged(parts, content)), "row"))
    return units


MIN_WORD_ROWS = 2
"""Rows under a header line that make a table of words."""
MAX_WORD_HEADER_WORDS = 6


def word_rows(content: str) -> list[Unit]:
    """Returns a unit per row of each table of words in `content`, with its header line: a
    paragraph of a short header and at least MIN_WORD_ROWS rows, every line of it short, of
    hardly a function word and ending no sentence, as a manual's table of terms and what they
    mean ("type meaning (historic Unix definition)" / "ctime the file status change time (ls
    -lc)") or of names ("CPU Versions Provider" / "armel wheezy Johannes Ranke"). Their lines
    end in no stop, so no sentence holds them."""
    units = []
    lines = line_spans(content)
    for start, stop in paragraph_spans(content, None):
        block = [line for line in lines if start <= line[0] < stop]
        texts = [_text(content, line) for line in block]
        if (
            len(block) > MIN_WORD_ROWS
            and len(texts[0].split()) <= MAX_WORD_HEADER_WORDS
            and all(table_like(text) and len(text.split()) > 1 for text in texts)
        ):
            header = block[0]
            units += [Unit((header, row), "row") for row in block[1:]]
    return units


_TERM = re.compile(
    r"-{1,2}[A-Za-z][\w-]*(?:=\S+| [a-z]\w*)?(?:, --?[A-Za-z][\w-]*(?:=\S+| [a-z]\w*)?)*"
    # an option: "--enable-memory-profiling", "--x-includes=DIR", "-o filename, --output filename"
    r"|[A-Z][A-Z\d]*_[A-Z\d_]*|[A-Z]{2,}[A-Z\d]*"  # a variable: "SHLIB_CFLAGS", "CPICFLAGS"
    r"|[a-z][a-z\d]*_[\w]*(?:\(\))?"  # a parameter or function: "tol_int", "mip_gap"
)
"""A term of a manual's list of options, variables or parameters, written as code."""
_TERM_LINE = re.compile(rf"(?P<term>{_TERM.pattern})(?:\s+(?P<meaning>[a-z]{{2,}}\s.*))?")
MAX_MEANING_LINES = 3
"""A term's description in a list of terms: a few lines at most."""
MIN_TERM_ROWS = 2
"""Terms, each with its description, that make a list of terms."""


def term_rows(content: str, page_break: int | None) -> list[Unit]:
    """Returns a unit per term of each list of terms in `content` whose description ends in no
    stop, the term with it: a manual's options, variables or parameters, each written as code
    on a line of its own and described below it ("--enable-memory-profiling" / "attempt to
    compile support for Rprofmem() and tracemem() [no]"), or beside it when the term is short
    ("FFLAGS debugging and optimization flags, fixed-form Fortran"). No sentence holds them,
    and the description alone never names its term. At least MIN_TERM_ROWS in the chunk."""
    rows: list[Unit] = []
    paragraphs = paragraph_spans(content, page_break)
    for index, (start, stop) in enumerate(paragraphs):
        text = content[start:stop]
        if "\n" in text or _COMPLETE.search(text):
            continue
        found = _TERM_LINE.fullmatch(text.strip())
        if found is None:
            continue
        if found.group("meaning"):
            # An option beside its description is a row of row_units' already.
            if _describes(found.group("meaning")) and row_kind(text) != "option":
                rows.append(Unit(((start, stop),), "row"))
            continue
        if index + 1 == len(paragraphs):
            continue
        below = paragraphs[index + 1]
        meaning = content[slice(*below)]
        if (
            meaning.count("\n") < MAX_MEANING_LINES
            and _describes(meaning)
            and not _COMPLETE.search(meaning)
            and _TERM_LINE.fullmatch(meaning.strip()) is None
        ):
            rows.append(Unit(((start, stop), below), "row"))
    return rows if len(rows) >= MIN_TERM_ROWS else []


def _describes(meaning: str) -> bool:
    """Whether the text beside or below a term may describe it: words, not a list's item or a
    line of figures ("ROE" over "• Total Markets revenue of $9.1 billion, up 25%,")."""
    words = [word for word in _WORD.findall(meaning) if word.isalpha()]
    return (
        len(words) >= MIN_WORDS
        and not _ITEM_MARK.match(meaning.lstrip())
        and not _LEAD_IN.search(meaning.rstrip())
        and not any(row_kind(line) for line in meaning.splitlines())
    )


def _titles(line: str) -> bool:
    """Whether a line announces the table below it: a short line of words ending in a colon
    (not the "2018:" that ends a sentence begun on the lines before)."""
    words = [word for word in line.split() if word.isalpha()]
    return bool(_LEAD_IN.search(line.rstrip())) and len(line) <= MAX_TITLE_CHARS and len(words) >= 3


def table_row_units(content: str, header_end: int) -> list[Unit]:
    """Returns a unit per row of a table chunk's `content` after its header: the row and, for
    a row of bare figures, its label; each quoted with the table's header (Unit.headed)."""
    lines = line_spans(content)
    texts = [_text(content, line) for line in lines]
    kinds = [row_kind(text) for text in texts]
    rows: list[int] = []
    for i, (line, kind) in enumerate(zip(lines, kinds, strict=True)):
        if line[0] >= header_end and (
            kind in ("figures", "loose")
            or (kind is None and one_figure_row_at(texts, i, under_row=rows[-1:] == [i - 1]))
        ):
            rows.append(i)
    is_row = set(rows)
    units = []
    for i in rows:
        label = _label_of(content, lines, i, is_row)
        parts = [*([lines[label]] if label is not None else []), lines[i]]
        units.append(Unit(tuple(_merged(parts, content)), "row", headed=True))
    return units


def _text(content: str, span: Span) -> str:
    return content[span[0] : span[1]]


def _label_of(content: str, lines: list[Span], i: int, rows: set[int]) -> int | None:
    """Returns the index of the line labelling row `i` when the row starts with a figure: the
    nearest line of words above it, past the table's periods ("Occupancy" / "Year Ended
    December 31," / "2020 2019 2018" / "55% 91% 91%")."""
    row = content[lines[i][0] : lines[i][1]].split()
    if _LETTER.search(row[0]) and not NUMERIC_CELL.match(row[0]):
        return None
    for j in range(i - 1, max(i - 1 - LABEL_LOOKBACK, -1), -1):
        if j in rows:
            return None
        text = content[lines[j][0] : lines[j][1]]
        if _LETTER.search(text) and table_like(text) and not is_period_line(text):
            return j
    return None


def _merged(parts: list[Span], content: str) -> list[Span]:
    """Returns the spans in order, overlapping ones and those apart only by whitespace joined."""
    merged: list[Span] = []
    for start, end in sorted(set(parts)):
        if merged and (start <= merged[-1][1] or not content[merged[-1][1] : start].strip()):
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


# Sentences, lead-ins and joined fragments


CAPTION_LABEL_WORDS = 3
"""A caption's first sentence this short is its label alone ("Table 2."), its title next."""


def sentence_units(content: str, page_break: int | None, row_lines: list[Span]) -> list[Unit]:
    """Returns the quotable sentences of `content`, lead-ins with their items, and sentences
    cut by a figure joined to their beginning."""
    sentences = quotable_sentences(content, page_break)
    units: list[Unit] = []
    beginning: Span | None = None
    taken_until = 0
    joined = False
    # The question a paragraph of its own asked just before (a FAQ's entry), and so the entry
    # the sentence at hand may answer.
    asked: Span | None = None
    for index, (start, end) in enumerate(sentences):
        if start < taken_until or any(a < end and start < b for a, b in row_lines):
            continue
        text = content[start:end]
        words = _WORD.findall(text)
        asked, entry = None, asked
        if _QUESTION.search(text) or _SIGNPOST.match(text):
            beginning = None
            asked = (
                (start, end)
                if _opens_paragraph(content, start) and len(words) >= MIN_WORDS
                else None
            )
            continue
        # A paragraph of its own after a finished sentence that says what a word in lower case
        # is names it, continuing nothing: "cvs (Concurrent Versions System) is a front end".
        # (The paragraph test, which reads all the text before, comes last.)
        if _CONTINUATION.match(text) and not (
            index > 0
            and beginning is None
            and _LOWER_CASE_DEFINED.match(text)
            and _COMPLETE.search(text)
            and _opens_paragraph(content, start)
        ):
            if beginning is not None and _COMPLETE.search(text):
                units.append(Unit((beginning, (start, end)), "sentence"))
            elif index == 0 and _COMPLETE.search(text) and _rest_of_cut(words):
                # The chunk opens with the rest of a sentence that a page's running footer
                # cut from its first word ("We" | "33" | "paid $4.35 billion in cash taxes
                # in the third quarter ..."): it states what the sentence does.
                units.append(Unit(((start, end),), "sentence"))
            elif _COMPLETE.search(text) and (described := _PARAMETERS_DESCRIBED.search(text)):
                # The rest of a declaration cut by its category mark ("[Function]") continues
                # nothing quotable; the parameters' descriptions after it are.
                units.append(Unit(((start + described.end(), end),), "sentence"))
            beginning = None
            continue
        # A lead-in too short to say what it lists ("Our efforts included:") says it with the
        # sentence before it ("During 2020, we engaged in aggressive cost reduction efforts").
        said_before = len(words) < MIN_WORDS and _right_after(units, content, start)
        if _LEAD_IN.search(text) and (len(words) >= MIN_WORDS or said_before):
            if any(end <= a <= end + MAX_LIST_CHARS for a, _ in row_lines):
                # It introduces a table, whose rows are units of their own; or the code shown
                # under it, whose output the table is: "The following performs a Markov
                # experiment with the predefined number of 1000 iterations on the example
                # PBN:", "> sim <- markovSimulation(examplePBN)".
                code = _code_lines_after(content, sentences, index)
                if code:
                    units.append(Unit((sentences[index], *code), "sentence"))
                    taken_until = code[-1][1]
                    beginning = None
                continue
            following = sentences[index + 1 :]
            room_chars = list_room(text, [content[slice(*span)] for span in following[:1]])
            items = _list_items(content, following, room_chars=room_chars)
            if items and _is_title(text) and not _ITEM_MARK.match(content[slice(*items[0])]):
                # A titled paragraph ("Description of the Company:" over the company's
                # segments): its sentences say what they say alone, the title nothing.
                beginning = None
                continue
            if items:
                taken_until = items[-1][1]
                lead = (units.pop().parts[0][0] if said_before else start, end)
                units.append(Unit(tuple(_merged([lead, *items], content)), "list"))
                beginning = None
                continue
        shown = _showing_code(content, sentences, index) if not _COMPLETE.search(text) else []
        if shown and len(_WORD.findall(" ".join(content[a:b] for a, b in shown))) >= MIN_WORDS:
            # "To get more information on any specific named function, for example solve, the
            # command is" and the command it shows on a line of its own, "> help(solve)"; or
            # "Thus", "sqrt(-17)", "will give NaN and a warning, but", "sqrt(-17+0i)", "will do
            # the computations as complex numbers."
            units.append(Unit(tuple(shown), "sentence"))
            taken_until = shown[-1][1]
            beginning = None
            continue
        if not _COMPLETE.search(text):
            if len(words) >= MIN_WORDS and _says_alone(content, sentences, index):
                # A slide's bullet says what it says without a stop ("▶ RFA: Request For
                # Adopter", "▶ Add --disable-perl-regexp"), with the aside on the line under
                # it ("(e.g. has been in unstable for 10 days, and no regressions)").
                aside = [
                    span
                    for span in sentences[index + 1 : index + 2]
                    if _ASIDE.fullmatch(content[slice(*span)])
                ]
                units.append(Unit(((start, end), *aside), "sentence"))
                taken_until = aside[0][1] if aside else taken_until
                beginning = None
            elif (
                _prose(words)
                and _ENDS_DATED.search(text)
                and not _goes_on(content, sentences[index + 1 :])
            ):
                units.append(Unit(((start, end),), "sentence"))
            elif _prose(words):
                beginning = (start, end)
            continue
        beginning = None
        if _GIVES_DEFAULT.match(text) and _right_after(units, content, start, parts=None):
            *before, (last_start, _) = units[-1].parts
            units[-1] = Unit((*before, (last_start, end)), "sentence")
            joined = True
        elif len(words) >= MIN_WORDS:
            points_back = _ANAPHORA.match(text) or (
                not joined
                and (
                    _CHANGE_ANAPHORA.match(text)
                    or _restates_owned_change(units, content, text)
                    or _names_change_before(units, content, text)
                )
            )
            joined = bool(points_back) and _right_after(units, content, start)
            if joined:
                units[-1] = Unit(((units[-1].parts[0][0], end),), "sentence")
            else:
                code = _code_described(content, sentences, index, taken_until)
                # A FAQ's answer is quoted with its question, which says what it answers
                # ("How do you make upsd reload the config file?" over "Either find the pid of
                # the background process and send it a SIGHUP, or ...").
                answered: list[Span] = [entry] if entry and _opens_paragraph(content, start) else []
                units.append(
                    Unit(tuple(_merged([*answered, *code, (start, end)], content)), "sentence")
                )
    if beginning is not None and beginning == sentences[-1]:
        units += _cut_off(content, beginning)
    return units


def sentence_cut_at_end(content: str, page_break: int | None) -> Span | None:
    """Returns the sentence of prose `content` ends inside of, None when it ends one: a page's
    last sentence, which the first of the next page's text completes."""
    sentences = quotable_sentences(content, page_break)
    if not sentences or content[sentences[-1][1] :].strip():
        return None
    text = content[slice(*sentences[-1])]
    if _COMPLETE.search(text) or _QUESTION.search(text) or _LEAD_IN.search(text.rstrip()):
        return None
    words = _WORD.findall(text)
    # Names and figures fill a cut sentence more than most ("On October 29, 2018, a Boeing
    # Model 737-8 airplane operated by Lion Air ..."); a heading has fewer words in lower case.
    lower = sum(word[0].islower() for word in words)
    return sentences[-1] if len(words) > MIN_WORDS and lower * 3 >= len(words) else None


_RELEASE_DATE = rf"(?:(?:19|20)\d\d[/\-.]\d\d[/\-.]\d\d|{MONTH} \d{{1,2}},? (?:19|20)\d\d)"
_RELEASE_LINE = re.compile(
    rf"^[ \t]*(?:{_RELEASE_DATE}[ \t]+(?:v|Version |Release )?|(?:{_RELEASE_DATE}[ \t]+)?"
    r"(?:v|Version |Release |Changes in (?:version )?))\d+(?:\.\d+)+[a-z]?[ \t]*$",
    re.I | re.M,
)
"""A changelog's heading: a release's version, dated or named so ("2007/01/21 v2.11", "Version
2.24.1"); a bare number ("4.2") may number a section."""


def release_heading(content: str, start: int) -> Span | None:
    """Returns the changelog heading (_RELEASE_LINE) nearest above `start` in `content`, the
    release what follows it came with; None when there is none."""
    headings = list(_RELEASE_LINE.finditer(content, 0, start))
    return headings[-1].span() if headings else None


def lead_in_at_end(content: str, page_break: int | None) -> Span | None:
    """Returns the lead-in `content` ends with, None when it ends otherwise: a list's items the
    chunk after it may hold ("... close comparison with the hand-engraved score showed a lot of
    errors in the formatting details:")."""
    sentences = quotable_sentences(content, page_break)
    if not sentences or content[sentences[-1][1] :].strip():
        return None
    text = content[slice(*sentences[-1])]
    long_enough = len(_WORD.findall(text)) >= MIN_WORDS
    return sentences[-1] if _LEAD_IN.search(text) and long_enough else None


def items_at_start(content: str, page_break: int | None) -> Span | None:
    """Returns the span of the marked items `content` opens with (continued_items: the first
    sentence of each), None when it opens otherwise."""
    if not _ITEM_MARK.match(content.lstrip()):
        return None
    items = continued_items(content, page_break, MAX_LIST_ITEMS, MAX_LIST_CHARS)
    return (items[0][0], items[-1][1]) if items else None


def sentence_ending_at_start(content: str, page_break: int | None) -> Span | None:
    """Returns the sentence `content` opens with when it ends there, None when the content
    opens otherwise (a heading, a table's line) or runs on."""
    sentences = quotable_sentences(content, page_break)
    if not sentences or content[: sentences[0][0]].strip():
        return None
    return sentences[0] if _COMPLETE.search(content[slice(*sentences[0])]) else None


def quotable_sentences(content: str, page_break: int | None) -> list[Span]:
    """Returns the sentences of `content` a unit may quote, paragraph by paragraph: a caption's
    label and title left out, each lead-in apart from the item that starts the next line, and
    an item's bare mark ("1.") with its sentence."""
    sentences: list[Span] = []
    for start, stop in paragraph_spans(content, page_break):
        spans = split_sentences(content[start:stop])
        if _CAPTION.match(content[start:stop]):
            # A caption's label and title ("Table 15: Contamination Analysis.", or "Table 2."
            # then "Results of the models on every benchmark we ran.") are no claim;
            # what it goes on to say may be ("The contaminated samples in this table are
            # identified using a strict criterion: any test sample with a 13-gram overlap ...").
            label = content[start + spans[0][0] : start + spans[0][1]] if spans else ""
            spans = spans[2:] if len(_WORD.findall(label)) <= CAPTION_LABEL_WORDS else spans[1:]
        for a, b in _lead_ins_apart(content[start:stop], spans):
            if sentences and _BARE_MARK.fullmatch(content[slice(*sentences[-1])]):
                sentences[-1] = (sentences[-1][0], start + b)  # "1." and its item's sentence
            else:
                sentences.append((start + a, start + b))
    return sentences


CUT_OFF_WORDS = 30
"""A sentence the chunk ends inside of is quoted when it has this many words: one too long for
a chunk, cut by the chunker, not a line the chunk happens to end on."""
_CLAUSE_END = re.compile(r"[;,](?=\s)")


def _cut_off(content: str, span: Span) -> list[Unit]:
    """Returns the unit quoting a long sentence the chunk ends inside of, up to the last of its
    clauses or list items that ends in its second half ("... operating revenues increased $161
    million primarily due to: (i) $122 million increase from authorized rate increases, ...;
    (ii) $36 million increase from ... acquisitions"), or none."""
    start, end = span
    text = content[start:end]
    words = _WORD.findall(text)
    if len(words) < CUT_OFF_WORDS or not _prose(words):
        return []
    ends = [m for m in _CLAUSE_END.finditer(text) if 2 * m.start() >= len(text)]
    # A semicolon parts the items of a sentence's list; a comma may part an item's words.
    ends = [m for m in ends if m.group() == ";"] or ends
    return [Unit(((start, start + ends[-1].start()),), "sentence")] if ends else []


_PROMPTED = re.compile(r"> \S.*|\$ (?![\d.,(])\S.*")
"""A command after its prompt, R's or a shell's ("> sim", "$ man 1 bash"), not an amount
("$ 1.2")."""


def _code_lines_after(content: str, sentences: list[Span], index: int) -> list[Span]:
    """Returns the sentences right after the one at `index` that open with a prompted command."""
    code = []
    for sentence in sentences[index + 1 :]:
        if not _PROMPTED.fullmatch(content[slice(*sentence)].strip().split("\n", 1)[0]):
            break
        code.append(sentence)
    return code


def _showing_code(content: str, sentences: list[Span], index: int) -> list[Span]:
    """Returns the sentence cut at `index` with the code it shows on lines of their own and
    the words that go on after each, up to the sentence's end or the last code line; [] when
    no code line follows it."""
    shown = [sentences[index]]
    following = index + 1
    while following < len(sentences) and _CODE_LINE.fullmatch(
        content[slice(*sentences[following])].strip().split("\n", 1)[0]
    ):
        shown.append(sentences[following])
        following += 1
        if following < len(sentences):
            words = content[slice(*sentences[following])]
            if _CONTINUATION.match(words):
                shown.append(sentences[following])
                following += 1
                if _COMPLETE.search(words):
                    break
                continue
        break
    return shown if len(shown) > 1 else []


def _code_described(
    content: str, sentences: list[Span], index: int, taken_until: int
) -> list[Span]:
    """Returns the lines of code right above the sentence at `index` that it describes, as a
    manual lists examples: "y ~ poly(x,2)" and "y ~ 1 + x + I(x^2)", then "Polynomial
    regression of y on x of degree 2."; [] when the paragraph before it is not all code, or
    is quoted before `taken_until` (a sentence that shows it)."""
    if index == 0 or sentences[index - 1][0] < taken_until:
        return []
    above = sentences[index - 1]
    lines = content[slice(*above)].split("\n")
    if content[above[1] : sentences[index][0]].strip() or not all(
        _CODE_LINE.fullmatch(line.strip()) or _FORMULA.fullmatch(line.strip()) for line in lines
    ):
        return []
    return [above]


_TITLE_WORD = re.compile(r"[A-Z0-9&][\w&'\u2019\-]*|of|the|and|for|to|in|on|a|an|or|by|with")


def _is_title(text: str) -> bool:
    """Whether a lead-in is a title ("Principles of Consolidation:"), each word capitalised
    but the small ones."""
    words = _WORD.findall(text.rstrip().removesuffix(":"))
    return bool(words) and all(_TITLE_WORD.fullmatch(word) for word in words)


def holds_series(text: str) -> bool:
    """Whether `text` names a series of things: three items or more between commas or
    semicolons, or a bulleted line."""
    return _SERIES.search(text) is not None


def _restates_owned_change(units: list[Unit], content: str, text: str) -> bool:
    """Says whether `text` restates the change of a measure the last unit gives an owner
    (_RESTATED_CHANGE)."""
    restated = _RESTATED_CHANGE.match(text)
    if restated is None or not units:
        return False
    before = _quoted(units[-1], content)
    measure = re.escape(restated.group("measure").lower())
    return re.search(rf"\w['\u2019]s? {measure}\b", before, re.I) is not None


def _names_change_before(units: list[Unit], content: str, text: str) -> bool:
    """Says whether `text` gives the cause of a change whose subject the last unit writes
    (_NAMED_CHANGE)."""
    named = _NAMED_CHANGE.match(text)
    if named is None or not units:
        return False
    before = _quoted(units[-1], content).lower()
    return all(word in before for word in _WORD.findall(named.group("subject").lower()))


def _quoted(unit: Unit, content: str) -> str:
    return " ".join(content[a:b] for a, b in unit.parts)


def _right_after(units: list[Unit], content: str, start: int, parts: int | None = 1) -> bool:
    """Says whether the last unit is a sentence (of `parts` parts, any number if None) that
    ends right before `start`, in the same paragraph."""
    if not units or units[-1].kind != "sentence":
        return False
    if parts is not None and len(units[-1].parts) != parts:
        return False
    between = content[units[-1].parts[-1][1] : start]
    return not between.strip() and _PARAGRAPH_BREAK.search(between) is None


def _goes_on(content: str, following: list[Span]) -> bool:
    """Says whether a sentence cut before `following` goes on in them: the first of them that
    is prose (past a figure's labels) continues it."""
    for span in following:
        text = content[slice(*span)]
        if _CONTINUATION.match(text):
            return True
        if _prose(_WORD.findall(text)) or _COMPLETE.search(text):
            return False
    return False


def _lead_ins_apart(text: str, spans: list[Span]) -> list[Span]:
    """Returns the spans with each one cut after a colon that ends a line, where a lead-in ends
    and its first item starts the next line, and after a semicolon that ends an item before
    the next one's mark."""
    cut: list[Span] = []
    # Read over the whole text: the next item's mark may end a span, past which the lookahead
    # reads.
    items_after_semicolons = list(_ITEM_AFTER_SEMICOLON.finditer(text))
    for start, end in spans:
        ends = [*_LINE_END_COLON.finditer(text, start, end)]
        ends += (m for m in items_after_semicolons if start <= m.start() and m.end() < end)
        for found in sorted(ends, key=lambda found: found.start()):
            cut.append((start, found.start() + 1))
            start = found.end()
        cut.append((start, end))
    return cut


REST_OF_CUT_WORDS = 12
"""The rest of a cut sentence this long says something of its own; a shorter one ("of the
loop, which the compiler then records.") is a tail that needs its beginning."""


def _rest_of_cut(words: list[str]) -> bool:
    return len(words) >= REST_OF_CUT_WORDS and _prose(words)


def _opens_paragraph(content: str, start: int) -> bool:
    """Says whether a paragraph of `content` opens at `start`."""
    return not content[:start].strip() or content[:start].rstrip(" \t").endswith("\n\n")


def _says_alone(content: str, sentences: list[Span], index: int) -> bool:
    """Says whether sentence `index` of `content` is an item opened by a bullet's glyph that
    stands alone without a stop, as a slide's do: a paragraph of its own, not the beginning of
    a sentence the next paragraph goes on with, nor one of items that make one sentence
    together ("• negative publicity, and")."""
    start, end = sentences[index]
    if not _GLYPH_ITEM.match(content, start) or _ITEM_GOES_ON.search(content, start, end):
        return False
    if _PARAGRAPH_BREAK.match(content, end) is None:
        return False
    later = sentences[index + 1 :]
    items = list(itertools.takewhile(lambda span: _GLYPH_ITEM.match(content, span[0]), later))
    if any(_ITEM_GOES_ON.search(content, *span) for span in items):
        return False
    # The rest of a sentence a table's other column cut ("• Requires disclosure of loan
    # modifications for" ... "borrowers experiencing financial difficulty ...") comes before
    # the next item.
    rest = itertools.takewhile(lambda span: not _GLYPH_ITEM.match(content, span[0]), later)
    return not any(_CONTINUATION.match(content, span[0]) for span in rest)


def _prose(words: list[str]) -> bool:
    # A figure's labels ("Trace 1 Trace 2") are short and capitalised; a cut sentence is neither.
    lower = sum(word[0].islower() for word in words)
    return len(words) > MIN_WORDS and lower * 2 >= len(words)


def _list_items(
    content: str,
    following: list[Span],
    room: int = MAX_LIST_ITEMS,
    room_chars: int = MAX_LIST_CHARS,
) -> list[Span]:
    """Returns the list items after a lead-in, at most `room` of at most `room_chars` together.
    Items marked as such (a bullet, "1.", "(a)") give their first sentences only, the sentences
    between them left out; unmarked, the sentences that follow are the items until a long one
    or another lead-in ("However, functions have the opening brace at the beginning of the next
    line, thus:" after the code that showed the rule)."""
    marked = bool(following) and _ITEM_MARK.match(content[slice(*following[0])]) is not None
    items: list[Span] = []
    for start, end in following:
        text = content[start:end]
        if len(items) == room or _QUESTION.search(text) or _CAPTION.match(text):
            break
        if marked and not _ITEM_MARK.match(text):
            continue  # an item's other sentences, left out: they take no room
        if sum(b - a for a, b in items) + end - start > room_chars:
            break
        if not marked and (len(_WORD.findall(text)) > 30 or (items and _LEAD_IN.search(text))):
            break  # a long sentence, or one announcing what follows it, starts anew
        items.append((start, end))
    return items


_NUMBERED_LINE = re.compile(r"^[ \t]*\(?1[.)]\s", re.M)


def list_room(lead_in: str, items: Sequence[str]) -> int:
    """Returns how many characters a list's items may take together: MAX_LIST_CHARS, twice as
    many where the reader is told of its last item, the lead-in counting them ("centered on
    five central themes:", announced_count) or the items numbered, a line of them opening with
    "1." or "(1)" ("asy will search the following paths, in the order listed: 1. The current
    directory; ... 5. The Asymptote examples directory")."""
    counted = announced_count(lead_in) is not None
    numbered = any(_NUMBERED_LINE.search(item) for item in items)
    return 2 * MAX_LIST_CHARS if counted or numbered else MAX_LIST_CHARS


def item_texts(content: str, parts: Sequence[Span]) -> list[str]:
    """Returns what a list unit over `parts` of `content` says before its first marked item,
    then each marked item's text."""
    text = "\n".join(content[start:end] for start, end in parts)
    starts = [match.start() for match in _MARKED_LINE.finditer(text)]
    return [text[a:b] for a, b in itertools.pairwise([0, *starts, len(text)])]


def marked_items(text: str) -> int:
    """Returns how many lines of `text` open with an item's mark."""
    return len(_MARKED_LINE.findall(text))


_COUNTS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8}
_ANNOUNCED = re.compile(
    rf"\b({'|'.join(_COUNTS)}|[2-8])\s+(?:[^\W\d][\w\-]*\s+){{0,3}}[^\W\d][\w\-]*s\s*:$", re.I
)


def announced_count(text: str) -> int | None:
    """Returns how many items a list's lead-in, the text up to its first colon, says it has
    ("... centered on five central themes:" gives 5); None when it counts none."""
    colon = text.find(":")
    found = _ANNOUNCED.search(text[: colon + 1]) if colon >= 0 else None
    if found is None:
        return None
    word = found.group(1).lower()
    return _COUNTS.get(word) or int(word)


_ORDINALS = {
    2: "second", 3: "third", 4: "fourth", 5: "fifth", 6: "sixth", 7: "seventh", 8: "eighth"
}  # fmt: skip
_COUNTED = re.compile(
    rf"\b({'|'.join(_COUNTS)})\s+(?:[^\W\d][\w\-]*\s+){{0,2}}[^\W\d][\w\-]*s\b(?P<rest>.*)",
    re.I | re.S,
)
_FIRST = re.compile(r"(?:^|[.:;]\s+)(?:the\s+first\b|first(?:ly)?,)", re.I)


def last_counted(text: str) -> re.Pattern[str] | None:
    """Returns what opens the sentence naming the last of the things `text` counts and then
    names the first of ("... two main ideas in order to learn: The first is called unrolling
    ..." goes on to "The second idea is ..."), None when it counts none or names no first."""
    found = _COUNTED.search(text)
    if found is None or not _FIRST.search(found.group("rest")):
        return None
    last = _ORDINALS[_COUNTS[found.group(1).lower()]]
    return re.compile(rf"\s*(?:the\s+{last}\b|{last}(?:ly)?,|finally,|lastly,)", re.I)


def list_runs_on(content: str, parts: tuple[Span, ...]) -> bool:
    """Whether the marked list a unit quotes may go on in the chunk after this one: its last
    part holds a marked item, and from there to the chunk's end no paragraph ends (the item's
    other sentences, which a list's quote leaves out, may follow it)."""
    start, end = parts[-1]
    return bool(marked_items(content[start:end])) and not _PARAGRAPH_BREAK.search(content[end:])


def continued_items(content: str, page_break: int | None, room: int, room_chars: int) -> list[Span]:
    """Returns the marked items with which `content`, the chunk after one whose marked list runs
    on (list_runs_on), goes on with that list: the first sentence of each marked item in the
    paragraphs that open with one, past what opens the first paragraph before its first item
    (the rest of the item the chunk before ends in), up to the first other paragraph; at most
    `room` items of at most `room_chars` together."""
    sentences = quotable_sentences(content, page_break)
    items: list[Span] = []
    for index, (start, stop) in enumerate(paragraph_spans(content, page_break)):
        inside = [span for span in sentences if start <= span[0] < stop]
        if not inside:
            continue
        if index == 0:
            first = next(
                (i for i, (a, _) in enumerate(inside) if _ITEM_MARK.match(content[a:])), None
            )
            if first is None:
                continue
            inside = inside[first:]
        elif not _ITEM_MARK.match(content[inside[0][0] :]):
            break
        taken_chars = sum(b - a for a, b in items)
        found = _list_items(content, inside, room - len(items), room_chars - taken_chars)
        if not found:
            break
        items += found
    return items
