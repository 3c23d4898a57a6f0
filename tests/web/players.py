"""A test client that behaves like the page: it keeps its cookies and sends the CSRF token with every unsafe
request (``X-CSRF-Token``, read from the ``nardy_csrf`` cookie), as ``nardy/web/static/app.js`` does."""

from __future__ import annotations

import warnings

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

UNSAFE = ("POST", "PUT", "PATCH", "DELETE")


class PlayerClient(TestClient):
    """:class:`TestClient` sending ``X-CSRF-Token`` like the page (unless the call gives its own headers)."""

    def request(self, method, url, **kw):
        token = self.cookies.get("nardy_csrf")
        if method.upper() in UNSAFE and token:
            headers = dict(kw.pop("headers", None) or {})
            headers.setdefault("X-CSRF-Token", token)
            kw["headers"] = headers
        return super().request(method, url, **kw)

    def guest(self, name: str) -> dict:
        """Play as a guest called ``name``; returns the user."""
        r = self.post("/api/auth/guest", json={"name": name})
        assert r.status_code == 200, r.text
        return r.json()["user"]
