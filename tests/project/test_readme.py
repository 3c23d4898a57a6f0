"""The README's examples work from the repository alone: its Python blocks run, its ``nardy moves`` examples
print what it shows, and its record commands use files shipped with nardy (no ``../shared`` path)."""

from __future__ import annotations

import contextlib
import io
import re
import shlex
from types import SimpleNamespace

import pytest
from click.testing import CliRunner

from nardy.cli import main
from tests.helpers import REPO

README = (REPO / "README.md").read_text(encoding="utf-8")
BLOCKS = re.findall(r"```(\w+)\n(.*?)```", README, re.S)


def test_set_up_ends_by_starting_a_game():
    setup = next(code for lang, code in BLOCKS if lang == "sh" and "pip install" in code)
    assert setup.strip().endswith("&& nardy play")


def test_no_example_needs_files_beside_the_repository():
    for _lang, code in BLOCKS:
        assert "../shared" not in code, code


def test_the_python_examples_run_and_print_what_they_say():
    out = io.StringIO()
    namespace: dict = {}
    with contextlib.redirect_stdout(out):
        for lang, code in BLOCKS:
            if lang == "python":
                exec(compile(code, "README.md", "exec"), namespace)  # noqa: S102  (the README's own code)
    printed = out.getvalue()
    assert "24/23 24/21" in printed and "4HPwATDgc/ABMA" in printed
    said = re.findall(r"print\(game\.result_text\(\)\)\s+# (.+)", README)
    assert said and said[0].strip() in printed


def run_nardy(*args):
    """``nardy ARGS`` in this process (the command's own code, without a new Python start each time)."""
    r = CliRunner().invoke(main, list(args))
    return SimpleNamespace(returncode=r.exit_code, stdout=r.stdout, stderr=r.output if r.exit_code else "")


def _shown_commands():
    """``(command, the output lines shown under it)`` for each ``$ nardy ...`` line of the README."""
    for lang, code in BLOCKS:
        if lang != "sh":
            continue
        lines = code.splitlines()
        for i, line in enumerate(lines):
            if not line.startswith("$ nardy "):
                continue
            shown = []
            for nxt in lines[i + 1 :]:
                if nxt.startswith("$ ") or nxt.strip() == "...":
                    break
                shown.append(nxt)
            yield line[2:].split("#")[0].strip(), shown


@pytest.mark.parametrize("command, shown", list(_shown_commands()), ids=lambda x: x if isinstance(x, str) else "")
def test_shown_commands_print_what_the_readme_shows(command, shown):
    r = run_nardy(*shlex.split(command)[1:])
    assert r.returncode == 0, r.stderr
    got = r.stdout.splitlines()
    assert got[: len(shown)] == shown


@pytest.mark.parametrize("command", ["nardy samples", "nardy replay --sample backgammon-match"])
def test_record_commands_use_the_shipped_samples(command):
    assert command in README
    r = run_nardy(*shlex.split(command)[1:])
    assert r.returncode == 0, r.stderr
    if "replay" in command:
        assert "Final score: nardy-advanced 5, nardy-intermediate 2; nardy-advanced wins the match" in r.stdout
    else:
        names = [ln.split()[0] for ln in r.stdout.splitlines()]
        assert names == ["backgammon-match", "long-nardy-game", "short-nardy-match"]
