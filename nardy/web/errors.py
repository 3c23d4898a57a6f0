"""The API's error answers: one JSON shape for every error, and the app's exception handlers.

Every error is JSON ``{"detail", "error", "code", "params", "message"}`` (:func:`error_response`): 422
for malformed input, 400 for an action the rules refuse now, 404 an unknown saved game, 409 an action on
a state that has moved on, 413 a body too large, 429/503 with ``Retry-After`` when the computer is busy
or the database unavailable. The engine's errors (:mod:`nardy.rules.errors`) carry their own code and params;
:data:`KIND_CODES` gives the codes of the errors the app raises itself, and :class:`Refused` carries a
code of its own (log-ins, CSRF: 401, 403, 409, 422, 429).
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..rules.errors import GameStateError, IllegalPlayError, NardyError, NotationError
from ..texts.messages import describe
from .botwork import Busy, ClientGone
from .lang import language
from .store.storage import StorageUnavailable

__all__ = [
    "error_response",
    "error_body",
    "answer_of",
    "clean_message",
    "install_error_handlers",
    "KIND_CODES",
    "Refused",
]

#: Codes of the errors the app raises itself (the engine's errors carry their own).
KIND_CODES = {
    "RequestValidationError": "invalid_request",
    "NotFound": "not_found",
    "StaleAction": "stale_action",
    "Busy": "busy",
    "TooManyRequests": "too_many_requests",
    "DatabaseUnavailable": "database_unavailable",
    "RequestTooLarge": "too_large",
    "Conflict": "conflict",
    "MethodNotAllowed": "method_not_allowed",
    "ClientGone": "client_gone",
    "RecordError": "bad_record",
    "InvalidOptionError": "invalid_option",
    "HTTPError": "http_error",
    "Forbidden": "forbidden",
    "LoginNeeded": "login_needed",
}


class Refused(Exception):
    """A refusal the app words with a code of its own (log-in, CSRF, rate limits: :mod:`nardy.web.routers.auth`).

    Args:
        status: the HTTP status.
        detail: English detail for programs and logs.
        code: the message's code in :mod:`nardy.texts.messages` (``params`` fill it in).
        kind: the answer's ``error`` (a type name: ``BadLogin``...).
        headers: response headers (``Retry-After``).
    """

    def __init__(
        self,
        status: int,
        detail: str,
        *,
        code: str,
        kind: str,
        params: dict | None = None,
        headers: dict[str, str] | None = None,
    ):
        super().__init__(detail)
        self.status = status
        self.detail = detail
        self.code = code
        self.kind = kind
        self.params = params or {}
        self.headers = headers or {}


_UNPROCESSABLE = (NotationError,)
_REFUSED = (GameStateError, IllegalPlayError)


def error_response(
    status: int,
    message: str,
    kind: str,
    code: str | None = None,
    params: dict | None = None,
    *,
    request: Request | None = None,
    **extra: Any,
) -> JSONResponse:
    """The JSON error answer: ``detail`` (English detail for programs and logs), ``error`` (the type),
    ``code`` and ``params`` (:mod:`nardy.rules.errors`), and ``message``: the refusal worded for the player from
    the message catalogue (:mod:`nardy.texts.messages`) in their language (``?lang=`` or ``Accept-Language``),
    points labelled as the page shows them when the route knows the game (``request.state.wording``)."""
    wording = getattr(request.state, "wording", None) if request is not None else None
    lang = language(request) if request is not None else "en"
    body = error_body(status, message, kind, code, params, lang=lang, wording=wording, **extra)
    return JSONResponse(body, status_code=status)


def error_body(
    status: int,
    message: str,
    kind: str,
    code: str | None = None,
    params: dict | None = None,
    *,
    lang: str = "en",
    wording: dict | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """The body of :func:`error_response` (for a channel that is not an HTTP answer: a WebSocket's)."""
    code = code or KIND_CODES.get(kind, "invalid_request")
    text = describe(code, params, lang, **(wording or {}))
    return {"detail": message, "error": kind, "code": code, "params": params or {}, "message": text, **extra}


def answer_of(e: Exception, lang: str = "en", wording: dict | None = None) -> tuple[int, dict[str, Any]] | None:
    """The status and body the HTTP routes answer exception ``e`` with (the app's handlers below), for an
    action that came by a WebSocket (:func:`nardy.web.routers.online.live`); ``None``: not an error the API answers
    (a bug: the caller logs it and answers 500 ``internal_error``)."""
    w = {"lang": lang, "wording": wording}
    if isinstance(e, NardyError):
        status = _status_for(e)
        return status, error_body(status, str(e), type(e).__name__, e.code, e.params, **w)
    if isinstance(e, Busy):
        kind = "Busy" if e.status == 503 else "TooManyRequests"
        return e.status, error_body(e.status, e.message, kind, retry_after=e.retry_after, **w)
    if isinstance(e, StorageUnavailable):
        return 503, error_body(503, str(e), "DatabaseUnavailable", retry_after=5, **w)
    if isinstance(e, Refused):
        return e.status, error_body(e.status, e.detail, e.kind, e.code, e.params, **w)
    if isinstance(e, StarletteHTTPException):
        return e.status_code, error_body(e.status_code, str(e.detail), _http_kind(e.status_code), **w)
    return None


def clean_message(msg: object) -> str:
    """A validation message without pydantic's 'For further information visit ...' tail."""
    text = str(msg)
    text = re.sub(r"\s*For further information visit \S+", "", text)
    text = re.sub(r"\s*\[type=[^\]]*\]", "", text).strip()
    return text[len("Value error, ") :] if text.startswith("Value error, ") else text


def _status_for(e: NardyError) -> int:
    if isinstance(e, _UNPROCESSABLE):
        return 422
    if isinstance(e, _REFUSED):
        return 400
    return 422


def _http_kind(status: int) -> str:
    return {404: "NotFound", 405: "MethodNotAllowed", 409: "Conflict", 413: "RequestTooLarge"}.get(status, "HTTPError")


# ----- the handlers -----------------------------------------------------------------------------------------
async def nardy_error(request: Request, e: Exception) -> Response:
    assert isinstance(e, NardyError)
    return error_response(_status_for(e), str(e), type(e).__name__, e.code, e.params, request=request)


async def validation_error(request: Request, e: Exception) -> Response:
    assert isinstance(e, RequestValidationError)
    errs = e.errors()
    parts = []
    for er in errs[:5]:
        loc = ".".join(str(x) for x in er.get("loc", ()) if x != "body") or "request"
        parts.append(f"{loc}: {clean_message(er.get('msg', 'invalid'))}")
    clean = [
        {"loc": list(er.get("loc", ())), "msg": clean_message(er.get("msg")), "type": er.get("type")} for er in errs
    ]
    return error_response(
        422, "; ".join(parts) or "invalid request", "RequestValidationError", request=request, errors=clean
    )


async def busy(request: Request, e: Exception) -> Response:
    assert isinstance(e, Busy)
    r = error_response(
        e.status,
        e.message,
        "Busy" if e.status == 503 else "TooManyRequests",
        request=request,
        retry_after=e.retry_after,
    )
    r.headers["Retry-After"] = str(e.retry_after)
    return r


async def client_gone(request: Request, e: Exception) -> Response:
    # nobody reads this answer: the client closed the connection (nginx's 499)
    return error_response(499, "client closed the request", "ClientGone", request=request)


async def storage_down(request: Request, e: Exception) -> Response:
    r = error_response(503, str(e), "DatabaseUnavailable", request=request, retry_after=5)
    r.headers["Retry-After"] = "5"
    return r


async def refused(request: Request, e: Exception) -> Response:
    assert isinstance(e, Refused)
    r = error_response(e.status, e.detail, e.kind, e.code, e.params, request=request)
    r.headers.update(e.headers)
    return r


async def http_error(request: Request, e: Exception) -> Response:
    assert isinstance(e, StarletteHTTPException)
    return error_response(e.status_code, str(e.detail), _http_kind(e.status_code), request=request)


#: The app's exception handlers, by the exception they answer.
HANDLERS: dict[type[Exception], Callable[[Request, Exception], Awaitable[Response]]] = {
    NardyError: nardy_error,
    RequestValidationError: validation_error,
    Busy: busy,
    ClientGone: client_gone,
    StorageUnavailable: storage_down,
    Refused: refused,
    HTTPException: http_error,
    StarletteHTTPException: http_error,
}


def install_error_handlers(app: FastAPI) -> None:
    """Answer every error of ``app`` with :func:`error_response`."""
    for exc, handler in HANDLERS.items():
        app.add_exception_handler(exc, handler)
