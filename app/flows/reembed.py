"""`citelock reembed`: every chunk's vector made by the configured model, a batch at a time.

Each batch is committed on its own, so an interrupted run leaves whole batches done and the
next run goes on with the chunks still left. Chunks keep their boundaries (counted in the
tokens of the model that ingested them); only their vectors change.
"""

from __future__ import annotations

from collections.abc import Callable

from app.db.chunks import chunks_of_other_models, count_other_models, store_vectors
from app.embedding import embed_texts
from app.flows.ingest_stages import EMBED_GROUP, embedded_header, embedding_text
from app.flows.runtime import Runtime


def count_chunks_to_reembed(runtime: Runtime) -> int:
    """Returns how many chunks a model other than the runtime's embedded."""
    with runtime.sessions() as session:
        return sum(count_other_models(session, runtime.embedder.name).values())


def reembed_chunks(
    runtime: Runtime,
    *,
    batch_size: int = EMBED_GROUP,
    on_batch: Callable[[int], None] = lambda done: None,
) -> int:
    """Returns how many chunks were re-embedded with the runtime's model: all of those another
    model embedded, in chunk id order, `batch_size` per transaction; `on_batch` is told each
    committed batch's size.

    The same text is embedded as at ingestion: the context header (none for furniture), then
    the content. A pass
    starts again from the first id until one finds nothing left, so that chunks stored
    meanwhile by a service still running the old model are re-embedded too.
    """
    model = runtime.embedder.name
    done = 0
    after = None
    while True:
        with runtime.sessions.begin() as session:
            rows = chunks_of_other_models(session, model, after=after, limit=batch_size)
            if rows:
                texts = [
                    embedding_text(embedded_header(header, flags), content)
                    for _, header, content, flags in rows
                ]
                ids = [chunk_id for chunk_id, *_ in rows]
                store_vectors(session, ids, embed_texts(runtime.embedder, texts), model=model)
        if rows:
            done += len(rows)
            after = rows[-1][0]
            on_batch(len(rows))
        elif after is None:
            return done
        else:
            after = None
