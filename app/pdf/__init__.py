"""Reading PDFs: page text in reading order with a box per character, the outline, the
reader's annotations placed on the text, rendering and highlighting pages."""

from app.pdf.reader import count_pages, extract_document, open_pdf, render_page_png

__all__ = ["count_pages", "extract_document", "open_pdf", "render_page_png"]
