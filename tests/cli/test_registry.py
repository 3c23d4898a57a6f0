"""The ``nardy`` command's registry and shared options (:mod:`nardy.cli.registry`, :mod:`nardy.cli.options`):
every registered command is listed by ``nardy --help`` and loads under its own name; a command whose module
cannot be imported is an error, never a silently missing command; ``--game``, ``--position``, ``--seed`` and
``--level`` have the same names and flags in every command that takes them.
"""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from nardy.cli import main, registry
from nardy.cli.options import read_position
from nardy.rules.position import Position
from nardy.rules.variants import get_rules


def listed_commands(help_text: str) -> list[str]:
    """The command names of the ``Commands:`` section of a group's help."""
    lines = help_text.split("Commands:\n", 1)[1].splitlines()
    return [line.split()[0] for line in lines if line.startswith("  ") and not line.startswith("   ")]


def all_commands():
    """Every command of ``nardy`` and of its groups (``bearoff``, ``teach``): (path, command)."""
    out = []
    for name in registry.COMMANDS:
        cmd = registry.load_command(name)
        out.append((name, cmd))
        if isinstance(cmd, click.Group):
            out.extend((f"{name} {sub}", c) for sub, c in cmd.commands.items())
    return out


def test_every_registered_command_is_listed_by_nardy_help():
    r = CliRunner().invoke(main, ["--help"])
    assert r.exit_code == 0, r.output
    assert listed_commands(r.output) == sorted(registry.COMMANDS)
    assert {"play", "moves", "serve", "rollout", "bearoff", "train", "external", "verify-dice"} <= set(
        registry.COMMANDS
    )


def test_each_registered_command_loads_under_its_own_name():
    for name in registry.COMMANDS:
        assert registry.load_command(name).name == name


def test_a_command_whose_module_fails_to_import_is_an_error_not_a_missing_command(tmp_path, monkeypatch):
    (tmp_path / "nardy_broken_command.py").write_text("import nardy_no_such_dependency\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(registry.COMMANDS, "broken", ("nardy_broken_command", "broken"))
    with pytest.raises(registry.CommandLoadError, match=r"^nardy broken: cannot import nardy_broken_command: ") as e:
        registry.load_command("broken")
    assert isinstance(e.value.__cause__, ModuleNotFoundError)
    assert e.value.__cause__.name == "nardy_no_such_dependency"
    for args in (["broken"], ["--help"]):  # running it, and listing the commands
        r = CliRunner().invoke(main, args)
        assert isinstance(r.exception, registry.CommandLoadError), (args, r.output)


def test_a_registered_module_that_is_missing_is_an_error(monkeypatch):
    monkeypatch.setitem(registry.COMMANDS, "gone", ("nardy.cli.no_such_module", "gone"))
    with pytest.raises(registry.CommandLoadError, match="cannot import nardy.cli.no_such_module"):
        registry.load_command("gone")


def test_a_registered_attribute_that_is_not_a_command_is_an_error(monkeypatch):
    monkeypatch.setitem(registry.COMMANDS, "options", ("nardy.cli.options", "GAME_HELP"))
    with pytest.raises(registry.CommandLoadError, match=r"nardy.cli.options.GAME_HELP is not a click command"):
        registry.load_command("options")


#: The shared options: parameter name -> the option strings every command spells it with (``--seed`` may have
#: its short flag or not, ``--level`` the same).
SHARED = {
    "game": ({"--game", "-g"},),
    "position_id": ({"--position", "-p"},),
    "seed": ({"--seed"}, {"--seed", "-s"}),
    "level": ({"--level", "-l"},),
}


def test_the_shared_options_have_the_same_names_in_every_command():
    seen: dict[str, list[str]] = {k: [] for k in SHARED}
    for path, cmd in all_commands():
        for p in cmd.params:
            if p.name in SHARED and isinstance(p, click.Option):
                assert set(p.opts) in SHARED[p.name], (path, p.opts)
                seen[p.name].append(path)
    assert set(seen["game"]) >= {"moves", "play", "rollout", "train", "teach label"}
    assert set(seen["position_id"]) == {"moves", "rollout"}
    assert set(seen["seed"]) >= {"play", "rollout", "train", "external", "teach label", "teach fit"}
    assert set(seen["level"]) == {"analyse", "bot-client", "external", "moves"}


def test_the_shared_options_keep_each_commands_default():
    defaults = {
        (path, p.name): p.default for path, cmd in all_commands() for p in cmd.params if p.name in ("game", "seed")
    }
    assert defaults[("moves", "game")] == defaults[("rollout", "game")] == "backgammon"
    assert defaults[("play", "game")] is None  # backgammon, or the resumed file's game
    assert (
        defaults[("play", "seed")] is None and defaults[("rollout", "seed")] == 0 and defaults[("train", "seed")] == 1
    )


def test_read_position_reads_an_id_an_xgid_or_none_as_the_start():
    rules = get_rules("backgammon")
    start = Position.start(rules)
    assert read_position(None, rules) == start
    assert read_position(start.id(), rules) == start
    assert read_position("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10", rules) == start
    with pytest.raises(click.BadParameter, match="empty Position ID"):
        read_position("  ", rules)
