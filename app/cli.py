"""The `citelock` command: a thin shell over the functions the routes call."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

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

    from app.logs import configure_logging

    settings = get_settings()
    configure_logging(level=settings.log_level, log_format=settings.log_format)
    # Our middleware writes the one line per request; uvicorn's own config would add another.
    uvicorn.run(
        "app.main:create_app",
        factory=True,
        host=host,
        port=port,
        log_config=None,
        access_log=False,
    )


@app.command()
def worker(
    metrics_port: Annotated[
        int | None, typer.Option(help="Serve this worker's Prometheus metrics on this port.")
    ] = None,
) -> None:
    """Run a background ingestion worker until SIGINT or SIGTERM; run as many as you like."""
    from app.jobs.worker_process import run_worker_process

    run_worker_process(get_settings(), metrics_port=metrics_port)


@app.command()
def migrate() -> None:
    """Apply the database migrations (what `serve` does on start)."""
    from app.db.engine import make_engine
    from app.db.migrate import database_url_for_cli, upgrade_database

    engine = make_engine(database_url_for_cli())
    upgrade_database(engine)
    engine.dispose()
    console.print("database is at the newest revision")


ServiceUrl = Annotated[
    str | None,
    typer.Option(
        "--url",
        envvar="CITELOCK_URL",
        help="A running service to talk to over HTTP, instead of the database.",
    ),
]
ApiKey = Annotated[
    str | None,
    typer.Option(envvar="CITELOCK_API_KEY", help="API key for --url, when the service has them."),
]


@app.command()
def ingest(
    paths: Annotated[
        list[Path], typer.Argument(help="PDF files or folders (searched recursively).")
    ],
    collection: Annotated[str, typer.Option(help="Collection to ingest into.")] = "default",
    url: ServiceUrl = None,
    api_key: ApiKey = None,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON line per file.")] = False,
) -> None:
    """Ingest PDFs with a progress bar per file; files already in the collection are skipped."""
    from app.bulk_ingest import DatabaseTarget, ServiceTarget, ingest_files, pdf_files
    from app.runtime import open_runtime
    from app.service_client import ServiceClient

    files = pdf_files(paths)
    if url:
        client = ServiceClient(url, api_key=api_key)
        try:
            summary = ingest_files(
                files, collection=collection, target=ServiceTarget(client), console=console
            )
        finally:
            client.close()
    else:
        runtime = open_runtime(get_settings())
        try:
            summary = ingest_files(
                files, collection=collection, target=DatabaseTarget(runtime), console=console
            )
        finally:
            runtime.close()
    for report in summary.reports:
        if as_json:
            print(json.dumps(report.as_dict()))
        elif report.outcome == "failed":
            console.print(f"[red]{report.path}[/red]: {report.error}: {report.detail}")
    console.print(summary.line())
    raise typer.Exit(code=1 if summary.count("failed") else 0)


@app.command()
def documents(
    collection: Annotated[str | None, typer.Option(help="Only this collection.")] = None,
    url: ServiceUrl = None,
    api_key: ApiKey = None,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON line per document.")] = False,
) -> None:
    """List the stored documents, oldest first."""
    from app.api.schemas import DocumentOut
    from app.db.documents import iter_documents
    from app.runtime import open_runtime
    from app.service_client import ServiceClient

    rows: list[dict[str, Any]]
    if url:
        client = ServiceClient(url, api_key=api_key)
        try:
            rows = list(client.documents(collection))
        finally:
            client.close()
    else:
        runtime = open_runtime(get_settings())
        try:
            with runtime.sessions() as session:
                rows = [
                    DocumentOut.of(d).model_dump(mode="json")
                    for d in iter_documents(session=session, collection=collection)
                ]
        finally:
            runtime.close()
    if as_json:
        for row in rows:
            print(json.dumps(row, ensure_ascii=False))
        return
    table = Table("id", "collection", "filename", "pages", "chunks", "created", title="documents")
    for row in rows:
        table.add_row(
            row["id"],
            row["collection"],
            row["filename"],
            str(row["page_count"]),
            str(row["chunk_count"]),
            row["created_at"][:19],
        )
    Console().print(table)


@app.command()
def query(
    text: Annotated[str, typer.Argument(help="The question.")],
    k: Annotated[int, typer.Option("--k", min=1, max=20, help="Chunks to return.")] = 5,
    overfetch: Annotated[int | None, typer.Option(min=1, max=50)] = None,
    where: Annotated[
        str, typer.Option(help='Filters as JSON, e.g. \'{"collection": "rhetoric"}\'.')
    ] = "{}",
    search: Annotated[str | None, typer.Option(help="hybrid or vector.")] = None,
    include_docs: Annotated[bool, typer.Option(help="Print each chunk's text too.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object.")] = False,
) -> None:
    """Retrieve the chunks that best answer TEXT, as the query endpoint does."""
    from pydantic import ValidationError

    from app.api.query_service import retrieval_params
    from app.api.schemas import QueryRequest
    from app.retrieval.pipeline import retrieve_context
    from app.runtime import open_runtime

    settings = get_settings()
    try:
        request = QueryRequest.model_validate(
            {"query": text, "top_k": k, "filters": json.loads(where), "search": search}
        )
    except (ValueError, ValidationError) as error:
        console.print(f"[red]invalid query:[/red] {error}")
        raise typer.Exit(code=2) from error
    params = retrieval_params(request, settings)
    if overfetch is not None:
        params = dataclasses.replace(params, overfetch=overfetch)
    runtime = open_runtime(settings)
    try:
        with runtime.sessions() as session:
            bundle = retrieve_context(
                request.query, params, session=session, embedder=runtime.embedder
            )
    finally:
        runtime.close()
    results: list[dict[str, Any]] = [
        {
            "chunk_id": str(chunk.chunk_id),
            "distance": round(chunk.distance, 6),
            "document": chunk.document_filename,
            "pages": [chunk.page_start, chunk.page_end],
            **({"content": chunk.content} if include_docs else {}),
        }
        for chunk in bundle.chunks
    ]
    if as_json:
        print(json.dumps({"status": bundle.status, "results": results}, ensure_ascii=False))
        return
    table = Table("chunk_id", "distance", "document", "pages", title=f"status: {bundle.status}")
    for result in results:
        first, last = result["pages"]
        pages = str(first) if first == last else f"{first}-{last}"
        table.add_row(result["chunk_id"], f"{result['distance']:.4f}", result["document"], pages)
        if include_docs:
            table.add_row("", "", result["content"], "")
    Console().print(table)


def main() -> None:
    app()
