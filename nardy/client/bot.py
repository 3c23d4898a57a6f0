"""A bot's life on a nardy server: :class:`BotRunner` (``nardy bot-client``).

The runner reads the account's event stream (``GET /api/stream/events``): a ``challenge`` made to it is accepted
when it passes the :class:`AcceptFilter` (else declined), a ``gameStart`` (the stream sends one for each game in
progress on connect, so a restarted bot picks its games up again) starts a thread that plays the game: it reads the
game stream (``GET /api/stream/game/{id}``; a server without it is polled, ``GET /api/games/{id}``) and, each time a
view asks this account to act, sends the player's action (``POST /api/games/{id}/actions``) with the view's ``seq``,
at most once per ``seq``. A server without the event stream is served by reading its lobby (``GET /api/lobby``:
challenges named to the account, its own challenge taken and its game) every :attr:`BotRunner.lobby_poll` seconds. A
dropped stream is opened again after a pause that doubles up to :attr:`BotRunner.max_backoff` seconds; a refused
action is logged and the game read again (409 ``stale_action``: the game moved on, the next view says what to do)."""

from __future__ import annotations

import logging
import secrets
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

import httpx

from .http import Client, ClientError

__all__ = ["AcceptFilter", "BotRunner", "Player", "parse_accept"]

log = logging.getLogger("nardy.client")


class Player(Protocol):
    """What a runner asks of a player: the action body for a view, or ``None``."""

    def decide(self, view: dict) -> dict | None: ...


@dataclass
class AcceptFilter:
    """Which challenges a bot accepts: each set field must match (``None``: any).

    Attributes:
        games: the games (``{"backgammon"}``); rated: only rated (True) or only unrated (False) matches;
        max_length: the longest match in points; names: only from these players (names, lower case).
    """

    games: set[str] | None = None
    rated: bool | None = None
    max_length: int | None = None
    names: set[str] | None = field(default=None)

    def accepts(self, challenge: dict) -> bool:
        """Whether ``challenge`` (the event's lobby challenge JSON) passes."""
        if self.games is not None and challenge.get("game") not in self.games:
            return False
        if self.rated is not None and bool(challenge.get("rated")) != self.rated:
            return False
        if self.max_length is not None and int(challenge.get("length") or 0) > self.max_length:
            return False
        if self.names is not None:
            who = challenge.get("from") or challenge.get("owner") or {}
            name = who.get("name") if isinstance(who, dict) else who
            if str(name or "").lower() not in self.names:
                return False
        return True


def parse_accept(specs: Iterable[str], game: str | None = None) -> AcceptFilter:
    """The filter of ``nardy bot-client --accept`` values: ``backgammon``/``short``/``long`` (games),
    ``rated``/``unrated``, ``max-length=N``, ``from=NAME``, ``any``; with none, the challenges of ``game``
    (when given).

    Raises:
        ValueError: a value not of these forms (quoted)."""
    f = AcceptFilter(games={game} if game else None)
    games: set[str] = set()
    for raw in specs:
        s = raw.strip().lower()
        if s in ("backgammon", "short", "long"):
            games.add(s)
        elif s in ("rated", "unrated"):
            f.rated = s == "rated"
        elif s.startswith("max-length="):
            n = s.split("=", 1)[1]
            if not n.isdigit() or not 1 <= int(n) <= 25:
                raise ValueError(f"--accept {raw!r}: max-length=N with N 1..25")
            f.max_length = int(n)
        elif s.startswith("from="):
            f.names = (f.names or set()) | {s.split("=", 1)[1]}
        elif s == "any":
            f.games = None
        else:
            raise ValueError(
                f"--accept {raw!r}: expected backgammon, short, long, rated, unrated, max-length=N, from=NAME or any"
            )
    if games:
        f.games = games
    return f


class BotRunner:
    """Plays for one account (``client``) with ``player`` until :meth:`stop` (or ``matches`` matches are over).

    Args:
        client: the account's :class:`~nardy.client.http.Client`.
        player: decides actions (:class:`~nardy.client.players.EnginePlayer`, ``ExternalPlayer``).
        accept: the challenges to accept (others made to the account are declined); ``None``: accept none.
        matches: stop after this many matches have ended (``None``: run until stopped).
        max_games: games played at once at most (more ``gameStart`` events wait their turn).
        poll: seconds between reads of a game on a server without the game stream.
        on_event: called with each event (tests, logs).
    """

    max_backoff = 30.0
    #: seconds between reads of the lobby on a server without the event stream
    lobby_poll = 1.0

    def __init__(
        self,
        client: Client,
        player: Player,
        accept: AcceptFilter | None = None,
        matches: int | None = None,
        max_games: int = 4,
        poll: float = 0.3,
        on_event: Callable[[dict], Any] | None = None,
    ):
        self.client, self.player, self.accept = client, player, accept
        self.matches, self.poll, self.on_event = matches, poll, on_event
        self.slots = threading.BoundedSemaphore(max_games)
        self._stopped = threading.Event()
        self._lock = threading.Lock()
        self._games: dict[str, threading.Thread] = {}
        self.finished: list[str] = []
        self.errors: list[str] = []

    # ----- control --------------------------------------------------------------------------------
    def stop(self) -> None:
        """Ask the runner and its games to stop (a game thread stops at its next view)."""
        self._stopped.set()

    @property
    def stopped(self) -> bool:
        return self._stopped.is_set()

    def _done(self, gid: str) -> None:
        with self._lock:
            if gid not in self.finished:
                self.finished.append(gid)
            if self.matches is not None and len(self.finished) >= self.matches:
                self._stopped.set()

    def _sleep(self, seconds: float) -> None:
        self._stopped.wait(seconds)

    # ----- events ---------------------------------------------------------------------------------
    def run(self) -> None:
        """Read the event stream until stopped, reconnecting after drops; waits for the games begun."""
        backoff = 1.0
        polling = False
        while not self.stopped:
            try:
                for event in self._lobby_events() if polling else self.client.events():
                    backoff = 1.0
                    self.handle(event)
                    if self.stopped:
                        break
            except (httpx.TransportError, ClientError, ValueError) as e:
                if isinstance(e, ClientError) and e.status in (404, 405) and not polling:
                    polling = True  # a server without the event stream: read the lobby
                    log.warning("no event stream on this server: reading the lobby every %.1f s", self.lobby_poll)
                    continue
                if isinstance(e, ClientError) and e.status in (401, 403):
                    self.errors.append(str(e))
                    log.error("nardy bot-client: %s", e)
                    self.stop()
                    break
                log.warning("event stream: %s; again in %.0f s", e, backoff)
            if not self.stopped:
                self._sleep(backoff)
                backoff = min(backoff * 2, self.max_backoff)
        self.wait()

    def _lobby_events(self):
        """Events made from ``GET /api/lobby`` read every :attr:`lobby_poll` seconds, for a server without the
        event stream: a ``challenge`` for each challenge named to the account (``named``), a ``gameStart`` for
        its own challenge taken (``taken``: its game)."""
        seen: set[str] = set()
        while not self.stopped:
            lobby = self.client.get("/api/lobby")
            for ch in lobby.get("named") or []:
                if ch.get("id") and ch["id"] not in seen and ch.get("status", "open") == "open":
                    seen.add(ch["id"])
                    yield {"type": "challenge", "challenge": ch}
            taken = lobby.get("taken") or {}
            gid = taken.get("game_id") or taken.get("game")
            if gid and f"game:{gid}" not in seen:
                seen.add(f"game:{gid}")
                yield {"type": "gameStart", "game": {"id": gid}}
            self._sleep(self.lobby_poll)

    def wait(self, timeout: float | None = None) -> None:
        """Wait for the games being played to end (or ``timeout`` seconds each)."""
        for t in list(self._games.values()):
            t.join(timeout)

    def handle(self, event: dict) -> None:
        """One event: accept or decline a challenge, start a game's thread, note a finished game."""
        if self.on_event is not None:
            self.on_event(event)
        kind = event.get("type")
        if kind == "challenge":
            ch = event.get("challenge") or {}
            cid = ch.get("id")
            if not cid:
                return
            try:
                if self.accept is not None and self.accept.accepts(ch):
                    view = self.client.accept(cid)
                    log.info("accepted challenge %s: game %s", cid, view.get("id"))
                    if view.get("id"):
                        self.start_game(view["id"])
                else:
                    self.client.decline(cid)
                    log.info("declined challenge %s", cid)
            except ClientError as e:  # taken by another, withdrawn...
                log.warning("challenge %s: %s", cid, e)
        elif kind == "gameStart":
            gid = (event.get("game") or {}).get("id")
            if gid:
                self.start_game(gid)
        elif kind == "gameFinish":
            gid = (event.get("game") or {}).get("id")
            log.info("game %s finished", gid)

    # ----- games ----------------------------------------------------------------------------------
    def start_game(self, gid: str) -> threading.Thread | None:
        """Play game ``gid`` in a thread (none when it is played already)."""
        with self._lock:
            t = self._games.get(gid)
            if t is not None and t.is_alive() or gid in self.finished:
                return None
            t = threading.Thread(target=self._play_slot, args=(gid,), name=f"nardy-game-{gid}", daemon=True)
            self._games[gid] = t
        t.start()
        return t

    def _play_slot(self, gid: str) -> None:
        with self.slots:
            try:
                self.play_game(gid)
            except Exception as e:  # a game's failure is the game's: logged, the bot goes on
                self.errors.append(f"game {gid}: {e}")
                log.exception("game %s failed", gid)

    def play_game(self, gid: str) -> dict | None:
        """Play game ``gid`` to the end of its match (or until stopped): returns the last view."""
        acted: set[int] = set()
        last: dict | None = None
        backoff = 1.0
        streaming = True
        while not self.stopped:
            try:
                views = self.client.game_stream(gid) if streaming else self._polled(gid)
                for view in views:
                    backoff = 1.0
                    last = view
                    if self._over(view):
                        self._done(gid)
                        return view
                    self._act(gid, view, acted)
                    if self.stopped:
                        return last
                if last is not None and self._over(last):
                    self._done(gid)
                    return last
                # the stream ended but the match goes on: read it again
            except ClientError as e:
                if streaming and e.status in (404, 405) and e.code in ("http_404", "http_405", "not_found"):
                    streaming = False  # a server without the game stream: poll
                    continue
                if e.status in (401, 403, 404):
                    self.errors.append(f"game {gid}: {e}")
                    log.error("game %s: %s", gid, e)
                    return last
                log.warning("game %s: %s", gid, e)
            except (httpx.TransportError, ValueError) as e:
                log.warning("game %s: %s; again in %.0f s", gid, e, backoff)
            self._sleep(backoff)
            backoff = min(backoff * 2, self.max_backoff)
        return last

    def _polled(self, gid: str):
        seen = None
        while not self.stopped:
            view = self.client.game(gid)
            key = (view.get("seq"), view.get("status"))
            if key != seen:
                seen = key
                yield view
                if self._over(view):
                    return
            self._sleep(self.poll)

    @staticmethod
    def _over(view: dict) -> bool:
        return view.get("status") in ("over", "cancelled", "declined", "aborted") or bool(view.get("match_over"))

    def _act(self, gid: str, view: dict, acted: set[int]) -> None:
        """Act on ``view`` and on each answer that asks this account to act again (a roll's answer asks for the
        play): at most once per ``seq``."""
        for _ in range(64):
            online = view.get("online") or {}
            if online.get("seed_wanted") and online.get("commitment"):
                view = self.client.give_seed(gid, secrets.token_hex(16), online["commitment"])
            seq = view.get("seq")
            if seq in acted or self._over(view):
                return
            action = self.player.decide(view)
            if action is None:
                return
            acted.add(int(seq))  # type: ignore[arg-type]
            try:
                view = self.client.act(gid, action)
            except ClientError as e:
                if e.code != "stale_action":
                    self.errors.append(f"game {gid} {action}: {e}")
                    log.warning("game %s: %s refused: %s", gid, action, e)
                    time.sleep(0.2)
                return
