"""Old module paths of nardy (before the layer packages of docs/design.md), kept for one release.

``import nardy.game`` (or ``from nardy.bots import Bot``) still works: a finder on ``sys.meta_path`` maps each
old dotted name to its new module, warns with a :class:`DeprecationWarning` naming the new path, and returns
the new module itself (so ``nardy.game.Game is nardy.flow.game.Game``); an old package whose names are now in a
plain module and elsewhere (``nardy.bots``: ``Bot`` in :mod:`nardy.flow.bot`, the evaluators in
:mod:`nardy.engine`) is a package of its own that reads them there (:data:`ALSO`). Nothing in nardy, its tests or its
benchmarks imports an old path (``tests/project/test_import_layers.py`` checks it).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import types
import warnings

#: old dotted name -> new dotted name (docs/design.md, "Where things moved")
MOVED: dict[str, str] = {
    "nardy._core": "nardy.rules._movegen",
    "nardy.errors": "nardy.rules.errors",
    "nardy.numbering": "nardy.rules.numbering",
    "nardy.notation": "nardy.rules.notation",
    "nardy.position": "nardy.rules.position",
    "nardy.render": "nardy.rules.boardtext",
    "nardy.ids": "nardy.rules.ids",
    "nardy.dice": "nardy.rules.dice",
    "nardy.fairdice": "nardy.rules.fairdice",
    "nardy.bots": "nardy.flow.bot",
    "nardy.bots._kernels": "nardy.engine._kernels",
    "nardy.bots._rollout": "nardy.engine._rollout",
    "nardy.bots.bearoff": "nardy.engine.bearoff",
    "nardy.bots.bot": "nardy.flow.bot",
    "nardy.bots.evaluator": "nardy.engine.evaluator",
    "nardy.bots.net": "nardy.engine.net",
    "nardy.bots.rollout": "nardy.engine.rollout",
    "nardy.bots.search": "nardy.engine.search",
    "nardy.bots.train": "nardy.engine.tdtrain",
    "nardy.bots.cubeful": "nardy.flow.cubetheory",
    "nardy.bots.met": "nardy.flow.met",
    "nardy.events": "nardy.flow.events",
    "nardy.game": "nardy.flow.game",
    "nardy.match": "nardy.flow.match",
    "nardy.clock": "nardy.flow.clock",
    "nardy.cube": "nardy.flow.cube",
    "nardy.table": "nardy.flow.table",
    "nardy._saved": "nardy.flow.saved",
    "nardy.catalogue": "nardy.texts.catalogue",
    "nardy.messages": "nardy.texts.messages",
    "nardy.i18n": "nardy.texts.i18n",
    "nardy.play": "nardy.terminal.play",
    "nardy.tui": "nardy.terminal",
    "nardy.tui.board": "nardy.terminal.board",
    "nardy.tui.commands": "nardy.terminal.commands",
    "nardy.tui.explain": "nardy.terminal.explain",
    "nardy.tui.numbering": "nardy.rules.numbering",
    "nardy.tui.render": "nardy.terminal.render",
    "nardy.tui.warmup": "nardy.terminal.warmup",
    "nardy.cli_replay": "nardy.cli.replay",
    "nardy.analysis.cli": "nardy.cli.analyse",
    "nardy.training.cli": "nardy.cli.teach",
    "nardy.web.live": "nardy.web.services.live",
    "nardy.web.storage": "nardy.web.store.storage",
    "nardy.web.community": "nardy.web.store.community",
    "nardy.web.ratingbook": "nardy.web.store.ratingbook",
    "nardy.web.engine": "nardy.web.routers.positions",
    "nardy.web.games": "nardy.web.routers.games",
    "nardy.web.online": "nardy.web.routers.online",
    "nardy.web.lobby": "nardy.web.routers.lobby",
    "nardy.web.auth": "nardy.web.routers.auth",
    "nardy.web.review": "nardy.web.routers.review",
    "nardy.web.dicetest": "nardy.web.routers.dicetest",
    "nardy.web.seeding": "nardy.web.routers.seeding",
    "nardy.web.fairplay": "nardy.web.routers.fairplay",
}

#: old packages whose new home (their :data:`MOVED` value) is a plain module: the old name is a package of its
#: own (so its old submodules still import) whose names are the new module's, then those of these modules (what
#: the old package also exported: ``nardy.bots`` had the evaluators, now ``nardy.engine``'s)
ALSO: dict[str, tuple[str, ...]] = {"nardy.bots": ("nardy.engine",)}


def _old_package(name: str, new: types.ModuleType) -> types.ModuleType:
    """A package ``name`` reading its names from ``new`` and then from the modules of :data:`ALSO`."""
    sources = [new, *(importlib.import_module(m) for m in ALSO.get(name, ()))]
    mod = types.ModuleType(name, new.__doc__)
    mod.__path__ = []

    def __getattr__(attr: str):
        for src in sources:
            if hasattr(src, attr):
                return getattr(src, attr)
        raise AttributeError(f"module {name!r} has no attribute {attr!r}")

    mod.__getattr__ = __getattr__  # type: ignore[method-assign]
    mod.__all__ = list(dict.fromkeys(n for src in sources for n in getattr(src, "__all__", ())))
    return mod


class _OldPaths(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds an old module path and loads it as an alias of the new module (see :data:`MOVED`)."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname not in MOVED:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec):
        new = MOVED[spec.name]
        warnings.warn(
            f"{spec.name} moved to {new} (docs/design.md); the old path goes in the next release",
            DeprecationWarning,
            stacklevel=3,
        )
        module = importlib.import_module(new)
        if spec.name in ALSO:
            return _old_package(spec.name, module)
        return module

    def exec_module(self, module):
        pass  # the new module is loaded already


def install() -> None:
    """Put the old-path finder first on ``sys.meta_path`` (once)."""
    if not any(isinstance(f, _OldPaths) for f in sys.meta_path):
        sys.meta_path.insert(0, _OldPaths())
