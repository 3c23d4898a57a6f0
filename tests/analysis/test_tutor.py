"""``nardy play --tutor``: a person's error is caught before it is played, with the better play, and the
analysis of the match is shown when a game ends (scripted sessions, as tests/terminal/test_play.py)."""

from __future__ import annotations

from nardy import Position
from nardy.analysis.tutor import Tutor

from ..terminal.test_play import match_at, session_output

# long nardy: 4 checkers left (5, 5, 4, 4) against 4 on the 1-point; with 5-4, 5/1 5/off gives up 0.32
_RACE = Position.from_boards([11, 0, 0, 0, 2, 2] + [0] * 20, [11, 4] + [0] * 24, game="long")


def test_the_tutor_judges_a_play_as_the_analysis_does():
    m = match_at(_RACE, [(5, 4)])
    g = m.current
    g.roll()
    tutor = Tutor(m.rules, "advanced")
    bad = g.position.parse_play("5/1 5/off", g.dice)
    good = g.position.parse_play("5/off 4/off", g.dice)
    advice = tutor.check_play(m, bad)
    assert advice.mark == "blunder" and str(advice.best) == "5/off 4/off" and advice.loss > 0.3
    assert tutor.check_play(m, good) is None


def test_the_tutor_warns_before_an_error_and_the_play_can_be_changed():
    m = match_at(_RACE, [(5, 4), (1, 1), (2, 1)])
    out, s = session_output(m, ["", "5/1 5/off", "n", "5/off 4/off"], tutor=True, hint_level="advanced")
    assert "Tutor: 5/1 5/off is a blunder (it gives up 324 millipoints); better: 5/off 4/off." in out
    assert "Play it anyway?" in out
    # the warned play was not made; the better one was
    plays = [e.play for e in s.match.current.history if getattr(e, "play", None) and e.player == 0]
    assert plays == ["5/off 4/off"]


def test_the_analysis_is_shown_when_a_game_ends():
    m = match_at(Position.from_boards([13, 0, 0, 0, 1, 1] + [0] * 20, [11, 4] + [0] * 24, game="long"), [(5, 4)])
    out, _ = session_output(m, ["", "5/off 4/off", ""], tutor=True, hint_level="advanced")
    assert "Analysis of the match so far (nardy advanced, 0-ply):" in out
    assert "White: error rate 0.0 mp per decision, PR 0.0" in out


def test_the_tutor_warns_before_a_wrong_pass():
    # backgammon, the start: a double by the side on roll is wrong, and so is passing it
    from nardy.flow.match import Match

    m = Match("backgammon", length=0)
    g = m.new_game()
    g.start(starter=0, dice=(3, 1))
    g.play("8/5 6/5")
    tutor = Tutor(m.rules, "advanced")
    dbl = tutor.check_cube(m, "double")
    assert dbl is not None and dbl.best == "no double" and dbl.mark == "blunder"
    g.double(player=1)
    assert tutor.check_cube(m, "take") is None
    wrong = tutor.check_cube(m, "pass")
    assert wrong is not None and wrong.best == "take" and wrong.loss > 0.5


def test_the_terminal_asks_before_a_wrong_pass():
    from nardy.terminal.players import PlayerSpec

    m = match_at(Position.start("backgammon"), [(3, 1), (6, 5), (4, 2)], turn=1)
    players = (PlayerSpec("human"), PlayerSpec("human"))
    script = ["double", "y", "pass", "n", "take"]
    out, s = session_output(m, script, players=players, tutor=True, hint_level="advanced")
    assert "Tutor: to double is a blunder" in out and "right: not to double." in out
    assert "Tutor: to pass is a blunder" in out and "right: to take." in out
    # the pass was taken back on the tutor's word: White took
    kinds = [type(e).__name__ for e in s.match.current.history]
    assert "TakeEvent" in kinds and "DropEvent" not in kinds
