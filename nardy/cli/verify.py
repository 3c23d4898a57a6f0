"""``nardy verify-dice``: check the dice of an online game from its fairness record (docs/fairness.md)."""

from __future__ import annotations

import hashlib
import json
import sys
from typing import NoReturn

import click

from ..rules.errors import InvalidDiceError
from ..rules.fairdice import verify
from ..texts.i18n import LANGS, Texts, detect_lang
from ..texts.printable import terminal_text

__all__ = ["verify_dice", "VERIFY_OK", "VERIFY_FAILED", "VERIFY_NOT_REVEALED", "VERIFY_UNREADABLE", "VERIFY_NO_ORDER"]


#: Exit statuses of ``nardy verify-dice`` (docs/fairness.md).
VERIFY_OK, VERIFY_FAILED, VERIFY_NOT_REVEALED, VERIFY_UNREADABLE, VERIFY_NO_ORDER = 0, 1, 2, 3, 4


@click.command("verify-dice")
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
