"""A player's action on a hosted game, the one path of ``POST /api/games/{id}/actions`` and of the game's live
channel (``WS /api/games/{id}/live``): neither router calls the other; both call :func:`perform`.

:func:`perform` checks the action (seated, their turn, the ``seq`` it was chosen on), applies it, runs the
computer's answer, stores the game and pushes it to the game's live connections, and returns an
:class:`ActionResult` (the acting player's view, its ``seq``, the game's wording); a refusal comes as
:class:`ActionRefused` carrying the error each router answers in its own way (an HTTP error body, or an answer
on the live channel), worded with the game's numbering.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ...rules.errors import GameStateError
from ..errors import Refused
from ..gamecache import Loaded, cache_of
from ..presence import seat_seen
from ..sessions import ACTIONS
from ..view import SavedGameView
from . import events
from .access import acting_side, check_turn, viewer_for
from .loading import missing, read_locked
from .publishing import conn_view, publish, shown, shown_json
from .saving import store_session
from .typed import typed_play

__all__ = ["Action", "ActionResult", "ActionRefused", "StaleAction", "perform"]


class Action(BaseModel):
    """An action on a saved game by a person at this device."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)
    action: Literal[ACTIONS] = Field(
        ...,
        description="roll, step (one checker, from/to), undo (the last step), "
        "confirm, play (whole play in notation), double, take, drop, beaver, "
        "resign (level), accept, decline (a resignation), next (game)",
    )
    from_: int | None = Field(
        None, alias="from", ge=0, le=25, description="step: from point in the viewer's numbering (25 = the mover's bar)"
    )
    to: int | None = Field(None, ge=0, le=25, description="step: to point in the viewer's numbering (0 = off)")
    die: int | None = Field(None, ge=1, le=6, description="step: the die to use when a bear-off could use either")
    play: str | None = Field(None, max_length=200, description="play: notation in the mover's own numbering")
    typed: bool = Field(
        False, description="play: the text is as typed in the page, in the view's numbering, dashes allowed"
    )
    level: int | str | None = Field(None, description="resign: level index or name (single, gammon, oyun, mars...)")
    player: int | None = Field(None, ge=0, le=1, description="who acts (default: the person who must act)")
    seq: int = Field(
        ...,
        ge=0,
        le=2**62,
        description="the `seq` of the view this action was chosen on: an action "
        "on a state that has moved on (a retry, a double click) is refused with 409 and changes "
        "nothing",
    )


@dataclass
class ActionResult:
    """What :func:`perform` answers: ``view`` (the acting player's view: JSON text for an online game, else a
    :class:`SavedGameView`), ``wording`` (the game's labels of points for messages, as the view draws them;
    ``None`` until the game is read) and ``seq`` (an online game: the stored revision the view shows)."""

    view: SavedGameView | str | None
    wording: dict | None = None
    seq: int | None = None


class ActionRefused(Exception):
    """An action :func:`perform` refused or could not do: ``error`` is the cause (what the route answers),
    ``wording`` the game's (:attr:`ActionResult.wording`), for the error's message."""

    def __init__(self, error: Exception, wording: dict | None):
        self.error, self.wording = error, wording
        super().__init__(str(error))


class StaleAction(Exception):
    """An action chosen on state ``seq`` of a game now at ``revision``: nothing was done (409 ``stale_action``)."""

    def __init__(self, seq: int, revision: int):
        self.seq, self.revision = seq, revision
        self.detail = (
            f"stale action: it was chosen on state {seq} but the game is at state {revision} (a repeated or late "
            f"request); nothing was done; reload the game"
        )
        super().__init__(self.detail)


async def perform(
    app,
    gid: str,
    uid: str | None,
    body: Action,
    viewer: int | None,
    numbering: str,
    compute=None,
    skip=None,
) -> ActionResult:
    """Player ``uid``'s action ``body`` on game ``gid``, as ``POST /api/games/{gid}/actions`` and the game's live
    channel (:func:`nardy.web.routers.online.live`) take it: checked (seated, their turn, the ``seq`` it was chosen on),
    applied, the computer's answer run (``compute``: a game against the computer; ``None``: refused unless the
    game is online), stored, then pushed to the game's live connections here (but ``skip``, the connection
    the action came by, which gets the answer) once committed. Returns the acting player's view: JSON text for an
    online game (encoded once, the same text their live connections get), else a :class:`SavedGameView`, in an
    :class:`ActionResult` with the game's wording (error messages label points as the view does).

    Raises:
        ActionRefused: the action was refused or failed; its ``error`` is what the route answers:
        :class:`StaleAction` (``body.seq`` is not the stored revision; nothing was done), the rules' errors
        (:class:`~nardy.rules.errors.NardyError`), Refused 403 (not seated, not their turn), HTTPException 404/409,
        StorageUnavailable 503; its ``wording`` the game's, when it was read that far."""
    kept = cache_of(app.state.storage).peek(gid)
    state = ActionResult(None)
    try:
        return await _perform(app, gid, uid, body, state, kept, numbering, viewer, compute, skip)
    except BaseException as e:
        if kept is not None and skip is None:
            # a seated player acting over HTTP is there even when refused (a stored action's time is in the
            # game's log, which counts already; on the live channel the connection counts: nardy.web.presence)
            await seat_seen(app, kept.session, uid, gid)
        if isinstance(e, Exception):
            raise ActionRefused(e, state.wording) from e
        raise


async def _perform(app, gid, uid, body, state, kept, numbering, viewer, compute, skip):
    """:func:`perform` once the kept game is looked up (a refusal's presence is written by the caller); ``state``:
    the result under way (its wording is set once the game is read, its view and ``seq`` once stored)."""
    store = app.state.storage
    lane = app.state.action_lane
    cluster = app.state.cluster
    # an online game kept here is read, acted on and stored in one unit of work: its cross-process lock is then
    # the transaction's (Cluster.lock_in, taken first in it); else (the computer answers outside the unit, or
    # the game is not known yet) the session lock of the lock connection, held around the whole
    in_unit = kept is not None and kept.session.online and cluster is not None
    locks = app.state.game_locks
    lock = locks.lock_for(gid) if not in_unit else locks.local_held(gid)
    t = time.time()
    entry: dict = {}
    held: dict = {}
    hub = app.state.hub
    conns: list = []

    def apply():
        # one trip to a worker thread and one database connection (its transaction committed before the answer
        # goes): read the kept game, check, act, and (an online game, whose only answer is the automatic roll)
        # store and make the view at once; a game against the computer answers after
        with store.unit() as c:
            if in_unit:
                cluster.lock_in(c, gid)
            try:
                return act_now()
            except GameStateError as e:
                if e.code != "time_out" or "game" not in held:
                    raise
                # the clock ran out before this action: the match is over; stored so (then refused)
                store_session(store, game_of())
                return "timeout", e

    def act_now():
        held["game"] = game = read_locked(store, gid)
        s = game.session
        if not s.may_watch(uid):
            raise missing(gid)  # a private game: as if there were none
        side = acting_side(s, uid, body.player)
        v, _ = viewer_for(s, uid, viewer)
        if body.seq != game.saved.revision:
            # chosen on an older state (a resend whose answer was lost, a retry): 409 with the game's seq, so
            # the client reads the game again, whoever is to act now
            state.wording = s.wording(numbering, v)
            return "stale", None
        check_turn(s, body.action, side)
        state.wording = s.wording(numbering, v)
        if compute is None and not s.online:
            raise Refused(409, "only a game against another person online has that", code="not_online", kind="Conflict")
        done = s.act(
            body.action,
            frm=body.from_,
            to=body.to,
            die=body.die,
            play=typed_play(s, body.play, numbering, side) if body.typed else body.play,
            level=body.level,
            player=side,
            viewer=v,
            run=False,
            now=t,
        )
        entry.update(done["entry"])
        if s.bots_to_act() and not s.loggable:
            return "computer", None
        # an online game rolls for a person at the action's time: replayed from the log, the roll is the same
        s.run_bots(now=t)
        return "done", finish()

    def finish():
        game = game_of()
        store_session(store, game, entry)
        if not game.session.online:
            return shown(game, uid, viewer, numbering)
        # an online game: the answer is the view of the player's own live connections too, encoded once, and
        # the other connections' views are made now (each (player, viewer, numbering) once), sent after commit
        text = shown_json(game, uid, viewer, numbering)
        held["pushes"] = hub.messages(
            [c for c in conns if c is not skip], conn_view, game, {(uid, viewer, numbering): text}
        )
        held["seq"] = state.seq = game.saved.revision  # now: once the lock is left, the kept game may change
        return text

    def game_of() -> Loaded:
        return held["game"]

    async with lock:
        # the game's live connections in this process, taken once its lock is held: one added later reads its
        # first view under the lock, after this change is stored; the views of these are made with the answer
        # (on its thread, under the lock) and sent once it is committed
        conns = hub.connections(gid)
        stage, out = await lane(apply)
        timed_out = stage == "timeout"
        if stage == "stale":
            raise StaleAction(body.seq, game_of().saved.revision)
        if stage == "computer":
            # the person's action and the computer's answer are stored together, or not at all
            assert compute is not None
            await compute(game_of().session.run_bots)
            out = await lane(finish)
    game, s = game_of(), game_of().session
    if timed_out:
        await publish(app, gid)
        raise out
    if s.online:
        if "pushes" in held:  # sent after the action is committed (the unit of work ended in the lane)
            await hub.push(held["seq"], held["pushes"])
            events.game_changed(app, gid)  # a program's event stream: the match may be over (issue 44)
        else:
            await publish(app, gid, game)
    state.view = out
    return state
