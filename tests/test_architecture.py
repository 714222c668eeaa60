"""The package's layers, checked from its imports (issue 16).

The import graph is read from the source (every ``import anonkit...`` outside
``if TYPE_CHECKING:`` blocks, at module level or inside functions, since both run) and
must have no cycle, and the bottom layers must not import upwards: ``core`` builds on
nothing but :data:`BOTTOM`, ``io`` and ``models`` on ``core``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from source_files import parse_file

SRC = Path(__file__).resolve().parents[1] / "src"

#: Modules every layer may use: they import nothing of anonkit above themselves.
BOTTOM = (
    "anonkit.exceptions",
    "anonkit._validation",
    "anonkit._atomic",
    "anonkit._formats",
    "anonkit._frozen",
    "anonkit._arrays",
    "anonkit._jit",
    "anonkit.progress",
)
#: What each bottom layer may import from anonkit (prefixes), besides :data:`BOTTOM`.
LAYERS: dict[str, tuple[str, ...]] = {
    "anonkit.core": ("anonkit.core",),
    "anonkit.io": ("anonkit.io", "anonkit.core"),
    "anonkit.models": ("anonkit.models", "anonkit.core"),
}


def _modules() -> dict[str, Path]:
    out = {}
    for path in (SRC / "anonkit").rglob("*.py"):
        parts = path.relative_to(SRC).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skip.update(id(n) for stmt in node.body for n in ast.walk(stmt))
    return skip


def _imports(path: Path) -> Iterator[str]:
    tree = parse_file(path)
    skip = _type_checking_nodes(tree)
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            yield node.module
            yield from (f"{node.module}.{a.name}" for a in node.names)


def _graph() -> dict[str, set[str]]:
    modules = _modules()

    def resolve(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {m: set() for m in modules}
    for name, path in modules.items():
        for target in _imports(path):
            if not target.startswith("anonkit"):
                continue
            found = resolve(target)
            # a package's __init__ re-exports its modules: an import of the package from
            # one of its own modules is not an edge to itself
            if found and found != name and not name.startswith(found + "."):
                graph[name].add(found)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_import_cycle() -> None:
    graph = {m: t for m, t in _graph().items() if m != "anonkit"}
    for targets in graph.values():
        targets.discard("anonkit")
    assert _cycles(graph) == []


def test_bottom_layers_do_not_import_upwards() -> None:
    upward = []
    for module, targets in _graph().items():
        for layer, allowed in LAYERS.items():
            if module == layer or module.startswith(layer + "."):
                upward += [
                    f"{module} -> {t}"
                    for t in sorted(targets)
                    if not t.startswith(allowed) and t not in BOTTOM
                ]
    assert upward == []


#: Longest module (issue 16: modules that do one thing stay short enough to read).
MAX_MODULE_LINES = 600


def test_no_module_over_600_lines() -> None:
    long = {
        str(path.relative_to(SRC)): n
        for path in sorted(SRC.rglob("*.py"))
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    }
    assert not long, f"modules over {MAX_MODULE_LINES} lines: {long}"


def _deferred_imports() -> Iterator[tuple[str, str, tuple[str, ...]]]:
    """(module, imported module, names) of every anonkit import inside a function."""
    for name, path in sorted(_modules().items()):
        tree = parse_file(path)
        for node in ast.walk(tree):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for sub in ast.walk(node):
                if isinstance(sub, ast.ImportFrom) and (sub.module or "").startswith("anonkit"):
                    yield name, str(sub.module), tuple(a.name for a in sub.names)


def _deferral_reason(module: str, target: str, names: tuple[str, ...]) -> str | None:
    """Why an import may wait until its function runs, or None."""
    if module == "anonkit.cli" or module.startswith("anonkit.cli."):
        return "a command's work loads only when that command runs (start-up of --help)"
    if "kernel" in target or any("kernel" in n for n in names):
        return "compiled kernels load numba"
    if "spark" in target or target == "anonkit.app.server":
        return "an optional dependency (pyspark, shiny)"
    if module.startswith("anonkit.estimators.") and target.startswith(
        ("anonkit.algorithms.", "anonkit.estimators.streaming_mondrian", "anonkit.evaluate")
    ):
        return "an algorithm family's implementation loads on its estimator's first fit"
    return None


def test_imports_inside_functions_only_defer_work() -> None:
    """Imports sit at the module top (issue 16) unless waiting saves real work: the ones
    ``_deferral_reason`` names. Loading every family's implementation on ``from anonkit
    import anonymize`` cost about 70 ms (``python -X importtime``) when tried."""
    unexplained = [
        f"{module} -> {target}"
        for module, target, names in _deferred_imports()
        if _deferral_reason(module, target, names) is None
    ]
    assert unexplained == []
