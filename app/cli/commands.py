"""The `citelock` command: a thin shell over the functions the routes call."""

from __future__ import annotations

import dataclasses
import json
import socket
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from app.core.config import get_settings

if TYPE_CHECKING:
    import uvicorn

    from app.contract.schemas import QueryRequest
    from app.core.chunks import Candidate

app = typer.Typer(help="citelock: citation-locked answers from your PDFs.", no_args_is_help=True)
console = Console(stderr=True)
UNBOUNDED_WIDTH = 10_000
"""Columns a table is measured in, to learn the width it takes unwrapped."""


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="Interface to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8000,
) -> None:
    """Start the HTTP service (migrates the database and loads the model first)."""
    import uvicorn

    from app.core.logs import configure_logging, log_listening

    settings = get_settings()
    configure_logging(level=settings.log_level, log_format=settings.log_format)
    # Our middleware writes the one line per request; uvicorn's own config would add another.
    config = uvicorn.Config(
        "app.main:create_app",
        factory=True,
        host=host,
        port=port,
        log_config=None,
        access_log=False,
    )
    # The port is taken before anything starts: a port in use is refused in an instant, with
    # no embedded PostgreSQL started, no model loaded and no worker to wind down.
    try:
        listener = bind_listener(config)
    except OSError as error:
        console.print(f"[red]cannot listen on {host}:{port}[/red]: {error.strerror or error}")
        raise typer.Exit(code=1) from None

    class ListeningServer(uvicorn.Server):
        """Says where it listens once it does: uvicorn says so only for a socket it bound
        itself."""

        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            await super().startup(sockets=sockets)
            if self.started:
                log_listening(f"http://{host}:{port}")

    ListeningServer(config).run(sockets=[listener])


def bind_listener(config: uvicorn.Config) -> socket.socket:
    """Returns a listening socket on the config's host and port, IPv4 or IPv6 as the host is."""
    family = socket.AF_INET6 if ":" in config.host else socket.AF_INET
    return socket.create_server((config.host, config.port), family=family, backlog=config.backlog)


@app.command()
def worker(
    metrics_port: Annotated[
        int | None, typer.Option(help="Serve this worker's Prometheus metrics on this port.")
    ] = None,
) -> None:
    """Run a background ingestion worker until SIGINT or SIGTERM; run as many as you like."""
    from app.flows.worker import run_worker_process

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


@app.command()
def reembed(
    batch_size: Annotated[
        int, typer.Option(min=1, max=4096, help="Chunks embedded and committed together.")
    ] = 512,
) -> None:
    """Re-embed every chunk that another model embedded with the configured one
    (EMBEDDING_BACKEND), a batch per transaction: run it again after an interruption and it
    goes on with the chunks left."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    from app.flows.reembed import count_chunks_to_reembed, reembed_chunks
    from app.flows.runtime import open_runtime

    runtime = open_runtime(get_settings(), other_models=True)
    try:
        model = runtime.embedder.name
        left = count_chunks_to_reembed(runtime)
        columns = (
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeRemainingColumn(),
        )
        with Progress(*columns, console=console) as progress:
            task = progress.add_task(f"re-embedding with {model}", total=left)
            done = reembed_chunks(
                runtime, batch_size=batch_size, on_batch=lambda n: progress.advance(task, n)
            )
    finally:
        runtime.close()
    console.print(f"{done} chunks re-embedded: every chunk is now embedded by {model}")


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
        list[Path],
        typer.Argument(exists=True, help="PDF files or folders (searched recursively)."),
    ],
    collection: Annotated[str, typer.Option(help="Collection to ingest into.")] = "default",
    title: Annotated[
        str | None, typer.Option(help="Title of every file (else its own or its name).")
    ] = None,
    language: Annotated[str, typer.Option(help="Language of the documents.")] = "en",
    version: Annotated[str, typer.Option(help="Version of the documents.")] = "1.0",
    password: Annotated[
        str | None,
        typer.Option(
            envvar="CITELOCK_PDF_PASSWORD",
            help="Password of encrypted PDFs (used to open them, never stored).",
        ),
    ] = None,
    url: ServiceUrl = None,
    api_key: ApiKey = None,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON line per file.")] = False,
) -> None:
    """Ingest PDFs with a progress bar per file; files already in the collection are skipped
    (and name the stored document)."""
    from app.cli.bulk import DatabaseTarget, ServiceTarget, ingest_files, pdf_files
    from app.cli.service_client import ServiceClient
    from app.flows.ingest import DocumentMeta
    from app.flows.runtime import open_runtime

    files = pdf_files(paths)
    if not files:
        console.print("[red]No PDF files[/red] in the given folders.")
        raise typer.Exit(code=1)
    meta = DocumentMeta(
        filename="",
        collection=collection,
        title=title,
        language=language,
        version=version,
        password=password,
    )
    if url:
        client = ServiceClient(url, api_key=api_key)
        try:
            summary = ingest_files(files, meta=meta, target=ServiceTarget(client), console=console)
        finally:
            client.close()
    else:
        runtime = open_runtime(get_settings())
        try:
            summary = ingest_files(
                files, meta=meta, target=DatabaseTarget(runtime), console=console
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
    from app.cli.backends import open_backend

    backend = open_backend(url, api_key=api_key)
    try:
        rows = [document.model_dump(mode="json") for document in backend.documents(collection)]
    finally:
        backend.close()
    if as_json:
        for row in rows:
            print(json.dumps(row, ensure_ascii=False))
        return
    print_documents(rows, Console())


def print_documents(rows: list[dict[str, Any]], out: Console) -> None:
    """Prints the documents as a table, or, on a terminal too narrow for it, as two lines
    each: an id is for copying, so it is never cut."""
    created = [row["created_at"][:16].replace("T", " ") for row in rows]
    table = Table("id", "collection", "filename", "pages", "chunks", "created", title="documents")
    for row, when in zip(rows, created, strict=True):
        # Text, not markup: a file name such as "notes [draft].pdf" is shown as it is.
        table.add_row(
            row["id"],
            Text(row["collection"]),
            Text(row["filename"]),
            str(row["page_count"]),
            str(row["chunk_count"]),
            when,
        )
    unbounded = out.options.update(max_width=UNBOUNDED_WIDTH)
    if Measurement.get(out, unbounded, table).maximum <= out.width:
        out.print(table)
        return
    for row, when in zip(rows, created, strict=True):
        out.print(Text.assemble((row["id"], "bold"), "  ", row["filename"]))
        counts = f"{row['page_count']} pages, {row['chunk_count']} chunks"
        out.print(Text(f"    {row['collection']}, {counts}, {when}", style="dim"))


@app.command()
def query(
    text: Annotated[str, typer.Argument(help="The question.")],
    k: Annotated[int, typer.Option("--k", min=1, max=20, help="Chunks to return.")] = 5,
    overfetch: Annotated[int | None, typer.Option(min=1, max=50)] = None,
    where: Annotated[
        str, typer.Option(help='Filters as JSON, e.g. \'{"collection": "rhetoric"}\'.')
    ] = "{}",
    search: Annotated[str | None, typer.Option(help="hybrid or vector.")] = None,
    use_annotations: UseAnnotationsOption = None,
    include_docs: Annotated[bool, typer.Option(help="Print each chunk's text too.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object.")] = False,
) -> None:
    """Retrieve the chunks that best answer TEXT, as the query endpoint does."""
    from app.flows.query import chunk_hit, retrieval_params
    from app.flows.runtime import open_runtime
    from app.retrieval.pipeline import retrieve_context

    settings = get_settings()
    request = query_request(text, k=k, where=where, search=search, use_annotations=use_annotations)
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
            **hit.model_dump(include={"hl_count", "boost", "final_score"}),
            **({"content": chunk.content} if include_docs else {}),
        }
        for chunk in bundle.chunks
        for hit in [chunk_hit(chunk, params)]
    ]
    if as_json:
        print(json.dumps({"status": bundle.status, "results": results}, ensure_ascii=False))
        return
    table = Table(
        "chunk_id", "distance", "hl", "document", "pages", title=f"status: {bundle.status}"
    )
    for result in results:
        first, last = result["pages"]
        pages = str(first) if first == last else f"{first}-{last}"
        table.add_row(
            result["chunk_id"],
            f"{result['distance']:.4f}",
            str(result["hl_count"]),
            result["document"],
            pages,
        )
        if include_docs:
            table.add_row("", "", "", result["content"], "")
    Console().print(table)


@app.command()
def ask(
    text: Annotated[str, typer.Argument(help="The question.")],
    k: Annotated[int, typer.Option("--k", min=1, max=20, help="Chunks to answer from.")] = 5,
    where: Annotated[
        str, typer.Option(help='Filters as JSON, e.g. \'{"collection": "rhetoric"}\'.')
    ] = "{}",
    search: Annotated[str | None, typer.Option(help="hybrid or vector.")] = None,
    url: ServiceUrl = None,
    api_key: ApiKey = None,
    as_json: Annotated[bool, typer.Option("--json", help="The whole response as JSON.")] = False,
) -> None:
    """Answer TEXT as POST /api/v1/query does: the answer with its [n] markers, the sources
    they point at, and the confidence."""
    from app.cli.backends import open_backend

    request = query_request(text, k=k, where=where, search=search)
    backend = open_backend(url, api_key=api_key)
    try:
        body = backend.query(request).model_dump(mode="json")
    finally:
        backend.close()
    if as_json:
        print(json.dumps(body, ensure_ascii=False))
        return
    if not body["answer"]:
        console.print(f"no answer (status: {body['status']})")
        raise typer.Exit(code=1)
    print(body["answer"])
    print()
    for number, source in enumerate(body["sources"], 1):
        print(f"[{number}] {source}")
    print(f"\nconfidence: {body['confidence']:.2f}")


@app.command()
def mcp(
    http: Annotated[
        bool,
        typer.Option("--http", help="Serve streamable HTTP at http://HOST:PORT/mcp, not stdio."),
    ] = False,
    host: Annotated[str, typer.Option(help="Interface to listen on, with --http.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on, with --http.")] = 8001,
    url: ServiceUrl = None,
    api_key: ApiKey = None,
    public_url: Annotated[
        str | None,
        typer.Option(
            envvar="CITELOCK_PUBLIC_URL",
            help="The service's address in the links the tools return (viewer_url); "
            "default: --url.",
        ),
    ] = None,
) -> None:
    """Serve citelock's tools (ask, search, get_evidence, list_documents) over the Model
    Context Protocol: on stdin/stdout for the host that starts it, or over HTTP with --http."""
    import uvicorn

    from app.cli.backends import open_backend
    from app.cli.mcp_server import build_server
    from app.core.logs import configure_logging

    settings = get_settings()
    # Before the SDK's server is made: its own logging setup then leaves ours in place, and
    # every line goes to stderr, stdout being the protocol's on stdio.
    configure_logging(level=settings.log_level, log_format=settings.log_format)
    backend = open_backend(url, api_key=api_key, public_url=public_url)
    server = build_server(backend)
    try:
        if http:
            console.print(f"citelock MCP server at http://{host}:{port}/mcp")
            http_app = server.streamable_http_app(host=host)
            uvicorn.run(http_app, host=host, port=port, log_config=None, access_log=False)
        else:
            server.run("stdio")
    finally:
        backend.close()


UseAnnotationsOption = Annotated[
    bool | None,
    typer.Option(
        "--use-annotations/--no-use-annotations",
        help="Rerank by the reader's annotations (default: USE_ANNOTATIONS).",
    ),
]


def query_request(
    text: str, *, k: int, where: str, search: str | None, use_annotations: bool | None = None
) -> QueryRequest:
    """Returns the request the query endpoint would get, or exits with 2 when it is invalid."""
    from pydantic import ValidationError

    from app.contract.schemas import QueryRequest

    try:
        return QueryRequest.model_validate(
            {
                "query": text,
                "top_k": k,
                "filters": json.loads(where),
                "search": search,
                "use_annotations": use_annotations,
            }
        )
    except (ValueError, ValidationError) as error:
        console.print(f"[red]invalid query:[/red] {error}")
        raise typer.Exit(code=2) from error


annotations_app = typer.Typer(
    help="The reader's annotations: read them from PDFs, compare rankings, verify stored ones.",
    no_args_is_help=True,
)
app.add_typer(annotations_app, name="annotations")


@annotations_app.command("extract")
def annotations_extract(
    files: Annotated[list[Path], typer.Argument(help="PDF files.")],
    as_jsonl: Annotated[
        bool, typer.Option("--jsonl", help="One JSON line per annotation.")
    ] = False,
) -> None:
    """Print the reader's annotations in PDF files: path, page, type, text, comment."""
    from app.core.errors import CitelockError
    from app.flows.annotations import read_marks

    table = Table("path", "page", "type", "text", "comment")
    failures = 0
    for path in files:
        try:
            marks = read_marks(path)
        except CitelockError as error:
            failures += 1
            console.print(f"[red]{path}:[/red] {error.code}: {error.detail}")
            continue
        for mark in marks:
            row = {
                "path": str(path),
                "page": mark.page,
                "type": mark.type,
                "text": mark.text,
                "comment": mark.comment,
            }
            if as_jsonl:
                print(json.dumps(row, ensure_ascii=False))
            else:
                table.add_row(*(str(value) for value in row.values()))
    if not as_jsonl:
        Console().print(table)
    raise typer.Exit(code=1 if failures else 0)


@annotations_app.command("diff")
def annotations_diff(
    text: Annotated[str, typer.Argument(help="The question.")],
    k: Annotated[int, typer.Option("--k", min=1, max=20, help="Chunks to return.")] = 5,
    where: Annotated[str, typer.Option(help="Filters as JSON.")] = "{}",
    search: Annotated[str | None, typer.Option(help="hybrid or vector.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object.")] = False,
) -> None:
    """Print the ranking for TEXT without and with the reader's annotations, side by side."""
    from app.flows.query import retrieval_params
    from app.flows.runtime import open_runtime
    from app.retrieval.pipeline import retrieve_context
    from app.retrieval.rerank import AnnotationSignal

    settings = get_settings()
    params = retrieval_params(query_request(text, k=k, where=where, search=search), settings)
    signal = AnnotationSignal(alpha=settings.annotation_alpha, cap=settings.annotation_cap)
    runtime = open_runtime(settings)
    try:
        with runtime.sessions.begin() as session:
            plain, marked = (
                retrieve_context(
                    text,
                    dataclasses.replace(params, annotations=annotations),
                    session=session,
                    embedder=runtime.embedder,
                )
                for annotations in (None, signal)
            )
    finally:
        runtime.close()
    before = [chunk.chunk_id for chunk in plain.chunks]
    rows: list[dict[str, Any]] = [
        {
            "rank": rank,
            "without": ranked_chunk(old),
            "with": {
                **ranked_chunk(new),
                "hl_count": new.hl_count,
                "was_rank": before.index(new.chunk_id) + 1,
            },
        }
        for rank, (old, new) in enumerate(zip(plain.chunks, marked.chunks, strict=True), 1)
    ]
    if as_json:
        print(json.dumps({"status": marked.status, "rows": rows}, ensure_ascii=False))
        return
    table = Table("#", "without annotations", "distance", "with annotations", "hl", "was #")
    for row in rows:
        old_row, new_row = row["without"], row["with"]
        table.add_row(
            str(row["rank"]),
            f"{old_row['chunk_id'][:8]} {old_row['document']} p.{old_row['page']}",
            f"{old_row['distance']:.4f}",
            f"{new_row['chunk_id'][:8]} {new_row['document']} p.{new_row['page']}",
            str(new_row["hl_count"]),
            str(new_row["was_rank"]),
        )
    Console().print(table)


def ranked_chunk(chunk: Candidate) -> dict[str, Any]:
    return {
        "chunk_id": str(chunk.chunk_id),
        "distance": round(chunk.distance, 6),
        "document": chunk.document_filename,
        "page": chunk.page_start,
    }


@annotations_app.command("verify")
def annotations_verify(
    document_id: Annotated[str, typer.Argument(help="The document's id.")],
) -> None:
    """Check a stored document's annotations: pages in the document, chunk links exact."""
    import uuid

    from app.db.annotations import verify_annotations
    from app.flows.runtime import open_runtime

    try:
        parsed = uuid.UUID(document_id)
    except ValueError as error:
        console.print(f"[red]not a document id:[/red] {document_id}")
        raise typer.Exit(code=2) from error
    runtime = open_runtime(get_settings())
    try:
        with runtime.sessions() as session:
            problems = verify_annotations(session=session, document_id=parsed)
    finally:
        runtime.close()
    for problem in problems:
        console.print(f"[red]{problem}[/red]")
    if problems:
        raise typer.Exit(code=1)
    console.print(f"annotations of {parsed}: ok")


def main() -> None:
    app()
