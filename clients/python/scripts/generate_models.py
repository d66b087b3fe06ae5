"""Writes citelock_client/_models.py from the service's OpenAPI document.

Run with the service's dependencies installed (`pip install -e .` at the repository root):

    python clients/python/scripts/generate_models.py

It reads the service of its own checkout. The service's schemas are the one source of truth
for the client's models; tests/client/test_models.py renders them again in memory and fails
when the committed file differs. Only the shapes of JSON bodies under /api/v1 are rendered
(multipart forms are built by the client's methods from their arguments). Validation limits
(lengths, ranges) are left out on purpose: the service judges every request, so a bad value
comes back as the service's own problem code, not as a second, client-side kind of error.
"""

from __future__ import annotations

import json
import keyword
import re
import sys
import textwrap
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel

CLIENT_ROOT = Path(__file__).resolve().parents[1]
MODELS_PATH = CLIENT_ROOT / "citelock_client" / "_models.py"
REPOSITORY_ROOT = CLIENT_ROOT.parents[1]

RENAMES = {"ResponseOut": "StoredResponse"}
"""Service schema names whose client name is not simply the name less its `Out` suffix
(`DocumentOut` is `Document`): a stored response is not an HTTP response."""

HEADER = '''"""The service's request and response shapes, generated from its OpenAPI document.

Do not edit: after the service's schemas change, run
`python clients/python/scripts/generate_models.py` (tests/client/test_models.py fails until
then). Responses keep fields and accept values this version does not know, so a newer service
does not break an older client.
"""

from __future__ import annotations
'''

JsonSchema = Mapping[str, Any]


def client_name(schema_name: str) -> str:
    return RENAMES.get(schema_name, schema_name.removesuffix("Out"))


def ref_name(schema: JsonSchema) -> str | None:
    ref = schema.get("$ref")
    return client_name(ref.rsplit("/", 1)[-1]) if isinstance(ref, str) else None


def referenced(schema: Any) -> Iterator[str]:
    """Yields the service names of the schemas `schema` refers to, at any depth."""
    if isinstance(schema, dict):
        ref = schema.get("$ref")
        if isinstance(ref, str):
            yield ref.rsplit("/", 1)[-1]
        for value in schema.values():
            yield from referenced(value)
    elif isinstance(schema, list):
        for value in schema:
            yield from referenced(value)


def json_bodies(openapi: JsonSchema, *, requests: bool) -> set[str]:
    """Returns the schema names of the JSON request bodies (or 2xx response bodies) of the
    /api/v1 operations."""
    roots: set[str] = set()
    for path, operations in openapi["paths"].items():
        if not path.startswith("/api/v1/"):
            continue
        for operation in operations.values():
            if requests:
                bodies = [operation.get("requestBody", {})]
            else:
                responses = operation.get("responses", {})
                bodies = [body for status, body in responses.items() if status.startswith("2")]
            for body in bodies:
                roots.update(referenced(body.get("content", {}).get("application/json", {})))
    return roots


def closure(roots: set[str], schemas: JsonSchema) -> set[str]:
    """Returns `roots` and every schema they refer to, directly or not."""
    found: set[str] = set()
    pending = sorted(roots)
    while pending:
        name = pending.pop()
        if name not in found:
            found.add(name)
            pending.extend(referenced(schemas[name]))
    return found


def python_type(schema: JsonSchema, *, strict_enums: bool) -> str:
    """Returns the annotation of a value of `schema`. Enumerations are `Literal`s in requests
    and plain `str` in responses, where a newer service may add a value."""
    if name := ref_name(schema):
        return name
    if "anyOf" in schema:
        options = [python_type(option, strict_enums=strict_enums) for option in schema["anyOf"]]
        return " | ".join(dict.fromkeys(options))
    if "enum" in schema or "const" in schema:
        if not strict_enums:
            return "str"
        values = schema.get("enum", [schema.get("const")])
        return f"Literal[{', '.join(python_literal(value) for value in values)}]"
    kind = schema.get("type")
    if kind == "string":
        return {"uuid": "uuid.UUID", "date-time": "datetime"}.get(schema.get("format", ""), "str")
    if kind == "array" and "prefixItems" in schema:
        items = [python_type(item, strict_enums=strict_enums) for item in schema["prefixItems"]]
        return f"tuple[{', '.join(items)}]"
    if kind == "array":
        return f"list[{python_type(schema['items'], strict_enums=strict_enums)}]"
    if kind == "object":
        values = python_type(schema.get("additionalProperties", {}), strict_enums=strict_enums)
        return f"dict[str, {values}]"
    scalars = {"integer": "int", "number": "float", "boolean": "bool", "null": "None"}
    if kind in scalars:
        return scalars[kind]
    if not schema:
        return "Any"
    raise ValueError(f"no Python type for the schema {dict(schema)}")


def python_literal(value: Any) -> str:
    """Returns `value`, a JSON value, as Python source in ruff's format (double quotes)."""
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return f"[{', '.join(python_literal(item) for item in value)}]"
    if isinstance(value, dict):
        pairs = (f"{python_literal(k)}: {python_literal(v)}" for k, v in value.items())
        return "{" + ", ".join(pairs) + "}"
    return repr(value)


def docstring(text: str, indent: str) -> list[str]:
    lines = text.strip().splitlines()
    lines[0] = f'"""{lines[0]}'
    lines[-1] += '"""'
    return [f"{indent}{line}" if line else "" for line in lines]


def render_field(name: str, schema: JsonSchema, *, required: bool, request: bool) -> list[str]:
    if keyword.iskeyword(name) or hasattr(BaseModel, name):
        raise ValueError(f"the field name {name!r} cannot be a pydantic model attribute")
    annotation = python_type(schema, strict_enums=request)
    line = f"    {name}: {annotation}"
    if "default" in schema:
        line += f" = {python_literal(schema['default'])}"
    elif not required:
        line += " = None" if "None" in annotation.split(" | ") else " | None = None"
    lines = [line]
    notes = [schema["description"]] if "description" in schema else []
    enum = schema.get("enum") or next(
        (option["enum"] for option in schema.get("anyOf", []) if "enum" in option), None
    )
    if enum and not request:
        known = ", ".join(python_literal(value) for value in enum)
        notes.append(f"Known values: {known}; a newer service may send others.")
    if notes:
        lines += docstring("\n".join(textwrap.wrap(" ".join(notes), width=90)), "    ")
    return lines


def render_model(service_name: str, schema: JsonSchema, *, request: bool) -> list[str]:
    base = "RequestModel" if request else "ResponseModel"
    lines = [f"class {client_name(service_name)}({base}):"]
    if "description" in schema:
        lines += [*docstring(schema["description"], "    "), ""]
    required = set(schema.get("required", []))
    properties = schema.get("properties", {})
    for name, field in properties.items():
        lines += render_field(name, field, required=name in required, request=request)
    if not properties:
        lines.append("    pass")
    return lines


def dependency_order(names: set[str], schemas: JsonSchema) -> list[str]:
    """Returns `names` with every schema after those it refers to, otherwise alphabetical."""
    ordered: list[str] = []
    seen: set[str] = set()

    def visit(name: str) -> None:
        if name in seen:
            return
        seen.add(name)
        for dependency in sorted(set(referenced(schemas[name]))):
            visit(dependency)
        ordered.append(name)

    for name in sorted(names):
        visit(name)
    return ordered


def imports_for(annotations: str) -> list[str]:
    """Returns the import lines the annotations need, in isort's order."""
    typing = [name for name in ("Any", "Literal") if re.search(rf"\b{name}\b", annotations)]
    return [
        *(["import uuid"] if "uuid.UUID" in annotations else []),
        *(["from datetime import datetime"] if "datetime" in annotations else []),
        *([f"from typing import {', '.join(typing)}"] if typing else []),
    ]


def render_models(openapi: JsonSchema) -> str:
    """Returns the source of citelock_client/_models.py for this OpenAPI document."""
    schemas = openapi["components"]["schemas"]
    requests = closure(json_bodies(openapi, requests=True), schemas)
    responses = closure(json_bodies(openapi, requests=False), schemas)
    classes = [
        render_model(name, schemas[name], request=name in requests and name not in responses)
        for name in dependency_order(requests | responses, schemas)
    ]
    body = "\n\n\n".join("\n".join(lines) for lines in classes)
    annotations = "\n".join(re.findall(r"^    \w+: ([^=\n]+)", body, flags=re.MULTILINE))
    exported = sorted(client_name(name) for name in requests | responses)
    return "\n".join(
        [
            HEADER,
            *imports_for(annotations),
            "",
            "from citelock_client._base import RequestModel, ResponseModel",
            "",
            "__all__ = [",
            *(f'    "{name}",' for name in exported),
            "]",
            "",
            "",
            body,
            "",
        ]
    )


def service_openapi() -> dict[str, Any]:
    """Returns the OpenAPI document of this checkout's service (no database needed)."""
    # This checkout's app, not whichever one is installed: the models must match the service
    # they are committed beside.
    sys.path.insert(0, str(REPOSITORY_ROOT))
    from app.core.config import Settings
    from app.main import create_app

    openapi: dict[str, Any] = create_app(Settings(_env_file=None)).openapi()
    return openapi


def main() -> None:
    MODELS_PATH.write_text(render_models(service_openapi()))
    print(f"wrote {MODELS_PATH}")


if __name__ == "__main__":
    main()
