"""The import contracts of issue 42 (pyproject.toml, [tool.importlinter], run by ``lint-imports``) cover every
module of nardy, agree with each other, and their lists of ignored imports only shrink.

import-linter checks the layers of the modules it is given; a module missing from the layers contract is not
checked at all (``exhaustive`` needs containers, which today's layout cannot have: a package such as nardy.bots
holds modules of three layers). These tests close that gap: a new module must be placed in a layer.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

#: Packages whose modules belong to different layers today: their ``__init__`` cannot be placed (a layer naming
#: the package would hold all of it). Issue 42's redesign gives each layer a package of its own; then none.
SPLIT_PACKAGES = {"nardy", "nardy.bots", "nardy.tui", "nardy.analysis"}

#: Imports each kind of contract ignored when the contracts were written (docs/redesign-baseline.md): the lists
#: may only shrink (a renamed module may rename an entry, never add one).
IGNORED_AT_START = {"layers": 3, "independence": 1, "protected": 1, "forbidden": 2}


def contracts() -> list[dict]:
    conf = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    return conf["tool"]["importlinter"]["contracts"]


def layer_modules(layer: str) -> list[str]:
    """The modules of one layer of a layers contract (``a : b``, ``a | b``, ``(optional)``)."""
    sep = "|" if "|" in layer else ":"
    return [m.strip().strip("()") for m in layer.split(sep)]


def the_layers() -> list[list[str]]:
    (layers,) = [c for c in contracts() if c["type"] == "layers"]
    return [layer_modules(x) for x in layers["layers"]]


def nardy_modules() -> list[str]:
    """Every module of the nardy package, by its files (``__init__`` as the package's name)."""
    out = []
    for path in sorted((REPO / "nardy").rglob("*.py")):
        parts = list(path.relative_to(REPO).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out.append(".".join(parts))
    return out


def covers(item: str, module: str) -> bool:
    return module == item or module.startswith(item + ".")


def test_every_module_of_nardy_is_in_exactly_one_layer():
    items = [m for layer in the_layers() for m in layer]
    wrong = {}
    for mod in nardy_modules():
        n = sum(covers(item, mod) for item in items)
        if mod in SPLIT_PACKAGES:
            if n:
                wrong[mod] = f"a split package's __init__ cannot be in a layer, yet {n} items cover it"
        elif n != 1:
            wrong[mod] = f"in {n} layers: place it in exactly one (pyproject.toml, the layers contract)"
    assert not wrong, wrong


def test_the_forbidden_libraries_contract_covers_every_core_layer():
    """The forbidden contract's sources are exactly the modules of every layer below the front ends."""
    core = sorted(m for layer in the_layers()[1:] for m in layer)
    (forbidden,) = [c for c in contracts() if c["type"] == "forbidden"]
    assert sorted(forbidden["source_modules"]) == core
    assert {"click", "fastapi", "starlette", "pydantic", "sqlalchemy", "rich"} <= set(forbidden["forbidden_modules"])


def test_the_front_ends_are_the_top_layer_and_are_kept_apart():
    """Every module of the front-end layer is a front end of the independence contract, or one of the terminal's
    pieces that only the terminal may import."""
    front = set(the_layers()[0])
    (independence,) = [c for c in contracts() if c["type"] == "independence"]
    # the protected contract of the terminal's pieces (the other protects the texts, a lower layer)
    (pieces,) = [c for c in contracts() if c["type"] == "protected" and set(c["protected_modules"]) <= front]
    terminal_pieces = set(pieces["protected_modules"])
    assert set(independence["modules"]) | terminal_pieces == front
    assert not set(independence["modules"]) & terminal_pieces


def test_the_ignored_imports_only_shrink():
    counts = dict.fromkeys(IGNORED_AT_START, 0)
    for c in contracts():
        counts[c["type"]] = counts.get(c["type"], 0) + len(c.get("ignore_imports", []))
    grown = {k: (n, IGNORED_AT_START.get(k, 0)) for k, n in counts.items() if n > IGNORED_AT_START.get(k, 0)}
    assert not grown, f"ignored imports (now, at the start) grew: {grown}; fix the import instead"
