"""`citelock ingest` and `citelock documents`, into the database and through a live service."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pymupdf
import pytest
import sqlalchemy as sa
from typer.testing import CliRunner

from app.cli import app
from app.core.config import get_settings
from tests.helpers.pdfs import make_text_pdf

runner = CliRunner()


def json_lines(output: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in output.splitlines() if line.startswith("{")]


def test_ingest_folder_recursively_then_skip_what_is_stored(
    cli_database: str, pdf_folder: Path
) -> None:
    first = runner.invoke(app, ["ingest", str(pdf_folder), "--collection", "papers", "--json"])
    assert first.exit_code == 0, first.output
    reports = {Path(str(r["path"])).name: r for r in json_lines(first.stdout)}
    assert set(reports) == {"alpha.pdf", "alpha-copy.pdf", "beta.pdf"}
    assert reports["alpha.pdf"]["outcome"] == "created"
    assert reports["alpha.pdf"]["pages"] == 3
    assert reports["beta.pdf"]["outcome"] == "created"
    # The same bytes under another name: found by sha256 before parsing.
    assert reports["alpha-copy.pdf"]["outcome"] == "skipped"
    assert "2 ingested" in first.stderr
    assert "pages/s" in first.stderr

    again = runner.invoke(app, ["ingest", str(pdf_folder), "--collection", "papers", "--json"])
    assert again.exit_code == 0, again.output
    assert [r["outcome"] for r in json_lines(again.stdout)] == ["skipped"] * 3

    listed = runner.invoke(app, ["documents", "--collection", "papers", "--json"])
    assert listed.exit_code == 0, listed.output
    assert sorted(str(d["filename"]) for d in json_lines(listed.stdout)) == [
        "alpha.pdf",
        "beta.pdf",
    ]


def test_ingest_reports_a_bad_file_and_exits_nonzero(cli_database: str, tmp_path: Path) -> None:
    bad = tmp_path / "broken.pdf"
    bad.write_bytes(b"%PDF-1.7\nthis is not really a PDF")
    result = runner.invoke(app, ["ingest", str(bad), "--json"])
    assert result.exit_code == 1
    [report] = json_lines(result.stdout)
    assert report["outcome"] == "failed"
    assert report["error"] == "corrupt_pdf"


def test_ingest_refuses_a_missing_path_or_a_folder_without_pdfs(tmp_path: Path) -> None:
    missing = runner.invoke(app, ["ingest", str(tmp_path / "nowhere.pdf")])
    assert missing.exit_code == 2
    assert "does not exist" in missing.output

    empty = runner.invoke(app, ["ingest", str(tmp_path)])
    assert empty.exit_code == 1
    assert "No PDF files" in empty.output


def test_ingest_and_list_through_a_running_service(live_service: str, pdf_folder: Path) -> None:
    args = ["--url", live_service]
    first = runner.invoke(app, ["ingest", str(pdf_folder), "--collection", "web", "--json", *args])
    assert first.exit_code == 0, first.output
    outcomes = sorted(str(r["outcome"]) for r in json_lines(first.stdout))
    assert outcomes == ["created", "created", "skipped"]
    again = runner.invoke(app, ["ingest", str(pdf_folder), "--collection", "web", "--json", *args])
    assert [r["outcome"] for r in json_lines(again.stdout)] == ["skipped"] * 3
    listed = runner.invoke(app, ["documents", "--collection", "web", *args])
    assert listed.exit_code == 0, listed.output
    assert "alpha.pdf" in listed.stdout
    assert "beta.pdf" in listed.stdout


def test_a_long_pdf_is_ingested_by_page_batches_with_its_job(
    cli_database: str, pdf_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BACKGROUND_PAGE_THRESHOLD", "2")
    monkeypatch.setenv("INGEST_BATCH_PAGES", "1")
    get_settings.cache_clear()
    result = runner.invoke(app, ["ingest", str(pdf_folder / "alpha.pdf"), "--json"])
    assert result.exit_code == 0, result.output
    [report] = json_lines(result.stdout)
    assert report["outcome"] == "created"
    assert report["pages"] == 3
    engine = sa.create_engine(cli_database)
    with engine.connect() as connection:
        job = connection.execute(sa.text("SELECT status, pages_done FROM ingest_jobs")).one()
    engine.dispose()
    assert tuple(job) == ("ready", 3)


def test_skipped_files_name_the_stored_document_through_a_service(
    live_service: str, pdf_folder: Path
) -> None:
    args = ["--collection", "again", "--json", "--url", live_service]
    first = json_lines(runner.invoke(app, ["ingest", str(pdf_folder), *args]).stdout)
    again = json_lines(runner.invoke(app, ["ingest", str(pdf_folder), *args]).stdout)
    ids = {Path(str(r["path"])).name: r["document_id"] for r in first}
    assert ids["alpha-copy.pdf"] == ids["alpha.pdf"] is not None
    assert {Path(str(r["path"])).name: r["document_id"] for r in again} == ids


def test_ingest_takes_password_title_language_and_version(
    cli_database: str, tmp_path: Path
) -> None:
    locked = tmp_path / "locked.pdf"
    with pymupdf.open(stream=make_text_pdf("Locked", 2)) as document:
        document.save(locked, encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="opensesame")
    refused = runner.invoke(app, ["ingest", str(locked), "--json"])
    assert [r["error"] for r in json_lines(refused.stdout)] == ["encrypted_pdf"]
    options = ["--password", "opensesame", "--title", "Kept", "--language", "de"]
    result = runner.invoke(app, ["ingest", str(locked), *options, "--version", "2.1", "--json"])
    assert result.exit_code == 0, result.output
    [listed] = json_lines(runner.invoke(app, ["documents", "--json"]).stdout)
    assert (listed["title"], listed["filename"]) == ("Kept", "locked.pdf")
    assert (listed["language"], listed["version"]) == ("de", "2.1")


def test_documents_shows_whole_ids_on_a_narrow_terminal(
    cli_database: str, pdf_folder: Path
) -> None:
    runner.invoke(app, ["ingest", str(pdf_folder / "alpha.pdf")])
    [document] = json_lines(runner.invoke(app, ["documents", "--json"]).stdout)
    table = runner.invoke(app, ["documents"], env={"COLUMNS": "60"})
    assert table.exit_code == 0, table.output
    assert max(len(line) for line in table.stdout.splitlines()) <= 60
    assert str(document["id"]) in table.stdout


@pytest.mark.parametrize(
    "command", [["migrate"], ["documents"], ["annotations", "verify", str(uuid.UUID(int=1))]]
)
def test_commands_print_no_platformdirs_warning(
    cli_database: str, command: list[str], tmp_path: Path
) -> None:
    environment = {k: v for k, v in os.environ.items() if k != "XDG_RUNTIME_DIR"}
    environment["PYTHONPATH"] = str(Path(__file__).resolve().parents[2])
    launched = subprocess.run(
        [sys.executable, "-c", "from app.cli import main; main()", *command],
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert "Warning" not in launched.stderr, launched.stderr
