"""Figures of nardy's package layout that issue 42's redesign must bring down: import cycles, imports against the
target layers, imports hidden inside functions, long files, public class names defined twice, loose modules.

Run from the repository root: ``python bench/redesign_baseline.py`` (``--markdown`` for the tables of
docs/redesign-baseline.md). It reads the source (AST) and the import graph of grimp, which import-linter uses;
it imports no nardy module. The layer contracts themselves are in pyproject.toml ([tool.importlinter]); the
count of imports against them is the length of their ``ignore_imports``.
"""

from __future__ import annotations

import argparse
import ast
import sys
import tomllib
from collections import defaultdict
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "nardy"
#: The most lines a source file should have (the project's rule, and issue 42's "done when").
MAX_LINES = 900


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def sources() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def cycles(graph) -> list[list[str]]:
    """The strongly connected components of more than one module of nardy's import graph (every import, those
    inside functions too), each as a shortest cycle through its first module (sorted), then the rest of it."""
    mods = sorted(m for m in graph.modules if m.startswith("nardy"))
    edges = {m: sorted(x for x in graph.find_modules_directly_imported_by(m) if x.startswith("nardy")) for m in mods}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:  # Tarjan, recursive: the graph has some hundred modules
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges[v]:
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
                out.append(sorted(comp))

    for m in mods:
        if m not in index:
            visit(m)
    return sorted(out)


def shortest_cycle(graph, comp: list[str]) -> list[str]:
    """A shortest cycle through the first module of a component: ``[a, b, ..., a]``."""
    a = comp[0]
    best: tuple | None = None
    for b in sorted(graph.find_modules_directly_imported_by(a)):
        if b not in comp:
            continue
        back = graph.find_shortest_chain(importer=b, imported=a)
        if back and (best is None or len(back) < len(best)):
            best = back
    return [a, *best] if best else [a]


def enclosing_function(module: str, line: int) -> str | None:
    """The function of ``module`` whose body holds ``line`` (the innermost), or ``None`` at module level."""
    path = ROOT / (module.replace(".", "/") + ".py")
    if not path.exists():
        path = ROOT / module.replace(".", "/") / "__init__.py"
    tree = ast.parse(path.read_text(encoding="utf-8"))
    best = None
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and fn.lineno <= line <= (fn.end_lineno or 0):
            if best is None or fn.lineno > best.lineno:
                best = fn
    return best.name if best else None


def cycle_imports(graph, comp: list[str]) -> list[str]:
    """The imports between the modules of a cycle group: ``a -> b (l.12, l.40 in f)``."""
    out = []
    for a in comp:
        for b in comp:
            if a != b and graph.direct_import_exists(importer=a, imported=b):
                lines = sorted(d["line_number"] for d in graph.get_import_details(importer=a, imported=b))
                where = []
                for n in lines:
                    fn = enclosing_function(a, n)
                    where.append(f"l.{n}" + (f" in {fn}()" if fn else ""))
                out.append(f"{a} -> {b} ({', '.join(where)})")
    return out


def package_cycles(graph) -> list[tuple[str, str]]:
    """Pairs of nardy's children (subpackages and loose modules) that import each other, directly or not."""
    children = sorted(graph.find_children("nardy"))
    pairs = []
    for i, a in enumerate(children):
        for b in children[i + 1 :]:
            if graph.chain_exists(importer=a, imported=b, as_packages=True) and graph.chain_exists(
                importer=b, imported=a, as_packages=True
            ):
                pairs.append((a, b))
    return pairs


def _is_own(node) -> bool:
    """An import statement of one of nardy's own modules (relative, or ``nardy...``)."""
    if isinstance(node, ast.ImportFrom):
        return node.level > 0 or (node.module or "").split(".")[0] == "nardy"
    return any(a.name.split(".")[0] == "nardy" for a in node.names)


def imports_in_functions(folder: Path) -> tuple[int, int, dict[str, int]]:
    """Import statements inside functions (methods, nested functions) under ``folder``: (all, those of nardy's
    own modules, per file), each statement counted once."""
    total = own = 0
    per: dict[str, int] = {}
    for path in sorted(folder.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found = {
            id(node): node
            for fn in ast.walk(tree)
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef))
            for node in ast.walk(fn)
            if isinstance(node, (ast.Import, ast.ImportFrom))
        }
        total += len(found)
        own += sum(_is_own(n) for n in found.values())
        if found:
            per[str(path.relative_to(ROOT))] = len(found)
    return total, own, per


def long_files() -> list[tuple[str, int]]:
    out = []
    for path in sources():
        n = len(path.read_text(encoding="utf-8").splitlines())
        if n > MAX_LINES:
            out.append((str(path.relative_to(ROOT)), n))
    return sorted(out, key=lambda x: -x[1])


def twice_defined_classes() -> dict[str, list[str]]:
    """Public class names (no leading ``_``) defined at the top level of more than one module."""
    where: dict[str, list[str]] = defaultdict(list)
    for path in sources():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                where[node.name].append(module_name(path))
    return {k: v for k, v in sorted(where.items()) if len(v) > 1}


def loose_modules() -> list[str]:
    """Modules directly in nardy/ (not in a subpackage), ``__init__`` aside."""
    return sorted(p.name for p in PACKAGE.glob("*.py") if p.name != "__init__.py")


def contract_ignores() -> dict[str, int]:
    """Length of each import-linter contract's ``ignore_imports`` (pyproject.toml)."""
    conf = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return {c["name"]: len(c.get("ignore_imports", [])) for c in conf["tool"]["importlinter"]["contracts"]}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--markdown", action="store_true", help="print markdown lists")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    graph = grimp.build_graph("nardy")
    md = args.markdown
    bullet = "- " if md else "  "

    comps = cycles(graph)
    print(f"Import cycles (strongly connected groups of modules): {len(comps)}")
    for comp in comps:
        cyc = shortest_cycle(graph, comp)
        print(f"{bullet}{len(comp)} modules: {', '.join(comp)}")
        print(f"{'  ' if md else '    '}e.g. {' -> '.join(cyc)}; its imports:")
        for line in cycle_imports(graph, comp):
            print(f"{'  - ' if md else '      '}{line}")
    pairs = package_cycles(graph)
    print(f"Pairs of nardy's children (subpackages, loose modules) importing each other: {len(pairs)}")
    for a, b in pairs:
        print(f"{bullet}{a} <-> {b}")

    for name, n in contract_ignores().items():
        print(f"Imports ignored by import-linter contract {name!r}: {n}")

    total, own, per = imports_in_functions(PACKAGE / "web")
    print(f"Imports inside functions in nardy/web: {total} ({own} of nardy's own modules)")
    for f, n in sorted(per.items(), key=lambda x: -x[1]):
        print(f"{bullet}{f}: {n}")

    lf = long_files()
    print(f"Source files over {MAX_LINES} lines: {len(lf)}")
    for f, n in lf:
        print(f"{bullet}{f}: {n}")

    tw = twice_defined_classes()
    print(f"Public class names defined in more than one module: {len(tw)}")
    for k, v in tw.items():
        print(f"{bullet}{k}: {', '.join(v)}")

    lm = loose_modules()
    print(f"Loose modules in nardy/ (besides __init__.py): {len(lm)}")
    print(f"{bullet}{', '.join(lm)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
