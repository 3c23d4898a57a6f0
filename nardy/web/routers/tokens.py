"""API tokens (issue 44, docs/bots.md "Server: tokens, bot accounts, streams"): a program acts for its account
with ``Authorization: Bearer TOKEN`` instead of a cookie and a CSRF token
(:func:`nardy.web.routers.auth.check_request`).

* ``POST /api/auth/tokens {"name", "scopes"}`` -> 201 ``{"token", "id", "name", "scopes", "created"}``: the token
  is shown this once (the database keeps its sha256: :mod:`nardy.web.store.tokens`);
* ``GET /api/auth/tokens`` -> ``{"tokens": [{"id", "name", "scopes", "created", "last_used"}]}``;
* ``DELETE /api/auth/tokens/{id}`` -> 204: revoked, refused at once by every server process (401 ``token_invalid``).

Making and revoking tokens needs an account (403 ``token_account_needed`` for a guest) signed in with a cookie, or
a token with both scopes (403 ``token_scope``).
"""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, Path, Request
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from ..errors import Refused
from ..store.tokens import MAX_TOKENS, SCOPES, TokenLimit, TokenLogin, tokens_of
from ..store.users import User
from .auth import check_name, current_user, require_user, session_cache, session_of

__all__ = ["router"]

router = APIRouter(prefix="/api/auth", tags=["players"])


class TokenBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1, max_length=40, description="what the token is for: 1-40 characters")
    scopes: list[Literal["play", "read"]] = Field(
        default_factory=lambda: list(SCOPES),
        min_length=1,
        max_length=2,
        description="read: GET requests and streams; play: everything else (default both)",
    )


async def _owner(request: Request) -> User:
    """The account that may make and revoke tokens: signed in with a cookie, or with a token of both scopes.

    Raises Refused: 401 ``login_needed``, 403 ``token_account_needed`` (a guest), 403 ``token_scope``."""
    user = await require_user(await current_user(request))
    s = await session_of(request)
    if isinstance(s, TokenLogin) and not set(SCOPES) <= s.scopes:
        raise Refused(
            403,
            "only a token with both scopes (play, read) may manage tokens",
            code="token_scope",
            kind="Forbidden",
            params={"scope": "play read"},
        )
    if user.guest:
        raise Refused(403, "guests have no API tokens; register first", code="token_account_needed", kind="Forbidden")
    return user


@router.post("/tokens", status_code=201, summary="Make an API token (shown this once)")
async def make_token(request: Request, body: TokenBody) -> dict:
    """A new API token of the signed-in account: ``{"token", "id", "name", "scopes", "created"}``; the token is
    never shown again. 409 ``too_many_tokens`` past :data:`~nardy.web.store.tokens.MAX_TOKENS`."""
    user = await _owner(request)
    name = check_name(body.name)
    try:
        made = await run_in_threadpool(tokens_of(request.app.state.storage).create, user.id, name, tuple(body.scopes))
    except TokenLimit:
        raise Refused(
            409,
            f"an account holds at most {MAX_TOKENS} API tokens; revoke one first",
            code="too_many_tokens",
            kind="Conflict",
            params={"most": MAX_TOKENS},
        ) from None
    out = made.public()
    out.pop("last_used", None)
    return out


@router.get("/tokens", summary="Your API tokens (never the tokens themselves)")
async def list_tokens(request: Request) -> dict:
    """``{"tokens": [{"id", "name", "scopes", "created", "last_used"}]}``, oldest first (revoked ones left out)."""
    user = await _owner(request)
    rows = await run_in_threadpool(tokens_of(request.app.state.storage).list, user.id)
    return {"tokens": [t.public() for t in rows]}


@router.delete("/tokens/{tid}", status_code=204, summary="Revoke an API token")
async def revoke_token(
    request: Request, tid: str = Path(min_length=1, max_length=32, pattern=r"^[0-9a-f]+$")
) -> Response:
    """Revoke one of your tokens: refused from now on by every server process. 404 ``no_token``."""
    user = await _owner(request)
    th = await run_in_threadpool(tokens_of(request.app.state.storage).revoke, user.id, tid)
    if th is None:
        raise Refused(404, "you have no such API token", code="no_token", kind="NotFound")
    session_cache(request.app).drop(th)  # the other processes drop it as they hear the notification
    return Response(status_code=204)
