"""The language a request asks for (error messages, pages, names the server makes): a FastAPI dependency.

It sits below every other web module (it needs only the request and the catalogue's languages), so the
exception handlers (:mod:`nardy.web.errors`) and the dependencies (:mod:`nardy.web.deps`) both use it.
"""

from __future__ import annotations

from fastapi import Request

from ..texts.messages import LANGS

__all__ = ["language"]


def language(request: Request) -> str:
    """The player's language: ``?lang=ru|en``, else the first of ``Accept-Language`` we have, else English."""
    q = request.query_params.get("lang", "")
    if q in LANGS:
        return q
    for part in request.headers.get("accept-language", "")[:200].split(","):
        tag = part.split(";")[0].strip().lower()[:2]
        if tag in LANGS:
            return tag
    return "en"
