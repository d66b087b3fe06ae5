"""Hostile PDFs written byte by byte: each costs milliseconds to make, whatever it costs to read."""

from __future__ import annotations

import io
import zipfile
import zlib

FONT = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"
LINE = b"Citation locking ties every claim in an answer to the page it came from."


def assemble(objects: list[bytes]) -> bytes:
    """Returns a PDF whose object n is objects[n - 1], object 1 being the catalog."""
    out = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


def stream(data: bytes, extra: bytes = b"") -> bytes:
    packed = zlib.compress(data)
    return b"<< /Length %d /Filter /FlateDecode %s >>\nstream\n%s\nendstream" % (
        len(packed),
        extra,
        packed,
    )


def text_content(lines: int = 3, size: float = 11) -> bytes:
    """Returns a content stream writing LINE `lines` times down the page at `size` points."""
    body = b" ".join(b"(%s) '" % LINE for _ in range(lines))
    return b"BT /F1 %g Tf %g TL 36 760 Td %s ET" % (size, size * 1.2, body)


def page(contents: int, extra: bytes = b"") -> bytes:
    return (
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents %d 0 R "
        b"/Resources << /Font << /F1 3 0 R >> %s >> >>" % (contents, extra)
    )


def one_text_page(page_extra: bytes = b"", resources: bytes = b"") -> list[bytes]:
    """Returns the objects of a one-page text PDF: catalog, pages, font, page, contents."""
    return [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
        FONT,
        page(5, resources)[:-2] + page_extra + b" >>",
        stream(text_content()),
    ]


def many_objects(count: int = 100_000) -> bytes:
    """A text page whose dictionary refers to `count` tiny objects."""
    first = 6
    refs = b" ".join(b"%d 0 R" % n for n in range(first, first + count))
    objects = one_text_page(page_extra=b" /Junk [" + refs + b"]")
    objects += [b"<< /N %d >>" % n for n in range(count)]
    return assemble(objects)


def empty_pages(count: int = 10_000) -> bytes:
    """A page tree of `count` empty pages sharing one (empty) content stream."""
    first = 5
    kids = b" ".join(b"%d 0 R" % n for n in range(first, first + count))
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, count),
        FONT,
        stream(b""),
    ]
    objects += [page(4)] * count
    return assemble(objects)


def huge_image(side: int = 16_384) -> bytes:
    """A text page under a `side` x `side` grey image (side**2 bytes once decoded)."""
    packer = zlib.compressobj()
    row_block = bytes(side * 256)
    packed = b"".join(packer.compress(row_block) for _ in range(side // 256))
    packed += packer.flush()
    image = b"<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray " % (
        side,
        side,
    )
    image += b"/BitsPerComponent 8 /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream" % (
        len(packed),
        packed,
    )
    content = b"q 612 0 0 792 0 0 cm /Im1 Do Q " + text_content()
    objects = one_text_page(resources=b"/XObject << /Im1 6 0 R >>")
    objects[4] = stream(content)
    return assemble([*objects, image])


def deeply_nested(depth: int = 100_000) -> bytes:
    """A text page whose dictionary holds arrays nested `depth` deep."""
    nested = b"[" * depth + b"]" * depth
    return assemble([*one_text_page(page_extra=b" /Deep 6 0 R"), nested])


def deep_page_tree(depth: int = 5_000) -> bytes:
    """One text page at the bottom of a chain of `depth` /Pages nodes."""
    first = 6  # nodes 6.., each the parent of the next; the last one holds page 4
    objects = one_text_page()
    objects[1] = b"<< /Type /Pages /Kids [%d 0 R] /Count 1 >>" % first
    for level in range(depth):
        number = first + level
        parent = 2 if level == 0 else number - 1
        kid = number + 1 if level < depth - 1 else 4
        objects.append(b"<< /Type /Pages /Parent %d 0 R /Kids [%d 0 R] /Count 1 >>" % (parent, kid))
    objects[3] = objects[3].replace(b"/Parent 2 0 R", b"/Parent %d 0 R" % (first + depth - 1))
    return assemble(objects)


def text_megabytes(megabytes: int = 10, pages: int = 1000) -> bytes:
    """`pages` pages sharing one content stream: `megabytes` MB of visible text in all."""
    per_page = megabytes * 1_000_000 // pages
    lines = per_page // (len(LINE) + 1)
    content = stream(text_content(lines=lines, size=0.5))
    first = 5
    kids = b" ".join(b"%d 0 R" % n for n in range(first, first + pages))
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, pages),
        FONT,
        content,
    ]
    objects += [page(4)] * pages
    return assemble(objects)


def zip_body() -> bytes:
    """A PDF header followed by a ZIP archive."""
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as bundle:
        bundle.writestr("paper.txt", LINE * 1000)
    return b"%PDF-1.7\n" + archive.getvalue()
