"""Helpers of the stream tests (issue 44): the app served by uvicorn in a thread of the test (the streams never
end, so they are read from a real server, as a program reads them), players that act with API tokens, and readers
of an NDJSON stream and of a WebSocket that hand their messages to the test as they come."""

from __future__ import annotations

import json
import queue
import secrets
import socket
import threading
import time

import httpx
import uvicorn


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Served:
    """``app`` served by uvicorn on a free port in a daemon thread; :meth:`stop` ends it."""

    def __init__(self, app):
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        config = uvicorn.Config(
            app,
            host="127.0.0.1",
            port=self.port,
            log_level="warning",
            lifespan="on",
            timeout_graceful_shutdown=1,
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        end = time.time() + 30
        while not self.server.started:
            if time.time() > end or not self.thread.is_alive():
                raise RuntimeError("the test server did not start")
            time.sleep(0.02)

    def stop(self) -> None:
        self.server.should_exit = True
        self.server.force_exit = True  # open streams are not waited for
        self.thread.join(10)


class Player:
    """An account made on the server (``bot``: a bot account) acting with an API token of both scopes."""

    def __init__(self, url: str, name: str, bot: bool = False):
        self.url = url
        with httpx.Client(base_url=url) as c:
            r = c.post(
                "/api/auth/register",
                json={"name": f"{name}{secrets.token_hex(2)}", "password": "correct horse", "bot": bot},
            )
            assert r.status_code == 201, r.text
            self.me = r.json()["user"]
            r = c.post("/api/auth/tokens", json={"name": "test"}, headers={"X-CSRF-Token": r.json()["csrf"]})
            assert r.status_code == 201, r.text
            self.token = r.json()["token"]
        self.headers = {"Authorization": f"Bearer {self.token}"}
        self.client = httpx.Client(base_url=url, headers=self.headers, timeout=30)

    def get(self, path: str, **kw) -> httpx.Response:
        return self.client.get(path, **kw)

    def post(self, path: str, **kw) -> httpx.Response:
        return self.client.post(path, **kw)

    def close(self) -> None:
        self.client.close()


class Lines:
    """The lines of a stream read by a thread: :meth:`next` gives the next JSON object (blank keep-alive lines
    are counted in :attr:`blank`), ``None`` once the stream has ended."""

    def __init__(self, url: str, path: str, headers: dict, timeout: float = 60):
        self.items: queue.Queue = queue.Queue()
        self.blank = 0
        self.status: int | None = None
        self.body = ""
        self._client = httpx.Client(base_url=url, headers=headers, timeout=httpx.Timeout(timeout, read=timeout))
        self._ready = threading.Event()
        self.thread = threading.Thread(target=self._read, args=(path,), daemon=True)
        self.thread.start()
        self._ready.wait(30)

    def _read(self, path: str) -> None:
        try:
            with self._client.stream("GET", path) as r:
                if r.status_code != 200:
                    self.body = r.read().decode()
                self.status = r.status_code
                self._ready.set()
                if r.status_code != 200:
                    return
                for line in r.iter_lines():
                    if line.strip():
                        self.items.put((time.perf_counter(), json.loads(line)))
                    else:
                        self.blank += 1
        except Exception:
            pass
        finally:
            self._ready.set()
            self.items.put((time.perf_counter(), None))

    def next(self, timeout: float = 15):
        """The next object (``None``: the stream ended). Raises queue.Empty after ``timeout`` seconds."""
        return self.items.get(timeout=timeout)[1]

    def next_timed(self, timeout: float = 15):
        """(when it was read, ``time.perf_counter``; the next object)."""
        return self.items.get(timeout=timeout)

    def until(self, want, timeout: float = 15):
        """The first object for which ``want(obj)`` is true (others skipped)."""
        end = time.time() + timeout
        while True:
            obj = self.next(max(0.01, end - time.time()))
            if obj is None or want(obj):
                return obj

    def close(self) -> None:
        self._client.close()


class SocketLines(Lines):
    """The text frames of a WebSocket (``ws://``), read by a thread, as :class:`Lines` gives lines."""

    def __init__(self, url: str, path: str, headers: dict):  # noqa: D107
        self.items = queue.Queue()
        self.blank = 0
        self.status = None
        self.body = ""
        self._ready = threading.Event()
        self._ws = None
        self.thread = threading.Thread(target=self._read_ws, args=(url.replace("http", "ws", 1) + path, headers))
        self.thread.daemon = True
        self.thread.start()
        self._ready.wait(30)

    def _read_ws(self, url: str, headers: dict) -> None:
        from websockets.sync.client import connect

        try:
            with connect(url, additional_headers=headers) as ws:
                self._ws = ws
                self.status = 101
                self._ready.set()
                for msg in ws:
                    self.items.put((time.perf_counter(), json.loads(msg)))
        except Exception:
            pass
        finally:
            self._ready.set()
            self.items.put((time.perf_counter(), None))

    def close(self) -> None:
        if self._ws is not None:
            self._ws.close()
