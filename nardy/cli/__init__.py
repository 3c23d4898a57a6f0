"""The ``nardy`` command line (click).

Sub-commands are registered here; each lives in the module of its concern so the core stays free of
CLI code.
"""

from __future__ import annotations

import json
import sys
from typing import NoReturn

import click

from ..rules.errors import NardyError
from ..texts.i18n import LANGS


class _Group(click.Group):
    """Turns nardy's input errors into a clear message and exit status 2 instead of a traceback,
    and loads the sub-commands of other modules on demand."""

    def list_commands(self, ctx):
        names = set(super().list_commands(ctx))
        names.update(n for n in _LAZY if _lazy_command(n) is not None)
        return sorted(names)

    def get_command(self, ctx, name):
        cmd = super().get_command(ctx, name)
        if cmd is None and name in _LAZY:
            cmd = _lazy_command(name)
        return cmd

    def invoke(self, ctx):
        from ..rules.boardtext import terminal_text

        try:
            return super().invoke(ctx)
        except NardyError as e:
            click.echo(terminal_text(f"error: {e}"), err=True)
            sys.exit(2)
        except click.ClickException as e:  # its message may quote a record or a file's name: printable only
            e.message = terminal_text(e.message, lines=True)
            raise


@click.group(cls=_Group)
@click.version_option(package_name="nardy")
def main():
    """nardy: backgammon, short nardy and long nardy."""


def _parse_dice(ctx, param, value):
    from ..rules.position import check_dice

    try:
        return check_dice(value)
    except NardyError as e:
        raise click.BadParameter(str(e)) from None


_DIE = frozenset("0123456789")


class _DiceCommand(click.Command):
    """A command whose ``--dice`` takes the roll as one word (``31``, ``3-1``, ``3,1``) or as two
    (``--dice 3 1``): two one-digit words after the option are joined into one word before click parses."""

    def parse_args(self, ctx, args):
        args = list(args)
        for i, a in enumerate(args[:-2]):
            if a in ("--dice", "-d") and args[i + 1] in _DIE and args[i + 2] in _DIE:
                args[i + 1 : i + 3] = [args[i + 1] + args[i + 2]]
                break
        return super().parse_args(ctx, args)


@main.command(cls=_DiceCommand)
@click.option(
    "--game",
    "-g",
    default="backgammon",
    show_default=True,
    help="backgammon, short (short nardy) or long (long nardy); aliases accepted.",
)
@click.option(
    "--position",
    "-p",
    "position_id",
    default=None,
    help="GNU Backgammon Position ID (long nardy: optional :Fxy first-turn suffix) or an XGID=... "
    "(backgammon, short nardy). Default: the starting position.",
)
@click.option(
    "--dice", "-d", required=True, callback=_parse_dice, help="The roll: --dice 3 1, --dice 31 or --dice 3-1."
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
@click.option(
    "--numbering",
    type=click.Choice(["own", "absolute", "traditional"]),
    default="own",
    show_default=True,
    help="Point numbers: the mover's own, long nardy's absolute, or the traditional numbering "
    "(short nardy, backgammon).",
)
@click.option(
    "--side",
    type=click.Choice(["white", "black"]),
    default="white",
    show_default=True,
    help="With --numbering absolute or traditional: which side is on roll.",
)
def moves(game, position_id, dice, as_json, numbering, side):
    """Print every legal play for a position and roll, with the resulting Position ID.

    The resulting position is from the mover's view, sides not swapped (as GNU Backgammon reports).
    With --json each play's steps are {"from", "to", "die", "hit", "from_label", "to_label"} in the
    numbering asked for, the same shape as the HTTP API's (/api/plays).
    """
    from ..rules.errors import GameStateError, NotationError
    from ..rules.numbering import NUMBERINGS, games_with
    from ..rules.position import Position
    from ..rules.variants import get_rules

    rules = get_rules(game)
    if numbering not in NUMBERINGS[rules.name]:
        owners = " and ".join({"short": "short nardy", "long": "long nardy"}.get(g, g) for g in games_with(numbering))
        raise NotationError(
            f"--numbering {numbering} is for {owners} only; {rules.name} has {', '.join(NUMBERINGS[rules.name])}"
        )
    if position_id is not None and not position_id.strip():
        raise click.BadParameter("empty Position ID", param_hint="--position")
    if position_id and position_id.strip().upper().startswith("XGID="):
        pos = Position.from_xgid(position_id.strip(), rules)
    else:
        pos = Position.from_id(position_id, rules) if position_id else Position.start(rules)
    if pos.is_game_over():
        raise GameStateError(f"position {pos.id()} is finished: a side has borne off all 15 checkers")
    plays = pos.legal_plays(dice)
    if as_json:
        out = {
            "game": rules.name,
            "position": pos.id(),
            "dice": list(dice),
            "plays": [
                {
                    "play": p.notation(numbering, side) if numbering != "own" else str(p),
                    "steps": p.step_dicts(numbering, side),
                    "position": p.result.id(),
                }
                for p in plays
            ],
        }
        click.echo(json.dumps(out, indent=2))
        return
    for p in plays:
        text = p.notation(numbering, side) if numbering != "own" else str(p)
        click.echo(f"{text or '(no play)':<28} {p.result.id()}")


#: Exit statuses of ``nardy verify-dice`` (docs/fairness.md).
VERIFY_OK, VERIFY_FAILED, VERIFY_NOT_REVEALED, VERIFY_UNREADABLE, VERIFY_NO_ORDER = 0, 1, 2, 3, 4


@main.command("verify-dice")
@click.argument("file", type=click.Path(allow_dash=True))
@click.option(
    "--lang",
    type=click.Choice(LANGS),
    default=None,
    help="Language of the texts (default: Russian when the system locale is Russian).",
)
def verify_dice(file, lang):
    """Check the dice of an online game: FILE is its fairness record (GET /api/games/ID/fairness) or its
    game record carrying one under "fairness" ("-" reads standard input).

    Exit status: 0 the commitment, the order (each client seed taken after the commitment) and every roll
    check; 1 a check failed (a wrong order, a wrong commitment, or the first bad roll, named); 2 the server
    seed is not revealed yet (the match is not over); 3 FILE cannot be read or is not such a record; 4 the
    commitment and every roll check but the record does not show the order (a game from before it was kept).
    The scheme is described in docs/fairness.md.
    """
    import hashlib

    from ..rules.boardtext import terminal_text
    from ..rules.errors import InvalidDiceError
    from ..rules.fairdice import verify
    from ..texts.i18n import Texts, detect_lang

    t = Texts(lang or detect_lang())

    def give_up(key: str, why) -> NoReturn:
        name = "<stdin>" if file == "-" else click.format_filename(file)
        click.echo(terminal_text(t(key, file=name, why=why)), err=True)
        sys.exit(VERIFY_UNREADABLE)

    try:
        with click.open_file(file, "rb") as fh:
            raw = fh.read()
    except OSError as e:
        give_up("fair_unreadable", e.strerror or e)
    try:
        data = json.loads(raw.decode("utf-8-sig"))  # -sig: a byte-order mark some editors write
    except UnicodeDecodeError as e:
        give_up("fair_not_json", f"not UTF-8 text ({e.reason} at byte {e.start})")
    except json.JSONDecodeError as e:
        give_up("fair_not_json", f"{e.msg} (line {e.lineno}, column {e.colno})")
    except RecursionError:
        give_up("fair_not_json", "nested too deeply")
    except ValueError as e:  # e.g. an integer too long to convert
        give_up("fair_not_json", e)
    try:
        v = verify(data)
    except InvalidDiceError as e:
        give_up("fair_not_record", str(e).removeprefix("not a fairness record: "))
    rec = data["fairness"] if "scheme" not in data else data
    seeds = [s if s is not None else t("fair_no_seed") for s in rec["client_seeds"]]
    out = [t("fair_scheme", scheme=rec["scheme"])]
    if v.commitment_ok is None:
        out.append(t("fair_commitment_only", commitment=rec["commitment"]))
    elif v.commitment_ok:
        out.append(t("fair_commitment_ok", commitment=rec["commitment"]))
    else:
        actual = hashlib.sha256(bytes.fromhex(rec["server_seed"])).hexdigest()
        out.append(t("fair_commitment_bad", commitment=rec["commitment"], actual=actual))
    if v.revealed:
        out.append(t("fair_server_seed", seed=rec["server_seed"]))
    out.append(t("fair_client_seeds", s0=seeds[0], s1=seeds[1]))
    out.extend(_order_lines(t, rec, v))
    if v.revealed and v.commitment_ok:
        out.append(t("fair_rolls_checked", checked=v.rolls_checked, total=v.rolls_total))
    else:
        out.append(t("fair_rolls_logged", total=v.rolls_total))
    out.append(t("fair_counts", dice=sum(v.faces), two=v.two_dice, doubles=v.doubles, one=v.one_die))
    out.append(t("fair_faces", faces=" ".join(str(c) for c in v.faces)))
    if v.ok and not v.order_checked:
        out.append(t("fair_ok_no_order"))
        status = VERIFY_NO_ORDER
    elif v.ok:
        out.append(t("fair_ok"))
        status = VERIFY_OK
    elif v.reason == "order":
        side = t(f"fair_side_{v.order_seat}") if v.order_seat is not None else ""
        out.append(t(f"fair_bad_order_{v.order_problem}", event=v.order_event, side=side, shown=v.order_shown))
        status = VERIFY_FAILED
    elif v.reason == "not_revealed":
        out.append(t("fair_not_revealed"))
        status = VERIFY_NOT_REVEALED
    else:
        if v.reason == "roll":
            got = "-".join(map(str, v.got or ()))
            out.append(t("fair_bad_roll", n=v.bad_roll, got=got, expected="-".join(map(str, v.expected or ()))))
        elif v.reason == "commitment":
            out.append(t("fair_bad_commitment"))
        else:
            out.append(t("fair_missing_seed"))
        status = VERIFY_FAILED
    click.echo(terminal_text("\n".join(out), lines=True))  # the seeds are the record's text
    sys.exit(status)


def _order_lines(t, rec: dict, v) -> list[str]:
    """What ``nardy verify-dice`` says of the record's order: when the commitment came, and each seed after
    it (by its player, or made by the server); that it is not shown (an old record)."""
    if not v.order_checked:
        return [t("fair_order_missing")]
    if v.reason == "order":
        return []
    events = rec["order"]
    t0 = events[0]["t"]
    out = [t("fair_order_commit")]
    for e in sorted((e for e in events if e["event"] == "seed"), key=lambda e: e["seat"]):
        side = t(f"fair_side_{e['seat']}")
        key = "fair_order_player" if e["by"] == "player" else "fair_order_server"
        out.append(t(key, side=side, after=f"{e['t'] - t0:.3f}"))
    return out


_LAZY = {
    "replay": ("nardy.cli.replay", "replay"),
    "convert": ("nardy.cli.replay", "convert"),
    "external": ("nardy.external", "external"),
    "samples": ("nardy.cli.replay", "samples"),
    "train": ("nardy.engine.tdtrain", "train"),
    "teach": ("nardy.cli.teach", "teach"),
    "play": ("nardy.terminal.play", "play"),
    "serve": ("nardy.web.server", "serve"),
    "bearoff": ("nardy.engine.bearoff", "bearoff"),
    "rollout": ("nardy.engine.rollout", "rollout_command"),
    "analyse": ("nardy.cli.analyse", "analyse_command"),
}


def _lazy_command(name):
    """Import a sub-command that lives in another module only when it is used (fast start-up)."""
    modname, attr = _LAZY[name]
    try:
        mod = __import__(modname, fromlist=[attr])
    except ImportError as e:
        if e.name and (modname == e.name or modname.startswith(e.name + ".")):
            return None  # that part of nardy is not there (yet)
        raise
    return getattr(mod, attr, None)


if __name__ == "__main__":
    main()
