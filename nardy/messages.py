"""The message catalogue of refusals: every error code in English and Russian, for every front end.

The engine refuses with a :class:`~nardy.errors.NardyError` that carries a ``code`` and ``params`` (see
:mod:`nardy.errors`); a front end words it for the player with :func:`describe`, in the player's
language and point numbering. The terminal (:mod:`nardy.play`), the web page (through the server's
error answers, which carry the worded ``message``) and server messages all read this one table, so no
English-only reason reaches a Russian player (a test checks that every code the engine raises is here,
in both languages).

Params the texts use: ``point``, ``from``, ``to`` (the mover's own point numbers, labelled by the front
end's numbering: 25 is the bar, 0 off), ``dice`` (a list, written ``6-5``), ``options`` (plays in
notation), ``player``/``expected``/``owner`` (0 White, 1 Black: the players' names), ``phase`` (a
:class:`~nardy.events.Phase` value), and plain numbers or short texts (``used``, ``most``, ``pips``,
``outside``, ``token``, ``minutes``, ``least``, ``parameters``) and a player's ``name``.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["MESSAGES", "LANGS", "describe", "catalogue"]

LANGS = ("en", "ru")

#: code -> (English, Russian).
MESSAGES: dict[str, tuple[str, str]] = {
    # ----- classes of errors (a code of their own when nothing more specific is known) -------------------
    "invalid_input": ("that input is not valid", "неверные данные"),
    "invalid_position": ("this is not a valid position", "недопустимая позиция"),
    "invalid_id": ("this is not a valid position or match ID", "неверный ID позиции или матча"),
    "illegal_play": ("this play is not legal with this roll", "такой ход с этими зарами невозможен"),
    "bad_notation": (
        "cannot read it as a play; write moves like 24/18 13/11",
        "не понимаю такую запись хода; пишите, например, 24/18 13/11",
    ),
    "ambiguous_play": ("ambiguous: it can mean {options}", "неоднозначно: это может быть {options}"),
    "unknown_game": ("unknown game", "неизвестная игра"),
    "invalid_option": ("that setting is not valid", "неверный параметр"),
    "invalid_dice": ("dice are two numbers from 1 to 6", "зары — два числа от 1 до 6"),
    "not_allowed_now": ("that is not allowed now", "сейчас это сделать нельзя"),
    "bad_record": ("the record cannot be read", "запись партии не читается"),
    # ----- plays --------------------------------------------------------------------------------------
    "game_over": ("the game is over", "партия окончена"),
    "must_play": ("a play must be made: this roll can be played", "пропустить ход нельзя: эти зары можно сыграть"),
    "no_checker_bar": ("you have no checker on the bar", "у вас нет шашек на баре"),
    "no_checker": ("you have no checker on point {point}", "на пункте {point} нет ваших шашек"),
    "enter_first": ("a checker on the bar must enter first", "сначала нужно ввести шашку с бара"),
    "distance": (
        "{from}/{to} is {pips} pips: the dice {dice} do not move that far",
        "{from}/{to} — это {pips} пунктов: зары {dice} так далеко не ходят",
    ),
    "not_home": (
        "you may bear off only when all your checkers are home ({outside} outside)",
        "выбрасывать можно только когда все шашки в доме (вне дома: {outside})",
    ),
    "false_hit": (
        "{from}/{to}* is marked as a hit, but there is no opposing blot to hit on {to}",
        "{from}/{to}* отмечен как удар, но на пункте {to} нет одиночной шашки соперника",
    ),
    "no_hitting": ("{from}/{to}*: nobody is hit in long nardy", "{from}/{to}*: в длинных нардах шашки не бьют"),
    "closed_point": ("point {point} is closed", "пункт {point} закрыт"),
    "dice_fit": ("the moves do not fit the dice {dice}", "ходы не соответствуют зарам {dice}"),
    "fewer_dice": (
        "it uses {used} of the {most} dice the roll allows; as many dice as possible must be played",
        "сыграно {used} из {most} возможных зар; нужно сыграть столько зар, сколько возможно",
    ),
    "no_legal_play": (
        "no legal play continues that way (the larger die, head, bear-off or six-block rule)",
        "так не получится законный ход (правило большего зара, головы, выброса или блока из шести)",
    ),
    "head_limit": ("only one checker may leave the head per turn", "за ход с головы можно снять только одну шашку"),
    "six_block": (
        "six points in a row with no opponent checker ahead of them is not allowed",
        "нельзя ставить заграждение из шести шашек подряд, если впереди нет шашки соперника",
    ),
    "illegal_step": (
        "{from}/{to} is not possible now: no legal play continues that way",
        "{from}/{to} сейчас невозможен: так не получится законный ход",
    ),
    "incomplete_play": (
        "the play is not complete: {dice} must still be played",
        "ход не закончен: нужно ещё сыграть {dice}",
    ),
    "nothing_to_undo": ("there is nothing to take back", "отменять нечего"),
    "step_points": ("a step needs a from point and a to point", "для хода нужны начальный и конечный пункты"),
    "play_text": ("write the play in notation, such as 24/18 13/11", "запишите ход, например 24/18 13/11"),
    # ----- notation -----------------------------------------------------------------------------------
    "bad_token": (
        "cannot read '{token}' as a move; write moves like 24/18",
        "не понимаю «{token}»; пишите ходы, например, 24/18",
    ),
    "bad_count": ("'{token}': the count in brackets is 1 to 4", "«{token}»: число в скобках — от 1 до 4"),
    "bad_point": ("'{point}' is not a point (1-24, bar, off)", "«{point}» — не пункт (1–24, bar, off)"),
    "bar_destination": ("the bar can only start a move", "с бара можно только начинать ход"),
    "off_source": ("off can only end a move", "off может быть только концом хода"),
    "backward": ("{from}/{to} goes backwards", "{from}/{to} — ход назад"),
    # ----- turns --------------------------------------------------------------------------------------
    "bad_player": ("there is no such player", "нет такого игрока"),
    "not_your_turn": ("it is {expected}'s turn", "сейчас очередь: {expected}"),
    "wrong_phase": ("not now: {phase}", "не сейчас: {phase}"),
    "computer_side": ("that side is played by the computer", "за эту сторону играет компьютер"),
    "no_game": ("no game is in progress", "нет начатой партии"),
    "game_not_over": ("this game is not over yet", "эта партия ещё не окончена"),
    "no_hint": (
        "no hint now: hints are for a roll, a play or a double",
        "подсказки сейчас нет: она бывает перед броском, для хода и для ответа на удвоение",
    ),
    "bad_resign_level": ("there is no such resignation level", "нет такого уровня сдачи"),
    "resign_waiting": ("a resignation is already waiting for an answer", "предложение сдачи уже ждёт ответа"),
    # ----- the cube -----------------------------------------------------------------------------------
    "cube_disabled": ("the doubling cube is not used in this game", "в этой игре куб удвоения не используется"),
    "crawford": ("nobody may double in the Crawford game", "в партии Кроуфорда удваивать нельзя"),
    "double_waiting": ("a double is already waiting for an answer", "удвоение уже ждёт ответа"),
    "cube_owned": ("{owner} owns the cube", "куб у соперника ({owner})"),
    "cube_limit": ("the cube is at its limit", "куб на пределе"),
    "last_roll": ("no doubling on the last roll", "на последнем броске удваивать нельзя"),
    "not_before_roll": ("a double is offered only before rolling", "удвоение предлагают только до броска"),
    "no_double": ("there is no double to answer", "нет удвоения, на которое нужно отвечать"),
    "no_beavers": ("beavers are not allowed in this game", "бивер в этой игре не разрешён"),
    # ----- the server ---------------------------------------------------------------------------------
    "invalid_request": ("the request is not valid", "неверный запрос"),
    "unknown_parameter": (
        "unknown request parameter: {parameters}",
        "неизвестный параметр запроса: {parameters}",
    ),
    "bad_request": ("the request is not valid", "неверный запрос"),
    "not_found": (
        "not found: there is no such saved game or page",
        "не найдено: нет такой сохранённой партии или страницы",
    ),
    "stale_action": (
        "the game has moved on; this is where it is now",
        "партия уже изменилась; вот её текущее состояние",
    ),
    "conflict": ("the game changed meanwhile; reload it", "партия тем временем изменилась; обновите её"),
    "busy": ("the computer is busy; try again in a moment", "компьютер занят; попробуйте чуть позже"),
    "too_many_requests": (
        "too many requests at once; wait for the ones under way",
        "слишком много запросов сразу; дождитесь ответа на них",
    ),
    "database_unavailable": (
        "the server cannot reach its storage; try again shortly",
        "сервер не может обратиться к хранилищу; попробуйте чуть позже",
    ),
    "too_large": ("the request is too large", "запрос слишком большой"),
    "seeded_dice_off": ("this server does not allow seeded dice", "этот сервер не разрешает заданные зары (seed)"),
    "invalid_host": ("this server does not answer to that address", "этот сервер не отвечает на этот адрес"),
    "internal_error": ("the server could not answer this request", "сервер не смог ответить на запрос"),
    "method_not_allowed": ("the server refused the request", "сервер отклонил запрос"),
    "client_gone": ("the request was abandoned", "запрос отменён"),
    "http_error": ("the server refused the request", "сервер отклонил запрос"),
    # ----- the table and online play ------------------------------------------------------------------
    "forbidden": ("you may not do that in this game", "в этой партии вам это нельзя"),
    "not_seated": ("you do not sit at this game", "вы не участник этой партии"),
    "not_your_side": ("you do not play that side", "вы играете не за эту сторону"),
    "private_game": ("this game is private", "эта партия закрыта для зрителей"),
    "not_owner": ("only the player who made this game may do that", "это может только создатель партии"),
    "game_in_progress": (
        "a game against another person cannot be deleted while it is played",
        "партию с другим человеком нельзя удалить, пока она идёт",
    ),
    "no_hints_online": (
        "no hints in a game against another person",
        "в партии с другим человеком подсказок нет",
    ),
    "seat_taken": ("the seat is already taken", "место уже занято"),
    "seat_empty": ("the other player has not joined yet", "соперник ещё не присоединился"),
    "own_game": ("you already sit at this game", "вы уже участник этой партии"),
    "invite_closed": ("the invitation was withdrawn or declined", "приглашение отменено или отклонено"),
    "bad_invite": ("the invitation is not valid", "приглашение недействительно"),
    "not_online": ("only a game against another person online has that", "это есть только у партии по сети"),
    "game_started": ("the game has already begun", "партия уже началась"),
    "match_started": ("the match has already begun", "матч уже начался"),
    "match_over": ("the match is over", "матч окончен"),
    "time_out": ("{player} has run out of time", "у игрока {player} кончилось время"),
    "bad_clock": ("the clock settings are not valid", "неверные настройки часов"),
    "person_to_act": ("a person must act now", "сейчас ход человека"),
    "not_over": ("the match is not over yet", "матч ещё не окончен"),
    # ----- analysis and review (nardy.web.review) -------------------------------------------------------
    "analysis_too_long": (
        "the analysis would take more than {seconds} s; choose a lower level or a shorter record",
        "анализ занял бы больше {seconds} с; выберите уровень пониже или запись покороче",
    ),
    "analysis_after_match": (
        "a game against another person can be analysed once the match is over",
        "партию с другим человеком можно проанализировать после окончания матча",
    ),
    "not_analysed": ("this game has not been analysed yet", "эта партия ещё не проанализирована"),
    "tutor_no_play": (
        "finish the play first: the tutor judges a complete play",
        "сначала закончите ход: подсказчик оценивает только полный ход",
    ),
    # ----- players: guests, accounts, log-in -----------------------------------------------------------
    "login_needed": ("log in or choose a guest name first", "сначала войдите или выберите гостевое имя"),
    "bad_login": ("wrong name or password", "неверное имя или пароль"),
    "too_many_logins": (
        "too many failed log-ins; try again in {minutes} min",
        "слишком много неудачных попыток входа; попробуйте через {minutes} мин.",
    ),
    "too_many_new_players": (
        "too many new players from this address; try again in {minutes} min",
        "слишком много новых игроков с этого адреса; попробуйте через {minutes} мин.",
    ),
    "name_taken": ("the name {name} is taken", "имя {name} уже занято"),
    "bad_name": (
        "a name has 1 to {most} characters and no control characters",
        "имя — от 1 до {most} символов, без управляющих символов",
    ),
    "bad_password": ("a password has {least} to {most} characters", "пароль — от {least} до {most} символов"),
    "csrf": (
        "the request was refused for safety: reload the page and try again",
        "запрос отклонён из соображений безопасности: обновите страницу и попробуйте снова",
    ),
    # ----- words used in the messages -----------------------------------------------------------------
    "phase_opening": ("the game has not started", "партия ещё не началась"),
    "phase_roll": ("the dice must be rolled first", "сначала нужно бросить зары"),
    "phase_move": ("the play must be finished first", "сначала нужно закончить ход"),
    "phase_double": ("the double must be answered first", "сначала нужно ответить на удвоение"),
    "phase_resign": ("the resignation must be answered first", "сначала нужно ответить на предложение сдачи"),
    "phase_over": ("the game is over", "партия окончена"),
    "or": ("or", "или"),
    "bar": ("bar", "бар"),
    "off": ("off", "выброс"),
    "player_0": ("White", "Белые"),
    "player_1": ("Black", "Чёрные"),
}


def _text(key: str, lang: str) -> str:
    return MESSAGES[key][LANGS.index(lang)]


def catalogue(lang: str) -> dict[str, str]:
    """Every message in ``lang`` (``en`` or ``ru``): ``{code: text}``."""
    if lang not in LANGS:
        raise ValueError(f"language {lang!r}: expected one of {', '.join(LANGS)}")
    return {k: v[LANGS.index(lang)] for k, v in MESSAGES.items()}


def describe(
    code: str,
    params: dict | None = None,
    lang: str = "en",
    *,
    label: Callable[[int], str] | None = None,
    relabel: Callable[[str], str] | None = None,
    names: tuple[str, str] | None = None,
) -> str:
    """The refusal ``code`` with ``params`` worded for a player in ``lang``.

    Args:
        code: an error code (:attr:`nardy.errors.NardyError.code`); an unknown code gives the message of
            ``not_allowed_now``.
        params: the error's params (points in the mover's own numbering).
        lang: ``en`` or ``ru``.
        label: mover's own point (1-24) -> the label the player sees (default: the number itself); the bar
            (25) and off (0) are worded by the catalogue.
        relabel: a play in the mover's own notation -> as the player writes it (default: unchanged).
        names: the players' names (default: White/Black in ``lang``).
    Raises:
        ValueError: an unknown language.
    """
    if lang not in LANGS:
        raise ValueError(f"language {lang!r}: expected one of {', '.join(LANGS)}")
    params = dict(params or {})
    if code not in MESSAGES:
        code = "not_allowed_now"
    who = names or (_text("player_0", lang), _text("player_1", lang))

    def point(p):
        if p == 25:
            return _text("bar", lang)
        if p == 0:
            return _text("off", lang)
        return label(p) if label is not None and isinstance(p, int) and 1 <= p <= 24 else str(p)

    for k in ("point", "from", "to"):
        if isinstance(params.get(k), int):
            params[k] = point(params[k])
    if isinstance(params.get("dice"), (list, tuple)):
        params["dice"] = "-".join(str(d) for d in sorted(params["dice"], reverse=True))  # larger die first
    if isinstance(params.get("options"), (list, tuple)):
        opts = [relabel(o) if relabel else o for o in params["options"]]
        params["options"] = f" {_text('or', lang)} ".join(opts)
    for k in ("player", "expected", "owner"):
        if params.get(k) in (0, 1) and not isinstance(params.get(k), bool):
            params[k] = who[params[k]]
    if code == "wrong_phase" and f"phase_{params.get('phase')}" in MESSAGES:
        params["phase"] = _text(f"phase_{params['phase']}", lang)

    class _Keep(dict):
        def __missing__(self, key):
            return "?"

    return _text(code, lang).format_map(_Keep(params))
