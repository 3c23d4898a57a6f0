"""The glue between the web app and the game: a saved :class:`~nardy.flow.match.Match` with its web settings.

A *session* is what the page calls a saved game: a match (to N points, or a money session with
``length=0``) of one of the three games, two players of whom each is a person at this device or the
computer (a :class:`~nardy.flow.bot.Bot` at a level), and the page's settings. It is stored as JSON
(:meth:`HostedGame.to_dict`) and, for an online game, as the log of its actions after that (:meth:`HostedGame.act`'s
``entry``, applied again by :meth:`HostedGame.replay`); the server keeps the games it has loaded
(:mod:`nardy.web.gamecache`).

The page gets a *view* (:meth:`HostedGame.game_view`, a :class:`~nardy.web.view.GameView`) from a fixed
viewer's side: the board as 24 signed counts in the viewer's numbering (+ the viewer's checkers, - the
other side's), bar and off as ``[viewer, other]``, pips, dice and the dice still to play, cube, score,
the legal next steps of a person to act (``moves``: ``{from: [to, ...]}``, viewer numbering, 25 = the
mover's bar, 0 = the mover's off), the actions open to that person, point labels in the chosen
numbering, the last play and the history; ``position_id`` is the Position ID from the view of the
player on turn (before this turn's steps), for API clients that want ``/api/move`` or ``/api/eval`` on
it. The page sends actions back (:meth:`HostedGame.act`); the rules are checked here by
:class:`~nardy.flow.game.Game`, never by the page.
"""

from __future__ import annotations

import json
import time

from ..engine.bot import BOT_LEVELS
from ..flow import table as _table
from ..flow.bot import Bot, bot_player
from ..flow.clock import Clock, clock_spec
from ..flow.events import (
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
from ..flow.game import Game
from ..flow.hints import hints_for
from ..flow.match import Match
from ..flow.table import ACTIONS, Seat, SeatKind, Table
from ..rules import fairdice
from ..rules.dice import DiceSource, FixedDice, SystemDice
from ..rules.errors import GameStateError, InvalidOptionError
from ..rules.notation import Step, format_steps
from ..rules.numbering import NUMBERINGS, WHITE, check_numbering, label_fn, view_point
from ..rules.variants import get_rules
from . import seeds
from .seating import HostedSeats
from .view import (
    HISTORY_ITEM,
    BoardView,
    ClockView,
    CubeView,
    GameView,
    LastPlay,
    MatchSettings,
    OnlineView,
    Refusal,
    Resignation,
    ResultView,
    RulesView,
    SeatView,
)

__all__ = ["HostedGame", "new_session", "ACTIONS", "BOT_LEVELS"]

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

    The page's ``traditional`` labels every side's points as :mod:`nardy.rules.numbering` labels White's (the
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
    level: str = "grandmaster",
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
    owner: str | None = None,
    client_seed: str | None = None,
    clock=None,
    watchers: bool = False,
    own_seed: bool = False,
    start: dict | None = None,
) -> HostedGame:
    """Start a match and play the opening (and the computer's first turn if it starts, unless ``run`` is
    False: then the caller calls :meth:`HostedGame.run_bots`, as a server does on its computer workers).

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
        owner: the player id of who starts the game (it belongs to them; ``None``: nobody's, in-process use).
        client_seed: an online game: a seed for the owner's seat made by the caller (in-process use: the
            record counts it as the server's, since it was not given after the commitment).
        own_seed: an online game: the owner gives their own seed after seeing the commitment
            (:func:`nardy.web.seeds.give_seed`); else the server makes it (:mod:`nardy.web.seeds`).
        clock: an online game's clock: a preset name or ``{"initial", "increment", "delay"}`` seconds
            (:func:`nardy.flow.clock.clock_spec`), or ``None``.
        watchers: an online game: others may watch it.
        start: begin the match at a set-up position instead of the opening (against the computer or a second
            person at this device): ``{"setup": new_game_from's arguments (position, turn, dice, cube_value,
            cube_owner), "score": (player 0, player 1), "post_crawford": bool}``
            (:meth:`nardy.flow.match.Match.new_game_from`; the web's ``POST /api/games`` with ``start``).

    ``opponent="online"`` makes a game for a person elsewhere: the owner sits at ``colour`` (a remote seat with
    their id), the other seat waits for whoever opens the invitation; the dice are provably fair (the server
    seed's commitment is published now, the seed itself when the match is over); nothing is rolled until the
    other seat is taken and both seeds are in (:meth:`HostedGame.join`, :mod:`nardy.web.seeds`).
    Raises:
        InvalidOptionError / UnknownGameError: bad settings.
    """
    rules = get_rules(game, **(options or {}))
    if opponent not in ("bot", "human", "online"):
        raise InvalidOptionError(f"opponent {opponent!r}: expected bot, human or online")
    if start is not None and opponent == "online":
        raise InvalidOptionError(
            "start: an online game begins with the opening (its dice are provably fair from the first roll); "
            "a set-up position is played against the computer or at this device",
            code="start_online",
        )
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
        if opponent == "online":
            players = ("White", "Black")
        elif opponent == "human":
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
        start_score=start["score"] if start else (0, 0),
        start_post_crawford=bool(start and start.get("post_crawford")),
    )
    settings: dict = {"viewer": me if opponent != "human" else 0, "opponent": opponent, "level": level, "owner": owner}
    if opponent == "online":
        if owner is None:
            raise InvalidOptionError("an online game needs its owner's player id")
        seats = [Seat(SeatKind.REMOTE, "?"), Seat(SeatKind.REMOTE, "?")]
        seats[me] = Seat(SeatKind.REMOTE, players[me], player=owner)
        made = time.time()
        fair = seeds.new_fair(made)
        seeds.seat(fair, me, own_seed, made, client_seed)
        settings.update(watchers=bool(watchers), fair=fair)
        spec = clock_spec(clock)
        table = Table(
            match,
            seats,
            clock=Clock(spec) if spec else None,
            auto_roll=True,
            auto_next=True,
            seed=None,
            computer=bot_player,
        )
        table.log.append({"n": 0, "t": round(time.time(), 3), "type": "seat", "side": me, "name": players[me]})
        return HostedGame(table, settings)
    seats = tuple(
        Seat(SeatKind.PERSON, players[i]) if humans[i] else Seat(SeatKind.COMPUTER, players[i], level=level)
        for i in (0, 1)
    )
    table = Table(match, seats, auto_roll=auto_roll, seed=seed, computer=bot_player)
    s = HostedGame(table, settings)
    table.start(setup=start["setup"] if start else None)
    if run:
        s.run_bots()
    return s


class HostedGame(HostedSeats):
    """A :class:`~nardy.flow.table.Table` with the page's settings (``viewer``: whose side the page shows by
    default; ``opponent``: ``bot``, ``human`` or ``online``; ``level``: the computer's level, for the list);
    see the module docstring."""

    def __init__(self, table: Table, settings: dict):
        self.table = table
        self.settings = settings
        #: numbering -> (game, events formatted, their items): :meth:`history` formats only the new events
        self._history: dict[str, tuple] = {}

    @classmethod
    def from_match(cls, match: Match, settings: dict) -> HostedGame:
        """A session from a match and the settings of a version 1 saved game (``humans``, ``level``,
        ``seed``, ``auto_roll``, ``viewer``, ``opponent``)."""
        level = settings.get("level", "advanced")
        seats = [
            Seat(SeatKind.PERSON, match.players[i])
            if settings["humans"][i]
            else Seat(SeatKind.COMPUTER, match.players[i], level=level)
            for i in (0, 1)
        ]
        table = Table(
            match, seats, auto_roll=settings.get("auto_roll", True), seed=settings.get("seed"), computer=bot_player
        )
        return cls(table, {"viewer": settings["viewer"], "opponent": settings.get("opponent", "bot"), "level": level})

    # ----- persistence --------------------------------------------------------------------------
    def to_dict(self) -> dict:
        return {"version": 2, "settings": dict(self.settings), "table": self.table.to_dict()}

    @classmethod
    def from_dict(cls, d: dict, *, check: bool = True) -> HostedGame:
        """Rebuild a saved game: version 2 (a table), or version 1 (a match and its settings). ``check=False``:
        a row this server stored itself (:func:`nardy.web.gamecache.materialise`): the game is built without
        re-checking it whole (:meth:`Match.from_dict`); what comes from outside is checked.

        Raises:
            GameStateError: not a saved game (or the match's own checks)."""
        try:
            if d.get("version") == 2:
                st = d["settings"]
                if not isinstance(st, dict) or st.get("viewer") not in (0, 1):
                    raise GameStateError(f"not a saved game: settings {st!r:.80}")
                return cls(Table.from_dict(d["table"], computer=bot_player, check=check), dict(st))
            return cls.from_match(Match.from_dict(d["match"], check=check), dict(d["settings"]))
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
        """``waiting`` (an empty seat, or a seed awaited), ``playing``, ``game-over`` (a next game may follow),
        ``over``, or ``cancelled``/``declined`` (an invitation that will not be played), ``aborted`` (the seeds
        did not come in time)."""
        return self.closed or ("waiting" if seeds.seeding(self) else self.table.status)

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
            "rated": self.rated,
        }

    def title(self) -> str:
        p = self.table.seats
        return f"{self.match.rules.name}: {p[0].name} - {p[1].name}"

    # ----- the computer -------------------------------------------------------------------------
    def bots_to_act(self) -> bool:
        """True when :meth:`run_bots` has something to do: the computer (or an automatic roll) acts next."""
        return self.table.computer_to_act()

    def run_bots(self, deadline=None, now: float | None = None) -> int:
        """Let the computer act until a person must act (:meth:`nardy.flow.table.Table.advance`); returns the number
        of actions taken. ``now``: the wall time the actions are made at (default: the time of each)."""
        return self.table.advance(deadline, now=now)

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
        now: float | None = None,
    ) -> dict:
        """Apply a person's action (:meth:`nardy.flow.table.Table.act`), then let the computer answer (unless
        ``run`` is False: then the caller calls :meth:`run_bots`). Returns a short note of what was done:
        ``{"action", "entry"}``, ``entry`` the action as the log stores it (:meth:`replay`: the table's own
        arguments and ``now``, the wall time it was made at, default the time now).

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
        now = time.time() if now is None else now
        self.table.act(player, action, frm=frm, to=to, die=die, play=play, level=level, now=now)
        entry: dict = {"action": action, "player": player, "t": now}
        for k, x in (("frm", frm), ("to", to), ("die", die), ("play", play), ("level", level)):
            if x is not None:
                entry[k] = x
        if run:
            self.run_bots(now=now)
        return {"action": action, "entry": entry}

    @property
    def loggable(self) -> bool:
        """Whether this game's actions can be stored as a log (:meth:`replay`): an online game, whose dice are
        the provably fair ones (a roll is the same when replayed) and whose seats are all people (no
        computer's choice to record)."""
        return (
            self.online
            and isinstance(self.match.dice_source, fairdice.FairDice)
            and all(seat.human for seat in self.table.seats)
        )

    def replay(self, entry: dict) -> None:
        """Apply a logged action (the ``entry`` of :meth:`act`) as it was made: the same action, arguments and
        time, then the automatic rolls that followed it (:meth:`run_bots` at the same time). Only for a
        :attr:`loggable` game, in the state the action was made on: the result is then the same game.

        Raises:
            GameStateError: not a loggable game, a malformed entry, or one the game refuses (the log does
                not belong to this state)."""
        if not self.loggable:
            raise GameStateError("only an online game's actions are replayed from a log", code="not_online")
        try:
            now = float(entry["t"])
            self.table.act(
                entry["player"],
                entry["action"],
                frm=entry.get("frm"),
                to=entry.get("to"),
                die=entry.get("die"),
                play=entry.get("play"),
                level=entry.get("level"),
                now=now,
            )
        except (KeyError, TypeError, ValueError) as e:
            raise GameStateError(f"not a logged action: {e!r:.80}") from None
        if self.bots_to_act():
            self.run_bots(now=now)

    def wording(self, numbering: str = "own", viewer: int | None = None) -> dict:
        """How to word a refusal of this game for the page (keyword arguments of
        :func:`nardy.texts.messages.describe`): the mover's points labelled as ``viewer``'s board shows them in
        ``numbering``, plays as the history writes them, the players' names."""
        from ..rules.numbering import Numbering

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
        for the side to act. ``deadline`` (a :class:`~nardy.engine.search.Deadline`) bounds the search:
        ``complete`` is False when it cut the search short (plays not reached keep a shallower ``ply``).
        The hint is flow's (:func:`nardy.flow.hints.hints_for`: long nardy's last roll ranked exactly)."""
        g = self.game
        numbering = _check_numbering(numbering, self.match.rules.name)
        if level not in BOT_LEVELS:
            raise InvalidOptionError(f"level {level!r}: expected one of {', '.join(BOT_LEVELS)}")
        found = hints_for(g, Bot(self.match.rules, level=level, seed=0), n=n, match=self.match, deadline=deadline)
        if found.last_roll:
            return self._last_roll_hints(g, found.plays, numbering)
        if found.kind == "plays":
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
                    for h in found.plays
                ],
            }
        d = found.cube
        return {
            "kind": "cube",
            "complete": True,
            "player": found.player,
            "action": d.action,
            "double": d.double,
            "take": d.take,
            "reason": d.reason,
            "equities": {k: round(float(x), 4) for k, x in d.equities.items()},
            "probabilities": {k: round(x, 4) for k, x in d.probabilities.as_dict().items()},
        }

    def _last_roll_hints(self, g, ranked, numbering: str) -> dict:
        """Hints for long nardy's last roll (:class:`~nardy.flow.hints.ExactHint`, ranked exactly): each play's
        result (a draw, or a loss at oyn or mars: the game ends with this play), so equity 0 for a draw and minus
        the points of the loss otherwise."""
        best = ranked[0].outcome[2]
        fn = _numbering_fn(numbering, self.match.rules.name, g.turn)
        plays = []
        for h in ranked:
            kind, level, pts = h.outcome
            draw = float(kind == "draw")
            probs = {"win": 0.0, "win_mars": 0.0, "lose_mars": float(kind == "lose" and level >= 1)}
            plays.append(
                {
                    "play": str(h.play),
                    "text": format_steps(h.play.steps, fn),
                    "equity": pts,
                    "loss": best - pts,
                    "ply": 0,
                    "probabilities": {**probs, "lose": 1.0 - draw, "draw": draw},
                }
            )
        return {
            "kind": "plays",
            "player": g.turn,
            "dice": list(g.dice),
            "complete": True,
            "last_roll": True,
            "plays": plays,
        }

    # ----- the page's view ----------------------------------------------------------------------
    def game_view(
        self,
        viewer: int | None = None,
        numbering: str = "own",
        sides: list[int] | None = None,
        now: float | None = None,
        for_json: bool = False,
    ) -> GameView:
        """Everything the page draws, from ``viewer``'s side (see the module docstring and
        :class:`~nardy.web.view.GameView`). ``sides``: the sides this viewer may act for (``None``: every
        person's side, a game at one screen); moves and actions are offered only to them. ``now``: wall time
        for the clock (default ``time.time()``). ``for_json``: the view is only to be written as JSON by
        :func:`~nardy.web.view.view_json` (the live channel): its ``history`` is left empty and the kept JSON
        text of the history goes with it instead (made once per event, not checked and written again for every
        view)."""
        m = self.match
        g = self.game
        if g is None:  # an online game waiting for its second player: the starting position, nothing to do
            g = Game(m.rules, dice=FixedDice([]), players=m.players)
        rules = m.rules
        game = rules.name
        numbering = _check_numbering(numbering, game)
        v = self.settings["viewer"] if viewer is None else viewer
        if v not in (0, 1):
            raise GameStateError(f"viewer {viewer!r}: expected 0 or 1")
        humans = self.humans
        mine = [i for i in (0, 1) if humans[i]] if sides is None else list(sides)
        pos = g.position_for(v)
        a = [int(x) for x in pos.array]
        pips = pos.pip_count()
        to_act = self.table.to_act
        human_to_act = to_act is not None and to_act in mine
        moves, can_confirm, dice_left, steps_text = self._turn_view(g, v, numbering, human_to_act)
        actions = self._actions(g, human_to_act, can_confirm, mine)
        res = g.result
        cube = g.cube
        history = self._history_text(numbering, g)
        view = GameView(
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
            actions=actions,
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
            last_play=self._last_play(g, v, numbering),
            history=[] if for_json else json.loads(history),
            seats=[
                SeatView(
                    name=x.name, kind=x.kind.value, taken=not x.empty, bot=x.player in self.settings.get("bots", ())
                )
                for x in self.table.seats
            ],
            you=mine,
            clock=self._clock_view(time.time() if now is None else now),
            online=self._online_view(mine),
            blocked=self._blocked(g, v, numbering) if moves else {},
            resign_points=[g.points_for(i) for i in range(len(rules.scoring))] if "resign" in actions else [],
            settings=MatchSettings(
                opponent=self.settings.get("opponent", "bot"),
                crawford=m.crawford_rule,
                jacoby=m.jacoby,
                beavers=m.beavers,
                cube_limit=m.cube_limit,
                auto_roll=self.table.auto_roll,
            ),
        )
        if for_json:
            view._history_json = history  # view_json writes the kept text (the same as the models' own)
        return view

    def _blocked(self, g, v: int, numbering: str) -> dict[str, list[Refusal]]:
        """The mover's checkers that no legal step moves now, and why for each die left
        (:func:`nardy.texts.refusals.step_refusal`: the rule the step breaks), in ``v``'s numbering; points in
        the params labelled as the view labels them."""
        from ..texts.refusals import step_refusal

        hitting = self.match.rules.hitting
        label = self.wording(numbering, v)["label"]
        a = g.partial_position.array.tolist()
        sources = {frm for frm, _ in g.legal_steps()}
        dice = sorted(set(g.dice_left), reverse=True)
        out: dict[str, list[Refusal]] = {}
        for frm in [25, *range(24, 0, -1)]:
            if frm in sources or a[frm] <= 0:
                continue
            seen: list[Refusal] = []
            for d in dice:
                code, params = step_refusal(g, frm, max(0, frm - d))
                if code == "distance":
                    continue
                shown: dict[str, str | int] = {}
                for k, x in params.items():
                    if k in ("point", "from", "to") and isinstance(x, int):
                        shown[k] = "bar" if x == 25 else "off" if x == 0 else label(x)
                    elif isinstance(x, (list, tuple)):
                        shown[k] = "-".join(str(y) for y in x)
                    else:
                        shown[k] = x
                r = Refusal(code=code, params=shown)
                if r not in seen:
                    seen.append(r)
            out[str(_to_viewer(frm, g.turn, v, hitting))] = seen or [Refusal(code="no_legal_play")]
        return out

    def _clock_view(self, now: float) -> ClockView | None:
        c = self.table.clock
        if c is None:
            return None
        delay_left = 0.0
        if c.running is not None and c.since is not None:
            delay_left = max(0.0, c.spec.delay - (now - c.since))
        return ClockView(
            remaining=[c.left(0, now), c.left(1, now)],
            running=c.running,
            initial=c.spec.initial,
            increment=c.spec.increment,
            delay=c.spec.delay,
            server_time=now,
            delay_left=delay_left,
            days=c.spec.days,
        )

    def _online_view(self, mine: list[int]) -> OnlineView | None:
        if not self.online:
            return None
        ended = self.table.ended
        owner = bool(mine) and self.owner is not None and self.table.side_of(self.owner) == mine
        return OnlineView(
            waiting=self.table.waiting and self.closed is None,
            closed=self.closed,
            watchers=self.watchable,
            commitment=self.settings["fair"]["commitment"],
            seed_wanted=any(seeds.awaited(self, i) for i in mine),
            seeds_due=seeds.due(self),
            rematch=self.settings.get("rematch"),
            ended={k: ended[k] for k in ("reason", "winner", "loser")} if ended else None,
            owner=owner,
            invite=self.settings.get("invite") if owner and self.table.waiting else None,
            rated=self.rated,
            rating_class=self.settings.get("rating_class") if self.rated else None,
            ratings=self.settings.get("ratings"),
            bots=[i for i, x in enumerate(self.table.seats) if x.player and x.player in self.settings.get("bots", ())],
        )

    def view(self, viewer: int | None = None, numbering: str = "own", sides=None, now: float | None = None) -> dict:
        """:meth:`game_view` as a dict (the JSON the page gets, but ``phase`` a :class:`~nardy.flow.events.Phase`)."""
        return self.game_view(viewer, numbering, sides, now).model_dump(by_alias=True)

    def _turn_view(self, g, v: int, numbering: str, human_to_act: bool) -> tuple[dict[str, list[int]], bool, list, str]:
        """The turn being entered: the next steps of a person to act (``{from: [to, ...]}``, ``v``'s
        numbering), whether :meth:`~nardy.flow.game.Game.confirm` would end the turn now (the steps taken are a
        complete legal play), the dice left and the steps so far in notation."""
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

    def _actions(self, g, human_to_act: bool, can_confirm: bool, mine: list[int]) -> list[str]:
        """What the page offers now: the actions of a person to act, ``hint`` (not in online games),
        ``resign``, ``next``."""
        actions: list[str] = []
        if self.table.is_over or self.table.waiting:
            return actions
        if human_to_act:
            if g.phase == "roll":
                actions.append("roll")
                if g.may_double:
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
                actions += ["resign"] if self.online else ["hint", "resign"]
        elif g.phase in ("roll", "move", "double") and mine:
            actions.append("resign")
        if g.is_over and not self.table.is_over and not self.table.auto_next:
            actions.append("next")
        return actions

    def _last_play(self, g, v: int, numbering: str) -> LastPlay | None:
        """The current game's last play or pass, steps in ``v``'s numbering."""
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

    def history(self, numbering: str = "own", g=None) -> list[dict]:
        """The current game's events (or ``g``'s) for the list of plays: ``{"kind", "player", ...}`` as
        :data:`~nardy.web.view.HistoryItem` has them; plays carry ``dice`` and ``text`` (notation in
        ``numbering``, from the mover's side)."""
        return json.loads(self._history_text(numbering, g))

    def _history_text(self, numbering: str, g=None) -> str:
        """:meth:`history` as JSON text, as its :data:`~nardy.web.view.HistoryItem` models write it: each item
        checked and written once per event and numbering, and kept as text only (no objects for the garbage
        collector to walk: a server keeps hundreds of games)."""
        g = self.game if g is None else g
        game = self.match.rules.name
        # a game's history only grows (an undo point cuts it back, then new events follow): the items made for
        # its first events are kept while the last of those events is still in place
        known = self._history.get(numbering)
        start, texts = 0, []
        if known is not None and known[0] is g and 0 < known[1] <= len(g.history):
            if g.history[known[1] - 1] is known[2]:
                start, texts = known[1], list(known[3])
        for e in g.history[start:]:
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
            texts.append(HISTORY_ITEM.dump_json(HISTORY_ITEM.validate_python(item)).decode())
        if g.history and g is self.game:
            if len(self._history) > 8:
                self._history.clear()
            self._history[numbering] = (g, len(g.history), g.history[-1], tuple(texts))
        return "[" + ",".join(texts) + "]"


#: The name of :class:`HostedGame` before issue 42 (kept one release).
Session = HostedGame
