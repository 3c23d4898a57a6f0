"""The lobby's live channel read the way nardy/web/static/lobby.js reads it, for the tests."""

from __future__ import annotations

LISTS = ("challenges", "online", "live")


class Page:
    """The lobby as nardy/web/static/lobby.js keeps it: a snapshot, the deltas applied in order (put by id,
    dropped, each list in its order), the version shown; ``gaps``: deltas that did not follow on."""

    ORDER = {
        "challenges": lambda e: (e["created"], e["id"]),
        "online": lambda e: (e["name"], e["id"]),
    }

    def __init__(self):
        self.lobby: dict | None = None
        self.v: int | None = None
        self.snapshots = self.deltas = self.gaps = 0

    def take(self, msg: dict) -> None:
        if msg["type"] == "lobby":
            self.lobby, self.v = msg["lobby"], msg["v"]
            self.snapshots += 1
            return
        assert msg["type"] == "lobby-delta", msg
        assert msg["v"] > msg["from"], msg
        if self.lobby is None or msg["from"] != self.v:
            self.gaps += 1
            self.v = None
            return
        self.deltas += 1
        self.v = msg["v"]
        for key in LISTS:
            d = msg.get(key)
            if d is None:
                continue
            assert set(d) <= {"put", "drop"} and (d.get("put") or d.get("drop")), d
            by_id = {e["id"]: e for e in self.lobby[key]}
            for i in d.get("drop", ()):
                by_id.pop(i, None)
            for e in d.get("put", ()):
                by_id[e["id"]] = e
            if key == "live":
                rows = sorted(by_id.values(), key=lambda e: e["id"])
                rows.sort(key=lambda e: e["started"], reverse=True)
            else:
                rows = sorted(by_id.values(), key=self.ORDER[key])
            self.lobby[key] = rows
        for key in ("seek", "taken", "named"):
            if key in msg:
                self.lobby[key] = msg[key]

    def receive(self, ws) -> dict:
        msg = ws.receive_json()
        self.take(msg)
        return msg

    def until(self, ws, what, most: int = 20) -> dict:
        """Messages until ``what(lobby)`` holds (a change may come in more than one round; none when it holds
        already)."""
        if self.lobby is not None and what(self.lobby):
            return self.lobby
        for _ in range(most):
            self.receive(ws)
            if what(self.lobby):
                return self.lobby
        raise AssertionError(f"not within {most} messages: {self.lobby}")


def ids(lobby: dict, key: str = "challenges") -> list[str]:
    return [e["id"] for e in lobby[key]]
