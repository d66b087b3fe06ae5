"""filter_clauses compiled for PostgreSQL, no database: what each filter says, and that every
value the caller gave travels as a bound parameter."""

from __future__ import annotations

import uuid

import pytest
from sqlalchemy import ColumnElement, and_
from sqlalchemy.dialects import postgresql
from sqlalchemy.sql.compiler import SQLCompiler

from app.retrieval.filters import SearchFilters, filter_clauses

# The driver citelock runs on; SQLAlchemy's dialect classes carry no annotations.
DIALECT = postgresql.psycopg.dialect()  # type: ignore[no-untyped-call]

HOSTILE = [
    "'; DROP TABLE chunks; --",
    "100%",
    "a_b",
    "a\\'b\\\\",
    '{"$ne": null}',
    "Chapter 1' OR '1'='1",
]


def compile_clauses(clauses: list[ColumnElement[bool]]) -> SQLCompiler:
    compiled = and_(*clauses).compile(dialect=DIALECT)
    assert isinstance(compiled, SQLCompiler)
    return compiled


def sql_of(filters: SearchFilters) -> str:
    return str(compile_clauses(filter_clauses(filters)))


def test_no_filters_keeps_only_ready_documents() -> None:
    clauses = filter_clauses(SearchFilters())
    compiled = compile_clauses(clauses)
    assert len(clauses) == 1
    assert "documents.status = " in str(compiled)
    assert list(compiled.params.values()) == ["ready"]


def test_document_metadata_is_matched_through_ready_documents() -> None:
    filters = SearchFilters(collection="papers", language="de", version="2.0", is_my_copy=True)
    clauses = filter_clauses(filters)
    sql = str(compile_clauses(clauses))
    assert len(clauses) == 1
    assert "chunks.document_id IN (SELECT documents.id" in sql
    for column in ("status", "collection", "language", "version", "is_my_copy"):
        assert f"documents.{column} = " in sql
    assert {"ready", "papers", "de", "2.0"} <= set(compile_clauses(clauses).params.values())


def test_chapter_and_section_compare_lowercased_values() -> None:
    sql = sql_of(SearchFilters(chapter="Chapter 2", section="Intro"))
    assert "lower(chunks.chapter) = lower(" in sql
    assert "lower(chunks.section) = lower(" in sql
    assert "LIKE" not in sql.upper()


@pytest.mark.parametrize(
    ("page_start", "page_end", "expected", "absent"),
    [
        (3, 9, ["chunks.page_end >= ", "chunks.page_start <= "], []),
        (3, None, ["chunks.page_end >= "], ["chunks.page_start <= "]),
        (None, 9, ["chunks.page_start <= "], ["chunks.page_end >= "]),
    ],
)
def test_page_range_matches_overlapping_chunks(
    page_start: int | None, page_end: int | None, expected: list[str], absent: list[str]
) -> None:
    sql = sql_of(SearchFilters(page_start=page_start, page_end=page_end))
    assert all(fragment in sql for fragment in expected)
    assert not any(fragment in sql for fragment in absent)


def test_document_ids_and_excluded_flags() -> None:
    ids = (uuid.uuid4(), uuid.uuid4())
    compiled = compile_clauses(
        filter_clauses(SearchFilters(document_ids=ids, exclude_flags=("references", "furniture")))
    )
    sql = str(compiled)
    assert "chunks.document_id IN (__[POSTCOMPILE_" in sql
    assert "NOT (chunks.flags && %(" in sql
    values = list(compiled.params.values())
    assert list(ids) in values
    assert ["references", "furniture"] in values


@pytest.mark.parametrize("value", HOSTILE)
@pytest.mark.parametrize("field", ["collection", "chapter", "section", "language", "version"])
def test_filter_values_are_bound_never_inlined(field: str, value: str) -> None:
    filters = SearchFilters(**{field: value})  # type: ignore[arg-type]
    compiled = compile_clauses(filter_clauses(filters))
    assert value not in str(compiled)
    assert value in compiled.params.values()


@pytest.mark.parametrize("value", HOSTILE)
def test_excluded_flags_are_bound_never_inlined(value: str) -> None:
    compiled = compile_clauses(filter_clauses(SearchFilters(exclude_flags=(value,))))
    assert value not in str(compiled)
    assert [value] in compiled.params.values()


@pytest.mark.parametrize(
    ("filters", "narrows"),
    [
        (SearchFilters(), False),
        (SearchFilters(exclude_flags=("references",)), False),
        (SearchFilters(collection="papers"), True),
        (SearchFilters(document_ids=(uuid.uuid4(),)), True),
        (SearchFilters(page_start=1), True),
        (SearchFilters(is_my_copy=False), True),
    ],
)
def test_narrows_ignores_excluded_flags(filters: SearchFilters, narrows: bool) -> None:
    assert filters.narrows is narrows
