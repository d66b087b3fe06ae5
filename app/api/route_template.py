"""The route a request matched, as its template (`/api/v1/documents/{document_id}`)."""

from __future__ import annotations

from starlette.types import Scope

UNMATCHED = "unmatched"
"""The template of a request no route took: one label for every unknown path, so scanners
cannot grow the metrics without bound."""


def route_template(scope: Scope) -> str:
    """Returns the full template of the matched route, or UNMATCHED.

    The routing scope holds the matched route, whose path is relative to the router that
    declares it (FastAPI includes routers lazily); the prefixes are taken from the
    request's own path, segment for segment, since a template segment matches one segment.
    """
    route = scope.get("route")
    relative = getattr(route, "path_format", None)
    if not isinstance(relative, str):
        return UNMATCHED
    segments = scope["path"].split("/")[1:]
    relative_segments = relative.split("/")[1:] if relative else []
    prefix = segments[: max(len(segments) - len(relative_segments), 0)]
    return "/" + "/".join(prefix + relative_segments)
