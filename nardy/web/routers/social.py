"""Follows, settings and answering a named challenge (issue 43, docs/online.md "Friends and challenges").

* ``GET /api/follows``: whom the asker follows, ``{"follows": [{"uid", "name", "online", "playing"}]}``
  (``playing``: a game open to watchers they sit at; a player either of the two blocks shows offline).
  ``POST /api/follows {"name"}`` follows an account (again: nothing), ``DELETE /api/follows/{uid}`` stops.
* ``GET /api/me/settings``, ``PUT /api/me/settings {"alerts": {"title", "notifications", "sound"}}``: an
  account's settings, stored with it (a guest's page keeps its own in the browser: 403 ``guest_settings``).
* ``POST /api/lobby/challenges/{id}/decline``: the player a named challenge was made to declines it (its owner
  sees it declined on the lobby's channel); to anyone else the challenge does not exist (404).

A named challenge is made by ``POST /api/lobby/challenges`` with ``"to"`` (:mod:`nardy.web.routers.lobby`);
it reaches its two players only, on the lobby's live channel (``"named"``), which every screen of the page
keeps open for the toasts of challenges received (nardy/web/static/social.js).
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from ..deps import GameId
from ..errors import Refused
from ..services.social import addressee
from ..store.community import community
from ..store.social import MAX_FOLLOWS, FollowLimit, social
from .auth import current_user, require_user
from .lobby import lobby_changed

__all__ = ["router"]

router = APIRouter()


class FollowBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(..., min_length=1, max_length=40, description="the account's name")


class Alerts(BaseModel):
    model_config = ConfigDict(extra="forbid")
    title: bool = Field(True, description="the tab's title and icon change when it is your turn or a challenge came")
    notifications: bool = Field(False, description="the browser's notifications (the page asks its permission)")
    sound: bool = Field(True, description="a sound when it becomes your turn")


class SettingsBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    alerts: Alerts = Field(default_factory=Alerts)


async def _signed_in(request: Request):
    return await require_user(await current_user(request))


@router.get("/api/follows", tags=["lobby"], summary="Whom you follow: online, and the game they play")
async def my_follows(request: Request):
    user = await _signed_in(request)
    return {"follows": await run_in_threadpool(social(request.app).following, user.id)}


@router.post("/api/follows", tags=["lobby"], summary="Follow a player by name (again: nothing)")
async def follow(request: Request, body: FollowBody):
    user = await _signed_in(request)
    other = await addressee(request.app, user, body.name, action="follow")
    try:
        new = await run_in_threadpool(social(request.app).follow, user.id, other)
    except FollowLimit:
        raise Refused(
            409, "you follow too many players", code="too_many_follows", kind="Conflict", params={"most": MAX_FOLLOWS}
        ) from None
    return {"followed": other, "new": new}


@router.delete("/api/follows/{uid}", tags=["lobby"], status_code=204, summary="Stop following (again: nothing)")
async def unfollow(request: Request, uid: GameId):
    user = await _signed_in(request)
    await run_in_threadpool(social(request.app).unfollow, user.id, uid)
    return Response(status_code=204)


@router.get("/api/me/settings", tags=["auth"], summary="Your settings (the turn alerts)")
async def my_settings(request: Request):
    user = await _signed_in(request)
    if user.guest:
        raise Refused(403, "a guest's settings are kept by its browser", code="guest_settings", kind="Forbidden")
    return await run_in_threadpool(social(request.app).settings, user.id)


@router.put("/api/me/settings", tags=["auth"], summary="Keep your settings with your account")
async def put_settings(request: Request, body: SettingsBody):
    user = await _signed_in(request)
    if user.guest:
        raise Refused(403, "a guest's settings are kept by its browser", code="guest_settings", kind="Forbidden")
    s = social(request.app)
    await run_in_threadpool(s.save_settings, user.id, body.model_dump())
    return await run_in_threadpool(s.settings, user.id)


@router.post(
    "/api/lobby/challenges/{cid}/decline", tags=["lobby"], summary="Decline a challenge made to you (again: nothing)"
)
async def decline(request: Request, cid: GameId):
    user = await _signed_in(request)
    ch = await run_in_threadpool(community(request.app).decline, cid, user.id)
    if ch is None:
        raise Refused(404, "no such open challenge", code="no_challenge", kind="NotFound")
    await lobby_changed(request.app)
    return {"challenge": ch.public()}
