"""`citelock annotations extract | diff | verify` and `citelock query --use-annotations`."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from app.cli import commands as cli
from app.flows.runtime import Runtime
from tests.helpers.clients import HIGHLIGHTED_PASSAGE_QUERY
from tests.helpers.corpus import corpus_path

runner = CliRunner()


@pytest.fixture
def on_highlighted(highlighted: Runtime, monkeypatch: pytest.MonkeyPatch) -> Runtime:
    """Points the CLI at the database holding the highlighted paper."""
    monkeypatch.setattr(cli, "get_settings", lambda: highlighted.settings)
    return highlighted


def test_extract_jsonl_prints_one_line_per_annotation() -> None:
    path = corpus_path("annotated", "pdfannots__issue13.pdf")
    result = runner.invoke(cli.app, ["annotations", "extract", str(path), "--jsonl"])
    assert result.exit_code == 0, result.output
    assert [json.loads(line) for line in result.stdout.splitlines()] == [
        {
            "path": str(path),
            "page": 1,
            "type": "highlight",
            "text": "This is a sample statement.",
            "comment": "",
        }
    ]


def test_extract_refuses_a_file_that_is_not_a_pdf_with_exit_1() -> None:
    path = corpus_path("annotated", "EXPECTED.md")
    result = runner.invoke(cli.app, ["annotations", "extract", str(path), "--jsonl"])
    assert result.exit_code == 1
    assert result.stdout == ""


def test_diff_shows_the_ranking_without_and_with(on_highlighted: Runtime) -> None:
    result = runner.invoke(
        cli.app, ["annotations", "diff", HIGHLIGHTED_PASSAGE_QUERY, "--search", "vector", "--json"]
    )
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)["rows"]
    without = [row["without"]["chunk_id"] for row in rows]
    with_ = [row["with"]["chunk_id"] for row in rows]
    assert sorted(without) == sorted(with_) and without != with_
    assert any(row["with"]["was_rank"] > 3 and row["rank"] <= 3 for row in rows)


@pytest.mark.parametrize(
    ("flag", "marked"), [("--use-annotations", True), ("--no-use-annotations", False)]
)
def test_query_use_annotations_flag(on_highlighted: Runtime, flag: str, marked: bool) -> None:
    result = runner.invoke(
        cli.app, ["query", HIGHLIGHTED_PASSAGE_QUERY, "--search", "vector", flag, "--json"]
    )
    assert result.exit_code == 0, result.output
    results = json.loads(result.stdout)["results"]
    assert any(item["hl_count"] > 0 for item in results) is marked


def test_verify_passes_on_stored_data(on_highlighted: Runtime) -> None:
    with on_highlighted.engine.connect() as connection:
        (document_id,) = connection.exec_driver_sql("SELECT id FROM documents").scalars()
    result = runner.invoke(cli.app, ["annotations", "verify", str(document_id)])
    assert result.exit_code == 0, result.output


def test_verify_fails_for_an_unknown_document(on_highlighted: Runtime) -> None:
    result = runner.invoke(
        cli.app, ["annotations", "verify", "00000000-0000-0000-0000-000000000007"]
    )
    assert result.exit_code == 1
