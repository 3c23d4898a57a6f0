"""Making a hosted game against a person elsewhere: the game, its invitation and the link to send."""

from __future__ import annotations

import secrets

from fastapi import Request, WebSocket

from ...rules.numbering import NUMBERINGS
from ..gamecache import columns
from ..sessions import HostedGame, new_session
from ..store.storage import Storage, User
from ..view import SavedGameView

__all__ = ["create_online", "new_invite", "invite_url", "own_numbering"]


def own_numbering(s: HostedGame, numbering: str) -> str:
    """``numbering`` when game ``s`` has it, else the players' own (``"own"``)."""
    return numbering if numbering in NUMBERINGS[s.match.rules.name] else "own"


def new_invite(s: HostedGame) -> str:
    """A fresh invitation token for ``s`` (its hash is kept)."""
    token = secrets.token_urlsafe(16)
    s.set_invite(token)
    return token


def invite_url(request: Request | WebSocket, gid: str, token: str) -> str:
    """The link to send: the page at ``/join/{gid}`` with the invitation in the fragment (never sent to a
    server, so it stays out of access logs)."""
    base = str(request.base_url).rstrip("/")
    return f"{base}/join/{gid}#{token}"


async def create_online(
    request: Request,
    store: Storage,
    lane,
    user: User,
    *,
    game: str,
    rule_options: dict | None,
    length: int,
    colour: str,
    own_seed: bool,
    clock,
    watchers: bool,
    match_options: dict,
    players: list[str] | None = None,
    reserved: str | None = None,
    numbering: str = "own",
) -> dict:
    """Make an online game owned by ``user`` (their seat at ``colour``) and its invitation; returns the view
    with ``invite`` (the token) and ``invite_url`` (the link to send). ``reserved``: a rematch keeps the other
    seat for that player id (they join without the token). ``own_seed``: the owner gives their own dice seed
    after the commitment (:mod:`nardy.web.seeds`), else the server makes it. ``rule_options``: docs/rules.md options;
    ``match_options``: crawford, jacoby, beavers, cube_limit (as :func:`new_session` takes them)."""
    me = 0 if colour != "black" else 1
    names = list(players) if players else ["White", "Black"]
    names[me] = user.name
    if colour == "random":
        colour = "white"

    def make():
        s = new_session(
            game,
            length=length,
            opponent="online",
            colour=colour,
            options=rule_options,
            players=names,
            owner=user.id,
            own_seed=own_seed,
            clock=clock,
            watchers=watchers,
            **match_options,
        )
        token = new_invite(s)
        if reserved is not None:
            s.settings["reserved"] = reserved
        saved = store.create(s.to_dict(), s.match.rules.name, s.status, s.title(), s.summary(), columns(s))
        view = s.game_view(None, own_numbering(s, numbering), s.sides_of(user.id))
        return saved, token, view

    saved, token, view = await lane(make)
    out = SavedGameView.of(saved.id, saved.revision, view).model_dump(mode="json", by_alias=True)
    out.update(invite=token, invite_url=invite_url(request, saved.id, token))
    return out
