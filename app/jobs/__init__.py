"""Background ingestion: queue a long upload, run it in workers, report its progress."""
