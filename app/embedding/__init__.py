"""The embedding model behind one interface: texts in, unit vectors out."""

from app.embedding.embedder import (
    Embedder,
    embed_query,
    embed_texts,
    load_embedder,
    load_token_counter,
)

__all__ = ["Embedder", "embed_query", "embed_texts", "load_embedder", "load_token_counter"]
