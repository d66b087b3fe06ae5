"""Stored responses: a query's evidence kept for the viewer until it expires."""

from __future__ import annotations

import uuid
from datetime import timedelta
from typing import Any

from sqlalchemy import delete, func, insert, literal, select
from sqlalchemy.orm import Session

from app.db.models import StoredResponse
from app.errors import ResponseNotFound


def store_response(*, session: Session, evidence: dict[str, Any], ttl_seconds: int) -> uuid.UUID:
    """Returns the id under which `evidence` is stored for `ttl_seconds`, in one statement.

    Expired rows are purged here, as new ones arrive, so no scheduler is needed: the
    index on `expires_at` keeps that a lookup when there is nothing to purge. The
    transaction's commit does not wait for the WAL to reach the disk: a response is
    derived data, and losing the last few to a crash costs a viewer link, while waiting
    for the flush would cost every query its latency.
    """
    response_id = uuid.uuid4()
    relaxed = select(func.set_config("synchronous_commit", "off", True)).cte("relaxed")
    purged = delete(StoredResponse).where(StoredResponse.expires_at <= func.now()).cte("purged")
    row = select(
        literal(response_id, StoredResponse.response_id.type),
        func.now() + timedelta(seconds=ttl_seconds),
        literal(evidence, StoredResponse.evidence.type),
    ).select_from(relaxed)
    session.execute(
        insert(StoredResponse)
        .from_select(["response_id", "expires_at", "evidence"], row)
        .add_cte(purged)
    )
    return response_id


def get_response(*, session: Session, response_id: uuid.UUID) -> StoredResponse:
    """Returns the stored response, or raises ResponseNotFound when absent or expired."""
    found = session.scalar(
        select(StoredResponse).where(
            StoredResponse.response_id == response_id, StoredResponse.expires_at > func.now()
        )
    )
    if found is None:
        raise ResponseNotFound(f"no response with id {response_id}, or it has expired")
    return found
