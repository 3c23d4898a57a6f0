"""A pexpect driver for ``nardy play``: answers the prompts, plays the first legal play, records the output."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from tests.helpers import REPO

PROMPTS = {
    "en": {
        "play": r"play",
        "confirm": r"confirm \(Enter\) or undo",
        "forced": r"Enter to play it",
        "roll": r"roll \(Enter\) or double",
        "take": r"take(?:, beaver)? or pass",
        "resign": r"accept or decline",
        "continue": r"Press Enter to continue",
        "again": r"Play another (?:game|match)\? \(y/n\)",
        "resign_confirm": r"Offer it\? \(y/n\)",
        "yesno": r"\(y/n\)",
        "savename": r"do not save\)",
    },
    "ru": {
        "play": r"ход",
        "confirm": r"подтвердить \(Enter\) или отмена",
        "forced": r"Enter — сыграть",
        "roll": r"бросить \(Enter\) или удвоить",
        "take": r"принять(?:, бивер)? или отказ",
        "resign": r"принять или отклонить",
        "continue": r"Нажмите Enter, чтобы продолжить",
        "again": r"Сыграть ещё (?:партию|матч)\? \(д/н\)",
        "resign_confirm": r"Предложить\? \(д/н\)",
        "yesno": r"\(д/н\)",
        "savename": r"не сохранять\)",
    },
}

LISTING = re.compile(r"^\s+1\) (?P<play>\S.*?)\s*$", re.M)


def nardy_cmd(*args) -> list[str]:
    return [sys.executable, "-m", "nardy.cli", *args]


def run_nardy(*args, timeout=120) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.run(nardy_cmd(*args), capture_output=True, text=True, timeout=timeout, cwd=REPO, env=env)


class Driver:
    """Runs ``nardy play ARGS`` in a pseudo-terminal."""

    def __init__(self, *args, lang="en", timeout=30, colour=False):
        pexpect = pytest.importorskip("pexpect")
        env = dict(os.environ, PYTHONPATH=str(REPO), LANG="C.UTF-8")
        env.pop("NO_COLOR", None)
        env["TERM"] = "xterm-256color" if colour else "dumb"
        argv = nardy_cmd(*args)
        self.child = pexpect.spawn(
            argv[0], argv[1:], encoding="utf-8", timeout=timeout, cwd=str(REPO), env=env, dimensions=(60, 150)
        )
        self.lang = lang
        kinds = PROMPTS[lang]
        self.kinds = list(kinds)
        self.patterns = [re.compile(f"(?:{v})> ") for v in kinds.values()] + [pexpect.EOF]
        self.transcript = []
        self.kind = None
        self.last = ""  # output since the previous prompt

    def wait(self) -> str:
        i = self.child.expect(self.patterns)
        text = self.child.before + (self.child.after if isinstance(self.child.after, str) else "")
        self.transcript.append(text)
        self.last = text
        self.kind = "eof" if i == len(self.kinds) else self.kinds[i]
        return self.kind

    def send(self, line: str) -> str:
        self.transcript.append(f"<<{line}>>")
        self.child.sendline(line)
        return self.wait()

    @property
    def output(self) -> str:
        return "".join(self.transcript)

    def first_play(self) -> str:
        """The first legal play of the list ``moves`` prints (in the numbering shown)."""
        kind = self.send("moves" if self.lang == "en" else "ходы")
        assert kind in ("play", "forced", "confirm"), self.last
        m = LISTING.search(self.last)
        assert m, self.last
        return m.group("play")

    def respond(self) -> str:
        """Answer the current prompt the plain way: first legal play, roll, take, decline, continue."""
        k = self.kind
        if k == "play":
            return self.send(self.first_play())
        if k in ("forced", "confirm", "roll", "continue"):
            return self.send("")
        if k == "take":
            return self.send("take")
        if k == "resign":
            return self.send("decline")
        if k == "again":  # the game (match) is over: no other
            return self.send("n" if self.lang == "en" else "н")
        raise AssertionError(f"unexpected prompt {k}: {self.last[-500:]}")

    def play_out(self, max_prompts=3000) -> str:
        for _ in range(max_prompts):
            if self.kind == "eof":
                self.child.close()
                return self.output
            self.respond()
        raise AssertionError("the game did not end")

    @property
    def exitstatus(self):
        return self.child.exitstatus
