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
    """One cited line, as percentages of its page's width and height."""

    left: float
    top: float
    width: float
    height: float


@dataclass(frozen=True)
class Excerpt:
    """A cited sentence with a little of its chunk on either side."""

    before: str
    cited: str
    after: str


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
    excerpts: list[Excerpt] = field(default_factory=list)

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
    for item in items:
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
        spans = item.highlight_spans
        page.excerpts += [excerpt(item.text_snippet, start, end) for start, end in spans]
        if page.size is not None:
            page.marks += [mark(rect, page.size) for rect in item.rects]
    return list(pages.values())


def page_image(pdf: bytes, page_number: int) -> str:
    png = render_page_png(pdf, page_number, PAGE_SCALE)
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def mark(rect: tuple[float, float, float, float], size: tuple[float, float]) -> CitedLineBox:
    """Returns `rect` (PDF points) as percentages of a page of `size`."""
    x0, y0, x1, y1 = rect
    width, height = size
    return CitedLineBox(
        left=round(100 * x0 / width, 3),
        top=round(100 * y0 / height, 3),
        width=round(100 * (x1 - x0) / width, 3),
        height=round(100 * (y1 - y0) / height, 3),
    )


def excerpt(snippet: str, start: int, end: int) -> Excerpt:
    before = snippet[max(start - CONTEXT_CHARS, 0) : start]
    after = snippet[end : end + CONTEXT_CHARS]
    return Excerpt(
        before=("\u2026" if start > CONTEXT_CHARS else "") + before,
        cited=snippet[start:end],
        after=after + ("\u2026" if end + CONTEXT_CHARS < len(snippet) else ""),
    )
