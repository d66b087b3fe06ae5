"""API keys and what each may do, parsed from the `API_KEYS` setting ("key1:rw,key2:ro")."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache


class Access(StrEnum):
    read = "ro"
    """Read documents, chunks, pages and annotations, and query."""
    write = "rw"
    """Everything `read` may, and ingest, annotate and delete."""


@dataclass(frozen=True, repr=False)
class ApiKey:
    secret: bytes
    access: Access

    def __repr__(self) -> str:
        return f"ApiKey(access={self.access.value}, secret=***)"


@lru_cache(maxsize=8)
def parse_api_keys(spec: str) -> tuple[ApiKey, ...]:
    """Returns the keys of an `API_KEYS` value; raises ValueError naming the bad entry's
    position, never its text, since it is a secret."""
    keys: list[ApiKey] = []
    for position, entry in enumerate(spec.split(","), start=1):
        if not entry.strip():
            continue
        secret, separator, access = entry.strip().rpartition(":")
        if not separator or not secret or access not in {a.value for a in Access}:
            raise ValueError(f"API_KEYS entry {position} must be KEY:rw or KEY:ro")
        keys.append(ApiKey(secret=secret.encode(), access=Access(access)))
    return tuple(keys)
