"""Texts of the terminal front end (``nardy play``) in English and Russian.

:func:`detect_lang` picks the language from the system locale (Russian when it is Russian, else
English); :class:`Texts` formats a message by key (``texts("roll_event", who="White", dice="6-3")``).
The nardy terms follow the seeds: оюн, марс, домашний марс, кокс (short nardy), ойн, марс (long
nardy), зары, голова, бар.
"""

from __future__ import annotations

import os
import re

__all__ = ["LANGS", "detect_lang", "Texts", "GAME_TITLES", "RESULT_NAMES", "plural_points"]

LANGS = ("en", "ru")


def detect_lang(environ=None) -> str:
    """``"ru"`` when the system locale is Russian, else ``"en"``.

    Looks at ``LANGUAGE`` (first entry), ``LC_ALL``, ``LC_MESSAGES`` and ``LANG`` in that order; the
    first one that is set decides.
    """
    env = os.environ if environ is None else environ
    for var in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        val = (env.get(var) or "").strip()
        if not val:
            continue
        first = val.split(":")[0].lower()
        if first in ("c", "posix") or first.startswith("c."):
            if var == "LANGUAGE":
                continue
            return "en"
        return "ru" if first.startswith("ru") else "en"
    try:
        import locale

        loc = locale.getlocale()[0] or ""
    except (ValueError, TypeError):  # pragma: no cover - broken locale settings
        loc = ""
    return "ru" if loc.lower().startswith("ru") else "en"


GAME_TITLES = {
    "en": {"backgammon": "Backgammon", "short": "Short nardy", "long": "Long nardy"},
    "ru": {"backgammon": "Бэкгаммон", "short": "Короткие нарды", "long": "Длинные нарды"},
}

#: Result level names per language and game (lowest level first), as docs/rules.md orders them.
RESULT_NAMES = {
    "en": {
        "backgammon": ("single game", "gammon", "backgammon"),
        "short": ("oyun", "mars", "home mars", "koks"),
        "long": ("oyn", "mars"),
        "draw": "draw",
    },
    "ru": {
        "backgammon": ("одинарная партия", "гаммон", "бэкгаммон"),
        "short": ("оюн", "марс", "домашний марс", "кокс"),
        "long": ("ойн", "марс"),
        "draw": "ничья",
    },
}

#: Words accepted for each result level by ``resign`` (any language), lowest level first.
RESIGN_WORDS = {
    "backgammon": (
        ("single", "simple", "one", "одинарная", "одинарную", "обычная", "обычную", "простая"),
        ("gammon", "гаммон"),
        ("backgammon", "бэкгаммон", "бекгаммон"),
    ),
    "short": (
        ("oyun", "oin", "oyn", "оюн", "ойн", "оин"),
        ("mars", "марс"),
        ("home mars", "home-mars", "homemars", "домашний марс", "домашний-марс", "дом. марс"),
        ("koks", "cox", "кокс"),
    ),
    "long": (("oyn", "oin", "oyun", "ойн", "оин", "оюн"), ("mars", "марс")),
}

#: Bot levels (:data:`nardy.bots.BOT_LEVELS`) as shown to the player.
LEVEL_NAMES = {
    "ru": {
        "random": "случайные ходы",
        "heuristic": "эвристика",
        "beginner": "новичок",
        "casual": "любитель",
        "intermediate": "средний",
        "advanced": "сильный",
        "expert": "эксперт",
        "grandmaster": "гроссмейстер",
    },
}

COLOURS = {"en": ("White", "Black"), "ru": ("Белые", "Чёрные")}
#: Genitive forms ("у белых"); English uses the plain names.
COLOURS_GEN = {"en": ("White", "Black"), "ru": ("белых", "чёрных")}


def plural_points(n, lang: str) -> str:
    """``"1 point"``, ``"2 points"``, ``"0.5 points"``; ``"1 очко"``, ``"2 очка"``, ``"5 очков"``."""
    if isinstance(n, float) and n != int(n):
        num = f"{n:g}"
        return f"{num} points" if lang == "en" else f"{num.replace('.', ',')} очка"
    n = int(n)
    if lang == "en":
        return f"{n} point" + ("" if n == 1 else "s")
    if n % 10 == 1 and n % 100 != 11:
        word = "очко"
    elif 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14:
        word = "очка"
    else:
        word = "очков"
    return f"{n} {word}"


_T = {
    # ----- start, players, board ------------------------------------------------------------------
    "welcome": (
        "nardy: {game}. Type 'help' for the commands.",
        "nardy: {game}. Команда «помощь» (help) покажет все команды.",
    ),
    "warming_up": (
        "Preparing the computer player (compiled once after an install; up to a minute)...",
        "Подготовка компьютерного игрока (компилируется один раз после установки; до минуты)...",
    ),
    "warmed_up": ("Ready ({seconds} s).", "Готово ({seconds} с)."),
    "one_game": ("one game", "одна партия"),
    "match_to": ("match to {n}", "матч до {n}"),
    "score": ("score {w} {ws} : {b} {bs}", "счёт: {w} {ws} : {b} {bs}"),
    "crawford": ("Crawford game: no doubling", "партия Кроуфорда: удваивать нельзя"),
    "you": ("you", "вы"),
    "human": ("player", "игрок"),
    "computer": ("computer, {level}", "компьютер, {level}"),
    "side_line": ("{glyph} {name}: pips {pips}, off {off}", "{glyph} {name}: пипсов {pips}, выброшено {off}"),
    "bar_part": (", bar {n}", ", на баре {n}"),
    "cube_centre": ("Cube: {value}, in the middle", "Куб: {value}, в центре"),
    "cube_owned": ("Cube: {value}, {who} owns it", "Куб: {value}, у {whom}"),
    "numbering": ("Numbering: {name}", "Нумерация: {name}"),
    "numbering_own": ("each player's own", "своя у каждого игрока"),
    "numbering_absolute": (
        "absolute (White's head 24, Black's head 12)",
        "сквозная (голова белых 24, голова чёрных 12)",
    ),
    "numbering_traditional": (
        "traditional (White's half 1-12, Black's half 01-012)",
        "традиционная (половина белых 1–12, половина чёрных 01–012)",
    ),
    "to_roll": ("{who} to roll", "Бросают зары {who}"),
    "to_play": ("{who} to play {dice}", "Ходят {who}: {dice}"),
    "to_answer_double": ("{who} must answer the double to {value}", "{who} должны ответить на удвоение до {value}"),
    "to_answer_resign": ("{who} must answer the resignation", "{who} должны ответить на предложение сдачи"),
    "steps_so_far": ("Steps so far: {steps}; dice left: {left}", "Уже сыграно: {steps}; осталось: {left}"),
    "bar_word": ("BAR", "БАР"),
    # ----- events ---------------------------------------------------------------------------------
    "new_game": ("Game {n}", "Партия {n}"),
    "new_match": ("Match {n}", "Матч {n}"),
    "opening_tie": (
        "Opening roll: White {w}, Black {b}: a tie, roll again.",
        "Розыгрыш: белые {w}, чёрные {b} — поровну, бросают снова.",
    ),
    "opening": (
        "Opening roll: White {w}, Black {b}. {who} starts.",
        "Розыгрыш: белые {w}, чёрные {b}. Начинают {who}.",
    ),
    "opening_dice": ("{who} plays the opening roll {dice}.", "{who} играют зары розыгрыша {dice}."),
    "roll_event": ("{who} rolls {dice}.", "{who} бросают {dice}."),
    "pass_event": (
        "{who} cannot move with {dice}: the turn passes.",
        "{who} не могут сыграть {dice}: ход переходит к сопернику.",
    ),
    "play_event": ("{who} plays {dice}: {play}", "{who} играют {dice}: {play}"),
    "play_on_board": (" (board numbers: {play})", " (по нумерации доски: {play})"),
    "double_event": ("{who} doubles to {value}.", "{who} удваивают до {value}."),
    "take_event": (
        "{who} takes: the cube is at {value}, owned by {who}.",
        "{who} принимают: куб {value}, теперь у них.",
    ),
    "beaver_event": (
        "{who} beavers: the cube is at {value}, owned by {who}.",
        "{who} делают бивер: куб {value}, у них.",
    ),
    "drop_event": ("{who} passes the double.", "{who} отказываются от удвоения."),
    "resign_event": ("{who} offers to resign: {level} ({points}).", "{who} предлагают сдачу: {level} ({points})."),
    "accept_event": ("{who} accepts the resignation.", "{who} принимают сдачу."),
    "decline_event": ("{who} declines the resignation: play goes on.", "{who} отклоняют сдачу: игра продолжается."),
    "last_roll_event": (
        "{who} gets one last roll: bearing off all the rest draws the game.",
        "{who} получают последний бросок: если выбросят все шашки — ничья.",
    ),
    "win_bearoff": ("{who} wins: {level}, {points}.", "Победили {who}: {level}, {points}."),
    "win_drop": ("{who} wins {points}: the double was passed.", "Победили {who}: {points}, удвоение не принято."),
    "win_resign": (
        "{who} wins by resignation: {level}, {points}.",
        "Победили {who}, соперник сдался: {level}, {points}.",
    ),
    "draw_result": ("The game is drawn: {points} each.", "Ничья: по {points} каждому."),
    "cube_note": (" (cube {value})", " (куб {value})"),
    "score_line": ("Score: White {w}, Black {b}.", "Счёт: белые {w}, чёрные {b}."),
    "match_won": ("{who} wins the match {w}-{b}.", "{who} выиграли матч со счётом {w}:{b}."),
    "game_over": ("Game over.", "Партия окончена."),
    "record_written": ("Record written to {path}.", "Запись партии сохранена в {path}."),
    "bot_eval": (
        "  computer's estimate: {equity} (best {best}: {best_equity})",
        "  оценка компьютера: {equity} (лучший ход {best}: {best_equity})",
    ),
    "bot_eval_best": ("  computer's estimate: {equity}, the best play", "  оценка компьютера: {equity}, лучший ход"),
    # ----- prompts ----------------------------------------------------------------------------------
    "prompt_play": ("{who} {dice}, play> ", "{who} {dice}, ход> "),
    "prompt_confirm": ("{who} {dice}, confirm (Enter) or undo> ", "{who} {dice}, подтвердить (Enter) или отмена> "),
    "prompt_forced": ("{who} {dice}, Enter to play it> ", "{who} {dice}, Enter — сыграть> "),
    "prompt_roll": ("{who}, roll (Enter) or double> ", "{who}, бросить (Enter) или удвоить> "),
    "prompt_take": ("{who}, take or pass> ", "{who}, принять или отказ> "),
    "prompt_take_beaver": ("{who}, take, beaver or pass> ", "{who}, принять, бивер или отказ> "),
    "prompt_resign": ("{who}, accept or decline> ", "{who}, принять или отклонить> "),
    "prompt_continue": ("Press Enter to continue> ", "Нажмите Enter, чтобы продолжить> "),
    "prompt_yes_no": ("{question} (y/n)> ", "{question} (д/н)> "),
    "prompt_save_name": (
        "File name to save to (Enter: do not save)> ",
        "Имя файла для сохранения (Enter — не сохранять)> ",
    ),
    "confirm_resign": (
        "Resign ({level}): you lose {points}. Offer it?",
        "Сдаться ({level}): вы теряете {points}. Предложить?",
    ),
    "confirm_resign_cube": (
        "Resign ({level}) with the cube at {value}: you lose {points}. Offer it?",
        "Сдаться ({level}) при кубе {value}: вы теряете {points}. Предложить?",
    ),
    "confirm_resign_match": (
        "Resign ({level}): you lose {points} and the match. Offer it?",
        "Сдаться ({level}): вы теряете {points} и матч. Предложить?",
    ),
    "confirm_resign_cube_match": (
        "Resign ({level}) with the cube at {value}: you lose {points} and the match. Offer it?",
        "Сдаться ({level}) при кубе {value}: вы теряете {points} и матч. Предложить?",
    ),
    "resign_ahead": (
        "The computer rates your chances better than even: {win} to win.",
        "По оценке компьютера ваши шансы лучше равных: выигрыш {win}.",
    ),
    "resign_kept": ("No resignation: play goes on.", "Сдачи нет, игра продолжается."),
    "double_too_much": (
        "The cube at {value} already wins you the match (you need {need}): a double to {new} can only help your opponent.",
        "Куб {value} уже даёт вам матч (вам нужно {need}): удвоение до {new} поможет только сопернику.",
    ),
    "double_anyway": ("Double anyway?", "Всё равно удвоить?"),
    "ask_again": ("Play another game?", "Сыграть ещё партию?"),
    "ask_again_match": ("Play another match?", "Сыграть ещё матч?"),
    "ask_quit": ("Quit the game?", "Выйти из игры?"),
    "yes_words": ("y yes", "д да y yes"),
    # ----- human turn -------------------------------------------------------------------------------
    "only_play": ("Only one legal play: {play}.", "Единственный возможный ход: {play}."),
    # ----- the tutor and the analysis after a game (nardy play --tutor) -------------------------------
    "tutor_warning": (
        "Tutor: {play} is {mark} (it gives up {mp} millipoints); better: {best}.",
        "Подсказчик: ход {play} — {mark} (теряет {mp} милли-очков); лучше: {best}.",
    ),
    "tutor_ask": ("Play it anyway?", "Всё равно сыграть так?"),
    "tutor_cube_warning": (
        "Tutor: {action} is {mark} (it gives up {mp} millipoints); right: {best}.",
        "Подсказчик: {action} — {mark} (теряет {mp} милли-очков); правильно: {best}.",
    ),
    "tutor_cube_ask": ("Do it anyway?", "Всё равно так сделать?"),
    "cube_double": ("to double", "удвоить"),
    "cube_no double": ("not to double", "не удваивать"),
    "cube_take": ("to take", "принять"),
    "cube_pass": ("to pass", "отказаться"),
    "mark_doubtful": ("doubtful", "сомнительный ход"),
    "mark_error": ("an error", "ошибка"),
    "mark_blunder": ("a blunder", "грубая ошибка"),
    "analysis_title": (
        "Analysis of the match so far (nardy {level}, {ply}-ply):",
        "Анализ матча на сей момент (nardy {level}, {ply}-ply):",
    ),
    "analysis_player": (
        "  {name}: error rate {er} mp per decision, PR {pr} ({rating}); doubtful {doubtful}, errors {errors}, "
        "blunders {blunders}; luck {luck}",
        "  {name}: ошибки {er} милли-очков за решение, PR {pr} ({rating}); сомнительных {doubtful}, ошибок {errors}, "
        "грубых {blunders}; везение {luck}",
    ),
    "play_is_complete": (
        "That makes the play {play}: press Enter to confirm or 'undo' to take back.",
        "Получился ход {play}: Enter — подтвердить, «отмена» — вернуть шашку.",
    ),
    "step_undone": ("Taken back: {steps}.", "Возвращено: {steps}."),
    "nothing_to_undo": ("No step of this turn to take back.", "В этом ходе нечего отменять."),
    "type_a_play": (
        "Type your play (e.g. {example}), 'moves' for the legal plays, 'help' for the commands.",
        "Введите ход (например, {example}), «ходы» — список возможных ходов, «помощь» — команды.",
    ),
    "unknown_command": (
        "Unknown command '{cmd}': 'help' lists the commands.",
        "Неизвестная команда «{cmd}»: «помощь» покажет список команд.",
    ),
    "not_now": ("'{cmd}' is not possible now: {reason}", "Сейчас нельзя «{cmd}»: {reason}"),
    "legal_plays": ("Legal plays:", "Возможные ходы:"),
    "legal_plays_more": ("... and {n} more", "... и ещё {n}"),
    "pick_number": ("Type a number from the list, or the play itself.", "Введите номер из списка или сам ход."),
    "no_list": (
        "No list to pick from: type 'moves' or 'hint' first.",
        "Сначала покажите список: «ходы» или «подсказка».",
    ),
    "bad_number": ("There is no play number {n} in the list.", "В списке нет хода с номером {n}."),
    "hint_header": (
        "Best plays (equity for {who}, loss against the best):",
        "Лучшие ходы (эквити для {who}, потеря относительно лучшего):",
    ),
    "hint_probs": (
        "  after the best play: win {win}, {gammon_word} {gammon}; lose {lose}",
        "  после лучшего хода: выигрыш {win}, {gammon_word} {gammon}; проигрыш {lose}",
    ),
    "cube_hint_double": (
        "The computer advises: double ({nd} no double, {dt} double/take, {dp} double/pass).",
        "Совет компьютера: удвоить (без удвоения {nd}, удвоение/принято {dt}, удвоение/отказ {dp}).",
    ),
    "cube_hint_no_double": (
        "The computer advises: no double, roll ({nd} no double, {dt} double/take, {dp} double/pass).",
        "Совет компьютера: не удваивать, бросать (без удвоения {nd}, удвоение/принято {dt}, удвоение/отказ {dp}).",
    ),
    "cube_hint_take": ("The computer advises: take.", "Совет компьютера: принять."),
    "cube_hint_pass": ("The computer advises: pass.", "Совет компьютера: отказаться."),
    "resign_hint_accept": ("The computer advises: accept.", "Совет компьютера: принять сдачу."),
    "resign_hint_decline": ("The computer advises: decline.", "Совет компьютера: отклонить сдачу."),
    "eval_line": ("{who}: win {win}, {levels}; equity {equity}", "{who}: выигрыш {win}, {levels}; эквити {equity}"),
    "eval_last_bot": (
        "Last computer play {play}: equity {equity}; the best was {best} ({best_equity}).",
        "Последний ход компьютера {play}: эквити {equity}; лучший был {best} ({best_equity}).",
    ),
    "eval_last_bot_best": (
        "Last computer play {play}: equity {equity}, the best play.",
        "Последний ход компьютера {play}: эквити {equity}, это лучший ход.",
    ),
    "cannot_double": ("You cannot double: {reason}", "Удвоить нельзя: {reason}"),
    "double_only_before_roll": ("a double is offered before rolling", "удваивают только перед броском"),
    "no_double_waiting": ("no double is waiting for an answer", "удвоения, ждущего ответа, нет"),
    "no_resign_waiting": ("no resignation is waiting for an answer", "предложения сдачи, ждущего ответа, нет"),
    "choices_take": ("take / pass", "принять / отказ"),
    "choices_resign": ("accept / decline", "принять / отклонить"),
    "answer_first": ("answer first: {choices}", "сначала ответьте: {choices}"),
    "answer_now": ("Answer first: {choices}.", "Сначала ответьте: {choices}."),
    "no_steps_now": ("the dice are not rolled yet", "зары ещё не брошены"),
    "bad_resign_level": (
        "Unknown level '{level}': one of {levels}.",
        "Неизвестный уровень «{level}»: один из {levels}.",
    ),
    "saved": (
        "Saved to {path}. Resume with: nardy play --resume {path}",
        "Сохранено в {path}. Продолжить: nardy play --resume {path}",
    ),
    "save_failed": ("Cannot save to {path}: {reason}", "Не удалось сохранить в {path}: {reason}"),
    "record_failed": (
        "Cannot write the record to {path}: {reason}",
        "Не удалось записать запись партии в {path}: {reason}",
    ),
    "save_needs_file": ("save needs a file name: save FILE", "Укажите имя файла: сохранить ФАЙЛ"),
    "resumed": ("Resumed from {path}.", "Игра продолжена из {path}."),
    "bye": ("Bye.", "До свидания."),
    # ----- errors in plays --------------------------------------------------------------------------
    "illegal": ("Illegal play '{text}': {reason}", "Недопустимый ход «{text}»: {reason}"),
    "bad_notation": (
        "cannot read it as a play; write moves like {example} (bar, off; 'help' for more)",
        "не понимаю такую запись хода; пишите, например, {example} (bar — бар, off — выброс; «помощь»)",
    ),
    "bad_notation_long": (
        "cannot read it as a play; write moves like {example} (off for bearing off; 'help' for more)",
        "не понимаю такую запись хода; пишите, например, {example} (off — выброс; «помощь»)",
    ),
    "r_bad_point": ("point {point}: {expected}", "пункт {point}: {expected}"),
    "r_expected_traditional": (
        "traditional numbering uses 1-12 and 01-012 (or I-XII), bar, off",
        "в традиционной нумерации пункты 1–12 и 01–012 (или I–XII), bar, off",
    ),
    "r_expected_points": ("points are 1-24, bar and off", "пункты — 1–24, bar и off"),
    "r_backwards": ("{frm}/{to} goes backwards: {who} moves {path}", "{frm}/{to} — ход назад: {who} ходят {path}"),
    "or": ("or", "или"),
    # ----- nardy verify-dice (docs/fairness.md) ------------------------------------------------------
    "fair_scheme": ("Scheme: {scheme}", "Схема: {scheme}"),
    "fair_commitment_ok": (
        "Commitment {commitment}: matches the server seed",
        "Обязательство {commitment}: совпадает с серверным сидом",
    ),
    "fair_commitment_bad": (
        "Commitment {commitment}: DOES NOT MATCH: sha256 of the server seed is {actual}",
        "Обязательство {commitment}: НЕ СОВПАДАЕТ: sha256 серверного сида равен {actual}",
    ),
    "fair_commitment_only": ("Commitment: {commitment}", "Обязательство: {commitment}"),
    "fair_server_seed": ("Server seed: {seed}", "Серверный сид: {seed}"),
    "fair_client_seeds": ("Client seeds: White {s0}, Black {s1}", "Клиентские сиды: белые {s0}, чёрные {s1}"),
    "fair_no_seed": ("(not given)", "(не задан)"),
    "fair_rolls_checked": ("Rolls checked: {checked} of {total}", "Проверено бросков: {checked} из {total}"),
    "fair_rolls_logged": ("Rolls logged: {total}", "Бросков в записи: {total}"),
    "fair_counts": (
        "Dice: {dice} ({two} rolls of two dice, {doubles} of them doubles; {one} single dice)",
        "Костей выпало: {dice} (бросков двух костей: {two}, из них дублей: {doubles}; одиночных костей: {one})",
    ),
    "fair_faces": ("Faces 1-6: {faces}", "Грани 1–6: {faces}"),
    "fair_ok": ("Verified: every roll is the one the seeds give.", "Проверено: каждый бросок — тот, что дают сиды."),
    "fair_bad_roll": (
        "FAILED: roll {n} (counting from 0) is {got} in the record, but the seeds give {expected}.",
        "ОШИБКА: бросок {n} (счёт с 0) в записи {got}, а сиды дают {expected}.",
    ),
    "fair_bad_commitment": (
        "FAILED: the server seed is not the one committed to at the start.",
        "ОШИБКА: серверный сид — не тот, что был заявлен в начале.",
    ),
    "fair_missing_seed": (
        "FAILED: rolls are logged but a client seed is missing.",
        "ОШИБКА: броски записаны, но одного клиентского сида нет.",
    ),
    "fair_not_revealed": (
        "Not yet checkable: the server seed is revealed when the match is over.",
        "Проверить пока нельзя: серверный сид раскрывается после окончания матча.",
    ),
    "fair_unreadable": ("cannot read {file}: {why}", "не удаётся прочитать {file}: {why}"),
    "fair_not_json": ("{file} is not JSON: {why}", "{file} — не JSON: {why}"),
    "fair_not_record": ("{file} is not a fairness record: {why}", "{file} — не запись проверки заров: {why}"),
    # ----- help -------------------------------------------------------------------------------------
    "help": ("Commands:", "Команды:"),
    "help_play": (
        "  {play:<15} a whole play in notation ({forms}); a dash works too: {dashed}",
        "  {play:<15} весь ход в записи ({forms}); можно и через дефис: {dashed}",
    ),
    "help_forms_bar": ("bar, off, {count}, {chain}", "bar — бар, off — выброс, {count}, {chain}"),
    "help_forms_long": ("off, {count}, {chain}", "off — выброс, {count}, {chain}"),
    "help_hits": (
        "                  hit marks '*' may be left out; a '*' where nothing is hit is refused",
        "                  «*» (удар) можно не писать; «*» там, где никого не бьют, не принимается",
    ),
    "help_step": (
        "  {step:<15} single steps: they are taken one by one, then confirm with Enter",
        "  {step:<15} ход по одной шашке; затем Enter — подтвердить",
    ),
    "help_undo": (
        "  undo            take back the last step of this turn",
        "  отмена (undo)   вернуть последнюю передвинутую в этом ходе шашку",
    ),
    "help_moves": (
        "  moves           list the legal plays (then a number picks one)",
        "  ходы (moves)    список возможных ходов (затем номер выбирает ход)",
    ),
    "help_hint": (
        "  hint            the computer's best plays with their equities",
        "  подсказка (hint) лучшие ходы по мнению компьютера с эквити",
    ),
    "help_hint_cube": (
        "  hint            the computer's best plays with their equities (cube advice before a roll)",
        "  подсказка (hint) лучшие ходы по мнению компьютера с эквити (перед броском — совет по кубу)",
    ),
    "help_eval": (
        "  eval            the computer's estimate of the position and of its last play",
        "  оценка (eval)   оценка позиции компьютером и его последнего хода",
    ),
    "help_roll": (
        "  roll            roll the dice (Enter does it too)",
        "  бросить (roll)  бросить зары (или просто Enter)",
    ),
    "help_double": (
        "  double          offer a double before rolling; take / pass{beaver} to answer one",
        "  удвоить (double) предложить удвоение перед броском; принять (take) / отказ (pass){beaver} — ответ",
    ),
    "help_beaver": (" (or beaver)", " / бивер"),
    "help_resign": (
        "  resign [LEVEL]  offer to resign: {levels} (default {default}); asks to confirm",
        "  сдаться [УРОВЕНЬ] (resign) предложить сдачу: {levels} (по умолчанию {default}); с подтверждением",
    ),
    "help_accept": ("  accept/decline  answer a resignation", "  принять / отклонить  ответ на предложение сдачи"),
    "help_board": ("  board           draw the board again", "  доска (board)   показать доску ещё раз"),
    "help_save": (
        "  save FILE       save the game (resume with nardy play --resume FILE)",
        "  сохранить ФАЙЛ (save)  сохранить партию (продолжить: nardy play --resume ФАЙЛ)",
    ),
    "help_help": ("  help            this list", "  помощь (help)   этот список"),
    "help_quit": (
        "  quit            leave (asks first and offers to save)",
        "  выход (quit)    выйти (с вопросом и предложением сохранить)",
    ),
}


def _mid_sentence_who(text: str) -> str:
    """``text`` with each ``{who}`` that does not begin a sentence written ``{who_lc}``."""

    def sub(m):
        before = text[: m.start()].rstrip()
        return m.group(0) if not before or before[-1] in ".!?" else "{who_lc}"

    return re.sub(r"\{who\}", sub, text)


class Texts:
    """Message lookup for one language: ``texts(key, **fields)``."""

    def __init__(self, lang: str = "en"):
        if lang not in LANGS:
            raise ValueError(f"language {lang!r}: expected one of {', '.join(LANGS)}")
        self.lang = lang
        self._i = LANGS.index(lang)

    def __call__(self, key: str, **fields) -> str:
        text = _T[key][self._i]
        if not fields:
            return text
        if self.lang == "ru" and fields.get("who") in COLOURS["ru"]:
            # «Начинают чёрные»: a side's name is capitalised only where it begins a sentence
            text = _mid_sentence_who(text)
            fields["who_lc"] = fields["who"].lower()
        return text.format(**fields)

    def colour(self, side: int) -> str:
        """``White``/``Black`` (``Белые``/``Чёрные``)."""
        return COLOURS[self.lang][side]

    def colour_mid(self, side: int) -> str:
        """The name inside a sentence or a label (Russian lower case ``белые``; English as :meth:`colour`)."""
        name = COLOURS[self.lang][side]
        return name.lower() if self.lang == "ru" else name

    def colour_gen(self, side: int) -> str:
        """The genitive form (Russian ``белых``/``чёрных``; English as :meth:`colour`)."""
        return COLOURS_GEN[self.lang][side]

    def bot_level(self, level: str) -> str:
        """A bot level's name in this language (English: the level's own name)."""
        return LEVEL_NAMES.get(self.lang, {}).get(level, level)

    def game_title(self, game: str) -> str:
        return GAME_TITLES[self.lang][game]

    def level_name(self, game: str, level: int) -> str:
        return RESULT_NAMES[self.lang][game][level]

    def draw_name(self) -> str:
        return RESULT_NAMES[self.lang]["draw"]

    def points(self, n) -> str:
        return plural_points(n, self.lang)

    def yes(self, answer: str) -> bool:
        return answer.strip().lower() in self("yes_words").split()
