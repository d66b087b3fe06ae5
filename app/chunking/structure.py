"""Pages that point elsewhere instead of saying anything: tables of contents, back-of-book
indexes, lists of figures and tables.

Their lines are locators, a title and a page reference, often joined by a dot leader. They
share a question's words ("four zones", "asn1_der_coding") and so rank high, but hold no
answer; their chunks are flagged, and queries leave them out by default like furniture.
A line of a financial statement also runs to a dot leader, but ends in amounts (a currency
sign, thousands separators, decimals), never in a page number.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from app.core.chunks import INDEX, LIST_OF_FIGURES, TOC
from app.core.records import PageLines
from app.core.sentences import split_sentences

MIN_LEADERS = 5
"""Dot-leader locators a page needs at the least to be a structure page..."""
LEADER_SHARE = 0.3
"""...and the share of its lines (lone page numbers and letters aside) they must make."""
RUNNING_PAGES = 3
"""A heading found atop more pages than this is a running one."""
HEADED_MIN_LOCATORS = 3
"""Locators enough on a page headed "Contents", "Index" or "List of figures"."""
HEADING_LINES = 4
"""The first lines of a page among which its heading is looked for."""
PROSE_WORDS = 8
"""Words a sentence needs to make a chunk of a structure page prose (reads_as_prose)."""
REF_SLACK = 20
"""How far past the page count a page reference may point (printed numbers run ahead of the
physical pages by the front matter)."""

_REF = r"(?P<ref>\d{1,4}|[ivxlcdm]{1,7})(?:\s*[,\u2013-]\s*\d{1,4})*"
_LEADER = re.compile(rf"\w.*?(?:\.\s?){{3,}}\s*(?:{_REF})?\s*$", re.IGNORECASE)
_DOTS = re.compile(r"\.\s?\.\s?\.")
"""Three dots, as in every dot leader. `_LEADER` tries each word of a line against the rest
of it, so a line without them is passed over first: on a 10-K (AMD 2015), 0.92 s became 0.07 s."""
_TRAILING = re.compile(
    rf"^(?:\d+(?:\.\d+)*\.?\s+)?\D.*(?:[^\W\d]|[).:?!\u2019']|\b(?:19|20)\d\d)\s+{_REF}$",
    re.IGNORECASE,
)
"""A title, after its section's number if it has one, then a page number alone: "Why isn't
upssched part of upsmon? 3", "4.2 Installation 7"."""
_AMOUNT = re.compile(r"[$\u20ac\u00a3\u00a5%]|\d,\d{3}|\d\.\d")
_SECTION_NUMBER = re.compile(r"^\d+(?:\.\d+)+\.?\s+")
"""A section's number before its title ("2.7.9 Limiting download bandwidth"): no decimal."""
_TRIVIAL = re.compile(r"^(?:\d{1,4}|[ivxlcdm]{1,7}|[A-Z])$", re.IGNORECASE)
_HEADING = re.compile(
    r"^(?:table of )?contents$|\bindex$|^index\b|^list of (?:figures|tables|illustrations)",
    re.IGNORECASE,
)
_FIGURE_LINE = re.compile(r"^(?:figure|fig\.|table)\s+\d", re.IGNORECASE)


def structure_pages(pages: Sequence[PageLines]) -> dict[int, str]:
    """Returns the flag of each page that is a table of contents, an index or a list of
    figures, by page number."""
    read = [(page.number, lines_of(page)) for page in pages]
    headings = {number: heading_of(lines) for number, lines in read}
    # A heading on many pages is a running link back to the contents ("Table of Contents"
    # atop every page of a filing), not the heading of a contents page.
    running = {
        heading for heading, count in Counter(headings.values()).items() if count > RUNNING_PAGES
    }
    found: dict[int, str] = {}
    for number, lines in read:
        leaders, trailing = locators_of(lines, len(pages))
        heading = headings[number] if headings[number] not in running else None
        locators = len(leaders) + len(trailing)
        # Contents that run onto the next page do so without their heading: there, lines that
        # end in a page number alone count as the heading's would, when they are as large a
        # share of the page's lines as dot leaders must be.
        continued = number - 1 in found and locators >= max(
            HEADED_MIN_LOCATORS, LEADER_SHARE * len(lines)
        )
        if (
            (len(leaders) >= MIN_LEADERS and len(leaders) >= LEADER_SHARE * len(lines))
            or (heading is not None and locators >= HEADED_MIN_LOCATORS)
            or continued
        ):
            found[number] = (
                found[number - 1]
                if continued
                else kind(heading, leaders + trailing, number, len(pages))
            )
    return found


def lines_of(page: PageLines) -> list[str]:
    """Returns the page's lines, lone page numbers and letters left out."""
    return [line for line in page.line_texts() if line and not _TRIVIAL.match(line)]


def heading_of(lines: Sequence[str]) -> str | None:
    return next((line for line in lines[:HEADING_LINES] if _HEADING.search(line)), None)


def locators_of(lines: Sequence[str], page_count: int | None) -> tuple[list[str], list[str]]:
    """Returns the lines that are a title with a page reference: with a dot leader, and
    with only a trailing page number; none holding amounts."""
    leaders, trailing = [], []
    for line in lines:
        if _AMOUNT.search(_SECTION_NUMBER.sub("", line, count=1)):
            continue
        if (
            _DOTS.search(line)
            and (match := _LEADER.search(line))
            and within(match.group("ref"), page_count)
        ):
            leaders.append(line)
        elif (match := _TRAILING.match(line)) and within(match.group("ref"), page_count):
            trailing.append(line)
    return leaders, trailing


def within(ref: str | None, page_count: int | None) -> bool:
    """Says whether a locator's page reference could be a page of the document (a roman
    numeral always can; a dot leader with its number on the next line has none; any can of a
    document whose page count is not given)."""
    return (
        ref is None or not ref.isdigit() or page_count is None or int(ref) <= page_count + REF_SLACK
    )


def reads_as_prose(text: str) -> bool:
    """Whether a chunk of a structure page is prose all the same: no locator line, and a
    sentence of PROSE_WORDS words or more that no dot leader runs through. The introduction
    that opens under contents ending mid-page, or an abstract above them, is text to answer
    from; a line of the contents the locators miss ("Item 15. Exhibits 132") is no sentence."""
    lines = [" ".join(line.split()) for line in text.splitlines() if line.strip()]
    if any(locators_of(lines, None)):
        return False
    return any(_is_prose(text[start:end]) for start, end in split_sentences(text))


def _is_prose(sentence: str) -> bool:
    words = [word for word in sentence.split() if sum(c.isalpha() for c in word) >= 2]
    return len(words) >= PROSE_WORDS and not _DOTS.search(sentence) and sentence[-1] in ".!?"


def kind(heading: str | None, locators: Sequence[str], number: int, page_count: int) -> str:
    back_of_book = number > page_count * 2 / 3
    if heading is not None and heading.lower().startswith("list of"):
        return LIST_OF_FIGURES
    if sum(bool(_FIGURE_LINE.match(line)) for line in locators) * 2 > len(locators):
        return LIST_OF_FIGURES
    # Contents come first, an index last (a filing heads its contents "Index").
    return INDEX if back_of_book else TOC
