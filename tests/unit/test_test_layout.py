"""The tests' own layout: what several test modules share lives in tests/helpers/, never in a
test module or conftest that others import, and conftests hold only fixtures and hooks."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
HELPERS = TESTS / "helpers"
MODULES = sorted(TESTS.rglob("*.py"))


def imported_modules(tree: ast.Module) -> list[tuple[int, str]]:
    """Returns (line, dotted name) of every module `tree` imports, `from a import b` giving
    both `a` and `a.b` (b may be a module), relative imports as written (leading dots)."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = "." * node.level + (node.module or "")
            found.append((node.lineno, base))
            found += [(node.lineno, f"{base}.{alias.name}") for alias in node.names]
    return found


def test_the_layout_test_reads_the_tests() -> None:
    assert len(MODULES) > 50
    assert (HELPERS / "__init__.py") in MODULES


@pytest.mark.parametrize("path", MODULES, ids=lambda path: str(path.relative_to(TESTS)))
def test_tests_import_shared_code_only_from_helpers(path: Path) -> None:
    tree = ast.parse(path.read_text(), filename=str(path))
    wrong = [
        f"line {line}: {name}"
        for line, name in imported_modules(tree)
        if name.startswith(".")
        or (
            (name == "tests" or name.startswith("tests."))
            and name not in ("tests", "tests.helpers")
            and not name.startswith("tests.helpers.")
        )
    ]
    assert not wrong, f"{path.name} imports from test modules or conftests: {wrong}"


@pytest.mark.parametrize(
    "path",
    [path for path in MODULES if path.name == "conftest.py"],
    ids=lambda path: str(path.relative_to(TESTS)),
)
def test_conftests_hold_only_fixtures_and_hooks(path: Path) -> None:
    tree = ast.parse(path.read_text(), filename=str(path))
    others = [
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.ClassDef)
        and not node.name.startswith("pytest_")
        and not any("fixture" in ast.unparse(d) for d in node.decorator_list)
    ]
    assert not others, f"{path} defines helpers, which belong in tests/helpers/: {others}"
