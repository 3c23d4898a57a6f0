"""GNU Backgammon as an external player for the tests: ``gnubg -t`` running ``external localhost:PORT``."""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
import time

from tests.web.helpers import free_port


def gnubg_path() -> str | None:
    return shutil.which("gnubg") or ("/usr/games/gnubg" if os.access("/usr/games/gnubg", os.X_OK) else None)


class GnubgExternal:
    """``gnubg -t -q`` listening as an external player on a free port of localhost (:attr:`port`) until
    :meth:`stop`; its output is kept in :attr:`output`. ``plies``: its evaluation depth (0: fast)."""

    def __init__(self, home: str, plies: int = 0):
        self.port = free_port()
        self.output: list[str] = []
        self._listening = threading.Event()
        cmds = (
            f"set evaluation chequerplay evaluation plies {plies}\n"
            f"set evaluation cubedecision evaluation plies {plies}\n"
            f"external localhost:{self.port}\n"
        )
        self.proc = subprocess.Popen(
            [gnubg_path() or "gnubg", "-t", "-q"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env={**os.environ, "HOME": home},
        )
        assert self.proc.stdin is not None
        self.proc.stdin.write(cmds)
        self.proc.stdin.flush()  # stdin stays open: gnubg waits for the next connection after each one
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.output.append(line)
            if "Waiting for a connection" in line:
                self._listening.set()

    def wait(self, timeout: float = 60) -> GnubgExternal:
        end = time.time() + timeout
        while not self._listening.wait(0.2):
            if self.proc.poll() is not None or time.time() > end:
                raise RuntimeError("gnubg external did not start: " + "".join(self.output)[-2000:])
        return self

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
