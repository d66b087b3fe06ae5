"""A table's title: the opening lines of its header that name it, for its chunks' header."""

from __future__ import annotations

import pytest

from app.chunking.headers import context_header
from app.chunking.tables import table_title


@pytest.mark.parametrize(
    ("header", "title"),
    [
        (
            "THE COCA-COLA COMPANY AND SUBSIDIARIES\n\nCONSOLIDATED BALANCE SHEETS\n\n"
            "December 31, 2017 2016\n\n(In millions except par value)\nASSETS",
            "THE COCA-COLA COMPANY AND SUBSIDIARIES; CONSOLIDATED BALANCE SHEETS",
        ),
        (
            "Table of Contents\n\nLockheed Martin Corporation\nConsolidated Statements of "
            "Earnings\n\n(in millions, except per share data)\n\nNet sales",
            "Lockheed Martin Corporation; Consolidated Statements of Earnings",
        ),
        (
            "Consolidated Statements of Income\n\nFiscal Years Ended January 31,\n\n"
            "(Amounts in millions, except per share data) 2018 2017 2016",
            "Consolidated Statements of Income",
        ),
        ("Current assets:\nCash and cash equivalents", ""),
        ("Three Months Ended Nine Months Ended\nJune 25, 2022", ""),
        ("Table 4: Performance of the 7B+ models.", ""),
    ],
)
def test_table_title(header: str, title: str) -> None:
    assert table_title(header) == title


def test_the_title_joins_the_header_unless_its_path_says_it() -> None:
    label = "LOCKHEED MARTIN CORPORATION; Form 10-K"
    assert (
        context_header(label, "Item 8", None, "Consolidated Balance Sheets")
        == f"{label} > Item 8 > Consolidated Balance Sheets"
    )
    assert (
        context_header(
            label, "Item 8", "Consolidated Balance Sheets", "Consolidated Balance Sheets"
        )
        == f"{label} > Item 8 > Consolidated Balance Sheets"
    )
    assert context_header(label, "Item 8", "Item 8") == f"{label} > Item 8"
