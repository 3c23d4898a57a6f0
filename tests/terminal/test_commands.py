"""``nardy play``'s command parser (:mod:`nardy.terminal.commands`): a typed line as a command, no terminal.

Every command word in English and Russian, numbers, plays, resignation levels, ``save`` without a
file, unknown words, and the words several commands share (matched in the order the question asks).
"""

from __future__ import annotations

import pytest

from nardy.terminal.commands import ALIASES, GENERAL, WORDS, Command, Kind, parse, resign_level, split

#: Each command's words in both languages, as a player would type them (shared words are below).
WORDS_OF = {
    Kind.HELP: ["help", "h", "?", "помощь", "справка", "помоги"],
    Kind.QUIT: ["quit", "exit", "q", "выход", "выйти", "конец"],
    Kind.SAVE: ["save", "сохранить", "сохрани"],
    Kind.BOARD: ["board", "доска", "показать"],
    Kind.HINT: ["hint", "подсказка", "совет"],
    Kind.EVAL: ["eval", "evaluate", "оценка"],
    Kind.MOVES: ["moves", "list", "plays", "ходы", "список"],
    Kind.UNDO: ["undo", "back", "u", "отмена", "отменить", "назад"],
    Kind.RESIGN: ["resign", "сдаться", "сдаюсь", "сдача"],
    Kind.DOUBLE: ["double", "d", "удвоить", "удвоение", "дабл"],
    Kind.ROLL: ["roll", "r", "бросить", "бросок", "бросай"],
    Kind.TAKE: ["take", "t", "беру"],
    Kind.PASS: ["pass", "drop", "p", "отказ", "пас", "отказаться"],
    Kind.BEAVER: ["beaver", "бивер"],
    Kind.ACCEPT: ["accept", "y", "д"],
    Kind.DECLINE: ["decline", "n", "отклонить", "н"],
}


@pytest.mark.parametrize(("kind", "word"), [(k, w) for k, ws in WORDS_OF.items() for w in ws])
def test_every_command_word_in_both_languages_names_its_command(kind, word):
    cmd = parse(word, "backgammon")
    assert cmd.kind is kind
    assert cmd.word == word and cmd.line == word and cmd.arg == ""


def test_every_word_of_the_table_is_tested_and_reaches_a_command():
    tested = {w for ws in WORDS_OF.values() for w in ws}
    shared = {"yes", "да", "no", "нет", "принять", "принимаю"}
    confirm_only = ALIASES[Kind.CONFIRM] - {w for k in GENERAL for w in ALIASES[k]}
    assert WORDS == tested | shared | confirm_only
    for word in WORDS - confirm_only:
        assert word in ALIASES[parse(word, "short").kind]


def test_command_words_are_read_in_any_case_and_the_line_is_stripped():
    assert parse("  HELP ", "long") == Command(Kind.HELP, "HELP", "help")
    assert parse("Сдаться  МАРС ", "short") == Command(Kind.RESIGN, "Сдаться  МАРС", "сдаться", "МАРС", level=1)
    assert split("  Save   my game.json ") == ("save", "my game.json")
    assert split("   ") == ("", "")


def test_enter_alone_is_empty():
    assert parse("", "backgammon").kind is Kind.EMPTY
    assert parse("   ", "backgammon") == Command(Kind.EMPTY)


# ----- shared words: the question decides ---------------------------------------------------------
@pytest.mark.parametrize(
    ("word", "general", "at_resignation"),
    [
        ("yes", Kind.TAKE, Kind.ACCEPT),
        ("да", Kind.TAKE, Kind.ACCEPT),
        ("принять", Kind.TAKE, Kind.ACCEPT),
        ("принимаю", Kind.TAKE, Kind.ACCEPT),
        ("no", Kind.PASS, Kind.DECLINE),
        ("нет", Kind.PASS, Kind.DECLINE),
    ],
)
def test_shared_answer_words_take_or_pass_unless_a_resignation_is_answered(word, general, at_resignation):
    assert parse(word, "backgammon").kind is general
    assert parse(word, "backgammon", first=(Kind.TAKE, Kind.PASS, Kind.BEAVER)).kind is general
    assert parse(word, "backgammon", first=(Kind.ACCEPT, Kind.DECLINE)).kind is at_resignation


@pytest.mark.parametrize("word", ["ok", "OK", "confirm", "ок", "подтвердить", "y", "yes", "да"])
def test_confirm_words_confirm_only_when_a_complete_play_waits(word):
    assert parse(word, "long", first=(Kind.CONFIRM,)).kind is Kind.CONFIRM
    assert parse(word, "long").kind is not Kind.CONFIRM


def test_confirm_only_words_are_unknown_elsewhere():
    for word in ("ok", "confirm", "ок", "подтвердить"):
        assert parse(word, "long").kind is Kind.UNKNOWN


# ----- numbers and plays --------------------------------------------------------------------------
@pytest.mark.parametrize(("line", "number"), [("1", 1), ("7", 7), ("12", 12), ("123", 123), ("0", 0)])
def test_a_number_of_up_to_three_digits_picks_from_the_list(line, number):
    assert parse(line, "backgammon") == Command(Kind.PICK, line, line, number=number)


@pytest.mark.parametrize("line", ["24/18 13/11", "bar/20", "6/off", "01/07 12/9*(2)", "13/x", "ok 24/18"])
def test_a_line_with_a_slash_and_no_command_word_is_a_play(line):
    cmd = parse(line, "short")
    assert cmd.kind is Kind.PLAY and cmd.line == line


def test_a_command_word_wins_over_a_slash_in_its_argument():
    assert parse("save games/today.json", "backgammon") == Command(
        Kind.SAVE, "save games/today.json", "save", "games/today.json"
    )
    assert parse("? 24/18", "backgammon").kind is Kind.HELP


# ----- resign levels ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("game", "line", "level"),
    [
        ("backgammon", "resign", 0),
        ("backgammon", "resign single", 0),
        ("backgammon", "resign gammon", 1),
        ("backgammon", "сдаться бэкгаммон", 2),
        ("backgammon", "resign 3", 2),
        ("backgammon", "resign 4", None),
        ("backgammon", "resign 0", None),
        ("short", "resign koks", 3),
        ("short", "сдаюсь домашний марс", 2),
        ("short", "resign home mars", 2),
        ("short", "сдача оюн", 0),
        ("long", "resign mars", 1),
        ("long", "resign 3", None),
        ("long", "resign gammon", None),
        ("backgammon", "resign xyz", None),
    ],
)
def test_resign_level_by_name_in_either_language_or_by_number(game, line, level):
    cmd = parse(line, game)
    assert cmd.kind is Kind.RESIGN and cmd.level == level
    assert cmd.arg == (line.split(None, 1) + [""])[1]


def test_resign_level_of_a_word_alone():
    assert resign_level("short", " MARS ") == 1
    assert resign_level("long", "кокс") is None


# ----- save and unknown words ---------------------------------------------------------------------
def test_save_needs_a_file_name():
    assert parse("save", "backgammon") == Command(Kind.SAVE, "save", "save")
    assert parse("сохранить  игра.json", "long").arg == "игра.json"


@pytest.mark.parametrize("line", ["foo", "ход", "1000", "x5", "play now", "-1"])
def test_unknown_words_are_unknown(line):
    cmd = parse(line, "backgammon")
    assert cmd.kind is Kind.UNKNOWN and cmd.line == line
