"""A play typed by a person, entered into a game: one path for every front end that reads typed plays.

Text in the player's numbering (``own``, ``absolute``, ``traditional``: :data:`nardy.rules.numbering.NUMBERINGS`)
becomes own points (:meth:`nardy.rules.numbering.Numbering.to_own`); when no step of the turn is taken yet and the
text reads as a whole legal play (:meth:`nardy.rules.position.Position.parse_play`), that play is meant; else the
text's steps, taken one by one with take-back when one is refused (docs/rules.md rule 8). Two steps:

* :func:`resolve` says what the text means (an :class:`Entry`: the whole play, or the steps) without changing
  the game, so a caller can judge a whole play before it is played (the terminal's tutor);
* :func:`apply` carries it out through an ``act`` callable (the game's own methods, or a table's ``act`` so
  seats and clocks see it), taking back what it took when a step is refused.

:meth:`nardy.flow.game.Game.enter` does both. Refusals are the rules' errors with a ``code`` and ``params``
(:mod:`nardy.rules.errors`): ``bad_point`` (a label the numbering lacks), ``bad_notation``, ``ambiguous_play``,
the whole play's code when it says more than its first bad step (:data:`WHOLE_PLAY_CODES`), a false hit mark
(``false_hit``, ``no_hitting``: :data:`FINAL_CODES`), else the refused step's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..rules.errors import AmbiguousPlayError, IllegalPlayError, NotationError
from ..rules.notation import Hop, dash_to_slash, tokenize
from ..rules.numbering import Numbering
from ..rules.position import Play

__all__ = ["Entry", "resolve", "apply", "WHOLE_PLAY_CODES", "FINAL_CODES"]

#: Codes of a whole play's refusal that say more than the diagnosis of its first bad step.
WHOLE_PLAY_CODES = frozenset(
    {"fewer_dice", "no_checker", "no_checker_bar", "ambiguous_play", "must_play", "false_hit", "no_hitting"}
)
#: Codes of a whole play's refusal that its steps, taken one by one, must not get round (a false hit mark).
FINAL_CODES = frozenset({"false_hit", "no_hitting"})

#: ``act(action, **fields)``: carries out ``"play"`` (``play=``), ``"step"`` (``frm=``, ``to=``) or ``"undo"``
#: for the side entering, raising the rules' errors.
Act = Callable[..., object]
#: ``why(game, frm, to) -> (code, params)``: the rule a refused step breaks, asked before it is taken back.
Why = Callable[..., tuple[str, dict]]


@dataclass(frozen=True)
class Entry:
    """What a typed play means in a game at the moment it was resolved.

    Attributes:
        own: the text in the mover's own numbering (25 bar, 0 off).
        play: the whole legal play it names (no step of the turn was taken yet), or None.
        hops: else the single hops to take in order (own points, ``hit`` where marked ``*``).
        whole_error: why the text is not a whole play, when that was tried (it may say more than a
            refused step).
    """

    own: str
    play: Play | None = None
    hops: tuple[Hop, ...] = ()
    whole_error: IllegalPlayError | None = None


def to_own(text: str, numbering: Numbering | str, side: int, game: str) -> str:
    """``text`` (dashes allowed for slashes) in ``side``'s own numbering. Raises NotationError ``bad_point``
    (params ``point`` and ``numbering``, the numbering's kind) for a label ``numbering`` lacks."""
    num = numbering if isinstance(numbering, Numbering) else Numbering(numbering, game)
    try:
        return num.to_own(dash_to_slash(text), side)
    except NotationError as e:
        point = (e.text or "").strip()
        raise NotationError(
            str(e), text=e.text, reason=e.reason, code="bad_point", params={"point": point, "numbering": num.kind}
        ) from e


def resolve(game, text: str, numbering: Numbering | str, side: int) -> Entry:
    """What ``text`` (typed by ``side`` in ``numbering``) means in ``game`` (phase ``move``), without changing it.

    Raises:
        NotationError: ``bad_point`` (``params["numbering"]`` set when the player's numbering lacks the label)
            or ``bad_notation`` (text that does not read as steps).
        AmbiguousPlayError: the text names two legal plays (``params["options"]``).
        IllegalPlayError: the whole play's refusal when it marks a false hit (:data:`FINAL_CODES`), or when the
            text holds no step (``must_play`` when nothing else says why).
    """
    own = to_own(text, numbering, side, game.rules.name)
    whole_error = None
    if not game.steps_taken:
        try:
            return Entry(own, play=game.position.parse_play(own, game.dice))
        except IllegalPlayError as e:  # NotationError and AmbiguousPlayError included
            if isinstance(e, (NotationError, AmbiguousPlayError)) or e.code in FINAL_CODES:
                raise  # steps taken one by one would pick one reading, or get round the mark
            whole_error = e
    paths = tokenize(own, 25 if game.rules.hitting else 24)
    if not paths:
        if whole_error is not None:
            raise whole_error
        raise IllegalPlayError(f"no step in {text!r:.40}", text=text, code="must_play")
    return Entry(own, hops=tuple(hop for path in paths for hop in path), whole_error=whole_error)


def apply(game, entry: Entry, act: Act, why: Why | None = None) -> tuple[list, bool]:
    """Carry out ``entry`` (from :func:`resolve` on ``game`` as it is now) through ``act``.

    A whole play is played. Steps are taken one by one; at the first refused one those taken are taken back
    and, when steps were taken before this entry, the text is tried as the whole play written out. Returns
    ``(steps, whole)``: the steps taken (all of a whole play's) and whether a whole play was played.

    Raises:
        IllegalPlayError: nothing changed. A refused step: the whole play's refusal when it says more
            (:data:`WHOLE_PLAY_CODES` but ``fewer_dice``), else ``why(game, frm, to)``'s code and params
            (asked before the take-back; without ``why``, the step's own refusal); a step marked ``*`` that
            hits nothing: ``false_hit`` (``no_hitting`` in nardy), params ``from``, ``to``.
    """
    if entry.play is not None:
        act("play", play=entry.play)
        return list(entry.play.steps), True
    whole = entry.whole_error
    before = len(game.steps_taken)
    taken = 0
    for hop in entry.hops:
        try:
            act("step", frm=hop.frm, to=hop.to)
        except IllegalPlayError as refused:
            error = refused
            if whole is not None and whole.code != "fewer_dice" and whole.code in WHOLE_PLAY_CODES:
                error = whole
            elif why is not None:
                code, params = why(game, hop.frm, hop.to)
                error = IllegalPlayError(str(refused), text=entry.own, code=code, params=params)
            for _ in range(taken):
                act("undo")
            if game.steps_taken and whole is None:
                played = _play_whole(game, entry.own, act)
                if played is not None:
                    return list(played.steps), True
            raise error from refused
        taken += 1
        if hop.hit and not game.steps_taken[-1].hit:
            for _ in range(taken):
                act("undo")
            code = "false_hit" if game.rules.hitting else "no_hitting"
            raise IllegalPlayError(
                f"step {hop.frm}/{hop.to}* hits nothing",
                text=entry.own,
                code=code,
                params={"from": hop.frm, "to": hop.to},
            )
    return list(game.steps_taken[before:]), False


def _play_whole(game, own: str, act: Act) -> Play | None:
    """Steps were taken before: ``own`` may be the whole play written out; play it if so."""
    try:
        chosen = game.position.parse_play(own, game.dice)
    except IllegalPlayError:
        return None
    act("play", play=chosen)
    return chosen
