"""The house's plan, checked: layers import only downward and no module imports in a circle.

The layers are the import-linter contract in pyproject.toml (ARCHITECTURE.md says what each
holds); the cycle check covers what a layers contract cannot see, modules of one package.
"""

from __future__ import annotations

from pathlib import Path

import grimp
from importlinter.application.use_cases import lint_imports
from importlinter.configuration import configure

ROOT = Path(__file__).resolve().parents[2]


def test_the_layer_contract_is_kept() -> None:
    configure()
    # The broken imports, if any, are printed with the contract's report.
    assert lint_imports(config_filename=str(ROOT / "pyproject.toml"), cache_dir=None, no_logo=True)


def test_no_module_of_app_imports_itself_back() -> None:
    graph = grimp.build_graph("app")
    cycles = [sorted(component) for component in strongly_connected(graph) if len(component) > 1]
    assert cycles == []


def strongly_connected(graph: grimp.ImportGraph) -> list[set[str]]:
    """Returns the strongly connected components of the module graph (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    components: list[set[str]] = []
    for root in sorted(graph.modules):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append(
                        (child, iter(sorted(graph.find_modules_directly_imported_by(child))))
                    )
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                components.append(component)
    return components
