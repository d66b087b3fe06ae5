"""Settings for the service, the CLI and the tests, read from the environment and `.env`."""

from __future__ import annotations

from enum import StrEnum
from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


class EmbeddingBackend(StrEnum):
    onnx = "onnx"
    sentence_transformers = "sentence-transformers"
    http = "http"
    openai = "openai"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_file=".env", extra="ignore")

    database_url: str = Field(
        default="",
        description="PostgreSQL URL; empty starts the embedded server in CITELOCK_DATA_DIR/pg.",
    )
    citelock_data_dir: Path = Path.home() / ".citelock"
    db_pool_size: int = Field(default=5, ge=1, le=100)

    embedding_backend: EmbeddingBackend = EmbeddingBackend.onnx
    embedding_model: str = "all-MiniLM-L6-v2"
    embedding_dim: int = Field(default=384, ge=8, le=4096)
    embedding_url: str = ""
    embedding_api_key: str = ""
    embedding_batch_size: int = Field(default=16, ge=1, le=256)
    embedding_max_tokens: int = Field(default=256, ge=16, le=8192)
    embedding_threads: int = Field(default=0, ge=0, le=256)

    chunk_max_tokens: int = Field(default=200, ge=16)
    chunk_overlap_tokens: int = Field(default=32, ge=0)

    # Chosen by measurement (docs/benchmarks.md, "Search mode on docugami SEC 10-Q"): hybrid
    # found no question that vector missed, and costs more per query.
    search_mode: Literal["hybrid", "vector"] = "vector"
    search_overfetch: int = Field(default=4, ge=1, le=50)
    min_similarity: float = Field(default=0.3, ge=-1.0, le=1.0)
    context_token_budget: int = Field(default=4000, ge=100)
    filter_references: bool = True
    filter_furniture: bool = True
    filter_ocr_noise: bool = True
    use_annotations: bool = True
    annotation_alpha: float = Field(default=0.02, ge=0.0, le=1.0)
    annotation_cap: int = Field(default=5, ge=0, le=100)

    max_upload_bytes: int = Field(default=100 * 1024 * 1024, ge=1024)
    max_pages: int = Field(default=2000, ge=1)
    ingest_timeout_seconds: float = Field(default=600.0, gt=0)
    enable_highlights: bool = True
    log_level: str = "INFO"

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
        remote = (EmbeddingBackend.http, EmbeddingBackend.openai)
        if self.embedding_backend in remote and not self.embedding_url:
            raise ValueError(f"EMBEDDING_BACKEND={self.embedding_backend} needs EMBEDDING_URL")
        return self

    @property
    def excluded_flags(self) -> tuple[str, ...]:
        """Returns the chunk flags that keep a chunk out of answers, as switched in settings."""
        switches = {
            "references": self.filter_references,
            "furniture": self.filter_furniture,
            "ocr_noise": self.filter_ocr_noise,
        }
        return tuple(flag for flag, excluded in switches.items() if excluded)


@lru_cache
def get_settings() -> Settings:
    return Settings()
