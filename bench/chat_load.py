"""Chat under load, a part of ``bench/online_load.py`` (issue 43): a fraction of the playing players send a chat
message now and then (``POST /api/games/{id}/chat``, the page's way), and the time from a message sent to its
arrival on the *other* player's live channel (``{"type": "chat", "message": {...}}`` on ``WS
/api/games/{id}/live``) is measured: p50/p95/p99/max. With several server processes most messages cross from one
process to the other through PostgreSQL NOTIFY, as the moves do.

Options (added to online_load's): ``--chat-fraction`` (the share of players who chat; 0 turns it off),
``--chat-every`` (mean seconds between one player's messages: 5 s, under the server's 5 a 10 s limit).
Target (printed, nothing asserted): the chat message to the other player p99 under 250 ms.
"""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import dataclass, field

from server_load import pct

__all__ = ["ChatFigures", "add_options", "start", "got", "figures", "show"]

#: Seconds after which a sent message that never reached the other player is counted as lost.
LOST_AFTER = 5.0
TARGET_P99 = 0.250


@dataclass
class ChatFigures:
    sent: dict[str, float] = field(default_factory=dict)  # token -> when sent (not yet received)
    latencies: list[float] = field(default_factory=list)
    acknowledged: int = 0
    received: int = 0
    errors: dict[str, int] = field(default_factory=dict)


def add_options(ap) -> None:
    """The chat's options of ``bench/online_load.py``."""
    ap.add_argument("--chat-fraction", type=float, default=0.2, help="share of the players who chat (0: none)")
    ap.add_argument("--chat-every", type=float, default=5.0, help="mean seconds between one player's messages")


async def _chatter(p, run, rng: random.Random, every: float) -> None:
    fig: ChatFigures = run.chat
    n = 0
    while not run.stopping:
        await asyncio.sleep(rng.uniform(0.5, 1.5) * every)
        gid, v = p.gid, p.view
        if not gid or p.ws is None or v is None or v.get("status") != "playing":
            continue
        n += 1
        token = f"{p.i}-{n}"
        fig.sent[token] = time.monotonic()
        status, _ = await p.request("POST", f"/api/games/{gid}/chat", {"text": f"gl {token}", "key": token})
        if status == 201:
            fig.acknowledged += 1
        else:
            fig.sent.pop(token, None)
            fig.errors[str(status)] = fig.errors.get(str(status), 0) + 1


def start(run, players: list, args) -> list[asyncio.Task]:
    """Start the chatters (a ``--chat-fraction`` of ``players``, chosen with ``--seed``) for the measured window;
    their figures are ``run.chat``."""
    run.chat = ChatFigures()
    frac = getattr(args, "chat_fraction", 0.0)
    if frac <= 0:
        return []
    rng = random.Random(args.seed * 7919)
    chosen = [p for p in players if rng.random() < frac]
    loop = asyncio.get_running_loop()
    return [loop.create_task(_chatter(p, run, random.Random(args.seed * 31 + p.i), args.chat_every)) for p in chosen]


def got(player, message: dict, t: float) -> None:
    """A chat message on ``player``'s live channel: timed when another player sent it in the window."""
    fig: ChatFigures | None = getattr(player.run, "chat", None)
    if fig is None or not isinstance(message, dict):
        return
    token = str(message.get("text", "")).rsplit(" ", 1)[-1]
    if token.startswith(f"{player.i}-"):
        return  # its own message, back on its channel
    sent = fig.sent.pop(token, None)
    if sent is not None:
        fig.received += 1
        fig.latencies.append(t - sent)


def figures(run) -> dict:
    """The chat's figures of a run (ms)."""
    fig: ChatFigures | None = getattr(run, "chat", None)
    if fig is None:
        return {}
    now = time.monotonic()
    lat = fig.latencies
    return {
        "acknowledged": fig.acknowledged,
        "received": fig.received,
        "lost": sum(1 for t in fig.sent.values() if now - t > LOST_AFTER),
        "errors": fig.errors,
        "latency_ms": {
            k: (round(1000 * v, 1) if v is not None else None)
            for k, v in (
                ("p50", pct(lat, 50)),
                ("p95", pct(lat, 95)),
                ("p99", pct(lat, 99)),
                ("max", max(lat) if lat else None),
            )
        },
    }


def show(r: dict) -> None:
    """Print the chat's line of a run."""
    c = r.get("chat") or {}
    if not c or not c.get("acknowledged"):
        return
    lat = c["latency_ms"]
    ok = lat["p99"] is not None and lat["p99"] < 1000 * TARGET_P99
    print(
        f"  chat: {c['acknowledged']} messages stored, {c['received']} reached the other player; message -> other "
        f"player's WebSocket p50 {lat['p50']} ms, p95 {lat['p95']} ms, p99 {lat['p99']} ms (target < "
        f"{1000 * TARGET_P99:.0f}: {'met' if ok else 'NOT met'}), max {lat['max']} ms; lost {c['lost']}; "
        f"errors {c['errors'] or 'none'}"
    )
