"""The evidence viewer: one HTML page, each cited page rendered with its cited lines marked.

Self-contained: inline CSS, no script, and each page's image inside the page as a data: URI.
So it opens whole from one request on an offline machine, and a frontend that fetches it with
its API key can show it (an <img> pointing at the page route would not send the key). Marks
are placed in percentages of the page, so they stay on their lines at any rendered size. All
text (answers and PDF text are user content) goes through Jinja2's autoescaping.
"""

from __future__ import annotations

import base64
import uuid
from dataclasses import dataclass, field

from jinja2 import Environment, PackageLoader, StrictUndefined
from sqlalchemy.orm import Session

from app.contract.schemas import HighlightedSource
from app.db.documents import document_file, page_sizes
from app.flows.responses import stored_response
from app.pdf.reader import render_page_png

PAGE_SCALE = 2.0
"""The rendered page's pixels per point: sharp on high-density screens, still small."""

CONTEXT_CHARS = 160
"""Characters of the chunk shown on either side of a cited sentence."""

TEMPLATES = Environment(
    loader=PackageLoader("app.api", "templates"), autoescape=True, undefined=StrictUndefined
)


@dataclass(frozen=True)
class CitedLineBox:
    """One cited line, as percentages of its page's width and height; the first line of each
    cited sentence carries the anchor that its quote links to."""

    left: float
    top: float
    width: float
    height: float
    anchor: str | None = None


@dataclass(frozen=True)
class ExcerptPart:
    text: str
    cited: bool = False
    anchor: str | None = None
    """Where the cited text's first line is marked on the page, when it is."""


@dataclass(frozen=True)
class Excerpt:
    """Cited sentences of one passage with a little of it on either side: neighbouring
    sentences share one excerpt, so their context is shown once."""

    before: str
    parts: list[ExcerptPart]
    after: str


@dataclass(frozen=True)
class Cited:
    """A cited stretch of a passage, and the anchor of its mark on the page (if shown)."""

    start: int
    end: int
    anchor: str | None


@dataclass
class ViewedPage:
    anchor: str
    document_id: uuid.UUID
    document_name: str
    page_number: int
    size: tuple[float, float] | None
    """Width and height in points; None when the document is no longer stored."""
    image: str = ""
    """The page rendered at PAGE_SCALE, as a data: URI; empty when it is no longer stored."""
    marks: list[CitedLineBox] = field(default_factory=list)
    cited: dict[str, list[Cited]] = field(default_factory=dict)
    """The cited stretches of each passage (text snippet) quoted on this page."""

    @property
    def excerpts(self) -> list[Excerpt]:
        return [block for text, cited in self.cited.items() for block in excerpts(text, cited)]

    @property
    def label(self) -> str:
        return f"{self.document_name}, p. {self.page_number}"


def viewer_headers(frame_origins: list[str]) -> dict[str, str]:
    """Returns the viewer's security headers: it runs nothing, loads only its own inline
    styles and data: images, and only this service and the configured frontends may frame
    it. No referrer, so a signed link's token is not handed to the pages it links to."""
    ancestors = " ".join(["'self'", *frame_origins])
    policy = (
        "default-src 'none'; img-src data:; style-src 'unsafe-inline'; base-uri 'none'; "
        f"form-action 'none'; frame-ancestors {ancestors}"
    )
    return {"Content-Security-Policy": policy, "Referrer-Policy": "no-referrer"}


def render_viewer(*, session: Session, response_id: uuid.UUID, link_query: str = "") -> str:
    """Returns the viewer's HTML for a stored response; `link_query` (a signed link's
    `&token=...`) goes on its links to the PDF, which a browser opens without a key."""
    response = stored_response(session=session, response_id=response_id)
    pages = viewed_pages(session, response.highlighted_sources or [])
    return TEMPLATES.get_template("viewer.html").render(
        response=response, pages=pages, link_query=link_query
    )


def viewed_pages(session: Session, items: list[HighlightedSource]) -> list[ViewedPage]:
    """Returns the cited pages in the order first cited, each with all its marks and quotes."""
    sizes = page_sizes(session=session, pages={(i.document_id, i.page_number) for i in items})
    pdfs: dict[uuid.UUID, bytes] = {}
    pages: dict[tuple[uuid.UUID, int], ViewedPage] = {}
    for number, item in enumerate(items, 1):
        key = (item.document_id, item.page_number)
        if key not in pages:
            pages[key] = ViewedPage(
                anchor=f"page-{len(pages) + 1}",
                document_id=item.document_id,
                document_name=item.document_name,
                page_number=item.page_number,
                size=sizes.get(key),
            )
            if key in sizes:
                if item.document_id not in pdfs:
                    pdfs[item.document_id] = document_file(
                        session=session, document_id=item.document_id
                    )
                pages[key].image = page_image(pdfs[item.document_id], item.page_number)
        page = pages[key]
        anchor = f"mark-{number}" if page.size is not None and item.rects else None
        page.cited.setdefault(item.text_snippet, []).extend(
            Cited(start, end, anchor) for start, end in item.highlight_spans
        )
        if page.size is not None:
            page.marks += [
                mark(rect, page.size, anchor if line == 0 else None)
                for line, rect in enumerate(item.rects)
            ]
    return list(pages.values())


def page_image(pdf: bytes, page_number: int) -> str:
    png = render_page_png(pdf, page_number, PAGE_SCALE)
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def mark(
    rect: tuple[float, float, float, float], size: tuple[float, float], anchor: str | None
) -> CitedLineBox:
    """Returns `rect` (PDF points) as percentages of a page of `size`."""
    x0, y0, x1, y1 = rect
    width, height = size
    return CitedLineBox(
        left=round(100 * x0 / width, 3),
        top=round(100 * y0 / height, 3),
        width=round(100 * (x1 - x0) / width, 3),
        height=round(100 * (y1 - y0) / height, 3),
        anchor=anchor,
    )


def excerpts(snippet: str, cited: list[Cited]) -> list[Excerpt]:
    """Returns the cited stretches of `snippet` in excerpts, those whose context would meet
    (less than twice CONTEXT_CHARS apart) in the same one; a stretch cited twice shows once."""
    blocks: list[list[Cited]] = []
    for stretch in sorted(cited, key=lambda c: (c.start, c.end)):
        if blocks and stretch.start - blocks[-1][-1].end < 2 * CONTEXT_CHARS:
            last = blocks[-1][-1]
            if stretch.end > last.end:
                blocks[-1].append(Cited(max(stretch.start, last.end), stretch.end, stretch.anchor))
        else:
            blocks.append([stretch])
    return [excerpt(snippet, block) for block in blocks]


def excerpt(snippet: str, block: list[Cited]) -> Excerpt:
    start, end = block[0].start, block[-1].end
    parts: list[ExcerptPart] = []
    for stretch, following in zip(block, [*block[1:], None], strict=True):
        parts.append(ExcerptPart(snippet[stretch.start : stretch.end], True, stretch.anchor))
        if following is not None and following.start > stretch.end:
            parts.append(ExcerptPart(snippet[stretch.end : following.start]))
    return Excerpt(
        before=("\u2026" if start > CONTEXT_CHARS else "")
        + snippet[max(start - CONTEXT_CHARS, 0) : start],
        parts=parts,
        after=snippet[end : end + CONTEXT_CHARS]
        + ("\u2026" if end + CONTEXT_CHARS < len(snippet) else ""),
    )
