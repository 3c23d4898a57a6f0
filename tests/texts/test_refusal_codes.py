"""Refusals carry a code and params, and every code is worded in English and Russian.

The terminal and the web page word every refusal from its code (nardy.texts.messages), so no English-only
reason reaches a Russian player: every code the engine can raise must be in the catalogue in both
languages, and real refusals worded in Russian must be Russian.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from nardy import Position
from nardy.flow.game import Game
from nardy.rules.dice import DiceSource, FixedDice
from nardy.rules.errors import (
    AmbiguousPlayError,
    GameStateError,
    IllegalPlayError,
    NardyError,
    NotationError,
    RecordError,
)
from nardy.texts.messages import LANGS, MESSAGES, describe

from ..helpers import pos

ROOT = Path(__file__).resolve().parents[2] / "nardy"
CYRILLIC = re.compile(r"[а-яё]", re.I)


def _codes_in_source() -> set[str]:
    codes = set()
    for path in ROOT.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        codes |= set(re.findall(r'\bcode="([a-z_]+)"', text))
        codes |= set(re.findall(r'default_code(?:: ClassVar\[str\])? = "([a-z_]+)"', text))
        codes |= set(re.findall(r'return \(?"([a-z_]+)", \{', text))  # _explain's (code, params, why)
        if path.name == "playparse.py":  # parse_play's fail(why, code) (nardy/rules/playparse.py)
            codes |= set(re.findall(r'fail\((?:[^()]|\([^()]*\))*?,\s*"([a-z_]+)"', text, re.S))
        if path.name in ("cube.py", "game.py"):
            # why_not_double returns its codes
            body = text[text.find("def why_not_double") :]
            body = body[: body.find("\n    def ", 10)]
            codes |= set(re.findall(r'return "([a-z_]+)"', body))
    codes |= set(
        re.findall(r'"([a-z_]+)"', (ROOT / "web" / "guard.py").read_text().split("_CODES = {")[1].split("}")[0])
    )
    errors = (ROOT / "web" / "errors.py").read_text()
    codes |= set(re.findall(r': "([a-z_]+)"', errors.split("KIND_CODES = {")[1].split("}")[0]))
    return codes


def test_every_code_the_engine_raises_is_worded_in_both_languages():
    codes = _codes_in_source()
    assert {"not_your_turn", "fewer_dice", "cube_owned", "ambiguous_play", "stale_action", "invalid_host"} <= codes
    missing = sorted(c for c in codes if c not in MESSAGES)
    assert not missing, missing
    for code in codes:
        en, ru = MESSAGES[code]
        assert en and ru and en != ru, code
        assert CYRILLIC.search(ru) and not CYRILLIC.search(en), code


def test_message_placeholders_are_the_same_in_both_languages():
    for code, (en, ru) in MESSAGES.items():
        assert set(re.findall(r"{(\w+)}", en)) == set(re.findall(r"{(\w+)}", ru)), code


def _refusal(fn) -> NardyError:
    with pytest.raises(NardyError) as e:
        fn()
    return e.value


def _game_at_move(game="backgammon", rolls=((3, 1),)):
    g = Game(game, dice=FixedDice([5, 2, *rolls]))
    g.start()
    return g


def refusals() -> dict[str, NardyError]:
    """One real refusal per code, raised by the engine as a player would meet it."""
    out = {}
    g = Game("backgammon", dice=DiceSource(1))
    g.start()
    while g.phase != "roll":
        g.play(g.legal_plays()[0])
    out["wrong_phase"] = _refusal(lambda: g.play("8/5 6/5"))
    out["not_your_turn"] = _refusal(lambda: g.roll(player=1 - g.turn))
    g.double()
    g.take()
    out["cube_owned"] = _refusal(lambda: g.double(player=g.turn) if g.phase == "roll" else None)
    m = _game_at_move()
    out["illegal_step"] = _refusal(lambda: m.step(24, 10))
    m.step(13, 8)
    out["incomplete_play"] = _refusal(lambda: m.confirm())
    start = Position.start("backgammon")
    out["no_checker"] = _refusal(lambda: start.parse_play("22/18 22/21", (4, 1)))
    out["fewer_dice"] = _refusal(lambda: start.parse_play("13/9", (4, 1)))
    out["bad_point"] = _refusal(lambda: start.parse_play("13/x", (6, 1)))
    out["backward"] = _refusal(lambda: start.parse_play("7/13", (6, 1)))
    amb = pos("backgammon", {13: 1, 6: 14}, {15: 1, 13: 1, 1: 13})
    out["ambiguous_play"] = _refusal(lambda: amb.parse_play("13/9", (3, 1)))
    c = Game("backgammon", dice=DiceSource(2), cube=False)
    c.start()
    while c.phase != "roll":
        c.play(c.legal_plays()[0])
    out["cube_disabled"] = _refusal(lambda: c.double())
    r = Game("short", dice=DiceSource(3))
    r.start()
    r.resign(0)
    out["resign_waiting"] = _refusal(lambda: r.resign(0))
    return out


def test_refusals_carry_their_code_class_and_params():
    r = refusals()
    assert set(r) == {k for k in r if r[k].code == k}, {k: v.code for k, v in r.items()}
    assert isinstance(r["ambiguous_play"], AmbiguousPlayError) and len(r["ambiguous_play"].params["options"]) == 2
    assert isinstance(r["bad_point"], NotationError) and r["bad_point"].params == {"point": "x"}
    assert r["fewer_dice"].params == {"used": 1, "most": 2}
    assert r["no_checker"].params == {"point": 22}
    assert r["not_your_turn"].params["expected"] in (0, 1)
    assert isinstance(r["cube_owned"], GameStateError) and isinstance(r["illegal_step"], IllegalPlayError)
    for e in r.values():
        assert isinstance(e, ValueError) and str(e)  # English detail stays for programs


@pytest.mark.parametrize("lang", LANGS)
def test_every_refusal_is_worded_in_the_players_language(lang):
    for code, e in refusals().items():
        text = describe(e.code, e.params, lang, names=("Анна", "Bob") if lang == "ru" else ("Ann", "Bob"))
        assert "?" not in text and "{" not in text, (code, text)
        if lang == "ru":
            assert CYRILLIC.search(text), (code, text)
        else:
            assert not CYRILLIC.search(text.replace("Анна", "")), (code, text)


def test_points_are_worded_in_the_players_numbering():
    e = refusals()["no_checker"]
    assert describe(e.code, e.params, "en") == "you have no checker on point 22"
    assert (
        describe(e.code, e.params, "ru", label=lambda p: f"0{25 - p}" if p > 12 else str(p))
        == "на пункте 03 нет ваших шашек"
    )
    amb = refusals()["ambiguous_play"]
    assert " или " in describe(amb.code, amb.params, "ru")


def test_record_errors_have_a_code():
    from nardy.records.mat import parse_mat

    with pytest.raises(RecordError) as e:
        parse_mat("/etc/passwd")
    assert e.value.code == "bad_record" and MESSAGES["bad_record"][1]
