"""Provably fair dice, scheme ``nardy-hmac-sha256-v1`` (docs/fairness.md; nardy/rules/fairdice.py).

The rolls are checked against digests computed here with :mod:`hmac` and :mod:`hashlib` from the page's
words, not through the module; the worked example of docs/fairness.md is checked number by number.
"""

from __future__ import annotations

import copy
import hashlib
import hmac
import json
import random
import re
import subprocess
import sys
from collections import Counter

import pytest
from click.testing import CliRunner

from nardy.cli import main
from nardy.flow.game import Game
from nardy.flow.match import Match
from nardy.rules.dice import DiceSource, dice_from_dict
from nardy.rules.errors import GameStateError, InvalidDiceError, InvalidOptionError
from nardy.rules.fairdice import (
    SCHEME,
    FairDice,
    Verification,
    check_client_seed,
    commit_event,
    commitment,
    derive,
    new_server_seed,
    public_record,
    seed_event,
    verify,
)
from tests.helpers import REPO

KEY = bytes(range(32))
SEEDS = ("alice", "bob")
DOC = REPO / "docs" / "fairness.md"

# the worked example of docs/fairness.md
EX_KEY = bytes.fromhex("a7759d89fff5a95b8035d9d2fd6d03e07b2b54f97fb583aef146ebb8a291e2da")
EX_SEEDS = ("857d62e8434f4d723e28830253006a07", "d908e339e1f535722bc2cc49a3b51995")
EX_ROLLS = [[1], [6], [4, 1], [1, 1], [1, 3]]


def digest(key: bytes, seeds, n: int, k: int = 0) -> bytes:
    """HMAC-SHA256(key, "{seed0}:{seed1}:{n}[:{k}]"), computed here (docs/fairness.md, step 5)."""
    msg = f"{seeds[0]}:{seeds[1]}:{n}" + (f":{k}" if k else "")
    return hmac.new(key, msg.encode("ascii"), hashlib.sha256).digest()


def dice_by_hand(key: bytes, seeds, n: int, count: int) -> list[int]:
    """The first ``count`` dice of roll ``n``: bytes < 252 as b % 6 + 1, blocks k = 0, 1, ... in turn."""
    out: list[int] = []
    k = 0
    while len(out) < count:
        out += [b % 6 + 1 for b in digest(key, seeds, n, k) if b < 252]
        k += 1
    return out[:count]


def play_some(m: Match, rng: random.Random, actions: int) -> None:
    """Random legal actions: new games, rolls and whole plays (no cube, no undo)."""
    for _ in range(actions):
        g = m.current
        if g is None or g.is_over:
            if m.is_over:
                return
            m.new_game(start=True)
        elif g.phase == "roll":
            g.roll()
        elif g.phase == "move":
            g.play(rng.choice(g.legal_plays()))
        else:  # pragma: no cover - no cube action or resignation is made here
            raise AssertionError(g.phase)


# ----- the scheme: known answers ----------------------------------------------------------------------------
def test_commitment_is_the_sha256_of_the_seed_bytes():
    assert commitment(KEY) == hashlib.sha256(KEY).hexdigest()
    assert commitment(KEY) == "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"
    assert FairDice(KEY, SEEDS).commitment == commitment(KEY)
    with pytest.raises(InvalidDiceError, match="31 bytes"):
        commitment(bytes(31))
    with pytest.raises(InvalidDiceError, match="str"):
        commitment(KEY.hex())  # type: ignore[arg-type]


def test_roll_n_is_read_from_hmac_of_the_seeds_and_n():
    assert digest(KEY, SEEDS, 0).hex()[:12] == "1a68ac2ba876"  # 0x1a = 26 -> 3, 0x68 = 104 -> 3
    known = {0: (3, 3), 1: (6, 1), 2: (3, 3), 3: (4, 2), 4: (2, 5), 5: (1, 1)}
    for n, dice in known.items():
        assert derive(KEY, SEEDS, n, 2) == dice
        assert list(dice) == dice_by_hand(KEY, SEEDS, n, 2)
        assert derive(KEY, SEEDS, n, 1) == dice[:1]
    for n in range(300):
        assert list(derive(KEY, ["x_-9", "Z" * 64], n, 2)) == dice_by_hand(KEY, ["x_-9", "Z" * 64], n, 2)


def test_fair_dice_rolls_the_roll_numbers_in_order_and_logs_them():
    d = FairDice(KEY, SEEDS)
    assert [d.roll_one(), d.roll_one()] == [3, 6]  # roll 0's first die, roll 1's first die
    assert d.roll() == (3, 3) and d.roll() == (4, 2)
    assert d.n == 4 and d.rolls == [(3,), (6,), (3, 3), (4, 2)]
    assert public_record(d, reveal=True)["rolls"] == [[3], [6], [3, 3], [4, 2]]


def test_a_byte_from_252_up_is_skipped():
    """Roll 27's digest starts 254, 156, 41: the die is 156 % 6 + 1 = 1, the roll 1-6; roll 26's starts
    138, 254, 165: the roll is 138 % 6 + 1 = 1 and 165 % 6 + 1 = 4."""
    assert list(digest(KEY, SEEDS, 27)[:3]) == [254, 156, 41]
    assert derive(KEY, SEEDS, 27, 1) == (1,) and derive(KEY, SEEDS, 27, 2) == (1, 6)
    assert list(digest(KEY, SEEDS, 26)[:3]) == [138, 254, 165]
    assert derive(KEY, SEEDS, 26, 2) == (1, 4)
    # the worked example's roll 0: 254 skipped, then 30 -> 1
    assert list(digest(EX_KEY, EX_SEEDS, 0)[:2]) == [254, 30]
    assert derive(EX_KEY, EX_SEEDS, 0, 1) == (1,)


def test_each_face_comes_from_exactly_42_byte_values():
    """252 = 42 x 6: the values 0-251 give each face 42 times; 252-255 give none. Over 2,000 digests, the
    dice read are exactly the digest's bytes < 252 mapped so (no other byte used, none reordered)."""
    faces = Counter(b % 6 + 1 for b in range(252))
    assert faces == dict.fromkeys(range(1, 7), 42)
    skipped = 0
    for n in range(2000):
        raw = digest(KEY, SEEDS, n)
        kept = [b % 6 + 1 for b in raw if b < 252]
        skipped += 32 - len(kept)
        assert list(derive(KEY, SEEDS, n, len(kept))) == kept
    assert 700 <= skipped <= 1300  # 2000 x 32 x 4/256 = 1000 bytes of 252-255 expected: the case is met


def test_when_the_digest_runs_out_reading_goes_on_with_k():
    """More dice than one digest holds (at most 32) come from HMAC(key, "seed0:seed1:n:k"), k = 1, 2, ..."""
    for n in range(20):
        first = [b % 6 + 1 for b in digest(KEY, SEEDS, n) if b < 252]
        second = [b % 6 + 1 for b in digest(KEY, SEEDS, n, 1) if b < 252]
        third = [b % 6 + 1 for b in digest(KEY, SEEDS, n, 2) if b < 252]
        assert list(derive(KEY, SEEDS, n, 70)) == (first + second + third)[:70]


def test_sixty_thousand_rolls_pass_chi_square():
    """60,000 two-dice rolls (fixed seeds, so the numbers are fixed): the faces' chi-square (5 degrees of
    freedom) is under 20.52 (its 0.1% point) and the 36 ordered pairs' (35 degrees) between 14.69 and
    66.62 (its 0.1% and 99.9% points): neither biased nor too even."""
    d = FairDice(hashlib.sha256(b"nardy chi-square 1").digest(), ("0123456789abcdef" * 2, "fedcba9876543210" * 2))
    pairs = Counter(d.roll() for _ in range(60_000))
    faces = Counter()
    for (a, b), c in pairs.items():
        faces[a] += c
        faces[b] += c
    assert [faces[f] for f in range(1, 7)] == [19941, 20075, 20086, 20141, 19779, 19978]
    chi_faces = sum((faces[f] - 20_000) ** 2 / 20_000 for f in range(1, 7))
    chi_pairs = sum((pairs[(a, b)] - 60_000 / 36) ** 2 / (60_000 / 36) for a in range(1, 7) for b in range(1, 7))
    assert chi_faces < 20.52 and round(chi_faces, 2) == 4.29
    assert 14.69 < chi_pairs < 66.62 and round(chi_pairs, 2) == 28.31


def test_new_server_seeds_are_32_fresh_bytes():
    seeds = {new_server_seed() for _ in range(100)}
    assert len(seeds) == 100 and {len(s) for s in seeds} == {32}


# ----- client seeds --------------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", ["a", "Z" * 64, "0123456789abcdef0123456789abcdef", "my_seed-2"])
def test_a_client_seed_is_1_to_64_of_0_9_A_Z_a_z_underscore_dash(seed):
    assert check_client_seed(seed) == seed


@pytest.mark.parametrize("seed", ["", "a" * 65, "a:b", "a b", "сид", "seed\n", 12, None, b"ab"])
def test_any_other_client_seed_is_refused_quoting_it(seed):
    with pytest.raises(InvalidOptionError) as info:
        check_client_seed(seed)
    assert repr(seed)[:60] in str(info.value) and info.value.params == {"option": "client_seed"}


def test_no_roll_before_both_client_seeds_and_a_seed_is_given_once():
    d = FairDice(KEY, ("alice", None))
    with pytest.raises(GameStateError, match="seat 1 is not given yet"):
        d.roll()
    assert d.n == 0 and d.rolls == []
    d.set_client_seed(1, "bob")
    assert d.roll() == (3, 3)
    with pytest.raises(GameStateError, match="already given"):
        d.set_client_seed(1, "eve")
    with pytest.raises(InvalidOptionError):
        d.set_client_seed(2, "eve")
    assert d.client_seeds == ("alice", "bob")


def test_fair_dice_refuses_a_bad_start():
    with pytest.raises(InvalidDiceError, match="expected 32 bytes"):
        FairDice(bytes(16), SEEDS)
    with pytest.raises(InvalidOptionError, match="'a:b'"):
        FairDice(KEY, ("a:b", "c"))
    with pytest.raises(InvalidDiceError, match="expected 1"):
        FairDice(KEY, SEEDS, n=2, rolls=[[3, 3]])
    with pytest.raises(InvalidDiceError, match=r"rolls\[1\]"):
        FairDice(KEY, SEEDS, n=2, rolls=[[3, 3], [0, 1]])
    with pytest.raises(InvalidDiceError, match="without both client seeds"):
        FairDice(KEY, ("alice", None), n=1, rolls=[[3]])


# ----- the public record ----------------------------------------------------------------------------------
def test_the_public_record_shows_the_seed_only_when_revealed():
    d = FairDice(KEY, SEEDS)
    d.roll_one()
    d.roll()
    hidden = public_record(d, reveal=False)
    assert hidden == {
        "scheme": SCHEME,
        "commitment": commitment(KEY),
        "client_seeds": ["alice", "bob"],
        "server_seed": None,
        "rolls": [[3], [6, 1]],
    }
    assert KEY.hex() not in json.dumps(hidden) and KEY.hex() not in repr(d)
    assert public_record(d, reveal=True)["server_seed"] == KEY.hex()
    assert public_record(FairDice(KEY, ("alice", None)), reveal=False)["client_seeds"] == ["alice", None]


# ----- saving and resuming -------------------------------------------------------------------------------
def test_the_saved_state_continues_exactly():
    d = FairDice(new_server_seed(), ("s0", "s1"))
    for _ in range(30):
        d.roll()
    d.roll_one()
    saved = json.loads(json.dumps(d.to_dict()))
    assert saved["kind"] == "fair" and saved["state"]["n"] == 31 and len(saved["state"]["rolls"]) == 31
    again = dice_from_dict(saved)
    assert isinstance(again, FairDice) and again.to_dict() == d.to_dict()
    other = FairDice(KEY, SEEDS)
    other.set_state(saved["state"])
    assert [d.roll() for _ in range(50)] == [again.roll() for _ in range(50)] == [other.roll() for _ in range(50)]


@pytest.mark.parametrize("game", ["backgammon", "short", "long"])
def test_a_match_saved_with_fair_dice_resumes_exactly(game):
    m = Match(game, length=5, dice=FairDice(new_server_seed(), ("white-seed", "black-seed")))
    play_some(m, random.Random(1), 150)
    saved = json.loads(json.dumps(m.to_dict()))
    back = Match.from_dict(saved)
    assert isinstance(back.dice_source, FairDice) and back.to_dict() == m.to_dict()
    for each in (m, back):
        play_some(each, random.Random(2), 150)
        assert all(g.dice_source is each.dice_source for g in each.games)
    assert back.to_dict() == m.to_dict() and back.dice_source.n == m.dice_source.n > 0
    # every call of the dice is in the log, in order: each game's opening dice, then its rolls
    expected = []
    for g in back.games:
        for e in g.history:
            if e.type == "opening":
                expected += [(w,) for pair in e.rolls for w in pair]
            elif e.type == "roll":
                expected.append(tuple(e.dice))
    assert back.dice_source.rolls == expected
    assert verify(public_record(back.dice_source, reveal=True)).ok


def test_a_game_saved_with_fair_dice_resumes_exactly():
    g = Game("long", dice=FairDice(KEY, SEEDS))
    g.start()
    rng = random.Random(3)
    for _ in range(9):
        if g.phase == "roll":
            g.roll()
        g.play(rng.choice(g.legal_plays()))
    back = Game.from_dict(json.loads(json.dumps(g.to_dict())))
    assert isinstance(back.dice_source, FairDice) and back.to_dict() == g.to_dict()
    assert back.roll() == g.roll()


def _fair_source() -> dict:
    d = FairDice(KEY, SEEDS)
    d.roll_one()
    d.roll_one()
    d.roll()
    return d.to_dict()


@pytest.mark.parametrize(
    ("change", "field", "why"),
    [
        (lambda s: s.update(server_seed=KEY.hex().upper()), ".server_seed", "lowercase hex"),
        (lambda s: s.update(server_seed=KEY.hex()[:62]), ".server_seed", "64 lowercase hex"),
        (lambda s: s.update(server_seed="zz" * 32), ".server_seed", "hex"),
        (lambda s: s.update(server_seed=None), ".server_seed None", "hex"),
        (lambda s: s["rolls"].__setitem__(2, [7, 1]), ".rolls[2] [7, 1]", "dice 1-6"),
        (lambda s: s["rolls"].__setitem__(0, [1, 2, 3]), ".rolls[0]", "dice 1-6"),
        (lambda s: s["rolls"].__setitem__(1, []), ".rolls[1] []", "dice 1-6"),
        (lambda s: s["rolls"].__setitem__(1, [True]), ".rolls[1] [True]", "dice 1-6"),
        (lambda s: s.update(n=2), ".n 2", "expected 3"),
        (lambda s: s.update(n=True), ".n True", "expected 3"),
        (lambda s: s.update(n=3.0), ".n 3.0", "expected 3"),
        (lambda s: s.update(client_seeds=["alice"]), ".client_seeds ['alice']", "two client seeds"),
        (lambda s: s["client_seeds"].__setitem__(1, "b:c"), ".client_seeds[1] 'b:c'", "1-64 characters"),
        (lambda s: s["client_seeds"].__setitem__(0, None), ".client_seeds[0] None", "both client seeds"),
        (lambda s: s.update(scheme="nardy-hmac-sha256-v2"), ".scheme 'nardy-hmac-sha256-v2'", "expected"),
        (lambda s: s.pop("rolls"), ".rolls None", "missing"),
        (lambda s: s.update(extra=1), "", "exactly the keys"),
    ],
)
def test_a_saved_fair_state_is_checked_strictly(change, field, why):
    saved = _fair_source()
    change(saved["state"])
    with pytest.raises(GameStateError) as info:
        dice_from_dict(saved)
    assert f"dice_source.state{field}" in str(info.value) and why in str(info.value)
    with pytest.raises(InvalidDiceError) as info2:
        FairDice(KEY, SEEDS).set_state(saved["state"])
    assert f"dice source state{field}" in str(info2.value) and why in str(info2.value)


def test_a_saved_game_with_a_bad_fair_state_is_refused_naming_the_field():
    g = Game("backgammon", dice=FairDice(KEY, SEEDS))
    g.start()
    d = g.to_dict()
    d["state"]["dice_source"]["state"]["n"] = 5
    with pytest.raises(GameStateError, match=r"state\.dice_source\.state\.n 5"):
        Game.from_dict(d)
    m = Match("short", length=3, dice=FairDice(KEY, SEEDS))
    m.new_game(start=True)
    md = m.to_dict()
    md["dice_source"]["state"]["rolls"][0] = [0]
    with pytest.raises(GameStateError, match=r"dice_source\.state\.rolls\[0\] \[0\]"):
        Match.from_dict(md)


def test_the_other_kinds_load_as_before():
    assert isinstance(dice_from_dict(DiceSource(4).to_dict()), DiceSource)
    with pytest.raises(GameStateError, match="'random', 'system', 'fixed' or 'fair'"):
        dice_from_dict({"kind": "loaded", "state": None})


# ----- verify: tampering is found ----------------------------------------------------------------------------
def _order(by=("player", "player")) -> list[dict]:
    """The order of a game made right: the commitment published at t = 1000, then White's seed, then Black's,
    each sent by its player with that commitment (or made by the server)."""
    c = commitment(KEY)
    return [
        commit_event(c, 1000.0),
        seed_event(0, SEEDS[0], by[0], 1001.5, c if by[0] == "player" else None),
        seed_event(1, SEEDS[1], by[1], 1002.25, c if by[1] == "player" else None),
    ]


def _record(rolls: int = 40, order: bool = True) -> dict:
    """A revealed record of ``rolls`` rolls (two opening dice, then two-dice rolls); ``order``: with the order
    of a game made right (:func:`_order`), else a record from before the order was kept."""
    d = FairDice(KEY, SEEDS)
    d.roll_one()
    d.roll_one()
    for _ in range(rolls - 2):
        d.roll()
    return public_record(d, reveal=True, order=_order() if order else None)


def test_an_honest_record_verifies():
    v = verify(_record())
    assert v == Verification(
        ok=True,
        revealed=True,
        commitment_ok=True,
        rolls_total=40,
        rolls_checked=40,
        faces=v.faces,
        doubles=v.doubles,
        two_dice=38,
        one_die=2,
        order_checked=True,
    )
    assert sum(v.faces) == 2 + 2 * 38 and v.reason is None and v.bad_roll is None
    assert verify({"id": "g1", "fairness": _record()}).ok  # a game record carrying it


def test_a_changed_roll_is_named():
    rec = _record()
    true = rec["rolls"][17]
    rec["rolls"][17] = [true[0] % 6 + 1, true[1]]
    v = verify(rec)
    assert (v.ok, v.reason, v.bad_roll, v.rolls_checked) == (False, "roll", 17, 17)
    assert v.expected == tuple(true) and v.got == (true[0] % 6 + 1, true[1])
    assert v.detail == f"roll 17 is {rec['rolls'][17]}, but the seeds give {true}"


def test_a_single_die_entry_is_checked_as_one_die():
    rec = _record()
    rec["rolls"][0] = [3, 3]  # roll 0's first two dice are 3-3, but the log said it was a single die
    assert verify(rec).ok  # its dice are the seeds' dice: the shape of a call is the game's business
    rec["rolls"][1] = [6, 6]
    v = verify(rec)
    assert (v.bad_roll, v.expected, v.got) == (1, (6, 1), (6, 6))


def test_a_removed_or_added_roll_shows():
    rec = _record()
    del rec["rolls"][5]
    honest = [dice_by_hand(KEY, SEEDS, n, 2) for n in range(40)]
    first = next(n for n in range(5, 39) if rec["rolls"][n] != honest[n])
    assert verify(rec).bad_roll == first
    rec = _record()
    rec["rolls"].append([6, 6])
    v = verify(rec)
    assert dice_by_hand(KEY, SEEDS, 40, 2) != [6, 6] and v.bad_roll == 40 and v.rolls_checked == 40


def test_a_changed_client_seed_is_found():
    for seeds in (["alice", "bob2"], ["bob", "alice"]):
        rec = _record(order=False)
        rec["client_seeds"] = seeds
        first = next(n for n, r in enumerate(rec["rolls"]) if dice_by_hand(KEY, seeds, n, len(r)) != r)
        v = verify(rec)
        assert (v.ok, v.reason, v.bad_roll) == (False, "roll", first)
        # with the order kept, the seed is not the one its player gave after the commitment
        rec = _record()
        rec["client_seeds"] = seeds
        v = verify(rec)
        assert (v.ok, v.reason, v.order_problem) == (False, "order", "seed_value")


def test_a_changed_server_seed_or_commitment_is_found():
    rec = _record()
    rec["server_seed"] = new_server_seed().hex()
    v = verify(rec)
    assert (v.ok, v.revealed, v.commitment_ok, v.reason, v.rolls_checked) == (False, True, False, "commitment", 0)
    rec = _record()
    rec["commitment"] = hashlib.sha256(KEY.hex().encode()).hexdigest()  # the hash of the hex text: not the scheme
    assert verify(rec).reason == "commitment"


def test_rolls_without_a_client_seed_fail():
    rec = _record()
    rec["client_seeds"][1] = None
    assert (verify(rec).reason, verify(rec).order_problem) == ("order", "seed_count")  # its seed event is there
    rec = _record(order=False)
    rec["client_seeds"][1] = None
    assert verify(rec).reason == "client_seed_missing"
    rec["rolls"] = []
    assert verify(rec).ok  # nothing rolled: only the commitment to check


def test_an_unrevealed_record_cannot_be_checked_yet():
    rec = _record()
    rec["server_seed"] = None
    v = verify(rec)
    assert (v.ok, v.revealed, v.commitment_ok, v.reason, v.rolls_total, v.rolls_checked) == (
        False,
        False,
        None,
        "not_revealed",
        40,
        0,
    )


# ----- verify: the order of the commitment and the seeds ---------------------------------------------------
def test_a_record_in_order_verifies_and_names_the_seeds_the_server_made():
    v = verify(_record())
    assert v.ok and v.order_checked and v.server_seats == ()
    assert v.detail.endswith("each client seed was taken after the commitment")
    d = FairDice(KEY, SEEDS)
    v = verify(public_record(d, reveal=True, order=_order(by=("player", "server"))))
    assert v.ok and v.order_checked and v.server_seats == (1,)


def _moved(order: list[dict], k: int, to: int) -> list[dict]:
    out = list(order)
    out.insert(to, out.pop(k))
    return out


@pytest.mark.parametrize(
    ("change", "problem", "where"),
    [
        # a client seed recorded before the commitment was published
        (lambda o: _moved(o, 2, 0), "commit_first", {"order_event": 0}),
        (lambda o: _moved(o, 1, 0), "commit_first", {"order_event": 0}),
        # the same, told by the times: Black's seed dated before the commitment
        (lambda o: [o[0], o[1], {**o[2], "t": 999.0}], "time", {"order_event": 2}),
        # a second commitment published after a seed (the server changing its mind)
        (lambda o: [*o[:2], commit_event(commitment(bytes(32)), 1001.7), o[2]], "commit_first", {"order_event": 2}),
        # the commitment published is not the record's
        (lambda o: [commit_event(commitment(bytes(32)), 1000.0), *o[1:]], "commit_first", {"order_event": 0}),
        # a player shown another commitment than the one the server seed hashes to
        (
            lambda o: [o[0], o[1], {**o[2], "commitment": commitment(bytes(32))}],
            "shown",
            {"order_seat": 1, "order_shown": commitment(bytes(32))},
        ),
        # a seed without its event, a seed taken twice, an event naming another seed
        (lambda o: o[:2], "seed_count", {"order_seat": 1}),
        (lambda o: [*o, {**o[2], "t": 1003.0}], "seed_count", {"order_seat": 1}),
        (lambda o: [o[0], {**o[1], "client_seed": "mallory"}, o[2]], "seed_value", {"order_seat": 0}),
    ],
)
def test_a_record_whose_order_is_wrong_is_refused(change, problem, where):
    rec = _record()
    rec["order"] = change(rec["order"])
    v = verify(rec)
    assert (v.ok, v.reason, v.order_problem) == (False, "order", problem)
    assert {k: getattr(v, k) for k in where} == where
    assert v.detail.startswith(("the order is wrong", "the order is wrong:"))
    # before the reveal the order is checked all the same
    rec["server_seed"] = None
    assert (verify(rec).reason, verify(rec).order_problem) == ("order", problem)


def test_a_record_from_before_the_order_was_kept_verifies_saying_the_order_was_not_checked():
    v = verify(_record(order=False))
    assert v.ok and not v.order_checked
    assert "does not show the order of the commitment and the seeds (not checked)" in v.detail


@pytest.mark.parametrize(
    ("order", "words"),
    [
        ({"event": "commit"}, "order {'event': 'commit'}: expected a list"),
        ([{"event": "start", "t": 1}], "order[0]"),
        ([{"event": "commit", "commitment": "ab", "t": 1}], "order[0].commitment 'ab'"),
        ([{"event": "commit", "commitment": "0" * 64, "t": "now"}], "order[0].t 'now'"),
        ([{"event": "seed", "seat": 2, "by": "player", "client_seed": "a", "t": 1}], "order[0].seat 2"),
        ([{"event": "seed", "seat": 0, "by": "friend", "client_seed": "a", "t": 1}], "order[0].by 'friend'"),
        ([{"event": "seed", "seat": 0, "by": "player", "client_seed": "a b", "t": 1}], "order[0].client_seed"),
        ([{"event": "seed", "seat": 0, "by": "player", "client_seed": "a", "t": 1}], "order[0].commitment None"),
    ],
)
def test_a_malformed_order_is_refused_naming_the_field(order, words):
    rec = _record()
    rec["order"] = order
    with pytest.raises(InvalidDiceError, match=re.escape(words)):
        verify(rec)


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda r: r.pop("rolls"), "rolls None: missing"),
        (lambda r: r.update(scheme="other"), "scheme 'other'"),
        (lambda r: r.update(commitment="ab"), "commitment 'ab'"),
        (lambda r: r.update(server_seed=12), "server_seed 12"),
        (lambda r: r.update(client_seeds="alice:bob"), "client_seeds 'alice:bob'"),
        (lambda r: r["client_seeds"].__setitem__(0, ""), "client_seeds[0] ''"),
        (lambda r: r["rolls"].__setitem__(3, [7, 1]), "rolls[3] [7, 1]"),
        (lambda r: r["rolls"].__setitem__(3, "31"), "rolls[3] '31'"),
    ],
)
def test_a_malformed_record_is_refused_naming_the_field(change, words):
    rec = _record()
    change(rec)
    with pytest.raises(InvalidDiceError, match=re.escape(words)):
        verify(rec)
    with pytest.raises(InvalidDiceError, match="expected an object"):
        verify([rec])  # type: ignore[arg-type]


# ----- nardy verify-dice -----------------------------------------------------------------------------------
def run_cli(*args):
    return CliRunner().invoke(main, ["verify-dice", *map(str, args)])


def write(tmp_path, data, name="record.json"):
    p = tmp_path / name
    p.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return p


def test_verify_dice_exits_0_with_a_summary(tmp_path):
    r = run_cli(write(tmp_path, _record()), "--lang", "en")
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    assert lines[0] == f"Scheme: {SCHEME}"
    assert lines[1] == f"Commitment {commitment(KEY)}: matches the server seed"
    assert "Client seeds: White alice, Black bob" in lines
    assert "Rolls checked: 40 of 40" in lines
    v = verify(_record())
    assert f"Dice: 78 (38 rolls of two dice, {v.doubles} of them doubles; 2 single dice)" in lines
    assert "Faces 1-6: " + " ".join(map(str, v.faces)) in lines
    assert lines[-1] == "Verified: every roll is the one the seeds give."


def test_verify_dice_prints_the_order_and_who_gave_each_seed(tmp_path):
    r = run_cli(write(tmp_path, _record()), "--lang", "en")
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    at = lines.index("Order: the commitment was published first, before any client seed")
    assert lines[at + 1 : at + 3] == [
        "  White: the seed was given by the player 1.500 s later, sent with that commitment",
        "  Black: the seed was given by the player 2.250 s later, sent with that commitment",
    ]
    d = FairDice(KEY, SEEDS)
    r = run_cli(write(tmp_path, public_record(d, True, _order(by=("player", "server")))), "--lang", "en")
    assert (
        r.exit_code == 0
        and (
            "  Black: the seed was made by the server 2.250 s later (the player gave none: that side trusts the server)"
        )
        in r.output.splitlines()
    )


def test_verify_dice_exits_1_when_a_seed_was_taken_before_the_commitment(tmp_path):
    rec = _record()
    rec["order"] = _moved(rec["order"], 2, 0)  # Black's seed first, then the commitment
    r = run_cli(write(tmp_path, rec), "--lang", "en")
    assert r.exit_code == 1, r.output
    assert "Rolls checked: 40 of 40" in r.output  # every roll is right: the order alone fails it
    assert r.output.splitlines()[-1] == (
        "FAILED: wrong order: event 0 should be the commitment, published once and before any seed."
    )
    r = run_cli(write(tmp_path, rec), "--lang", "ru")
    assert r.exit_code == 1 and "ОШИБКА: неверный порядок: событие 0" in r.output


def test_verify_dice_exits_1_when_a_player_was_shown_another_commitment(tmp_path):
    rec = _record()
    other = commitment(bytes(32))
    rec["order"][1]["commitment"] = other
    r = run_cli(write(tmp_path, rec), "--lang", "en")
    assert r.exit_code == 1, r.output
    assert r.output.splitlines()[-1] == (
        f"FAILED: White gave their seed after being shown the commitment {other}, "
        "not the one the server seed hashes to."
    )
    rec["server_seed"] = None  # not revealed yet: the wrong order is a failure all the same
    assert run_cli(write(tmp_path, rec), "--lang", "en").exit_code == 1


def test_verify_dice_exits_4_on_a_record_from_before_the_order_was_kept(tmp_path):
    r = run_cli(write(tmp_path, _record(order=False)), "--lang", "en")
    assert r.exit_code == 4, r.output
    assert "Rolls checked: 40 of 40" in r.output
    assert "Order: NOT CHECKED: the record does not show when the commitment and the seeds came" in r.output
    assert r.output.splitlines()[-1] == (
        "Rolls verified, but the order could not be checked: that each seed came after the commitment is not shown."
    )


def test_verify_dice_reads_a_game_record_and_speaks_russian(tmp_path):
    r = run_cli("--lang", "ru", write(tmp_path, {"id": "g1", "status": "over", "fairness": _record()}))
    assert r.exit_code == 0, r.output
    assert "Проверено бросков: 40 из 40" in r.output and "Клиентские сиды: белые alice, чёрные bob" in r.output
    assert r.output.splitlines()[-1] == "Проверено: каждый бросок — тот, что дают сиды."


def test_verify_dice_exits_1_naming_the_first_bad_roll(tmp_path):
    rec = _record()
    true = rec["rolls"][9]
    rec["rolls"][9] = [true[0], true[1] % 6 + 1]
    r = run_cli(write(tmp_path, rec), "--lang", "en")
    assert r.exit_code == 1
    assert "Rolls checked: 9 of 40" in r.output
    assert r.output.splitlines()[-1] == (
        f"FAILED: roll 9 (counting from 0) is {true[0]}-{true[1] % 6 + 1} in the record, "
        f"but the seeds give {true[0]}-{true[1]}."
    )
    r = run_cli(write(tmp_path, rec), "--lang", "ru")
    assert r.exit_code == 1 and "ОШИБКА: бросок 9 (счёт с 0)" in r.output


def test_verify_dice_exits_1_on_a_wrong_commitment(tmp_path):
    rec = _record()
    rec["server_seed"] = bytes(32).hex()
    r = run_cli(write(tmp_path, rec), "--lang", "en")
    assert r.exit_code == 1
    assert f"DOES NOT MATCH: sha256 of the server seed is {hashlib.sha256(bytes(32)).hexdigest()}" in r.output
    assert "FAILED: the server seed is not the one committed to at the start." in r.output


def test_verify_dice_exits_2_before_the_seed_is_revealed(tmp_path):
    rec = _record()
    rec["server_seed"] = None
    r = run_cli(write(tmp_path, rec), "--lang", "en")
    assert r.exit_code == 2
    assert "Rolls logged: 40" in r.output and "Server seed" not in r.output
    assert r.output.splitlines()[-1] == "Not yet checkable: the server seed is revealed when the match is over."


@pytest.mark.parametrize(
    ("content", "words"),
    [
        ("{oops", "is not JSON: Expecting property name enclosed in double quotes (line 1, column 2)"),
        ("", "is not JSON"),
        (b"\xff\xfe{}", "is not JSON: not UTF-8 text"),
        ("[" * 100_000 + "]" * 100_000, "is not JSON"),
        ("[1, 2]", "is not a fairness record: record [1, 2]: expected an object"),
        ('{"scheme": "nardy-hmac-sha256-v1"}', "is not a fairness record: commitment None: missing"),
        ('{"fairness": {"rolls": []}}', "is not a fairness record: scheme None: missing"),
    ],
)
def test_verify_dice_exits_3_on_a_file_that_is_not_a_record(tmp_path, content, words):
    p = tmp_path / "record.json"
    (p.write_bytes if isinstance(content, bytes) else p.write_text)(content)
    r = run_cli(p, "--lang", "en")
    assert r.exit_code == 3 and isinstance(r.exception, SystemExit), r.output
    assert words in r.output and "Traceback" not in r.output


def test_verify_dice_exits_3_on_a_file_that_cannot_be_read(tmp_path):
    r = run_cli(tmp_path / "missing.json", "--lang", "en")
    assert r.exit_code == 3 and "cannot read" in r.output and "No such file" in r.output
    r = run_cli(tmp_path, "--lang", "ru")
    assert r.exit_code == 3 and "не удаётся прочитать" in r.output


def test_verify_dice_reads_standard_input():
    r = CliRunner().invoke(main, ["verify-dice", "-", "--lang", "en"], input=json.dumps(_record()))
    assert r.exit_code == 0 and "Rolls checked: 40 of 40" in r.output


# ----- docs/fairness.md -------------------------------------------------------------------------------------
def test_the_worked_example_of_the_page_is_what_the_code_rolls():
    text = DOC.read_text(encoding="utf-8")
    assert f"server seed: `{EX_KEY.hex()}`" in text
    assert f"commitment (published at creation): `{commitment(EX_KEY)}`" in text
    assert f"seed0 (White): `{EX_SEEDS[0]}`" in text and f"seed1 (Black): `{EX_SEEDS[1]}`" in text
    rows = re.findall(r"^\| (\d) \| `([^`]+)` \| `([0-9a-f]{16})` \| ([^|]+) \| ([0-9-]+) \|", text, re.M)
    assert len(rows) == 5
    for n, (num, message, first8, read, dice) in enumerate(rows):
        assert int(num) == n and message == f"{EX_SEEDS[0]}:{EX_SEEDS[1]}:{n}"
        raw = digest(EX_KEY, EX_SEEDS, n)
        assert first8 == raw[:8].hex()
        assert [int(b) for b in re.findall(r"\d+", read)] == list(raw[: len(re.findall(r"\d+", read))])
        assert [int(x) for x in dice.split("-")] == EX_ROLLS[n] == dice_by_hand(EX_KEY, EX_SEEDS, n, len(EX_ROLLS[n]))
    # a real backgammon match with these seeds rolls exactly that: White 1, Black 6 (Black plays 6-1), ...
    m = Match("backgammon", length=3, dice=FairDice(EX_KEY, EX_SEEDS))
    g = m.new_game(start=True)
    assert (g.turn, g.dice) == (1, (6, 1))
    for _ in range(3):
        g.play(g.legal_plays()[0])
        g.roll()
    doc = json.loads(_doc_json(text))
    c = commitment(EX_KEY)
    order = [
        commit_event(c, 1767225600.0),
        seed_event(0, EX_SEEDS[0], "player", 1767225602.418, c),
        seed_event(1, EX_SEEDS[1], "player", 1767225609.057, c),
    ]
    assert public_record(m.dice_source, reveal=True, order=order) == doc
    assert [list(r) for r in m.dice_source.rolls] == EX_ROLLS
    v = verify(doc)
    assert v.ok and v.order_checked and v.server_seats == ()
    # what the page says would fail: Black's seed before the commitment, or after another commitment
    early = dict(doc, order=[order[2], order[0], order[1]])
    assert (verify(early).reason, verify(early).order_problem) == ("order", "commit_first")
    other = copy.deepcopy(doc)
    other["order"][2]["commitment"] = hashlib.sha256(b"another").hexdigest()
    assert (verify(other).reason, verify(other).order_problem, verify(other).order_seat) == ("order", "shown", 1)


def _doc_json(text: str) -> str:
    return re.search(r"```json\n(.*?)```", text, re.S).group(1)  # type: ignore[union-attr]


def test_the_pages_python_snippet_checks_records(tmp_path):
    text = DOC.read_text(encoding="utf-8")
    snippet = re.search(r"```python\n(.*?)```", text, re.S).group(1)  # type: ignore[union-attr]
    lines = [ln for ln in snippet.splitlines() if ln.strip()]
    assert len(lines) <= 10 and not any(re.match(r"(import|from) (?!hashlib|hmac|json|sys)", ln) for ln in lines)
    script = write(tmp_path, snippet, "check.py")

    def run(record) -> subprocess.CompletedProcess:
        path = write(tmp_path, record)
        return subprocess.run([sys.executable, script, path], capture_output=True, text=True, timeout=60)

    example = json.loads(_doc_json(text))
    done = run(example)
    assert (done.returncode, done.stdout) == (0, "all 5 rolls check\n")
    assert run({"fairness": _record()}).stdout == "all 40 rolls check\n"
    bad = copy.deepcopy(example)
    bad["rolls"][3] = [2, 2]
    done = run(bad)
    assert done.returncode == 1 and done.stderr == "roll 3: the record says [2, 2], the seeds give [1, 1]\n"
    bad = dict(example, server_seed=bytes(32).hex())
    assert run(bad).stderr == "the seed is not the one committed to\n"
    assert CliRunner().invoke(main, ["verify-dice", str(write(tmp_path, example))]).exit_code == 0


def test_verify_dice_reads_a_file_with_a_byte_order_mark(tmp_path):
    p = tmp_path / "record.json"
    p.write_bytes(b"\xef\xbb\xbf" + json.dumps(_record()).encode())
    assert run_cli(p, "--lang", "en").exit_code == 0
