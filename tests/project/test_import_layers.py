"""The import contracts of docs/design.md (pyproject.toml, [tool.importlinter], run by ``lint-imports``): their
lists of ignored imports only shrink, the forbidden-library contract covers every layer below the front ends,
and the old module paths of before the layer packages are aliases that nothing of nardy uses.
"""

from __future__ import annotations

import ast
import importlib
import sys
import tomllib
import warnings
from pathlib import Path

import pytest

from nardy._compat import MOVED

REPO = Path(__file__).resolve().parents[2]

#: Imports each contract ignored when the layer packages were made (issue 42): the lists may only shrink (a
#: renamed module may rename an entry, never add one); the redesign ends with all of them empty.
IGNORED_AT_START = {"layers": 0, "core-libraries": 0, "acyclic": 0}


def contracts() -> dict[str, dict]:
    conf = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    return {c["id"]: c for c in conf["tool"]["importlinter"]["contracts"]}


def test_the_lists_of_ignored_imports_only_shrink():
    now = {cid: len(c.get("ignore_imports", [])) for cid, c in contracts().items()}
    grown = {cid: (n, IGNORED_AT_START.get(cid, 0)) for cid, n in now.items() if n > IGNORED_AT_START.get(cid, 0)}
    assert not grown, f"ignored imports grew (now, at start): {grown}; fix the import instead"


def layer_packages(layer: str) -> list[str]:
    sep = "|" if "|" in layer else ":"
    return [f"nardy.{m.strip()}" for m in layer.split(sep)]


def test_the_forbidden_libraries_contract_covers_every_layer_below_the_front_ends():
    c = contracts()
    below = sorted(m for layer in c["layers"]["layers"][2:] for m in layer_packages(layer))
    assert sorted(c["core-libraries"]["source_modules"]) == below
    forbidden = set(c["core-libraries"]["forbidden_modules"])
    assert {"click", "fastapi", "starlette", "pydantic", "sqlalchemy", "rich"} <= forbidden


def test_every_package_under_nardy_is_a_layer():
    """The layers contract is exhaustive; this says the same in one line a reader can check: the folders."""
    c = contracts()
    layered = {m for layer in c["layers"]["layers"] for m in layer_packages(layer)}
    found = {f"nardy.{p.name}" for p in (REPO / "nardy").iterdir() if (p / "__init__.py").exists()}
    found |= {f"nardy.{p.stem}" for p in (REPO / "nardy").glob("*.py") if p.stem not in ("__init__", "_compat")}
    assert found == layered


def imported_names(path: Path) -> set[str]:
    """The absolute module names a file imports (relative imports resolved against its package)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    rel = path.relative_to(REPO).with_suffix("").parts
    package = list(rel[:-1]) if rel[-1] != "__init__" else list(rel[:-1])
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            out.add(mod)
            out |= {f"{mod}.{a.name}" for a in node.names}
    return out


def test_nothing_of_nardy_imports_an_old_module_path():
    """Old paths (nardy/_compat.py) are for outside code, one release: nardy, its tests and benchmarks use the
    new ones."""
    files = [*(REPO / "nardy").rglob("*.py"), *(REPO / "tests").rglob("*.py"), *(REPO / "bench").glob("*.py")]
    old = {}
    for f in files:
        if f.name == "_compat.py" or f == Path(__file__).resolve():
            continue
        hits = sorted(imported_names(f) & set(MOVED))
        if hits:
            old[str(f.relative_to(REPO))] = hits
    assert not old


@pytest.mark.parametrize("old", ["nardy.game", "nardy.bots.bot", "nardy.bots.cubeful", "nardy.tui.numbering"])
def test_an_old_module_path_is_the_new_module_with_a_deprecation_warning(old):
    saved = sys.modules.pop(old, None)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            mod = importlib.import_module(old)
        assert mod is importlib.import_module(MOVED[old])
        assert any(issubclass(w.category, DeprecationWarning) and MOVED[old] in str(w.message) for w in caught)
    finally:
        if saved is not None:
            sys.modules[old] = saved


def test_the_old_bots_package_has_game_flows_bot_and_the_engines_evaluators_and_submodules():
    """``nardy.bots`` was a package: ``Bot`` (now :mod:`nardy.flow.bot`'s, with the cube), the evaluators (now
    :mod:`nardy.engine`'s) and its submodules all still import from it, with a warning."""
    from nardy.engine.evaluator import Probabilities
    from nardy.flow.bot import Bot
    from nardy.flow.cubetheory import CubeDecision

    saved = {k: sys.modules.pop(k) for k in list(sys.modules) if k == "nardy.bots" or k.startswith("nardy.bots.")}
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            bots = importlib.import_module("nardy.bots")
            evaluator = importlib.import_module("nardy.bots.evaluator")
        assert bots.Bot is Bot and bots.CubeDecision is CubeDecision and bots.Probabilities is Probabilities
        assert "Bot" in bots.__all__ and "Probabilities" in bots.__all__
        assert evaluator is importlib.import_module("nardy.engine.evaluator")
        assert any("nardy.flow.bot" in str(w.message) for w in caught if issubclass(w.category, DeprecationWarning))
    finally:
        for k in [k for k in sys.modules if k == "nardy.bots" or k.startswith("nardy.bots.")]:
            del sys.modules[k]
        sys.modules.update(saved)
