"""The `citelock` command: a thin shell over the functions the routes call."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from app.config import get_settings

app = typer.Typer(help="citelock: citation-locked answers from your PDFs.", no_args_is_help=True)
console = Console(stderr=True)


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="Interface to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8000,
) -> None:
    """Start the HTTP service (migrates the database and loads the model first)."""
    import uvicorn

    uvicorn.run("app.main:create_app", factory=True, host=host, port=port)


@app.command()
def migrate() -> None:
    """Apply the database migrations (what `serve` does on start)."""
    from app.db.engine import make_engine
    from app.db.migrate import database_url_for_cli, upgrade_database

    engine = make_engine(database_url_for_cli())
    upgrade_database(engine)
    engine.dispose()
    console.print("database is at the newest revision")


@app.command()
def ingest(
    paths: Annotated[
        list[Path], typer.Argument(help="PDF files or folders (searched recursively).")
    ],
    collection: Annotated[str, typer.Option(help="Collection to ingest into.")] = "default",
    as_json: Annotated[bool, typer.Option("--json", help="One JSON line per file.")] = False,
) -> None:
    """Ingest PDFs into the database; files already stored in the collection are skipped."""
    from app.errors import CitelockError
    from app.ingest.pipeline import DocumentMeta
    from app.ingest.service import ingest_file
    from app.runtime import open_runtime

    files = sorted(
        {f for p in paths for f in ([p] if p.is_file() else p.rglob("*.pdf")) if f.is_file()}
    )
    runtime = open_runtime(get_settings())
    failures = 0
    try:
        for path in files:
            meta = DocumentMeta(filename=path.name, collection=collection)
            try:
                result = ingest_file(path, meta, runtime=runtime)
            except CitelockError as error:
                failures += 1
                report = {"path": str(path), "error": error.code, "detail": error.detail}
            else:
                document = result.document
                report = {
                    "path": str(path),
                    "id": str(document.id),
                    "pages": document.page_count,
                    "chunks": document.chunk_count,
                    "created": result.created,
                }
            if as_json:
                print(json.dumps(report))
            else:
                console.print(report)
    finally:
        runtime.close()
    raise typer.Exit(code=1 if failures else 0)


def main() -> None:
    app()
