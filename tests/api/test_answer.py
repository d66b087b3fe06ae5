"""POST /api/v1/query answers: claims locked to their sources, evidence locked to the page."""

from __future__ import annotations

import dataclasses
import re

import pymupdf
import pytest
from fastapi.testclient import TestClient

from app.flows.runtime import Runtime
from tests.helpers.clients import ask, claims_of, client_for, page_texts, upload
from tests.helpers.pdfs import text_pdf


def test_answer_claims_are_quoted_and_cited(client: TestClient, sample_pdf: bytes) -> None:
    upload(client, sample_pdf)
    body = ask(client, search="vector")
    assert body["status"] == "ok"
    claims = claims_of(body["answer"])
    assert claims
    assert "tracing compiler" in body["answer"]
    assert 0 < body["confidence"] <= 1
    assert len(body["sources"]) == len(set(body["sources"]))
    assert {n for _, n in claims} == set(range(1, len(body["sources"]) + 1))
    contents = [chunk["content"].replace("\n", " ") for chunk in body["chunks"]]
    for text, number in claims:
        assert re.fullmatch(r"sample\.pdf, (p\. \d+|pp\. \d+-\d+)", body["sources"][number - 1])
        assert any(text in content for content in contents)


def test_highlighted_sources_point_at_the_claims(
    client: TestClient, runtime: Runtime, sample_pdf: bytes
) -> None:
    upload(client, sample_pdf)
    body = ask(client, search="vector")
    pages = page_texts(runtime)
    claims = [text for text, _ in claims_of(body["answer"])]
    items = body["highlighted_sources"]
    assert claims
    assert len(items) == len(claims)  # the sample's sentences never cross a page
    for claim, item in zip(claims, items, strict=True):
        [(start, end)] = item["highlight_spans"]
        [(page_start, page_end)] = item["page_spans"]
        assert item["text_snippet"][start:end].replace("\n", " ") == claim
        page = pages[(item["document_id"], item["page_number"])]
        assert page[page_start:page_end] == item["text_snippet"][start:end]
        assert item["text_snippet"] in page
        assert item["document_name"] == "sample.pdf"
        assert item["rects"]
        x0, y0, x1, y1 = item["rects"][0]
        assert 0 <= x0 < x1 <= 612 and 0 <= y0 < y1 <= 792
        bbox = item["bbox"]
        assert bbox["x"] <= x0 and bbox["y"] <= y0 and bbox["width"] > 0 and bbox["height"] > 0
        assert 0 < item["confidence"] <= 1
        source = f"sample.pdf, p. {item['page_number']}"
        assert source in body["sources"]


def test_answer_is_deterministic(client: TestClient, sample_pdf: bytes) -> None:
    upload(client, sample_pdf)
    upload(client, sample_pdf, collection="copy")
    first, second = ask(client, search="hybrid"), ask(client, search="hybrid")
    for field in ("answer", "sources", "confidence", "highlighted_sources"):
        assert first[field] == second[field]


def test_highlights_off_changes_nothing_else(runtime: Runtime, sample_pdf: bytes) -> None:
    with client_for(runtime) as client:
        upload(client, sample_pdf)
        on = ask(client)
    settings = runtime.settings.model_copy(update={"enable_highlights": False})
    with client_for(dataclasses.replace(runtime, settings=settings)) as client:
        off = ask(client)
    assert on["highlighted_sources"] and on["viewer_url"]
    assert off["highlighted_sources"] is None and off["viewer_url"] is None
    assert on["response_id"] and off["response_id"]
    ignored = {"request_id", "response_id", "timings_ms", "highlighted_sources", "viewer_url"}
    assert {k: v for k, v in on.items() if k not in ignored} == {
        k: v for k, v in off.items() if k not in ignored
    }


def test_citations_name_each_marker(client: TestClient, sample_pdf: bytes) -> None:
    upload(client, sample_pdf)
    body = ask(client, search="vector")
    citations = body["citations"]
    assert [c["n"] for c in citations] == list(range(1, len(body["sources"]) + 1))
    chunk_ids = {chunk["chunk_id"] for chunk in body["chunks"]}
    for citation, source in zip(citations, body["sources"], strict=True):
        assert citation["chunk_id"] in chunk_ids
        pages = citation["page_start"], citation["page_end"]
        label = f"p. {pages[0]}" if pages[0] == pages[1] else f"pp. {pages[0]}-{pages[1]}"
        assert source == f"{citation['document_name']}, {label}"
    items = body["highlighted_sources"]
    assert items
    for item in items:
        citation = citations[item["citation"] - 1]
        assert citation["document_id"] == item["document_id"]
        assert citation["page_start"] <= item["page_number"] <= citation["page_end"]


def test_a_question_nothing_answers_gets_no_answer(runtime: Runtime, sample_pdf: bytes) -> None:
    # No similarity threshold, no term coverage: retrieval passes chunks on, and the answer
    # must refuse them.
    unjudged = {"min_similarity": -1.0, "min_term_coverage": 0.0}
    settings = runtime.settings.model_copy(update=unjudged)
    with client_for(dataclasses.replace(runtime, settings=settings)) as client:
        upload(client, sample_pdf)
        body = ask(client, "how long should an egg be boiled?")
    assert body["status"] == "no_answer"
    assert (body["answer"], body["sources"], body["citations"]) == ("", [], [])
    assert body["viewer_url"] is None and body["chunks"]
    assert body["highlighted_sources"] == []


@pytest.mark.parametrize("query", ["zebra quagga okapi"])
def test_no_context_gives_empty_answer(client: TestClient, runtime: Runtime, query: str) -> None:
    body = ask(client, query)
    assert body["status"] == "empty_database"
    assert (body["answer"], body["sources"], body["confidence"]) == ("", [], 0.0)
    assert body["highlighted_sources"] == []


def cross_page_pdf() -> bytes:
    """Returns a two-page PDF whose first page ends mid-sentence, continued on the second."""
    document = pymupdf.open()
    first = document.new_page()
    first.insert_text(
        (72, 100), "Tracing compilers record hot loops as they run and then", fontsize=11
    )
    second = document.new_page()
    second.insert_text((72, 100), "compile the recorded loops into fast native code.", fontsize=11)
    second.insert_text((72, 130), "Unrelated closing remarks follow here at the end.", fontsize=11)
    pdf: bytes = document.tobytes()
    document.close()
    return pdf


def test_sentence_across_pages_cites_both(client: TestClient, runtime: Runtime) -> None:
    upload(client, cross_page_pdf(), name="cross.pdf")
    body = ask(client, "tracing compilers compile hot loops into native code", search="vector")
    claims = claims_of(body["answer"])
    crossing = [(t, n) for t, n in claims if "record hot loops" in t]
    assert crossing, body["answer"]
    text, number = crossing[0]
    assert body["sources"][number - 1] == "cross.pdf, pp. 1-2"
    parts = [item for item in body["highlighted_sources"] if item["document_name"] == "cross.pdf"]
    pages = page_texts(runtime)
    assert [item["page_number"] for item in parts][:2] == [1, 2]
    joined = []
    for item in parts[:2]:
        [(start, end)] = item["highlight_spans"]
        [(page_start, page_end)] = item["page_spans"]
        piece = item["text_snippet"][start:end]
        assert pages[(item["document_id"], item["page_number"])][page_start:page_end] == piece
        assert item["rects"]
        joined.append(piece)
    assert " ".join(" ".join(joined).split()) == " ".join(text.split())


ACME_STATEMENTS = [
    "Acme Corporation\n\nConsolidated Statements of Income\n(in millions, except per share data)\n"
    "Years Ended December 31,\n2022 2021 2020\nTotal net sales 65,984 67,044 65,398\n"
    "Cost of sales 57,697 57,983 56,744\nOperating profit 8,348 9,123 8,644\n",
    "Acme Corporation\n\nConsolidated Balance Sheets\n(in millions)\nDecember 31,\n2022 2021\n"
    "Cash and cash equivalents 2,547 3,604\nReceivables, net 2,505 1,963\n"
    "Total current assets 20,991 19,815\nAccounts payable 2,117 780\n"
    "Total current liabilities 15,887 13,997\n",
]


def test_a_ratio_asked_of_a_filing_is_worked_out_from_its_rows(client: TestClient) -> None:
    upload(client, text_pdf(ACME_STATEMENTS), name="acme-10k.pdf")

    body = client.post(
        "/api/v1/query",
        json={"query": "What is Acme's FY2022 working capital ratio? Round to two decimals."},
    ).json()

    assert body["status"] == "ok"
    assert body["answer"].startswith(
        "FY2022 working capital ratio: 1.32 (total current assets 20,991 / total current "
        "liabilities 15,887) [1] "
    )
    assert "Total current assets 20,991 19,815 [1]" in body["answer"]
    assert body["sources"] == ["acme-10k.pdf, p. 2"]
    # Each row used is marked on its page (with its table's header, as any row quoted).
    evidence = body["highlighted_sources"]
    assert {e["page_number"] for e in evidence} == {2}
    for row in ("Total current assets 20,991 19,815", "Total current liabilities 15,887 13,997"):
        assert any(row in e["text_snippet"] for e in evidence)


def test_the_rows_a_ratio_is_worked_out_from_lead_the_chunks(client: TestClient) -> None:
    liquidity = (
        "Acme Corporation\n\nLiquidity\n\nAcme's working capital ratio in FY2022 is one "
        "measure of Acme's liquidity we follow. What Acme's FY2022 working capital ratio is "
        "depends on the timing of customer receipts and of payments to suppliers.\n"
    )
    upload(client, text_pdf([liquidity, *ACME_STATEMENTS]), name="acme-10k.pdf")
    body = client.post(
        "/api/v1/query",
        json={"query": "What is Acme's FY2022 working capital ratio?", "top_k": 2},
    ).json()

    # The prose about the ratio lies nearer the question; the answer works the ratio out from
    # the balance sheet, and the chunk its rows stand in comes first, at its own distance.
    assert body["answer"].startswith("FY2022 working capital ratio: 1.32")
    statement, prose = body["chunks"]
    assert statement["chunk_id"] == body["citations"][0]["chunk_id"]
    assert (statement["page_start"], prose["page_start"]) == (3, 1)
    assert 0 < prose["distance"] < statement["distance"] < 1


def test_which_row_holds_the_lowest_figure_is_read_from_its_table(client: TestClient) -> None:
    upload(
        client,
        text_pdf(
            [
                "Acme Corporation\n\nSummary operating results for each of our business "
                "segments were as follows (in millions):\n\nNet sales\n2022 2021\n"
                "Aeronautics 26,748 26,266\nSpace 11,814 11,880\nRotors 16,789 15,995\n"
                "Total net sales 55,351 54,141\nOperating profit\nAeronautics 2,799 2,843\n"
                "Space 1,134 1,149\nRotors 1,798 1,615\n"
            ]
        ),
        name="acme-10k.pdf",
    )

    body = client.post(
        "/api/v1/query",
        json={
            "query": "Which of Acme's business segments had the lowest operating profit in 2022?"
        },
    ).json()

    assert body["status"] == "ok"
    assert body["answer"].startswith(
        "Space, 1,134 million in 2022: the lowest operating profit of Aeronautics 2,799 "
        "million, Space 1,134 million, Rotors 1,798 million [1] "
    )
    assert "Space 1,134 1,149 [1]" in body["answer"]
    assert body["sources"] == ["acme-10k.pdf, p. 1"]
    assert any("Space 1,134 1,149" in e["text_snippet"] for e in body["highlighted_sources"])


def test_which_row_is_lowest_is_read_from_another_table_on_a_ranked_page(
    client: TestClient,
) -> None:
    upload(
        client,
        text_pdf(
            [
                "Acme Corporation\n\nThe breakdown of net sales is as follows (in millions):\n\n"
                "2022 2021\nAeronautics 26,748 26,266\nSpace 11,814 11,880\n"
                "Rotors 16,789 15,995\nTotal net sales 55,351 54,141\n\n"
                "(1) Which of the business segments had the lowest operating profit in 2022 "
                "depends on the timing of its deliveries, as each year's notes discuss.\n\n"
                "The breakdown of operating profit is as follows (in millions):\n\n"
                "2022 2021\nAeronautics 2,799 2,843\nSpace 1,134 1,149\nRotors 1,798 1,615\n"
                "Total operating profit 5,731 5,607\n"
            ]
        ),
        name="acme-10k.pdf",
    )

    body = client.post(
        "/api/v1/query",
        json={
            "query": "Which of Acme's business segments had the lowest operating profit in 2022?",
            "top_k": 1,
        },
    ).json()

    # The note ranks first; the table its page holds for the measure answers.
    assert body["answer"].startswith(
        "Space, 1,134 million in 2022: the lowest operating profit of Aeronautics 2,799 "
        "million, Space 1,134 million, Rotors 1,798 million [1] "
    ), body["answer"]
