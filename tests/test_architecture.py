"""The shape the README promises, checked on the source: no import circle (counting the imports made inside
functions too, which only postpone a circle), and data flowing one way, input -> normalize -> match -> rank ->
render: the model imports no step, the steps import no renderer, and the renderers import no step above them.
``python tests/test_architecture.py`` prints the graph (docs/architecture.md shows it)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "cudnn_doctor"


def modules() -> dict[str, Path]:
    out: dict[str, Path] = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def _targets(mods: dict[str, Path], module: str, node: ast.Import | ast.ImportFrom) -> list[str]:
    package = module if mods[module].name == "__init__.py" else module.rsplit(".", 1)[0]
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    base = node.module or ""
    if node.level:
        base = package
        for _ in range(node.level - 1):
            base = base.rsplit(".", 1)[0]
        base = f"{base}.{node.module}" if node.module else base
    return [f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base for a in node.names]


def graph() -> dict[str, set[str]]:
    """module -> the package modules it imports, at module level or inside a function (not under
    ``if TYPE_CHECKING:``, which never runs)."""
    mods = modules()
    edges: dict[str, set[str]] = {m: set() for m in mods}
    for module, path in mods.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        typing_only = {
            id(n)
            for block in ast.walk(tree)
            if isinstance(block, ast.If) and "TYPE_CHECKING" in ast.unparse(block.test)
            for stmt in block.body
            for n in ast.walk(stmt)
        }
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom) and id(node) not in typing_only:
                edges[module].update(t for t in _targets(mods, module, node) if t in mods and t != module)
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = 0
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            node, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on.add(nxt)
                    work.append((nxt, iter(sorted(edges[nxt]))))
                elif nxt in on:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    m = stack.pop()
                    on.discard(m)
                    comp.append(m)
                    if m == node:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def reaches(edges: dict[str, set[str]], start: str) -> set[str]:
    seen: set[str] = set()
    todo = [start]
    while todo:
        for nxt in edges[todo.pop()]:
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def test_no_import_circle() -> None:
    assert cycles(graph()) == []


def test_the_model_imports_no_step() -> None:
    edges = graph()
    assert reaches(edges, "cudnn_doctor.model") <= {"cudnn_doctor.read.textsafe"}, reaches(edges, "cudnn_doctor.model")


def test_steps_import_no_renderer_and_renderers_no_pipeline() -> None:
    edges = graph()
    steps = ["cudnn_doctor.read.sources", "cudnn_doctor.read.normalize", "cudnn_doctor.read.present", "cudnn_doctor.match", "cudnn_doctor.rank.findings"]
    for step in steps:
        above = reaches(edges, step)
        assert not any(m.startswith("cudnn_doctor.render") for m in above), (step, sorted(above))
        assert "cudnn_doctor.scan" not in above, step
    for module in edges:
        if module.startswith("cudnn_doctor.render"):
            assert not reaches(edges, module) & {"cudnn_doctor.scan", "cudnn_doctor.cli.commands", "cudnn_doctor.cli.entry"}, module


# ----------------------------------------------------------------------------------- the size of things
MAX_LINES = 60
MAX_COMPLEXITY = 15  # McCabe, counted as radon counts it (radon cc gives the same numbers on this source)
# Functions let past the limits, each with its reason (none now): the lists may shrink and never grow, and an
# entry whose function is back within the limits must go (the tests say so).
KNOWN_COMPLEX: dict[str, int] = {}
KNOWN_LONG: dict[str, int] = {}
KNOWN_PRIVATE_IMPORTS: set[str] = set()


def _complexity(fn: ast.AST) -> int:
    n = 1
    stack = list(ast.iter_child_nodes(fn))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue  # counted on their own
        if isinstance(node, (ast.If, ast.IfExp, ast.For, ast.AsyncFor, ast.While, ast.ExceptHandler, ast.Assert, ast.match_case)):
            n += 1
        elif isinstance(node, ast.comprehension):
            n += 1 + len(node.ifs)
        elif isinstance(node, ast.BoolOp):
            n += len(node.values) - 1
        stack.extend(ast.iter_child_nodes(node))
    return n


def functions() -> dict[str, tuple[int, int]]:
    """'path::Class.function' -> (lines, complexity) for every function of the package."""
    out: dict[str, tuple[int, int]] = {}

    def walk(node: ast.AST, path: str, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = f"{prefix}{child.name}"
                out[f"{path}::{name}"] = (child.end_lineno - child.lineno + 1, _complexity(child))  # type: ignore[operator]
                walk(child, path, f"{name}.")
            elif isinstance(child, ast.ClassDef):
                walk(child, path, f"{prefix}{child.name}.")

    for file in PACKAGE.rglob("*.py"):
        walk(ast.parse(file.read_text(encoding="utf-8")), file.relative_to(PACKAGE).as_posix(), "")
    return out


def test_no_function_is_too_long_or_too_complex() -> None:
    fns = functions()
    long = {k: n for k, (n, _) in fns.items() if n > MAX_LINES}
    complex_ = {k: c for k, (_, c) in fns.items() if c > MAX_COMPLEXITY}
    assert {k: n for k, n in long.items() if n > KNOWN_LONG.get(k, MAX_LINES)} == {}
    assert {k: c for k, c in complex_.items() if c > KNOWN_COMPLEX.get(k, MAX_COMPLEXITY)} == {}
    assert set(KNOWN_LONG) <= set(long), "within the limit now: remove from KNOWN_LONG"
    assert set(KNOWN_COMPLEX) <= set(complex_), "within the limit now: remove from KNOWN_COMPLEX"


def test_no_private_name_is_imported_from_another_module() -> None:
    found = set()
    for file in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and any(a.name.startswith("_") and not a.name.startswith("__") for a in node.names):
                found.add(file.relative_to(PACKAGE).as_posix())
    assert found <= KNOWN_PRIVATE_IMPORTS, sorted(found - KNOWN_PRIVATE_IMPORTS)
    assert found == KNOWN_PRIVATE_IMPORTS, "no private import there now: remove from KNOWN_PRIVATE_IMPORTS"


def main() -> None:
    edges = graph()
    print(f"{len(edges)} modules, {sum(map(len, edges.values()))} imports, circles: {cycles(edges) or 'none'}")
    for module in sorted(edges):
        short = module.removeprefix("cudnn_doctor.")
        print(f"{short:24} -> {', '.join(sorted(t.removeprefix('cudnn_doctor.') for t in edges[module])) or '-'}")


if __name__ == "__main__":
    sys.exit(main())
