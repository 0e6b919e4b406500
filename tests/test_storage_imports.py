"""Issue 28: the arrows between our packages run one way. ``storage`` and ``stats``
import nothing of ours but ``engine`` (the bot hands storage a series end that brings
its own rating step), neither imports the other, and there is no import cycle among
their modules, TYPE_CHECKING-only imports and imports inside functions included."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = next(p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").exists())
OURS = ("engine", "storage", "stats", "bot")


def modules(package: str) -> dict[str, Path]:
    found = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def imports(path: Path, known: set[str]) -> set[str]:
    """The modules of ours ``path`` imports (a ``from package import name`` of a
    submodule counts as that submodule)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found |= {f"{node.module}.{a.name}" for a in node.names} & known
    return {name for name in found if name.split(".")[0] in OURS}


@pytest.mark.parametrize("package", ["storage", "stats"])
def test_storage_and_stats_import_nothing_of_ours_but_engine(package: str) -> None:
    known = set(modules(package))
    wrong = {
        f"{module} imports {target}"
        for module, path in modules(package).items()
        for target in imports(path, known)
        if target.split(".")[0] not in (package, "engine")
    }
    assert not wrong


def test_no_import_cycle_in_storage_or_stats() -> None:
    graph: dict[str, set[str]] = {}
    for package in ("storage", "stats"):
        found = modules(package)
        for module, path in found.items():
            graph[module] = imports(path, set(found)) & set(found)
    cycles = []
    state: dict[str, int] = {}  # 1: on the current path, 2: done

    def visit(module: str, path: list[str]) -> None:
        state[module] = 1
        for target in sorted(graph[module]):
            if state.get(target) == 1:
                cycles.append(" -> ".join([*path[path.index(target) :], target]))
            elif target not in state:
                visit(target, [*path, target])
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])
    assert not cycles
