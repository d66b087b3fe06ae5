"""Names from the caller: collections trimmed and checked, the empty one the default on an
upload and in a listing alike, file names that keep their extension and give a title."""

from __future__ import annotations

from fastapi.testclient import TestClient

from app.contract.schemas import collection_name


def upload(client: TestClient, pdf: bytes, **form: str) -> dict[str, object]:
    filename = form.pop("filename", "a.pdf")
    response = client.post("/api/v1/documents", files={"file": (filename, pdf)}, data=form)
    assert response.status_code == 201, response.text
    body: dict[str, object] = response.json()
    return body


def listed(client: TestClient, query: str) -> list[object]:
    return [d["id"] for d in client.get(f"/api/v1/documents?{query}").json()["data"]]


def test_collection_names_are_trimmed_and_blank_is_the_default_everywhere(
    client: TestClient, sample_pdf: bytes
) -> None:
    papers = upload(client, sample_pdf, collection="  papers \t")
    assert papers["collection"] == "papers"
    assert (
        listed(client, "collection=papers")
        == listed(client, "collection=%20papers")
        == [papers["id"]]
    )
    blank = upload(client, sample_pdf + b"\n%blank", collection=" ")
    empty = upload(client, sample_pdf + b"\n%empty", collection="")
    assert blank["collection"] == empty["collection"] == "default"
    assert set(listed(client, "collection=")) == {blank["id"], empty["id"]}
    assert listed(client, "collection=default") == listed(client, "collection=")


def test_a_collection_name_with_a_direction_override_is_refused(
    client: TestClient, sample_pdf: bytes
) -> None:
    for name in ["evil\u202egpj", "a\u2066b", "tab\x07"]:
        response = client.post(
            "/api/v1/documents", files={"file": ("a.pdf", sample_pdf)}, data={"collection": name}
        )
        assert response.status_code == 422, name
        assert response.json()["code"] == "invalid_request"
        assert client.get("/api/v1/documents", params={"collection": name}).status_code == 422
    assert client.get("/api/v1/documents").json()["count"] == 0


def test_long_and_degenerate_file_names_keep_an_extension_and_give_a_title(
    client: TestClient, sample_pdf: bytes
) -> None:
    long = upload(client, sample_pdf, filename="r" * 300 + ".pdf")
    assert str(long["filename"]).endswith("r.pdf") and len(str(long["filename"])) == 255
    dot = upload(client, sample_pdf + b"\n%dot", filename=".")
    assert dot["filename"] == "document.pdf"
    assert dot["title"] == "document"
    flipped = upload(client, sample_pdf + b"\n%rtl", filename="invoice\u202efdp.exe")
    assert flipped["filename"] == "invoicefdp.exe"


def test_collection_name_rules() -> None:
    assert collection_name(" x ") == "x"
    assert collection_name("") == collection_name("   ") == "default"
