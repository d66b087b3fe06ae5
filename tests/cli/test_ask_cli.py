"""`citelock ask`: the query flow's answer with its markers, sources and confidence, from the
database and through a live service."""

from __future__ import annotations

import json
import re
from pathlib import Path

from typer.testing import CliRunner

from app.cli import app

runner = CliRunner()
QUESTION = "What does citation locking tie every claim to?"


def ingest(folder: Path, *args: str) -> None:
    result = runner.invoke(app, ["ingest", str(folder), "--collection", "papers", *args])
    assert result.exit_code == 0, result.output


def test_ask_prints_the_answer_its_sources_and_confidence(
    cli_database: str, pdf_folder: Path
) -> None:
    ingest(pdf_folder)
    result = runner.invoke(app, ["ask", QUESTION, "--where", '{"collection": "papers"}'])
    assert result.exit_code == 0, result.output
    answer, sources, confidence = result.stdout.strip().split("\n\n")
    assert "Citation locking ties every claim to the page it came from" in answer
    numbers = {int(n) for n in re.findall(r"\[(\d+)\]", answer)}
    listed = sources.splitlines()
    assert numbers == set(range(1, len(listed) + 1))
    assert all(re.fullmatch(r"\[\d+\] (alpha|beta)\.pdf, p\. \d", line) for line in listed)
    assert re.fullmatch(r"confidence: \d\.\d\d", confidence)


def test_ask_json_is_the_whole_response(cli_database: str, pdf_folder: Path) -> None:
    ingest(pdf_folder)
    result = runner.invoke(app, ["ask", QUESTION, "--json"])
    assert result.exit_code == 0, result.output
    body = json.loads(result.stdout)
    assert body["status"] == "ok" and body["answer"]
    assert len(body["citations"]) == len(body["sources"]) and body["chunks"]


def test_ask_without_an_answer_says_so(cli_database: str, pdf_folder: Path) -> None:
    ingest(pdf_folder)
    result = runner.invoke(app, ["ask", "What is the recipe for a chocolate cake?"])
    assert result.exit_code == 1
    assert re.search(r"^no answer \(status: no_(answer|matches)\)$", result.stderr, re.M)


def test_ask_through_a_running_service(live_service: str, pdf_folder: Path) -> None:
    ingest(pdf_folder, "--url", live_service)
    result = runner.invoke(app, ["ask", QUESTION, "--url", live_service, "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["citations"][0]["n"] == 1
