"""The conch package imports in one direction: no module imports, at load
time or later from inside a function, a module that imports it back, and
only the tritonserver._c emulation (conch._triton_c) knows that emulation.

Reads the sources with ``ast``; imports under ``if TYPE_CHECKING:`` never
run and are left out."""

from __future__ import annotations

import ast
import pathlib

import pytest

SOURCES = pathlib.Path(__file__).resolve().parents[1]
PACKAGE = "conch"
EMULATION = "conch._triton_c"


def _modules() -> dict[str, pathlib.Path]:
    found = {}
    for path in sorted((SOURCES / PACKAGE).rglob("*.py")):
        parts = list(path.relative_to(SOURCES).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


MODULES = _modules()


def _is_type_checking(test: ast.expr) -> bool:
    name = test.id if isinstance(test, ast.Name) else getattr(test, "attr", None)
    return name == "TYPE_CHECKING"


def _statements(tree: ast.AST):
    """Every import statement that may run, wherever it is."""
    pending = [tree]
    while pending:
        node = pending.pop()
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            pending.extend(node.orelse)
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        pending.extend(ast.iter_child_nodes(node))


def _owner(name: str) -> str | None:
    """The longest prefix of `name` that is a module of the package."""
    parts = name.split(".")
    while parts:
        if ".".join(parts) in MODULES:
            return ".".join(parts)
        parts.pop()
    return None


def _imports(module: str, path: pathlib.Path) -> set[str]:
    is_package = path.name == "__init__.py"
    targets = set()
    for node in _statements(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            base = node.module or ""
            if node.level:
                anchor = module.split(".")
                anchor = anchor[:len(anchor) - node.level + (1 if is_package else 0)]
                base = ".".join(anchor + ([base] if base else []))
            # `from pkg import name` loads pkg.name when that is a module.
            names = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base
                     for a in node.names]
        for name in names:
            owner = _owner(name)
            # A module's packages are loaded before it, whatever it imports:
            # a name read from one of them (`from . import _conch`) is no edge.
            if owner is not None and not (module + ".").startswith(owner + "."):
                targets.add(owner)
    return targets


GRAPH = {module: _imports(module, path) for module, path in MODULES.items()}


def _cycle() -> list[str] | None:
    state: dict[str, int] = {}  # 1: on the path, 2: done
    path: list[str] = []

    def visit(module: str) -> list[str] | None:
        state[module] = 1
        path.append(module)
        for target in sorted(GRAPH[module]):
            if state.get(target) == 1:
                return path[path.index(target):] + [target]
            if target not in state:
                found = visit(target)
                if found:
                    return found
        path.pop()
        state[module] = 2
        return None

    for module in sorted(GRAPH):
        if module not in state:
            found = visit(module)
            if found:
                return found
    return None


def test_the_graph_reads_the_package() -> None:
    assert "conch._options" in GRAPH and "conch._server" in GRAPH
    assert "conch._options" in GRAPH["conch._server"]
    assert "conch._options" in GRAPH[f"{EMULATION}._options"]


def test_no_module_imports_one_that_imports_it_back() -> None:
    cycle = _cycle()
    assert cycle is None, " -> ".join(cycle)


@pytest.mark.parametrize("module", sorted(m for m in GRAPH if not m.startswith(EMULATION)))
def test_only_the_emulation_knows_itself(module: str) -> None:
    assert not any(t.startswith(EMULATION) for t in GRAPH[module]), module
