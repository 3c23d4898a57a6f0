"""Old module paths of nardy (before the layer packages of docs/design.md), kept for one release.

``import nardy.game`` (or ``from nardy.bots import Bot``) still works: a finder on ``sys.meta_path`` maps each
old dotted name to its new module, warns with a :class:`DeprecationWarning` naming the new path, and returns
the new module itself (so ``nardy.game.Game is nardy.flow.game.Game``). Nothing in nardy, its tests or its
benchmarks imports an old path (``tests/test_import_layers.py`` checks it).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
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
    "nardy.bots": "nardy.engine",
    "nardy.bots._kernels": "nardy.engine._kernels",
    "nardy.bots._rollout": "nardy.engine._rollout",
    "nardy.bots.bearoff": "nardy.engine.bearoff",
    "nardy.bots.bot": "nardy.engine.bot",
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
    "nardy.tui.numbering": "nardy.terminal.numbering",
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
        return importlib.import_module(new)

    def exec_module(self, module):
        pass  # the new module is loaded already


def install() -> None:
    """Put the old-path finder first on ``sys.meta_path`` (once)."""
    if not any(isinstance(f, _OldPaths) for f in sys.meta_path):
        sys.meta_path.insert(0, _OldPaths())
