"""The glue between the web app and the game: a saved :class:`~nardy.match.Match` with its web settings.

A *session* is what the page calls a saved game: a match (to N points, or a money session with
``length=0``) of one of the three games, two players of whom each is a person at this device or the
computer (a :class:`~nardy.bots.Bot` at a level), and the page's settings. Everything is rebuilt from
the stored JSON on every request (a few milliseconds), so the server keeps no game in memory.

The page gets a *view* (:meth:`Session.game_view`, a :class:`~nardy.web.view.GameView`) from a fixed
viewer's side: the board as 24 signed counts in the viewer's numbering (+ the viewer's checkers, - the
other side's), bar and off as ``[viewer, other]``, pips, dice and the dice still to play, cube, score,
the legal next steps of a person to act (``moves``: ``{from: [to, ...]}``, viewer numbering, 25 = the
mover's bar, 0 = the mover's off), the actions open to that person, point labels in the chosen
numbering, the last play and the history; ``position_id`` is the Position ID from the view of the
player on turn (before this turn's steps), for API clients that want ``/api/move`` or ``/api/eval`` on
it. The page sends actions back (:meth:`Session.act`); the rules are checked here by
:class:`~nardy.game.Game`, never by the page.
"""

from __future__ import annotations

from .. import table as _table
from ..bots.bot import BOT_LEVELS
from ..dice import DiceSource, SystemDice
from ..errors import GameStateError, InvalidOptionError
from ..events import (
    BeaverEvent,
    DoubleEvent,
    EndEvent,
    OpeningEvent,
    PassEvent,
    PlayEvent,
    ResignEvent,
    RollEvent,
    TakeEvent,
)
from ..match import Match
from ..notation import Step, format_steps
from ..numbering import NUMBERINGS, WHITE, check_numbering, label_fn, view_point
from ..rules import get_rules
from ..table import ACTIONS, Seat, SeatKind, Table
from .view import BoardView, CubeView, GameView, LastPlay, Resignation, ResultView, RulesView

__all__ = ["Session", "new_session", "NUMBERINGS", "ACTIONS", "BOT_LEVELS"]

#: Seconds one decision of the computer may search before it plays its best so far (a server bound; the
#: usual grandmaster decision takes well under a tenth of this).
BOT_MOVE_BUDGET = _table.BOT_MOVE_BUDGET


def _to_viewer(p: int, mover: int, viewer: int, hitting: bool) -> int:
    """A mover point (0 off, 25 bar, 1..24) in the viewer's numbering (0/25 stay: mover's off/bar)."""
    return view_point(p, mover, viewer, hitting)


# the map is its own inverse (25 - p, and +12 mod 24)
_from_viewer = _to_viewer


def _numbering_fn(numbering: str, game: str, player: int):
    """A point-label function for ``format_steps`` for plays of ``player`` (own numbering in, label out);
    ``None`` for own numbers (``own``, or a numbering the game does not have).

    The page's ``traditional`` labels every side's points as :mod:`nardy.numbering` labels White's (the
    side's own half 1-12, the other half 01-012), where ``nardy play`` keeps seed 003's fixed board."""
    if numbering == "own" or numbering not in NUMBERINGS[game]:
        return None
    return label_fn(numbering, WHITE if numbering == "traditional" else player)


def _labels(numbering: str, game: str, viewer: int) -> list[str]:
    fn = _numbering_fn(numbering, game, viewer)
    return [str(fn(p) if fn else p) for p in range(1, 25)]


def _check_numbering(numbering: str, game: str) -> str:
    if numbering is None:
        return "own"
    return check_numbering(numbering, game)


def new_session(
    game: str = "backgammon",
    *,
    length: int = 0,
    opponent: str = "bot",
    level: str = "advanced",
    colour: str = "white",
    options: dict | None = None,
    players=None,
    seed=None,
    auto_roll: bool = True,
    crawford: bool = True,
    jacoby: bool = False,
    beavers: bool = False,
    cube_limit: int | None = None,
    run: bool = True,
) -> Session:
    """Start a match and play the opening (and the computer's first turn if it starts, unless ``run`` is
    False: then the caller calls :meth:`Session.run_bots`, as a server does on its computer workers).

    Args:
        game: backgammon, short, long (or an alias).
        length: match length in points, 0 for a money session (games follow one another without end).
        opponent: ``"bot"`` (the computer at ``level``) or ``"human"`` (a second person at this device).
        colour: the person's side against the computer: ``"white"`` (player 0), ``"black"`` or ``"random"``.
        options: rules options with docs/rules.md names (cube, opening, last-roll, head-exception,
            strict-bear-off, scoring).
        players: two names (default: the colours, or ``Player`` and ``nardy (level)``).
        seed: seed of the dice and of the computer's choices (reproducible games); ``None`` for random.
        auto_roll: roll for a person by itself when doubling is not possible.
    Raises:
        InvalidOptionError / UnknownGameError: bad settings.
    """
    rules = get_rules(game, **(options or {}))
    if opponent not in ("bot", "human"):
        raise InvalidOptionError(f"opponent {opponent!r}: expected bot or human")
    if level not in BOT_LEVELS:
        raise InvalidOptionError(f"level {level!r}: expected one of {', '.join(BOT_LEVELS)}")
    if colour not in ("white", "black", "random"):
        raise InvalidOptionError(f"colour {colour!r}: expected white, black or random")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise InvalidOptionError(f"seed {seed!r}: expected an integer")
    # a game played for real rolls the operating system's dice (nothing to predict); a seed gives
    # reproducible dice, for analysis and tests
    dice = SystemDice() if seed is None else DiceSource(seed)
    if colour == "random":
        colour = "white" if (SystemDice() if seed is None else DiceSource(seed + 1)).roll_one() <= 3 else "black"
    me = 0 if colour == "white" else 1
    if opponent == "bot":
        humans = [True, True]
        humans[1 - me] = False
    else:
        humans = [True, True]
    if players is None:
        if opponent == "human":
            players = ("White", "Black")
        else:
            names = ["Player", "Player"]
            names[1 - me] = f"nardy-{level}"
            players = tuple(names)
    players = tuple(str(p).strip() or f"Player{i + 1}" for i, p in enumerate(players))
    if len(players) != 2:
        raise InvalidOptionError(f"players {players!r}: expected two names")
    match = Match(
        rules,
        length=length,
        dice=dice,
        jacoby=jacoby,
        beavers=beavers,
        cube_limit=cube_limit,
        crawford=crawford,
        players=players,
    )
    seats = tuple(
        Seat(SeatKind.PERSON, players[i]) if humans[i] else Seat(SeatKind.COMPUTER, players[i], level=level)
        for i in (0, 1)
    )
    table = Table(match, seats, auto_roll=auto_roll, seed=seed)
    s = Session(table, {"viewer": me if opponent == "bot" else 0, "opponent": opponent, "level": level})
    table.start()
    if run:
        s.run_bots()
    return s


class Session:
    """A :class:`~nardy.table.Table` with the page's settings (``viewer``: whose side the page shows by
    default; ``opponent``: ``bot``, ``human`` or ``online``; ``level``: the computer's level, for the list);
    see the module docstring."""

    def __init__(self, table: Table, settings: dict):
        self.table = table
        self.settings = settings

    @classmethod
    def from_match(cls, match: Match, settings: dict) -> Session:
        """A session from a match and the settings of a version 1 saved game (``humans``, ``level``,
        ``seed``, ``auto_roll``, ``viewer``, ``opponent``)."""
        level = settings.get("level", "advanced")
        seats = [
            Seat(SeatKind.PERSON, match.players[i])
            if settings["humans"][i]
            else Seat(SeatKind.COMPUTER, match.players[i], level=level)
            for i in (0, 1)
        ]
        table = Table(match, seats, auto_roll=settings.get("auto_roll", True), seed=settings.get("seed"))
        return cls(table, {"viewer": settings["viewer"], "opponent": settings.get("opponent", "bot"), "level": level})

    # ----- persistence --------------------------------------------------------------------------
    def to_dict(self) -> dict:
        return {"version": 2, "settings": dict(self.settings), "table": self.table.to_dict()}

    @classmethod
    def from_dict(cls, d: dict) -> Session:
        """Rebuild a saved game: version 2 (a table), or version 1 (a match and its settings).

        Raises:
            GameStateError: not a saved game (or the match's own checks)."""
        try:
            if d.get("version") == 2:
                st = d["settings"]
                if not isinstance(st, dict) or st.get("viewer") not in (0, 1):
                    raise GameStateError(f"not a saved game: settings {st!r:.80}")
                return cls(Table.from_dict(d["table"]), dict(st))
            return cls.from_match(Match.from_dict(d["match"]), dict(d["settings"]))
        except (KeyError, TypeError, AttributeError) as e:
            raise GameStateError(f"not a saved game: {e!r}") from None

    @property
    def match(self) -> Match:
        return self.table.match

    @property
    def game(self):
        return self.table.game

    @property
    def humans(self) -> list[bool]:
        return [s.human for s in self.table.seats]

    @property
    def seed(self):
        """The seed of the dice and the computer, or ``None`` (never shown to a client)."""
        return self.table.seed

    def record_settings(self) -> dict:
        """The settings a record shows: who is a person, the level, the automatic roll, whether seeded (never
        the seed: it would tell the dice)."""
        return {
            "humans": self.humans,
            "level": self.settings.get("level", "advanced"),
            "auto_roll": self.table.auto_roll,
            "viewer": self.settings["viewer"],
            "opponent": self.settings.get("opponent", "bot"),
            "seeded": self.table.seed is not None,
        }

    @property
    def status(self) -> str:
        """``waiting`` (an empty seat), ``playing``, ``game-over`` (a next game may follow) or ``over``."""
        return self.table.status

    def summary(self) -> dict:
        """What the list of saved games shows."""
        g = self.game
        return {
            "game": self.match.rules.name,
            "players": [s.name for s in self.table.seats],
            "humans": self.humans,
            "level": self.settings.get("level", "advanced"),
            "opponent": self.settings.get("opponent", "bot"),
            "length": self.match.length,
            "score": list(self.match.score),
            "games": len(self.match.games),
            "phase": g.phase if g else None,
            "to_act": g.to_act if g else None,
            "status": self.status,
            "winner": self.table.winner,
            "result": g.result.to_dict() if (g is not None and g.result) else None,
        }

    def title(self) -> str:
        p = self.table.seats
        return f"{self.match.rules.name}: {p[0].name} - {p[1].name}"

    # ----- the computer -------------------------------------------------------------------------
    def bots_to_act(self) -> bool:
        """True when :meth:`run_bots` has something to do: the computer (or an automatic roll) acts next."""
        return self.table.computer_to_act()

    def run_bots(self, deadline=None) -> int:
        """Let the computer act until a person must act (:meth:`nardy.table.Table.advance`); returns the number
        of actions taken."""
        return self.table.advance(deadline)

    # ----- actions ------------------------------------------------------------------------------
    def act(
        self,
        action: str,
        *,
        frm: int | None = None,
        to: int | None = None,
        die: int | None = None,
        play: str | None = None,
        level=None,
        player: int | None = None,
        viewer: int | None = None,
        run: bool = True,
    ) -> dict:
        """Apply a person's action (:meth:`nardy.table.Table.act`), then let the computer answer (unless
        ``run`` is False: then the caller calls :meth:`run_bots`). Returns a short note of what was done.

        ``frm``/``to`` of a step are in the ``viewer``'s numbering (default: the session's viewer),
        25 = the mover's bar, 0 = off; ``play`` is notation in the mover's own numbering.

        Raises:
            GameStateError: not allowed now (wrong phase, out of turn, the computer's side...).
            IllegalPlayError / NotationError: a step or play that no legal play continues.
            InvalidOptionError: an unknown action.
        """
        if action not in ACTIONS:
            raise InvalidOptionError(f"unknown action {action!r}: expected one of {', '.join(ACTIONS)}")
        g = self.game
        if action == "step" and g is not None and frm is not None and to is not None and g.turn is not None:
            v = self.settings["viewer"] if viewer is None else viewer
            hitting = self.match.rules.hitting
            ok = all(not isinstance(x, bool) and isinstance(x, int) and 0 <= x <= 25 for x in (frm, to))
            if ok:
                frm, to = _from_viewer(frm, g.turn, v, hitting), _from_viewer(to, g.turn, v, hitting)
        if action == "play" and not isinstance(play, str):
            play = None
        self.table.act(player, action, frm=frm, to=to, die=die, play=play, level=level)
        if run:
            self.run_bots()
        return {"action": action}

    def wording(self, numbering: str = "own", viewer: int | None = None) -> dict:
        """How to word a refusal of this game for the page (keyword arguments of
        :func:`nardy.messages.describe`): the mover's points labelled as ``viewer``'s board shows them in
        ``numbering``, plays as the history writes them, the players' names."""
        from ..tui.numbering import Numbering

        g = self.game
        game = self.match.rules.name
        numbering = numbering if numbering in NUMBERINGS[game] else "own"
        v = self.settings["viewer"] if viewer not in (0, 1) else viewer
        mover = g.turn if (g is not None and g.turn is not None) else v
        num = Numbering(numbering, game)
        hitting = self.match.rules.hitting
        return {
            "label": lambda p: num.label(v, _to_viewer(p, mover, v, hitting)),
            "relabel": lambda text: num.relabel(text, mover),
            "names": tuple(self.match.players),
        }

    # ----- hints --------------------------------------------------------------------------------
    def hints(self, n: int = 5, level: str = "grandmaster", numbering: str = "own", deadline=None) -> dict:
        """The best plays for the roll (phase ``move``), or the cube decision (phase ``roll``/``double``),
        for the side to act. ``deadline`` (a :class:`~nardy.bots.search.Deadline`) bounds the search:
        ``complete`` is False when it cut the search short (plays not reached keep a shallower ``ply``)."""
        from ..bots import Bot

        g = self.game
        numbering = _check_numbering(numbering, self.match.rules.name)
        if level not in BOT_LEVELS:
            raise InvalidOptionError(f"level {level!r}: expected one of {', '.join(BOT_LEVELS)}")
        if g is None or g.phase not in ("move", "roll", "double"):
            raise GameStateError(
                f"no hint in phase {str(g.phase) if g else None!r}: hints are for a roll or a double",
                code="no_hint",
                params={"phase": str(g.phase) if g else None},
            )
        bot = Bot(self.match.rules, level=level, seed=0)
        if g.phase == "move":
            hs = bot.hints(g.position, g.dice, n=n, deadline=deadline)
            fn = _numbering_fn(numbering, self.match.rules.name, g.turn)
            return {
                "kind": "plays",
                "player": g.turn,
                "dice": list(g.dice),
                "complete": not (deadline is not None and deadline.hit),
                "plays": [
                    {
                        "play": str(h.play),
                        "text": format_steps(h.play.steps, fn),
                        "equity": round(h.equity, 4),
                        "loss": round(h.loss, 4),
                        "ply": h.ply,
                        "probabilities": {k: round(x, 4) for k, x in h.probabilities.as_dict().items()},
                    }
                    for h in hs
                ],
            }
        d = bot.cube_action(self.match)
        return {
            "kind": "cube",
            "complete": True,
            "player": g.to_act,
            "action": d.action,
            "double": d.double,
            "take": d.take,
            "reason": d.reason,
            "equities": {k: round(float(x), 4) for k, x in d.equities.items()},
            "probabilities": {k: round(x, 4) for k, x in d.probabilities.as_dict().items()},
        }

    # ----- the page's view ----------------------------------------------------------------------
    def game_view(self, viewer: int | None = None, numbering: str = "own") -> GameView:
        """Everything the page draws, from ``viewer``'s side (see the module docstring and
        :class:`~nardy.web.view.GameView`)."""
        m = self.match
        g = self.game
        rules = m.rules
        game = rules.name
        numbering = _check_numbering(numbering, game)
        v = self.settings["viewer"] if viewer is None else viewer
        if v not in (0, 1):
            raise GameStateError(f"viewer {viewer!r}: expected 0 or 1")
        humans = self.humans
        pos = g.position_for(v)
        a = [int(x) for x in pos.array]
        pips = pos.pip_count()
        to_act = g.to_act
        human_to_act = to_act is not None and humans[to_act]
        moves, can_confirm, dice_left, steps_text = self._turn_view(v, numbering, human_to_act)
        res = g.result
        cube = g.cube
        return GameView(
            game=game,
            rules=RulesView.model_validate({"name": game, **rules.options()}),
            result_names=list(rules.result_names),
            length=m.length,
            players=list(m.players),
            humans=humans,
            level=self.settings.get("level", "advanced"),
            viewer=v,
            numbering=numbering,
            numberings=list(NUMBERINGS[game]),
            labels=_labels(numbering, game, v),
            score=list(m.score),
            game_number=len(m.games),
            crawford=g.crawford,
            match_over=self.table.is_over,
            match_winner=self.table.winner,
            status=self.status,
            phase=g.phase,
            turn=g.turn,
            to_act=to_act,
            human_to_act=human_to_act,
            position_id=g.position.id(),
            dice=list(g.dice) if g.dice else None,
            dice_left=dice_left,
            board=BoardView(points=[0] + a[1:25], bar=[a[25], a[26]], off=[a[0], a[27]]),
            pips=[pips[0], pips[1]],
            cube=CubeView(enabled=cube.enabled, value=cube.value, owner=cube.owner, offered_by=cube.offered_by),
            moves=moves,
            can_confirm=can_confirm,
            steps=steps_text,
            actions=self._actions(human_to_act, can_confirm),
            resignation=(
                Resignation(
                    player=g.resignation[0],
                    level=g.resignation[1],
                    level_name=rules.result_names[g.resignation[1]],
                )
                if g.resignation
                else None
            ),
            result=ResultView(**res.to_dict()) if res else None,
            last_play=self._last_play(v, numbering),
            history=self.history(numbering),
        )

    def view(self, viewer: int | None = None, numbering: str = "own") -> dict:
        """:meth:`game_view` as a dict (the JSON the page gets, but ``phase`` a :class:`~nardy.events.Phase`)."""
        return self.game_view(viewer, numbering).model_dump(by_alias=True)

    def _turn_view(self, v: int, numbering: str, human_to_act: bool) -> tuple[dict[str, list[int]], bool, list, str]:
        """The turn being entered: the next steps of a person to act (``{from: [to, ...]}``, ``v``'s
        numbering), whether :meth:`~nardy.game.Game.confirm` would end the turn now (the steps taken are a
        complete legal play), the dice left and the steps so far in notation."""
        g = self.game
        game = self.match.rules.name
        hitting = self.match.rules.hitting
        moves: dict[str, list[int]] = {}
        steps_text = ""
        if g.phase == "move":
            steps_text = format_steps(g.steps_taken, _numbering_fn(numbering, game, g.turn))
            if human_to_act:
                for frm, to in g.legal_steps():
                    moves.setdefault(str(_to_viewer(frm, g.turn, v, hitting)), []).append(
                        _to_viewer(to, g.turn, v, hitting)
                    )
        # what the game accepts: the steps taken are a complete legal play (further steps may still be
        # possible: short nardy's 6/off with 6-4 is also the play 6/2/off)
        can_confirm = human_to_act and g.can_confirm()
        return moves, can_confirm, g.dice_left, steps_text

    def _actions(self, human_to_act: bool, can_confirm: bool) -> list[str]:
        """What the page offers now: the actions of a person to act, ``hint``, ``resign``, ``next``."""
        g = self.game
        humans = self.humans
        actions: list[str] = []
        if human_to_act:
            if g.phase == "roll":
                actions.append("roll")
                if g.may_double(g.to_act):
                    actions.append("double")
            elif g.phase == "double":
                actions += ["take", "drop"] + (["beaver"] if g.cube.beavers else [])
            elif g.phase == "resign":
                actions += ["accept", "decline"]
            elif g.phase == "move":
                if g.steps_taken:
                    actions.append("undo")
                if can_confirm:
                    actions.append("confirm")
            if g.phase in ("roll", "move", "double"):
                actions += ["hint", "resign"]
        elif g.phase in ("roll", "move", "double") and any(humans):
            actions.append("resign")
        if g.is_over and not self.table.is_over and not self.table.auto_next:
            actions.append("next")
        return actions

    def _last_play(self, v: int, numbering: str) -> LastPlay | None:
        """The current game's last play or pass, steps in ``v``'s numbering."""
        g = self.game
        game = self.match.rules.name
        hitting = self.match.rules.hitting
        for e in reversed(g.history):
            if isinstance(e, (PlayEvent, PassEvent)):
                pl = e.player
                steps = [Step(*s) for s in getattr(e, "steps", ())]
                return LastPlay(
                    player=pl,
                    dice=list(e.dice),
                    text=format_steps(steps, _numbering_fn(numbering, game, pl)),
                    steps=[[_to_viewer(s.frm, pl, v, hitting), _to_viewer(s.to, pl, v, hitting)] for s in steps],
                )
        return None

    def history(self, numbering: str = "own") -> list[dict]:
        """The current game's events for the list of plays: ``{"kind", "player", ...}``; plays carry
        ``dice`` and ``text`` (notation in ``numbering``, from the mover's side)."""
        g = self.game
        game = self.match.rules.name
        out = []
        for e in g.history:
            if isinstance(e, RollEvent):
                continue
            item: dict = {"kind": e.type}
            if hasattr(e, "player"):
                item["player"] = e.player
            match e:
                case OpeningEvent():
                    item.update(player=e.starter, dice=list(e.dice or (e.rolls[-1] if e.rolls else ())) or None)
                case PlayEvent() | PassEvent():
                    steps = [Step(*s) for s in getattr(e, "steps", ())]
                    item.update(dice=list(e.dice), text=format_steps(steps, _numbering_fn(numbering, game, e.player)))
                case DoubleEvent() | TakeEvent() | BeaverEvent():
                    item["value"] = e.value
                case ResignEvent():
                    item.update(level=e.level, level_name=e.level_name)
                case EndEvent():
                    item.update(winner=e.winner, points=e.points, level_name=e.level_name, reason=e.reason)
            out.append(item)
        return out
