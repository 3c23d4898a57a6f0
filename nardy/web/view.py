"""The page's view of a saved game, typed: what :meth:`nardy.web.sessions.HostedGame.game_view` builds and
the game routes answer (``GET /api/games/{gid}``, ``POST /api/games``, ``POST /api/games/{gid}/actions``),
so the OpenAPI schema at ``/docs`` documents it.

Points are in the viewer's numbering: ``board.points[p]`` for p in 1..24 (``points[0]`` unused, 0),
positive for the viewer's checkers, negative for the other side's; pairs such as ``bar``, ``off``,
``pips`` are ``[viewer, other]``; in ``moves`` and ``last_play.steps`` 25 is the mover's bar and 0 the
mover's off.
"""

from __future__ import annotations

import json
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, TypeAdapter

from ..flow.events import Phase
from ..rules.numbering import SCHEMES

__all__ = [
    "GameView",
    "SeatView",
    "ClockView",
    "OnlineView",
    "GameRef",
    "SavedGameView",
    "RulesView",
    "BoardView",
    "CubeView",
    "LastPlay",
    "Resignation",
    "ResultView",
    "HistoryItem",
    "PageAction",
    "Refusal",
    "MatchSettings",
    "view_json",
    "HISTORY_ITEM",
]

#: What a person at this device may do now (``hint`` asks for a hint; the others are actions to send).
PageAction = Literal[
    "roll", "double", "take", "drop", "beaver", "accept", "decline", "undo", "confirm", "hint", "resign", "next"
]

Pair = Annotated[list[int], Field(min_length=2, max_length=2)]


class RulesView(BaseModel):
    """The game's rules: its name and options with docs/rules.md names."""

    model_config = ConfigDict(populate_by_name=True)
    name: str
    opening: str
    head_exception: str = Field(alias="head-exception")
    strict_bear_off: bool = Field(alias="strict-bear-off")
    scoring: list[int] = Field(description="points of each result level, lowest first")
    last_roll: str = Field(alias="last-roll")
    cube: bool


class BoardView(BaseModel):
    """The checkers from the viewer's side."""

    points: list[int] = Field(
        min_length=25,
        max_length=25,
        description="points[1..24] in the viewer's numbering: + the viewer's checkers, - the other side's "
        "(points[0] is 0)",
    )
    bar: Pair = Field(description="[viewer, other]")
    off: Pair = Field(description="[viewer, other]")


class CubeView(BaseModel):
    enabled: bool
    value: int
    owner: int | None = Field(description="None: centred; else the player (0/1) who owns it")
    offered_by: int | None = Field(description="the player whose double waits for an answer")


class LastPlay(BaseModel):
    """The last play (or pass) of the current game."""

    player: int
    dice: list[int]
    text: str = Field(description="notation in the view's numbering, from the mover's side")
    steps: list[Pair] = Field(description="[from, to] of each step in the viewer's numbering")


class Resignation(BaseModel):
    """A resignation waiting for an answer."""

    player: int
    level: int
    level_name: str


class ResultView(BaseModel):
    """How the game ended (:class:`nardy.flow.game.GameResult`)."""

    winner: int | None = Field(description="None for a long nardy last-roll draw")
    level: int
    level_name: str
    points: int | float
    cube: int
    reason: str = Field(description="bear-off, drop, resign or draw")


# ----- the history's items: one model per kind of event --------------------------------------------------
class SetupItem(BaseModel):
    kind: Literal["setup"]


class OpeningItem(BaseModel):
    kind: Literal["opening"]
    player: int = Field(description="the starter")
    dice: list[int] | None = Field(description="the starter's dice when the opening roll is played")


class PlayItem(BaseModel):
    kind: Literal["play", "pass"]
    player: int
    dice: list[int]
    text: str = Field(description="notation in the view's numbering, from the mover's side")


class PlayerItem(BaseModel):
    kind: Literal["last-roll", "drop", "accept", "decline"]
    player: int


class CubeItem(BaseModel):
    kind: Literal["double", "take", "beaver"]
    player: int
    value: int


class ResignItem(BaseModel):
    kind: Literal["resign"]
    player: int
    level: int
    level_name: str


class EndItem(BaseModel):
    kind: Literal["end"]
    winner: int | None
    points: int | float
    level_name: str
    reason: str


HistoryItem = Annotated[
    SetupItem | OpeningItem | PlayItem | PlayerItem | CubeItem | ResignItem | EndItem,
    Field(discriminator="kind"),
]
#: Checks one history item (a dict) into its model and writes a model as JSON.
HISTORY_ITEM: TypeAdapter = TypeAdapter(HistoryItem)


# ----- the view ----------------------------------------------------------------------------------------
class Refusal(BaseModel):
    """Why something cannot be done: a code of the message catalogue (``[messages]``) and its params, points
    already labelled as the view shows them, dice written ``6-5``."""

    code: str
    params: dict[str, str | int] = Field(default_factory=dict)


class MatchSettings(BaseModel):
    """The settings a match was started with, as ``POST /api/games`` takes them."""

    opponent: Literal["bot", "human", "online"]
    crawford: bool
    jacoby: bool
    beavers: bool
    cube_limit: int | None
    auto_roll: bool


class SeatView(BaseModel):
    """One side's seat: who sits there."""

    name: str
    kind: Literal["person", "remote", "computer"] = Field(
        description="a person at this device, a person elsewhere (online), or the computer"
    )
    taken: bool = Field(description="false while an online game's seat waits for whoever opens the invitation")


class ClockView(BaseModel):
    """The players' clocks (seconds). The page ticks ``running``'s time down from ``remaining`` by itself; the
    server's answer is authoritative."""

    remaining: Annotated[list[float], Field(min_length=2, max_length=2)] = Field(
        description="[White, Black] seconds left as of server_time (the running side's already charged)"
    )
    running: int | None = Field(description="the side whose time runs (0 White, 1 Black), or null")
    initial: float
    increment: float = Field(description="seconds added when a side's spell to act ends")
    delay: float = Field(description="free seconds at the start of each spell to act")
    server_time: float = Field(description="the server's wall clock (Unix seconds) when this view was made")
    delay_left: float = Field(description="free seconds the running side still has in this spell")
    days: int = Field(0, description="a correspondence clock: days per move (no reserve kept); 0 otherwise")


class OnlineView(BaseModel):
    """An online game's table: the invitation, the dice's commitment, how the match ended."""

    waiting: bool = Field(description="the other seat is still empty: send the invitation link")
    closed: Literal["cancelled", "declined", "aborted"] | None = None
    watchers: bool = Field(description="others may watch the game")
    commitment: str = Field(
        description="SHA-256 of the server's dice seed, published when the game is made, before any client seed"
    )
    seed_wanted: bool = Field(
        False,
        description="your seat awaits your client seed: send it with this commitment (POST /api/games/{id}/seed)",
    )
    seeds_due: float | None = Field(
        None, description="both seats taken, a seed awaited: the game is aborted if the seeds are not in by then"
    )
    rematch: str | None = Field(None, description="the id of the rematch offered after this match, if any")
    ended: dict | None = Field(
        None,
        description='the match ended other than by points: {"reason": "time", "abandoned" or "aborted" (no result: '
        'winner and loser null), "winner", "loser"}',
    )
    owner: bool = Field(description="the viewer made this game (may cancel the invitation)")
    invite: str | None = Field(
        None, description="the invitation token, for the owner while the seat waits (the link: /join/{id}#{invite})"
    )
    rated: bool = Field(False, description="a rated match (from the lobby): its result changes the players' ratings")
    rating_class: str | None = Field(None, description="the rated match's clock class: blitz, rapid or classic")
    ratings: list[int | None] | None = Field(
        None, description="[White, Black]: the players' ratings in this game and clock class as the match began"
    )
    bots: list[int] = Field(
        default_factory=list, description="the sides (0 White, 1 Black) where bot accounts sit (issue 44: a BOT mark)"
    )


class GameView(BaseModel):
    """Everything the page draws of a saved game, from one viewer's side."""

    game: str = Field(description="backgammon, short or long")
    rules: RulesView
    result_names: list[str]
    length: int = Field(description="match length; 0 = money session")
    players: list[str]
    humans: list[bool] = Field(description="which sides are people at this device")
    level: str = Field(description="the computer's level")
    viewer: int = Field(description="whose side is at the bottom")
    numbering: Literal[SCHEMES]
    numberings: list[str] = Field(description="the numberings this game has")
    labels: list[str] = Field(description="labels of the viewer's points 1..24 in the numbering")
    score: list[int | float]
    game_number: int = Field(description="1 for the first game of the match")
    crawford: bool = Field(description="this is the Crawford game")
    match_over: bool
    match_winner: int | None
    status: Literal["waiting", "playing", "game-over", "over", "cancelled", "declined", "aborted"]
    phase: Phase
    turn: int | None
    to_act: int | None = Field(description="who must act now")
    human_to_act: bool
    position_id: str = Field(description="Position ID from the view of the player on turn, before this turn's steps")
    dice: list[int] | None
    dice_left: list[int] = Field(description="the dice not yet used by this turn's steps")
    board: BoardView
    pips: Pair = Field(description="[viewer, other]")
    cube: CubeView
    moves: dict[str, list[int]] = Field(
        description="the next steps a person to act may take: {from: [to, ...]}, viewer's numbering"
    )
    can_confirm: bool = Field(
        description="the steps taken are a complete legal play: confirm ends the turn (a person to act)"
    )
    steps: str = Field(description="this turn's steps so far, in notation")
    actions: list[PageAction] = Field(description="what the person to act may do now")
    resignation: Resignation | None
    result: ResultView | None
    last_play: LastPlay | None
    history: list[HistoryItem] = Field(description="the current game's events (rolls left out)")
    seats: list[SeatView] = Field(default_factory=list, description="[White, Black]")
    you: list[int] = Field(default_factory=list, description="the sides the viewer may act for (empty: watching)")
    clock: ClockView | None = None
    online: OnlineView | None = None
    blocked: dict[str, list[Refusal]] = Field(
        default_factory=dict,
        description="the person to act's checkers that cannot move now: {place: [refusal, ...]} (viewer's "
        "numbering, 25 the bar), why for each die left (codes of the message catalogue, points as labelled)",
    )
    resign_points: list[int] = Field(
        default_factory=list,
        description="what resigning at each result level (lowest first) would lose now: level x cube "
        "(a single game under Jacoby's rule with the cube not turned)",
    )
    settings: MatchSettings | None = Field(None, description="the match's settings (to start another like it)")
    presence: list[bool] | None = Field(
        None, description="an online game: [White, Black] connected now (a live connection open, on any process)"
    )
    abortable: bool | None = Field(
        None, description="an online match: it may still be aborted (each side has taken fewer than 2 turns)"
    )
    last_game: dict | None = Field(
        None,
        description='an online match: its last finished game {"number", "winner", "level_name", "points", "cube", '
        '"reason"} (the pause between games, the summary after the match)',
    )
    pause: dict | None = Field(
        None,
        description='a clocked online match between two games: {"until": ISO 8601, "seconds"} (no clock runs; '
        'a seated player\'s "next" action, or the server at "until", starts the next game)',
    )
    away_since: list[str | None] | None = Field(
        None, description="an online game: since when each absent seat is away (ISO 8601; null: connected or unknown)"
    )
    presence_at: float | None = Field(
        None,
        description="an online game: when `presence` and `away_since` came about (Unix seconds: the last change "
        "of a seat's presence the server knew of; 0: none): a page keeps the latest, from a view or a presence "
        "message, in whatever order they arrive",
    )
    #: ``history`` as JSON text, when the session keeps it (:func:`view_json` writes it instead of the models)
    _history_json: str | None = PrivateAttr(None)


class GameRef(BaseModel):
    """Which saved game, and which state of it."""

    id: str = Field(description="the saved game's id")
    seq: int = Field(description="the state (the stored revision) this view shows: send it with the next action")


class SavedGameView(GameView, GameRef):
    """A saved game's view with its ``id`` and ``seq`` (first: pydantic takes the fields of the bases
    from the last one); an action must name the ``seq`` it was chosen on, or it is refused with 409."""

    @classmethod
    def of(cls, gid: str, seq: int, view: GameView) -> SavedGameView:
        # the view's fields are checked already (a GameView): built as they are, not checked again
        return cls.model_construct(id=gid, seq=seq, **dict(view))


def view_json(gid: str, seq: int, view: GameView) -> str:
    """``SavedGameView.of(gid, seq, view)`` as JSON text (by alias), made from the view's own JSON without
    building the saved view: ``id`` and ``seq`` first, then the view's fields; ``history`` last when the view
    carries its kept text (:meth:`nardy.web.sessions.HostedGame.game_view`: the list's JSON is made once per
    event, not again for every view), so the same object, its keys in another order."""
    head = '{"id":' + json.dumps(gid, ensure_ascii=False) + ',"seq":' + str(int(seq)) + ","
    history = view._history_json
    if history is None:
        return head + view.model_dump_json(by_alias=True)[1:]
    body = view.model_dump_json(by_alias=True, exclude=_NO_HISTORY)
    return head + body[1:-1] + ',"history":' + history + "}"


_NO_HISTORY = {"history"}
