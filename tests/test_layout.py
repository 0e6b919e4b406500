"""The tree's architecture: no import cycles between our modules (imports under
TYPE_CHECKING and inside functions count too), the arrows between the top-level packages
run one way, the card index encoding lives in one module, test modules share
helpers only through tests/support (or a conftest), and the game service is composed
of parts that receive their collaborators rather than inherit them."""

from __future__ import annotations

import ast
import io
import tokenize
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("engine", "storage", "stats", "bot")


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def our_modules() -> dict[str, Path]:
    return {module_name(p): p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")}


def imports_of(name: str, path: Path, modules: dict[str, Path]) -> Iterator[str]:
    is_package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in PACKAGES:
                    yield alias.name
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = name.split(".") if is_package else name.split(".")[:-1]
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            if base.split(".")[0] not in PACKAGES:
                continue
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                yield sub if sub in modules else base


def with_packages(importer: str, imported: str) -> Iterator[str]:
    """Importing ``a.b.c`` runs ``a/__init__`` and ``a/b/__init__`` first, unless the
    importer is inside them already."""
    parts = imported.split(".")
    for n in range(1, len(parts)):
        package = ".".join(parts[:n])
        if not (importer == package or importer.startswith(package + ".")):
            yield package
    yield imported


def import_graph() -> dict[str, set[str]]:
    modules = our_modules()
    return {
        name: {
            m
            for target in imports_of(name, path, modules)
            for m in with_packages(name, target)
            if m in modules and m != name
        }
        for name, path in modules.items()
    }


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_import_cycles() -> None:
    assert cycles(import_graph()) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def top_level_arrows() -> set[tuple[str, str]]:
    return {
        (a.split(".")[0], b.split(".")[0])
        for a, targets in import_graph().items()
        for b in targets
        if a.split(".")[0] != b.split(".")[0]
    }


def test_engine_imports_nothing_of_ours_outside_it() -> None:
    assert {arrow for arrow in top_level_arrows() if arrow[0] == "engine"} == set()


def test_storage_and_stats_import_nothing_of_ours_but_engine() -> None:
    """The bot hands storage a series end that brings its own rating step (stats), so
    neither storage nor stats needs the other."""
    wrong = {
        arrow
        for arrow in top_level_arrows()
        if arrow[0] in ("storage", "stats") and arrow[1] != "engine"
    }
    assert wrong == set()


NAMED_GAMES = ("burkozel", "bura")


def test_only_the_games_own_folders_name_a_game() -> None:
    """A third game is files: storage, stats, the service flows and the handlers look
    games up in the registries (engine.registry, bot.games) and never test for one."""
    outside = [
        path
        for pkg in (
            "storage",
            "stats",
            "bot/service",
            "bot/handlers",
            "bot/views",
            "bot/delivery",
            "bot/webapp",
        )
        for path in (ROOT / pkg).rglob("*.py")
    ]
    found = []
    for path in outside:
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Constant) and node.value in NAMED_GAMES:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.value!r}")
            if isinstance(node, ast.ImportFrom) and any(
                f".{game}" in (node.module or "") for game in NAMED_GAMES
            ):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} imports {node.module}")
    assert found == []


# The numbers of the card index encoding, which engine/fast.py names: cards per suit,
# cards in the deck, the deck and one more (a key digit), the deck and the digit squared.
CARD_NUMBERS = {9, 36, 37, 1296, 1369}
ENCODING_NAMES = {"SUIT_SIZE", "DECK_SIZE"}
ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod)


def card_index_arithmetic(tree: ast.AST) -> Iterator[ast.AST]:
    """Arithmetic that reads card indices as numbers: ``// 9``, ``* 36``, ``range(36)``,
    ``x // SUIT_SIZE``, ``card.index + 1``."""
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "range"
            and any(isinstance(a, ast.Constant) and a.value in CARD_NUMBERS for a in node.args)
        ):
            yield node
        if not isinstance(node, ast.BinOp) or not isinstance(node.op, ARITHMETIC):
            continue
        if isinstance(node.left, ast.List):
            continue  # ``[None] * DECK_SIZE``: a table's size, not a card's index
        for side in (node.left, node.right):
            number = isinstance(side, ast.Constant) and type(side.value) is int
            if (
                (number and side.value in CARD_NUMBERS)  # type: ignore[attr-defined]
                or (isinstance(side, ast.Name) and side.id in ENCODING_NAMES)
                or (isinstance(side, ast.Attribute) and side.attr == "index")
            ):
                yield node
                break


def test_only_the_encoding_module_does_card_index_arithmetic() -> None:
    found = []
    for path in sorted((ROOT / "engine").rglob("*.py")):
        name = path.relative_to(ROOT).as_posix()
        if name == "engine/fast.py":
            continue
        for node in card_index_arithmetic(ast.parse(path.read_text(), name)):
            found.append(f"{name}:{node.lineno} {ast.unparse(node)}")
    assert found == []


def test_the_arithmetic_check_sees_card_index_arithmetic() -> None:
    for code in ("s = c // 9", "k = k * 37 + card.index + 1", "r = range(36)", "x % SUIT_SIZE"):
        assert list(card_index_arithmetic(ast.parse(code))), code
    for code in ("row = [None] * DECK_SIZE", "bit = mask >> card.index & 1", "n = 9"):
        assert not list(card_index_arithmetic(ast.parse(code))), code


def imports_of_test_modules(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """Each import of a module under ``tests`` that is not a shared helper
    (``tests.support``): another test module."""
    for node in ast.walk(tree):
        module = node.module if isinstance(node, ast.ImportFrom) else None
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
        for imported in [module or "", *names]:
            if imported.startswith("tests.") and not imported.startswith("tests.support"):
                yield node.lineno, imported  # type: ignore[attr-defined]


def test_no_test_module_imports_another() -> None:
    """Shared test helpers live in tests/support (or a conftest), so a test module is read
    and run on its own, and a benchmark driving the bot as the tests do imports no test."""
    found = []
    for path in sorted([*(ROOT / "tests").rglob("*.py"), *(ROOT / "bench").rglob("*.py")]):
        name = path.relative_to(ROOT).as_posix()
        for line, imported in imports_of_test_modules(ast.parse(path.read_text(), name)):
            found.append(f"{name}:{line} {imported}")
    assert found == []


def test_the_test_import_check_sees_a_test_module() -> None:
    for code in ("from tests.e2e.test_crash import Table", "import tests.stats.test_stats"):
        assert list(imports_of_test_modules(ast.parse(code))), code
    assert not list(imports_of_test_modules(ast.parse("from tests.support.harness import TOKEN")))


def test_test_helpers_live_in_support() -> None:
    """Outside tests/support a module under tests is a test module, a conftest or a
    package marker: a helper module beside the tests would be imported by them."""
    found = [
        path.relative_to(ROOT).as_posix()
        for path in sorted((ROOT / "tests").rglob("*.py"))
        if "support" not in path.relative_to(ROOT / "tests").parts
        and not path.name.startswith("test_")
        and path.name not in ("conftest.py", "__init__.py")
    ]
    assert found == []


# The seam between a game and the bot and every module that calls across it: a game's
# bot side and the registry (bot/games), the flows that hold a game in play and its
# cache (bot/service), the handlers, the views that draw a game's lobby, tally and
# results (bot/views), and the Mini App's state and action of a game (bot/webapp/views.py,
# bot/webapp/api.py). There mypy checks every call with the game's own types only while
# none of them is ``Any``. JSON objects (game records, Telegram's payloads, the Mini
# App's state) are ``bot.json.Json``, defined outside: a JSON value has no narrower type.
SEAM = (
    "bot/games",
    "bot/service",
    "bot/handlers",
    "bot/views",
    "bot/webapp/views.py",
    "bot/webapp/api.py",
)


def seam_modules() -> list[Path]:
    paths = [ROOT / part for part in SEAM]
    return sorted(p for path in paths for p in ([path] if path.is_file() else path.rglob("*.py")))


def untyped(source: str) -> Iterator[tuple[int, str]]:
    """Where ``source`` turns mypy's checking off: ``Any`` (named, imported under any
    name, or as ``typing.Any``), a ``cast``, a ``# type: ignore``."""
    for node in ast.walk(ast.parse(source)):
        if (isinstance(node, ast.Name) and node.id == "Any") or (
            isinstance(node, ast.Attribute) and node.attr in ("Any", "cast")
        ):
            yield node.lineno, ast.unparse(node)
        if isinstance(node, ast.ImportFrom) and node.module == "typing":
            for alias in node.names:
                if alias.name in ("Any", "cast"):
                    yield node.lineno, f"from typing import {alias.name}"
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "cast"
        ):
            yield node.lineno, ast.unparse(node)
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT and "type: ignore" in token.string:
            yield token.start[0], token.string


def test_no_any_in_the_game_seam() -> None:
    """A game's bot side is typed with its own series, deal and action
    (``bot.games.base.GameSide``); the flows hold a game in play as a ``Played``, whose
    every question and action is checked whichever game it is."""
    found = [
        f"{path.relative_to(ROOT)}:{line} {text}"
        for path in seam_modules()
        for line, text in untyped(path.read_text())
    ]
    assert found == []


def test_the_seam_check_sees_any_cast_and_ignore() -> None:
    for code in (
        "x: Any = 1",
        "def f(s: Series) -> dict[str, Any]: ...",
        "y = typing.Any",
        "from typing import Any as Whatever",
        "series = cast(Series, live.series)",
        "series = typing.cast(Series, live.series)",
        "deal = series.deals[-1]  # type: ignore[attr-defined]",
    ):
        assert list(untyped(code)), code
    assert not list(untyped("def f(s: Series[Deal]) -> object: ...  # Any deal"))
    assert seam_modules()


def service_subclassing(tree: ast.AST, service_classes: set[str]) -> Iterator[str]:
    """Each class that names one of the service's own classes among its bases."""
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            for base in node.bases:
                if isinstance(base, ast.Name) and base.id in service_classes:
                    yield f"{node.name}({base.id})"


def test_the_service_is_composed_not_inherited() -> None:
    """The service's parts (bot/service: the flows, the games in memory, the outbox...)
    receive what they use in their constructors; none is built by inheriting another,
    so a flow's collaborators are the ones it names (no state shared through ``self``)."""
    paths = sorted((ROOT / "bot" / "service").glob("*.py"))
    trees = {p: ast.parse(p.read_text(), str(p)) for p in paths}
    ours = {n.name for t in trees.values() for n in ast.walk(t) if isinstance(n, ast.ClassDef)}
    # The refusals are one family of exceptions, and the followers' defaults are there to
    # be subclassed by the app's real ones: neither holds the service's state.
    ours -= {"UserError", "Watchers", "HandCopies"}
    found = [
        f"{p.relative_to(ROOT)}: {found}"
        for p, tree in trees.items()
        for found in service_subclassing(tree, ours)
    ]
    assert found == []


def test_the_inheritance_check_sees_a_flow_built_on_another() -> None:
    tree = ast.parse("class TableFlow: ...\nclass LobbyFlow(TableFlow): ...")
    assert list(service_subclassing(tree, {"TableFlow"})) == ["LobbyFlow(TableFlow)"]
