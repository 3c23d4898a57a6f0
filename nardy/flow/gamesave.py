"""A game's saved state: :meth:`GamePersistence.to_dict` writes it and :meth:`GamePersistence.from_dict` rebuilds
it (checked whole by :mod:`nardy.flow.saved` first), and the undo points of :meth:`GamePersistence.undo_turn` are
such states. :class:`nardy.flow.game.Game` is a :class:`GamePersistence`.
"""

from __future__ import annotations

import json
import logging
from typing import Self

from ..rules.dice import dice_from_dict
from ..rules.errors import UNEXPECTED_LOAD_ERRORS, GameStateError
from ..rules.lastroll import LastRollPosition
from ..rules.notation import Step
from ..rules.position import Position, check_dice
from .cube import Cube
from .events import PHASES, GameResult, Phase, event_from_dict
from .saved import Checker, check_game_dict, drawn_position, trusted_game_dict
from .turn import TurnEntry, event_steps

log = logging.getLogger("nardy")

__all__ = ["GamePersistence"]


class GamePersistence:
    """What makes a :class:`~nardy.flow.game.Game` saved and resumed: its state as JSON-able data (version 1),
    the undo points, and the rebuilding of a saved game (the game's own attributes: position, turn, dice,
    phase, cube, partial turn, history)."""

    # ----- undo and persistence -----------------------------------------------------------------
    def _state(self, with_dice: bool = False) -> dict:
        pos = self.position
        return {
            "position": pos.id(),
            "first_turn": list(pos.first_turn),
            "turn": self.turn,
            "dice": list(self.dice) if self.dice else None,
            "phase": self.phase.value,
            "starter": self.starter,
            "cube": self._cube.to_dict(),
            "crawford": self.crawford,
            "result": self.result.to_dict() if self.result else None,
            "steps": [[list(s) for s in event_steps(g)] for g in self._turn.groups] if self._turn else [],
            "resign": list(self._resign) if self._resign else None,
            "resume": self._resume.value if self._resume else None,
            "last_roll": self._last_roll,
            "dice_source": (self.dice_source.to_dict() if with_dice and hasattr(self.dice_source, "to_dict") else None),
        }

    def _load(self, st: dict):
        if st["phase"] == "over" and st["result"] and st["result"]["reason"] == "draw":
            pos = drawn_position(self.rules)  # both sides borne off: not a position to play from
        else:
            pos = Position.from_id(st["position"], self.rules, first_turn=tuple(st["first_turn"]))
        self._last_roll = bool(st["last_roll"])
        if self._last_roll:
            pos = LastRollPosition(pos._b, pos.rules, pos.first_turn)
        self.position = pos
        if st["phase"] not in PHASES:
            raise GameStateError(f"saved phase {st['phase']!r}: expected one of {', '.join(PHASES)}")
        unstarted = st["phase"] == "opening"
        if (st["turn"] not in (0, 1) and not (unstarted and st["turn"] is None)) or st["starter"] not in (0, 1, None):
            raise GameStateError(f"saved turn {st['turn']!r} / starter {st['starter']!r}: expected 0 or 1")
        self.turn = st["turn"]
        self.dice = check_dice(tuple(st["dice"])) if st["dice"] else None
        if self.dice is None and st["phase"] in ("move", "resign") and st["result"] is None and st["steps"]:
            raise GameStateError("saved game has steps of a turn but no dice")
        self.phase = Phase(st["phase"])
        self.starter = st["starter"]
        self._cube = Cube.from_dict(st["cube"])
        self.crawford = st["crawford"]
        self.result = GameResult.from_dict(st["result"]) if st["result"] else None
        self._resign = tuple(st["resign"]) if st["resign"] else None
        self._resume = Phase(st["resume"]) if st["resume"] else None
        if st.get("dice_source") is not None and hasattr(self.dice_source, "set_state"):
            self.dice_source.set_state(st["dice_source"]["state"])
        self._turn = None
        self._plays = None
        if self.dice is not None and self.phase in ("move", "resign") and self.result is None:
            self._plays = self.position.legal_plays(self.dice)
            self._turn = TurnEntry(self.position, self.dice, self._plays)
            for g in st["steps"]:
                self._turn.groups.append([Step(int(a), int(b), int(c), bool(d)) for a, b, c, d in g])

    def _snapshot(self):
        self._undo.append((len(self.history), json.dumps(self._state(), separators=(",", ":"))))

    def undo_turn(self) -> None:
        """Take back the current turn's actions, or, when none were taken yet, the whole previous
        turn (for analysis and replay); a finished game is reopened. The dice source is not rewound:
        pass dice to :meth:`roll` to roll the same dice again.

        Raises GameStateError: nothing to take back (the game has not started or is at its start).
        """
        if not self._undo:
            raise GameStateError("nothing to undo: the game has not started", code="nothing_to_undo")
        hist, state = self._undo[-1]
        if len(self.history) == hist and self.result is None:
            if len(self._undo) == 1:
                raise GameStateError("nothing to undo: the game is at its first turn", code="nothing_to_undo")
            self._undo.pop()
            hist, state = self._undo[-1]
        del self.history[hist:]
        self._load(json.loads(state))

    def to_dict(self) -> dict:
        """The whole game as JSON-able data; :meth:`from_dict` resumes it exactly (dice source state,
        cube, whose turn, steps of a partial turn, history, undo points)."""
        return {
            "version": 1,
            "rules": {"name": self.rules.name, **self.rules.options()},
            "players": list(self.players),
            "jacoby": self.jacoby,
            "state": self._state(with_dice=True),
            "history": [e.to_dict() for e in self.history],
            "undo": [{"hist": h, "state": json.loads(st)} for h, st in self._undo],
        }

    @classmethod
    def from_dict(cls, d: dict, dice=None, *, check: bool = True) -> Self:
        """Rebuild a game saved with :meth:`to_dict`.

        The data is checked whole first (see :mod:`nardy.flow.saved`): every field by type and range, the
        state as a whole (the position, what the phase needs, the result, the cube, the partial turn's
        steps replayed through the rules), the history by the turn grammar, ending at the saved state,
        and the undo points.

        Args:
            d: the saved data.
            dice: a dice source to use instead of the saved one (the saved state is then not applied).
            check: ``False`` for data this program wrote itself (a stored row of the web server): the same
                game is built without the checks (:func:`nardy.flow.saved.trusted_game_dict`).
        Raises:
            GameStateError: the data is not a saved game, or not one of a game played by the rules; the
                message names the field and quotes the value.
        """
        return cls._from_saved(d, dice, Checker("game"), check)

    @classmethod
    def _from_saved(cls, d, dice, checker, check: bool = True) -> Self:
        what = f"not a saved {checker.what}: {checker.base}"
        try:
            ok = check_game_dict(d, checker) if check else trusted_game_dict(d)
            st = ok["state"]
            cube = st["cube"]
            src = dice if dice is not None else (dice_from_dict(st["dice_source"]) if st["dice_source"] else None)
            g = cls(
                ok["rules"],
                dice=src,
                cube=cube["enabled"],
                crawford=st["crawford"],
                jacoby=ok["jacoby"],
                beavers=cube["beavers"],
                cube_limit=cube["limit"],
                players=ok["players"],
            )
            g.history = [event_from_dict(e) for e in ok["history"]]
            g._undo = [(u["hist"], json.dumps(u["state"], separators=(",", ":"))) for u in ok["undo"]]
            if dice is not None:
                st = dict(st, dice_source=None)
            g._load(st)
        except GameStateError:
            raise
        except UNEXPECTED_LOAD_ERRORS as e:  # not expected after the checks: a last safety net
            # the exception's text could name internals: it goes to the log, not into the message
            log.warning("saved data passed the checks but failed to load: %r", e)
            raise GameStateError(f"{what}inconsistent data") from None
        return g
