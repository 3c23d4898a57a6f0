"""``nardy play``'s explainer (:mod:`nardy.terminal.explain`): why a typed play or command was refused.

Each refusal is checked as the player reads it: in English and Russian, points labelled in the
player's numbering (own, absolute for long nardy, traditional for backgammon and short nardy). The
tests are named after the rule the refused input breaks.
"""

from __future__ import annotations

import io

import pytest

from nardy.flow.game import Game
from nardy.flow.match import Match
from nardy.rules.dice import FixedDice
from nardy.rules.errors import IllegalPlayError, NotationError
from nardy.rules.numbering import Numbering
from nardy.terminal.explain import Explainer
from nardy.terminal.play import TerminalGame
from nardy.terminal.players import PlayerSpec
from nardy.terminal.render import Output
from nardy.texts.i18n import Texts
from nardy.texts.refusals import step_refusal

from ..helpers import pos


def explainer(lang: str, numbering: str, game: str) -> Explainer:
    return Explainer(Texts(lang), Numbering(numbering, game), game)


def rolled(position, roll, turn=0) -> Game:
    """A game at ``position`` (``turn``'s view) with ``roll`` to play."""
    g = Game.from_position(position, turn=turn, dice=FixedDice([roll]))
    g.roll()
    assert g.phase == "move" and g.turn == turn
    return g


def refused(g, frm, to) -> tuple[str, dict]:
    """The code and params of a step the game refuses (checked: it does refuse it)."""
    with pytest.raises(IllegalPlayError):
        g.step(frm, to)
    return step_refusal(g, frm, to)


# ----- single steps ------------------------------------------------------------------------------------
def test_closed_point_named_in_the_traditional_numbering():
    # White on the bar; Black holds White's own point 19 (Black's 6), traditional label 06
    g = rolled(pos("backgammon", mover={25: 1, 13: 14}, opponent={6: 2, 13: 13}), (6, 3))
    assert refused(g, 25, 19) == ("closed_point", {"point": 19})
    assert explainer("en", "traditional", "backgammon").step(g, 0, 25, 19) == "point 06 is closed"
    assert explainer("ru", "traditional", "backgammon").step(g, 0, 25, 19) == "пункт 06 закрыт"
    assert explainer("en", "own", "backgammon").step(g, 0, 25, 19) == "point 19 is closed"


def test_enter_from_the_bar_first():
    g = rolled(pos("backgammon", mover={25: 1, 13: 14}, opponent={6: 2, 13: 13}), (6, 3))
    assert refused(g, 13, 7) == ("enter_first", {})
    assert explainer("en", "own", "backgammon").step(g, 0, 13, 7) == "a checker on the bar must enter first"
    assert explainer("ru", "own", "backgammon").step(g, 0, 13, 7) == "сначала нужно ввести шашку с бара"


def test_no_checker_on_the_point_named_in_blacks_absolute_numbering():
    # long nardy, Black to play: Black's own point 3 is absolute 15
    g = rolled(pos("long", mover={24: 14, 13: 1}, opponent={24: 15}), (4, 2), turn=1)
    assert refused(g, 3, 1) == ("no_checker", {"point": 3})
    assert explainer("en", "absolute", "long").step(g, 1, 3, 1) == "you have no checker on point 15"
    assert explainer("ru", "absolute", "long").step(g, 1, 3, 1) == "на пункте 15 нет ваших шашек"
    assert explainer("en", "own", "long").step(g, 1, 3, 1) == "you have no checker on point 3"


def test_distance_the_dice_do_not_make():
    g = rolled(pos("long", mover={24: 14, 13: 1}, opponent={24: 15}), (4, 2), turn=1)
    code, params = refused(g, 13, 8)
    assert (code, params) == ("distance", {"pips": 5, "dice": [4, 2], "from": 13, "to": 8})
    assert explainer("en", "absolute", "long").step(g, 1, 13, 8) == "1/20 is 5 pips: the dice 4-2 do not move that far"
    assert explainer("ru", "absolute", "long").step(g, 1, 13, 8) == (
        "1/20 — это 5 пунктов: зары 4-2 так далеко не ходят"
    )


def test_bearing_off_needs_every_checker_home():
    g = rolled(pos("long", mover={24: 2, 11: 1, 10: 1, 9: 1, 8: 1, 6: 1, 13: 1, 1: 7}, opponent={24: 15}), (6, 1))
    assert refused(g, 1, 0) == ("not_home", {"outside": 7})
    assert explainer("en", "own", "long").step(g, 0, 1, 0) == (
        "you may bear off only when all your checkers are home (7 outside)"
    )
    assert explainer("ru", "own", "long").step(g, 0, 1, 0) == (
        "выбрасывать можно только когда все шашки в доме (вне дома: 7)"
    )


def test_only_one_checker_leaves_the_head_per_turn():
    g = rolled(pos("long", mover={24: 2, 11: 1, 10: 1, 9: 1, 8: 1, 6: 1, 13: 1, 1: 7}, opponent={24: 15}), (6, 1))
    g.step(24, 18)
    assert refused(g, 24, 23) == ("head_limit", {})
    assert explainer("ru", "absolute", "long").step(g, 0, 24, 23) == "за ход с головы можно снять только одну шашку"


def test_six_points_in_a_row_with_no_opponent_ahead():
    g = rolled(pos("long", mover={24: 2, 11: 1, 10: 1, 9: 1, 8: 1, 6: 1, 13: 1, 1: 7}, opponent={24: 15}), (6, 1))
    assert refused(g, 13, 7) == ("six_block", {})
    assert explainer("en", "own", "long").step(g, 0, 13, 7).startswith("six points in a row")
    assert explainer("ru", "own", "long").step(g, 0, 13, 7).startswith("нельзя ставить заграждение из шести")


def test_every_die_used_already():
    g = rolled(pos("backgammon", mover={13: 15}, opponent={13: 15}), (6, 5))
    g.step(13, 7)
    g.step(13, 8)
    assert step_refusal(g, 7, 1) == ("dice_fit", {"dice": [6, 5]})
    assert explainer("en", "own", "backgammon").step(g, 0, 7, 1) == "the moves do not fit the dice 6-5"


# ----- typed plays ---------------------------------------------------------------------------------
def test_a_step_away_from_home_goes_backwards_in_the_players_path():
    x = explainer("en", "traditional", "short")
    own = x.num.to_own("07/12", 1)  # Black's own 7/13
    assert own == "7/13"
    assert x.bad_notation("07/12", own, 1) == "07/12 goes backwards: Black moves 1…12, 012…01"
    ru = explainer("ru", "own", "long")
    assert ru.bad_notation("7/13", "7/13", 0) == "7/13 — ход назад: белые ходят 24…1"
    assert explainer("en", "absolute", "long").path(1) == "12…1, 24…13"


def test_a_point_the_numbering_does_not_have():
    x = explainer("en", "traditional", "backgammon")
    with pytest.raises(NotationError) as e:
        x.num.to_own("13/7", 0)
    assert x.bad_point(e.value) == "point 13: traditional numbering uses 1-12 and 01-012 (or I-XII), bar, off"
    assert explainer("ru", "own", "long").bad_point(NotationError("no point 30", text=" 30 ")) == (
        "пункт 30: пункты — 1–24, bar и off"
    )


def test_an_unreadable_play_shows_an_example_in_the_players_numbering():
    assert explainer("en", "absolute", "long").example(1) == "12/6 12/9"
    assert explainer("en", "own", "long").example(1) == "24/18 24/21"
    text = explainer("en", "traditional", "backgammon").bad_notation("hello/", "hello/", 0)
    assert text == "cannot read it as a play; write moves like 01/07 012/11 (bar, off; 'help' for more)"


def test_a_whole_play_refusal_says_more_than_its_first_step_only_for_some_codes():
    start = pos("backgammon", mover={24: 2, 13: 5, 8: 3, 6: 5}, opponent={24: 2, 13: 5, 8: 3, 6: 5})
    with pytest.raises(IllegalPlayError) as fewer:
        start.parse_play("13/9", (4, 1))
    x = explainer("ru", "own", "backgammon")
    assert fewer.value.code == "fewer_dice"
    assert x.whole_play(fewer.value, 0) == "сыграно 1 из 2 возможных зар; нужно сыграть столько зар, сколько возможно"
    with pytest.raises(IllegalPlayError) as other:
        start.parse_play("13/7 13/12", (4, 1))
    assert x.whole_play(other.value, 0) is None


def test_a_command_of_another_phase_says_what_the_game_waits_for():
    g = Game("backgammon", dice=FixedDice([5, 2, (3, 1)]))
    g.start()
    x = explainer("en", "own", "backgammon")
    assert x.phase(g) == "a double is offered before rolling"  # phase move
    ru = explainer("ru", "own", "backgammon")
    assert ru.phase(Game.from_position(g.position, turn=0)) == "зары ещё не брошены"  # phase roll


# ----- through the terminal --------------------------------------------------------------------------
def typed(game, lines, lang="en", numbering="own", rolls=(5, 2, (6, 1))):
    buf = io.StringIO()
    script = list(lines)

    def read(prompt):
        buf.write(prompt)
        if not script:
            raise EOFError
        line = script.pop(0)
        buf.write(line + "\n")
        return line

    m = Match(game, dice=FixedDice(list(rolls)))
    s = TerminalGame(
        m,
        (PlayerSpec("human"), PlayerSpec("bot", "random")),
        lang=lang,
        numbering=numbering,
        out=Output("never", stream=buf),
        read=read,
        seed=1,
    )
    assert s.run() == 0
    return buf.getvalue()


def test_save_needs_a_file_name_in_both_languages():
    assert "save needs a file name: save FILE" in typed("long", ["save"])
    assert "Укажите имя файла: сохранить ФАЙЛ" in typed("long", ["сохранить"], lang="ru")


def test_refused_step_is_worded_in_russian_with_traditional_labels():
    out = typed("short", ["01/09"], lang="ru", numbering="traditional")
    assert "Недопустимый ход «01/09»: 01/09 — это 8 пунктов: зары 6-1 так далеко не ходят" in out
