"""The commands of ``nardy play``: a typed line turned into a :class:`Command`, with no input or output.

A line is read as a command word (English or Russian, any case) and the rest of the line, a number
(``7``: pick a play from the last ``moves`` or ``hint`` list) or a play in notation (any line with a
``/``). Several commands share words (``yes`` takes a double, accepts a resignation and confirms a
play; ``no`` passes or declines): :func:`parse` matches them in the order of :data:`GENERAL`, after
the kinds the question being answered puts ``first``.

>>> parse("Resign gammon", "backgammon")
Command(kind=<Kind.RESIGN: 'resign'>, line='Resign gammon', word='resign', arg='gammon', number=None, level=1)
>>> parse("да", "long").kind, parse("да", "long", first=(Kind.ACCEPT,)).kind
(<Kind.TAKE: 'take'>, <Kind.ACCEPT: 'accept'>)
>>> parse("24/18 13/11", "backgammon").kind, parse("24-18 13-11", "short").kind, parse("12", "short").number
(<Kind.PLAY: 'play'>, <Kind.PLAY: 'play'>, 12)
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable
from dataclasses import dataclass

from ..rules.notation import dash_to_slash
from ..texts.i18n import RESIGN_WORDS

__all__ = ["Kind", "Command", "ALIASES", "GENERAL", "WORDS", "parse", "split", "resign_level"]


class Kind(enum.StrEnum):
    """What a typed line asks for."""

    HELP = "help"
    QUIT = "quit"
    SAVE = "save"  #: ``arg``: the file (empty: the player must name one)
    BOARD = "board"
    HINT = "hint"
    EVAL = "eval"
    MOVES = "moves"
    UNDO = "undo"
    RESIGN = "resign"  #: ``level``: 0 single game / oyun, 1 gammon / mars, ...; None for an unknown word
    DOUBLE = "double"
    ROLL = "roll"
    TAKE = "take"
    PASS = "pass"
    BEAVER = "beaver"
    ACCEPT = "accept"
    DECLINE = "decline"
    CONFIRM = "confirm"  # only where the question puts it first (a complete play waits)
    PICK = "pick"  #: ``number``: a play of the last list (1, 2, ...)
    PLAY = "play"  #: ``line``: a play or single steps in notation
    EMPTY = "empty"  # Enter alone
    UNKNOWN = "unknown"


#: The words of each command, English and Russian (lower case).
ALIASES: dict[Kind, frozenset[str]] = {
    Kind.HELP: frozenset({"help", "h", "?", "помощь", "справка", "помоги"}),
    Kind.QUIT: frozenset({"quit", "exit", "q", "выход", "выйти", "конец"}),
    Kind.SAVE: frozenset({"save", "сохранить", "сохрани"}),
    Kind.BOARD: frozenset({"board", "доска", "показать"}),
    Kind.HINT: frozenset({"hint", "подсказка", "совет"}),
    Kind.EVAL: frozenset({"eval", "evaluate", "оценка"}),
    Kind.MOVES: frozenset({"moves", "list", "plays", "ходы", "список"}),
    Kind.UNDO: frozenset({"undo", "back", "u", "отмена", "отменить", "назад"}),
    Kind.RESIGN: frozenset({"resign", "сдаться", "сдаюсь", "сдача"}),
    Kind.DOUBLE: frozenset({"double", "d", "удвоить", "удвоение", "дабл"}),
    Kind.ROLL: frozenset({"roll", "r", "бросить", "бросок", "бросай"}),
    Kind.TAKE: frozenset({"take", "t", "принять", "беру", "принимаю", "yes", "да"}),
    Kind.PASS: frozenset({"pass", "drop", "p", "отказ", "пас", "отказаться", "no", "нет"}),
    Kind.BEAVER: frozenset({"beaver", "бивер"}),
    Kind.ACCEPT: frozenset({"accept", "yes", "y", "принять", "принимаю", "да", "д"}),
    Kind.DECLINE: frozenset({"decline", "no", "n", "отклонить", "нет", "н"}),
    Kind.CONFIRM: frozenset({"ok", "confirm", "ок", "да", "подтвердить", "y", "yes"}),
}

#: The order in which a word is matched when no question puts other kinds first.
GENERAL: tuple[Kind, ...] = (
    Kind.HELP,
    Kind.QUIT,
    Kind.SAVE,
    Kind.BOARD,
    Kind.HINT,
    Kind.EVAL,
    Kind.MOVES,
    Kind.UNDO,
    Kind.RESIGN,
    Kind.DOUBLE,
    Kind.ROLL,
    Kind.TAKE,
    Kind.PASS,
    Kind.BEAVER,
    Kind.ACCEPT,
    Kind.DECLINE,
)

#: Every command word.
WORDS: frozenset[str] = frozenset().union(*ALIASES.values())

_NUMBER = re.compile(r"\d{1,3}")


@dataclass(frozen=True)
class Command:
    """A parsed line: its :class:`Kind`, the line as typed (stripped), its first word (lower case)
    and the rest; ``number`` for :attr:`Kind.PICK`, ``level`` for :attr:`Kind.RESIGN`."""

    kind: Kind
    line: str = ""
    word: str = ""
    arg: str = ""
    number: int | None = None
    level: int | None = None


def split(line: str) -> tuple[str, str]:
    """The first word of ``line`` (lower case) and the rest (stripped)."""
    parts = line.strip().split(None, 1)
    if not parts:
        return "", ""
    return parts[0].lower(), (parts[1].strip() if len(parts) > 1 else "")


def resign_level(game: str, text: str) -> int | None:
    """The resignation level named by ``text`` in ``game`` (``gammon``, ``марс``, ``2``: 1-based),
    or None."""
    t = text.strip().lower()
    if t.isdigit():
        n = int(t)
        return n - 1 if 1 <= n <= len(RESIGN_WORDS[game]) else None
    for i, words in enumerate(RESIGN_WORDS[game]):
        if t in words:
            return i
    return None


def parse(line: str, game: str, first: Iterable[Kind] = ()) -> Command:
    """The command typed as ``line`` in ``game`` (``backgammon``, ``short``, ``long``: it names the
    resignation levels). ``first``: the kinds matched before :data:`GENERAL` (the answers the
    current question expects)."""
    line = line.strip()
    if not line:
        return Command(Kind.EMPTY)
    word, arg = split(line)
    for kind in (*first, *GENERAL):
        if word in ALIASES[kind]:
            level = None
            if kind is Kind.RESIGN:
                level = resign_level(game, arg) if arg else 0
            return Command(kind, line, word, arg, level=level)
    if _NUMBER.fullmatch(line):
        return Command(Kind.PICK, line, word, arg, number=int(line))
    if "/" in line or dash_to_slash(line) != line:  # 24/18 13/11, or the dash form 24-18 13-11
        return Command(Kind.PLAY, line, word, arg)
    return Command(Kind.UNKNOWN, line, word, arg)
