"""Background ingestion's queue: a long upload queued, run by workers, its progress reported."""

from app.jobs.queue import InProcessWorker, defer_ingestion, run_worker

__all__ = ["InProcessWorker", "defer_ingestion", "run_worker"]
