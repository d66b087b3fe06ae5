"""citelock's errors, each with the HTTP status and the stable `code` of its problem+json.

CitelockError
 +-- InvalidUpload (4xx: the upload itself is refused)
 |    +-- EmptyFile            422 empty_file
 |    +-- FileTooLarge         413 file_too_large
 |    +-- NotAPdf              415 not_a_pdf
 |    +-- EncryptedPdf         422 encrypted_pdf
 |    +-- CorruptPdf           422 corrupt_pdf
 |    +-- NoPages              422 no_pages
 |    +-- NoTextLayer          422 no_text_layer
 |    +-- NotSameDocument      422 not_same_document
 |    +-- TooManyPages         413 too_many_pages
 |    +-- IngestTimeout        422 ingest_timeout
 +-- NotFound                 404 not_found
 |    +-- DocumentNotFound     404 document_not_found
 |    +-- PageNotFound         404 page_not_found
 |    +-- ResponseNotFound     404 response_not_found
 |    +-- JobNotFound          404 job_not_found
 +-- InvalidRequest           422 invalid_request
 |    +-- InvalidQuery         422 invalid_query
 |    +-- InvalidSelection     422 invalid_selection
 |    +-- TextNotFound         422 text_not_found
 +-- Unauthorized             401 unauthorized
 +-- Forbidden                403 forbidden
 +-- EmbeddingUnavailable     503 embedding_unavailable
 +-- DatabaseUnavailable      503 database_unavailable
 +-- WorkerUnavailable        503 worker_unavailable
 +-- RequestTooLarge          413 request_too_large
 +-- RequestTimeout           408 request_timeout
 +-- ConfigurationError       500 configuration_error

No FastAPI here: ingestion and retrieval raise these directly, and
`app.api.problems` turns them into responses in one place.
"""

from __future__ import annotations

from typing import ClassVar


class CitelockError(Exception):
    status: int = 500
    code: str = "internal_error"
    title: str = "Internal error"
    headers: ClassVar[dict[str, str]] = {}
    """Response headers the problem needs (the auth scheme to use, for a 401)."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


class InvalidUpload(CitelockError):
    status = 422
    code = "invalid_upload"
    title = "Invalid upload"

    def name_file(self, filename: str) -> None:
        """Opens the detail with the uploader's file name, the one name of it they know."""
        self.detail = f"{filename}: {self.detail}"
        self.args = (self.detail,)


class EmptyFile(InvalidUpload):
    code = "empty_file"
    title = "Empty file"


class FileTooLarge(InvalidUpload):
    status = 413
    code = "file_too_large"
    title = "File too large"


class NotAPdf(InvalidUpload):
    status = 415
    code = "not_a_pdf"
    title = "Not a PDF"


class EncryptedPdf(InvalidUpload):
    code = "encrypted_pdf"
    title = "Encrypted PDF"


class CorruptPdf(InvalidUpload):
    code = "corrupt_pdf"
    title = "Corrupt PDF"


class NoPages(InvalidUpload):
    code = "no_pages"
    title = "PDF has no pages"


class NoTextLayer(InvalidUpload):
    code = "no_text_layer"
    title = "PDF has no text layer"


class NotSameDocument(InvalidUpload):
    """An annotated copy whose pages do not read like the stored document's."""

    code = "not_same_document"
    title = "Not the same document"


class TooManyPages(InvalidUpload):
    """More pages than MAX_PAGES: refused before any page is read."""

    status = 413
    code = "too_many_pages"
    title = "Too many pages"


class IngestTimeout(InvalidUpload):
    """The PDF took longer than INGEST_TIMEOUT_SECONDS to read, chunk and embed."""

    code = "ingest_timeout"
    title = "PDF took too long to process"


class NotFound(CitelockError):
    status = 404
    code = "not_found"
    title = "Not found"


class DocumentNotFound(NotFound):
    code = "document_not_found"
    title = "Document not found"


class PageNotFound(NotFound):
    code = "page_not_found"
    title = "Page not found"


class ResponseNotFound(NotFound):
    code = "response_not_found"
    title = "Response not found"


class JobNotFound(NotFound):
    code = "job_not_found"
    title = "Job not found"


class InvalidRequest(CitelockError):
    status = 422
    code = "invalid_request"
    title = "Invalid request"


class InvalidQuery(InvalidRequest):
    code = "invalid_query"
    title = "Invalid query"


class InvalidSelection(InvalidRequest):
    code = "invalid_selection"
    title = "Invalid selection"


class TextNotFound(InvalidRequest):
    code = "text_not_found"
    title = "Text not found on the page"


class Unauthorized(CitelockError):
    status = 401
    code = "unauthorized"
    title = "Unauthorized"
    headers: ClassVar[dict[str, str]] = {"WWW-Authenticate": "Bearer"}


class Forbidden(CitelockError):
    status = 403
    code = "forbidden"
    title = "Forbidden"


class EmbeddingUnavailable(CitelockError):
    status = 503
    code = "embedding_unavailable"
    title = "Embedding model unavailable"


class DatabaseUnavailable(CitelockError):
    status = 503
    code = "database_unavailable"
    title = "Database unavailable"
    headers: ClassVar[dict[str, str]] = {"Retry-After": "5"}
    """An outage is usually a restart or a failover: worth trying again in a few seconds."""


class WorkerUnavailable(CitelockError):
    """The service's own background worker has stopped: queued uploads would wait for ever."""

    status = 503
    code = "worker_unavailable"
    title = "Background worker stopped"


class RequestTooLarge(CitelockError):
    """A JSON body over its limit (an upload over its own is FileTooLarge)."""

    status = 413
    code = "request_too_large"
    title = "Request too large"


class RequestTimeout(CitelockError):
    """A body that did not arrive within REQUEST_BODY_TIMEOUT_SECONDS."""

    status = 408
    code = "request_timeout"
    title = "Request body too slow"


class ConfigurationError(CitelockError):
    status = 500
    code = "configuration_error"
    title = "Configuration error"
