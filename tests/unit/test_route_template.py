from __future__ import annotations

from types import SimpleNamespace

import pytest

from app.api.route_template import UNMATCHED, route_template


@pytest.mark.parametrize(
    ("path", "relative", "template"),
    [
        ("/api/v1/query", "/query", "/api/v1/query"),
        ("/api/v1/documents", "/documents", "/api/v1/documents"),
        ("/api/v1/documents", "", "/api/v1/documents"),
        ("/api/v1/documents/ab-12", "/documents/{id}", "/api/v1/documents/{id}"),
        (
            "/api/v1/documents/ab/pages/3.png",
            "/documents/{document_id}/pages/{page_number}.png",
            "/api/v1/documents/{document_id}/pages/{page_number}.png",
        ),
        ("/healthz", "/healthz", "/healthz"),
    ],
)
def test_route_template_keeps_the_prefixes_and_the_parameters(
    path: str, relative: str, template: str
) -> None:
    scope = {"path": path, "route": SimpleNamespace(path_format=relative)}
    assert route_template(scope) == template


def test_a_request_no_route_took_is_unmatched() -> None:
    assert route_template({"path": "/wp-admin/x"}) == UNMATCHED
