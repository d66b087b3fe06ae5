"""Settings for the service, the CLI and the tests, read from the environment and `.env`."""

from __future__ import annotations

import os
from enum import StrEnum
from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from app.core.access import ApiKey, parse_api_keys
from app.core.chunks import STRUCTURE_FLAGS


class EmbeddingBackend(StrEnum):
    onnx = "onnx"
    sentence_transformers = "sentence-transformers"
    e5 = "e5"
    http = "http"
    openai = "openai"


class Synthesis(StrEnum):
    extractive = "extractive"
    llm = "llm"


class Settings(BaseSettings):
    # hide_input_in_errors: a refused API_KEYS must not print the keys it was given.
    # An empty value is no value (.env.example's `IN_PROCESS_WORKER=`): the default holds.
    model_config = SettingsConfigDict(
        env_file=".env", extra="ignore", hide_input_in_errors=True, env_ignore_empty=True
    )

    database_url: str = Field(
        default="",
        description="PostgreSQL URL; empty starts the embedded server in CITELOCK_DATA_DIR/pg.",
    )
    citelock_data_dir: Path = Path.home() / ".citelock"
    db_pool_size: int = Field(default=5, ge=1, le=100)
    migrate_on_start: bool = True

    embedding_backend: EmbeddingBackend = EmbeddingBackend.onnx
    embedding_model: str = "all-MiniLM-L6-v2"
    embedding_dim: int = Field(default=384, ge=8, le=4096)
    embedding_url: str = ""
    embedding_api_key: str = ""
    embedding_batch_size: int | None = Field(default=None, ge=1, le=256)
    """Texts per call of the model; unset, the backend's own (embedding.BATCH_SIZES)."""
    embedding_max_tokens: int = Field(default=256, ge=16, le=8192)
    embedding_threads: int = Field(default=0, ge=0, le=256)

    chunk_max_tokens: int = Field(default=200, ge=16)
    chunk_overlap_tokens: int = Field(default=32, ge=0)

    # Chosen by measurement (docs/benchmarks.md, "Page hit@k beside the peer"): hybrid's
    # keyword side (BM25 over the query's telling words) finds gold pages the vectors miss.
    search_mode: Literal["hybrid", "vector"] = "hybrid"
    search_overfetch: int = Field(default=4, ge=1, le=50)
    min_similarity: float = Field(default=0.4, ge=-1.0, le=1.0)
    min_similarity_named: float = Field(default=0.3, ge=-1.0, le=1.0)
    min_similarity_fill: float = Field(default=0.3, ge=-1.0, le=1.0)
    min_term_coverage: float = Field(default=0.05, ge=0.0, le=1.0)
    """The weighed share of a query's terms its best chunks must hold, else no_matches; 0 off."""
    context_token_budget: int = Field(default=4000, ge=100)
    filter_references: bool = True
    filter_furniture: bool = True
    filter_ocr_noise: bool = True
    filter_structure: bool = True
    """Leave out tables of contents, back-of-book indexes and lists of figures."""
    use_annotations: bool = True
    annotation_alpha: float = Field(default=0.02, ge=0.0, le=1.0)
    annotation_cap: int = Field(default=5, ge=0, le=100)

    max_upload_bytes: int = Field(default=100 * 1024 * 1024, ge=1024)
    background_page_threshold: int = Field(
        default=50, ge=0, description="Uploads with more pages are ingested by a worker (202)."
    )
    ingest_batch_pages: int = Field(default=32, ge=1, le=1000)
    ingest_max_attempts: int = Field(default=3, ge=1, le=20)
    in_process_worker: bool | None = Field(
        default=None,
        description="Run one worker inside `serve`; unset: only with the embedded database.",
    )
    worker_heartbeat_seconds: float = Field(default=10.0, gt=0)
    worker_stalled_seconds: float = Field(default=30.0, gt=0)
    worker_poll_seconds: float = Field(default=2.0, gt=0)
    worker_database_wait_seconds: float = Field(
        default=30.0,
        gt=0,
        description="How long a worker waits for a database connection before it starts again.",
    )
    max_pages: int = Field(default=2000, ge=1)
    ocr: Literal["auto", "off", "force"] = Field(
        default="auto",
        description="Read pages by OCR: auto (pages without a usable text layer), off, force.",
    )
    ocr_dpi: int = Field(default=200, ge=72, le=600)
    ocr_threads: int = Field(default=0, ge=0, le=256, description="0: onnxruntime's default.")
    ingest_concurrency: int = Field(
        default=0, ge=0, description="Uploads ingested at once per process; 0: one per core."
    )
    ingest_timeout_seconds: float = Field(default=600.0, gt=0)
    enable_highlights: bool = True
    response_ttl_seconds: int = Field(default=7 * 24 * 3600, ge=1)

    synthesis: Synthesis = Synthesis.extractive
    llm_base_url: str = ""
    llm_model: str = ""
    llm_api_key: SecretStr = SecretStr("")
    llm_timeout: float = Field(default=30.0, gt=0, le=600)
    log_level: str = "INFO"
    log_format: Literal["auto", "json", "text"] = "auto"
    """`auto`: readable text lines when stderr is a terminal, JSON lines otherwise."""

    api_keys: SecretStr = Field(
        default=SecretStr(""),
        description='"key1:rw,key2:ro"; empty leaves /api/v1 open. Secret: never in a repr.',
    )
    cors_origins: str = Field(
        default="", description="Comma-separated origins allowed to call the API from a browser."
    )
    link_secret: SecretStr = Field(
        default=SecretStr(""),
        description="HMAC secret of signed links; empty: derived from API_KEYS.",
    )
    link_ttl_seconds: int = Field(default=24 * 3600, ge=1, le=366 * 24 * 3600)
    max_json_bytes: int = Field(default=256 * 1024, ge=1024)
    request_body_timeout_seconds: float = Field(default=300.0, gt=0)

    @field_validator("database_url")
    @classmethod
    def use_psycopg_driver(cls, url: str) -> str:
        for bare in ("postgres://", "postgresql://"):
            if url.startswith(bare):
                return "postgresql+psycopg://" + url[len(bare) :]
        if url and not url.startswith("postgresql+psycopg://"):
            raise ValueError("DATABASE_URL must be a postgresql:// URL (psycopg 3 is the driver)")
        return url

    @field_validator("citelock_data_dir")
    @classmethod
    def expand_home(cls, path: Path) -> Path:
        return path.expanduser()

    @field_validator("api_keys")
    @classmethod
    def check_api_keys(cls, keys: SecretStr) -> SecretStr:
        parse_api_keys(keys.get_secret_value())
        return keys

    @model_validator(mode="after")
    def check_consistency(self) -> Settings:
        if self.chunk_overlap_tokens >= self.chunk_max_tokens:
            raise ValueError("CHUNK_OVERLAP_TOKENS must be smaller than CHUNK_MAX_TOKENS")
        # The window also holds the model's [CLS] and [SEP] tokens.
        if self.chunk_max_tokens > self.embedding_max_tokens - 2:
            raise ValueError(
                "CHUNK_MAX_TOKENS must fit the model window (EMBEDDING_MAX_TOKENS less 2): "
                "longer chunks would be truncated before embedding"
            )
        if self.worker_stalled_seconds <= self.worker_heartbeat_seconds:
            raise ValueError(
                "WORKER_STALLED_SECONDS must exceed WORKER_HEARTBEAT_SECONDS: a live worker "
                "would be taken for dead between two heartbeats"
            )
        remote = (EmbeddingBackend.http, EmbeddingBackend.openai)
        if self.embedding_backend in remote and not self.embedding_url:
            raise ValueError(f"EMBEDDING_BACKEND={self.embedding_backend} needs EMBEDDING_URL")
        if self.synthesis == Synthesis.llm:
            if not (self.llm_base_url and self.llm_model):
                raise ValueError("SYNTHESIS=llm needs LLM_BASE_URL and LLM_MODEL")
            if not self.llm_base_url.startswith(("http://", "https://")):
                raise ValueError("LLM_BASE_URL must start with http:// or https://")
        return self

    @property
    def spool_root(self) -> Path:
        return self.citelock_data_dir / "uploads"

    @property
    def uploads_dir(self) -> Path:
        """Where this process spools uploads and parks character boxes, inside the data folder
        (nothing the service writes goes anywhere else), in a folder named after the process:
        a process killed mid-upload leaves its folder, swept at the next start."""
        return self.spool_root / str(os.getpid())

    @property
    def runs_in_process_worker(self) -> bool:
        return (
            self.in_process_worker if self.in_process_worker is not None else not self.database_url
        )

    @property
    def parsed_api_keys(self) -> tuple[ApiKey, ...]:
        return parse_api_keys(self.api_keys.get_secret_value())

    @property
    def cors_origin_list(self) -> list[str]:
        return [origin.strip() for origin in self.cors_origins.split(",") if origin.strip()]

    @property
    def excluded_flags(self) -> tuple[str, ...]:
        """Returns the chunk flags that keep a chunk out of answers, as switched in settings."""
        switches = {
            "references": self.filter_references,
            "furniture": self.filter_furniture,
            "ocr_noise": self.filter_ocr_noise,
            **dict.fromkeys(STRUCTURE_FLAGS, self.filter_structure),
        }
        return tuple(flag for flag, excluded in switches.items() if excluded)


@lru_cache
def get_settings() -> Settings:
    return Settings()
