"""eXtreme Gammon's .xg files read into records (nardy.records.xg): real matches from kevung/gbf
(tests/data/xg/README.md) give the same plays, cube actions, results and score as XG's own .mat export of
the same match; XG's analysis is kept; .xgp positions; any damaged or foreign bytes give a RecordError,
never another exception. ``NARDY_XG_DIR=/a/folder`` checks more .xg files (and their .mat beside them)."""

from __future__ import annotations

import os
import struct
import zlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nardy.records import parse_xg, parse_xgp, read_record
from nardy.records.files import format_of, parse_record, record_text
from nardy.records.mat import match_summary, read_mat, replay
from nardy.records.xg import XGMatchRecord, mover_board, xg_play_text
from nardy.records.xgfile import RECORD_SIZE, play_codes, read_archive
from nardy.rules.errors import RecordError
from tests.helpers import DATA

XG = DATA / "xg"
CHARLOT = XG / "charlot.xg"
HSBT = XG / "hsbt-paris-2023.xg"


def pack(files: dict[str, bytes], thumbnail: bytes = b"") -> bytes:
    """An XG container holding ``files`` (each compressed), as XG lays it out (the reader's module
    docstring): header, thumbnail, blobs, compressed registry, trailer with the CRC."""
    header = bytearray(8232)
    header[0:4] = b"RGMH"
    struct.pack_into("<iiqi", header, 4, 1, 8232, 8232 if thumbnail else 0, len(thumbnail))
    blobs, registry = bytearray(), bytearray()
    for name, content in files.items():
        blob = zlib.compress(content)
        entry = bytearray(532)
        entry[0] = len(name)
        entry[1 : 1 + len(name)] = name.encode()
        struct.pack_into("<iiii", entry, 512, len(content), len(blob), len(blobs), zlib.crc32(content) - (1 << 31))
        blobs += blob
        registry += entry
    reg = zlib.compress(bytes(registry))
    body = bytes(blobs) + reg
    crc = zlib.crc32(body)
    trailer = struct.pack("<IiiiiB", crc, len(files), 1, len(reg), len(blobs), 1).ljust(36, b"\0")
    return bytes(header) + thumbnail + body + trailer


def temp_xg(path: Path) -> bytes:
    return read_archive(path.read_bytes())["temp.xg"]


def events(match) -> list[list[tuple]]:
    """Per game: every event (kind, player, play, dice, cube value) and the result."""
    out = []
    for g in match_summary(match)["games"]:
        evs = [(e["type"], e.get("player"), e.get("play"), e.get("dice"), e.get("value")) for e in g["events"]]
        out.append((g["score"], evs, g["result"]))
    return out


# ----- real matches ---------------------------------------------------------------------------------------
def test_xg_match_header_gives_players_length_and_settings():
    rec = parse_xg(CHARLOT.read_bytes())
    assert isinstance(rec, XGMatchRecord)
    assert rec.players == ("charlot1", "charlot2")
    assert rec.length == 7
    assert rec.header("Crawford") == "On"
    assert rec.header("EventDate") == "2025.11.08"
    assert rec.header("CubeLimit") == "1024"
    assert [g.score for g in rec.games] == [(0, 0), (0, 2), (2, 2), (6, 2)]
    assert rec.final_score == (7, 2)
    hsbt = parse_xg(HSBT.read_bytes())
    assert hsbt.players == ("Kévin Unger", "Maxence Job")
    assert hsbt.header("Event") == "HSBT Paris 2023"
    assert len(hsbt.games) == 7


def test_xg_plays_cube_actions_and_results_of_charlot_match():
    m = replay(parse_xg(CHARLOT.read_bytes()))
    results = [(g.result.winner, g.result.points, g.result.reason) for g in m.games]
    # game 1 charlot1 resigns at cube 2; game 2 charlot2 passes a redouble to 4; game 3 a gammon at cube 2;
    # game 4 (Crawford) a backgammon resigned: 3 points
    assert results == [(1, 2, "resign"), (0, 2, "drop"), (0, 4, "bear-off"), (0, 3, "resign")]
    cube = [[(e[0], e[1], e[4]) for e in evs if e[0] in ("double", "take", "drop")] for _, evs, _ in events(m)]
    assert cube[0] == [("double", 1, 2), ("take", 0, 2)]
    assert cube[1] == [("double", 1, 2), ("take", 0, 2), ("double", 0, 4), ("drop", 1, None)]
    first = events(m)[0][1][0]
    assert first == ("play", 1, "24/23 13/9", [4, 1], None)
    assert tuple(m.score) == (9, 2)
    assert m.warnings == []


@pytest.mark.parametrize("name", ["charlot", "hsbt-paris-2023"])
def test_xg_match_is_the_same_as_its_mat_export(name):
    from_xg = replay(read_record(XG / f"{name}.xg"))
    from_mat = replay(read_mat(XG / f"{name}.mat"))
    assert from_xg.players == from_mat.players
    assert from_xg.length == from_mat.length
    assert len(from_xg.games) == len(from_mat.games)
    for i, (a, b) in enumerate(zip(events(from_xg), events(from_mat), strict=True)):
        assert a == b, f"game {i + 1} differs"
    assert tuple(from_xg.score) == tuple(from_mat.score)


def test_xg_consultation_match_is_the_same_as_its_export_in_shared():
    """Aachen 2024 (tests/data/xg/README.md): dances and unrecorded plays; its XG export is in ../shared."""
    from tests.helpers import shared_path

    m = replay(read_record(XG / "aachen-2024-ronde3.xg"))
    assert m.players == ("Kévin UNGER Nicolas HARMAND", "Johan HUYCK Michael LARSEN")
    assert [(g.result.winner, g.result.points, g.result.reason) for g in m.games] == [
        (1, 2, "resign"),
        (0, 1, "drop"),
        (1, 4, "bear-off"),
        (1, 1, "resign"),
    ]
    assert sum(1 for _, evs, _ in events(m) for e in evs if e[0] == "pass") == 16
    export = shared_path("data", "real-mat", "lazyBG", "match1.txt")
    assert events(m) == events(replay(read_mat(export)))


def test_xg_unrecorded_plays_are_rolls_before_a_resignation():
    m = replay(parse_xg(HSBT.read_bytes()))
    assert [w.code for w in m.warnings] == ["unknown_play_resign"] * 3
    assert [(g.result.winner, g.result.points, g.result.reason) for g in m.games] == [
        (0, 1, "drop"),
        (0, 2, "resign"),
        (1, 1, "drop"),
        (1, 1, "drop"),
        (1, 2, "resign"),
        (0, 2, "bear-off"),
        (0, 2, "resign"),
    ]
    assert tuple(m.score) == (7, 4)


def test_xg_analysis_is_kept_per_decision():
    rec = parse_xg(CHARLOT.read_bytes())
    assert len(rec.analysis) == 283
    first = rec.analysis[0]
    assert first["game"] == 1 and first["action"] == "play" and first["player"] == 1
    assert first["position"] == "4HPwATDgc/ABMA" and first["dice"] == [4, 1]
    assert first["xg"]["best"] == "24/23 13/9"
    assert first["xg"]["equity_loss"] == 0.0
    assert first["xg"]["equities"][:2] == [["24/23 13/9", -0.003054], ["13/9 6/5", -0.017387]]
    cube = rec.analysis[1]
    assert cube["action"] == "double" and cube["player"] == 0 and cube["dice"] is None
    assert cube["xg"] == {
        "equity_loss": 0.0,
        "best": "no double",
        "equities": [["no double", 0.002966], ["double/take", -0.349994], ["double/pass", 1.0]],
    }
    takes = [(a["game"], a["player"], a["xg"]["best"]) for a in rec.analysis if a["action"] == "take"]
    # charlot2 passed the redouble to 4 in game 2, as XG advised
    assert takes == [(1, 0, "take"), (2, 0, "take"), (2, 1, "pass"), (3, 1, "take")]


def test_xg_positions_are_turned_to_the_mover_view():
    start = [0, -2, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5, 5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 2, 0]
    assert mover_board(start, -1) == start
    board = [0] * 26
    board[24], board[1], board[0], board[25] = 2, -1, -1, 1  # first player: 2 on its 24, 1 on the bar
    seen = mover_board(board, -1)
    assert seen[1] == -2 and seen[24] == 1 and seen[25] == 1 and seen[0] == -1


def test_xg_step_codes_read_as_mat_text():
    assert xg_play_text([12, 8, 23, 22, -1, -1, -1, -1]) == "13/9 24/23"
    assert xg_play_text([24, 20, 4, -2, -1, -1, -1, -1]) == "25/21 5/0"  # the bar; off from below
    assert xg_play_text([23, 14, -1, -1, -1, -1, -1, -1]) == "24/15"  # one checker, both dice
    assert xg_play_text([-1, -1, -1, -1, -1, -1, -1, -1]) == ""  # a dance
    assert xg_play_text([0, 0, 0, 0, 0, 0, 0, 0]) == "???"  # not recorded
    with pytest.raises(RecordError, match="bad play"):
        play_codes([30, 2, -1, -1])


def test_xg_format_is_chosen_by_content_and_name(tmp_path):
    assert format_of("a.XG") == "xg"
    assert isinstance(parse_record(CHARLOT.read_bytes()), XGMatchRecord)
    renamed = tmp_path / "match.bin"
    renamed.write_bytes(CHARLOT.read_bytes())
    assert read_record(renamed).players == ("charlot1", "charlot2")
    bad = tmp_path / "bad.xg"
    bad.write_bytes(b"xxxx not xg at all")
    with pytest.raises(RecordError, match=r"not an XG file: magic b'xxxx'"):
        read_record(bad)
    with pytest.raises(RecordError, match="does not write"):
        record_text(replay(parse_xg(CHARLOT.read_bytes())), "xg")


def _money(body: bytes, jacoby: bool, beaver: bool) -> bytearray:
    b = bytearray(body)
    struct.pack_into("<i", b, 92, 99999)  # XG's match length of a money session
    b[101], b[102] = int(jacoby), int(beaver)
    return b


def test_xg_money_session_has_jacoby_and_beaver_settings():
    rec = parse_xg(pack({"temp.xg": bytes(_money(temp_xg(CHARLOT), jacoby=False, beaver=False))}))
    assert rec.length == 0
    assert (rec.header("Jacoby"), rec.header("Beavers"), rec.header("Crawford")) == ("Off", "Off", None)
    assert tuple(replay(rec).score) == (9, 2)
    on = parse_xg(pack({"temp.xg": bytes(_money(temp_xg(CHARLOT), jacoby=True, beaver=True))}))
    assert (on.header("Jacoby"), on.header("Beavers")) == ("On", "On")


def test_xg_beaver_is_read_as_a_beaver_cell():
    body = _money(temp_xg(CHARLOT), jacoby=False, beaver=True)
    struct.pack_into("<i", body, 38 * RECORD_SIZE + 20, 2)  # game 1's take (record 39) made a beaver
    rec = parse_xg(pack({"temp.xg": bytes(body)}))
    cube = [(a.kind, a.player, a.value) for a in rec.games[0].actions if a.kind in ("double", "take", "beaver")]
    assert cube == [("double", 1, 2), ("beaver", 0, 4)]
    rec.games = rec.games[:1]  # the later games' scores follow XG's cube of 2, not this one of 4
    m = replay(rec)
    assert m.games[0].cube_value == 4
    assert m.games[0].result.winner == 1


# ----- .xgp positions -------------------------------------------------------------------------------------
def test_xgp_position_with_dice_cube_score_and_names():
    body = temp_xg(CHARLOT)
    # record 40 is charlot2's 64 after charlot1 took the cube at 2 in game 1
    xgp = pack({"temp.xg": body[: 40 * RECORD_SIZE]})
    p = parse_xgp(xgp)
    assert p.names == ("charlot2", "charlot1")
    assert p.dice == (6, 4)
    assert (p.cube, p.owner) == (2, 1)  # the opponent (charlot1) owns it
    assert p.score == (0, 0) and p.length == 7 and not p.crawford
    assert str(p.position.parse_play("13/7 7/3", (6, 4))) == "13/3"
    assert p.xg is not None and p.xg["best"]
    # a cube record (before the roll): its rolled dice and the cube, centred
    first = parse_xgp(pack({"temp.xg": body[: 3 * RECORD_SIZE]}))
    assert first.position.id() == "4HPwATDgc/ABMA"
    assert first.dice == (4, 1) and (first.cube, first.owner) == (1, None)


def test_xgp_without_a_position_is_refused():
    body = temp_xg(CHARLOT)
    with pytest.raises(RecordError, match="without a position"):
        parse_xgp(pack({"temp.xg": body[: 2 * RECORD_SIZE]}))


# ----- bad input ------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "not an XG file: magic b''"),
        (b"RGMH" + bytes(100), "truncated in its header"),
        (b"PK\x03\x04" + bytes(9000), "not an XG file: magic"),
    ],
)
def test_xg_not_an_xg_file_is_named(data, message):
    with pytest.raises(RecordError, match=message.replace("(", r"\(")):
        parse_xg(data)


def test_xg_truncated_file_is_refused():
    raw = CHARLOT.read_bytes()
    for cut in (len(raw) // 2, len(raw) - 1, 8300):
        with pytest.raises(RecordError, match="not a valid XG file"):
            parse_xg(raw[:cut])


def test_xg_truncated_record_is_named():
    body = temp_xg(CHARLOT)
    with pytest.raises(RecordError, match="truncated at record 12: 100 of its 2560 bytes"):
        parse_xg(pack({"temp.xg": body[: 11 * RECORD_SIZE + 100]}))


def test_xg_damaged_archive_fails_its_crc():
    raw = bytearray(CHARLOT.read_bytes())
    raw[-200] ^= 0x40
    with pytest.raises(RecordError, match="CRC"):
        parse_xg(bytes(raw))


def test_xg_other_variation_is_refused():
    body = bytearray(temp_xg(CHARLOT))
    struct.pack_into("<i", body, 96, 1)  # Variation: nackgammon
    with pytest.raises(RecordError, match="nackgammon: only backgammon"):
        parse_xg(pack({"temp.xg": bytes(body)}))


def test_xg_inflates_only_the_match_and_at_most_max_temp_xg():
    from nardy.records.xgfile import MAX_TEMP_XG

    files = read_archive(pack({"temp.xg": b"x" * RECORD_SIZE, "temp.xgr": bytes(4 * MAX_TEMP_XG)}))
    assert set(files) == {"temp.xg"}  # the 60 MB of rollouts are never inflated
    with pytest.raises(RecordError, match=f"more than {MAX_TEMP_XG}"):
        parse_xg(pack({"temp.xg": bytes(MAX_TEMP_XG + RECORD_SIZE)}))


def test_xg_without_temp_xg_is_refused():
    with pytest.raises(RecordError, match="no temp.xg"):
        parse_xg(pack({"temp.xgi": b"x" * 10}))


def test_xg_from_text_is_refused():
    with pytest.raises(RecordError, match="read from bytes"):
        parse_xg("RGMH")


# ----- fuzzing: any bytes give a record or a RecordError ----------------------------------------------------
def _read_and_replay(data: bytes) -> None:
    try:
        rec = parse_xg(data)
    except RecordError:
        return
    try:
        replay(rec)
    except RecordError:
        pass


FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FUZZ
@given(st.binary(max_size=12000))
def test_xg_fuzz_random_bytes(data):
    _read_and_replay(data)
    _read_and_replay(b"RGMH" + data)


@FUZZ
@given(st.integers(min_value=0, max_value=96227))
def test_xg_fuzz_truncation(cut):
    _read_and_replay(CHARLOT.read_bytes()[:cut])


@FUZZ
@given(st.lists(st.tuples(st.integers(min_value=0, max_value=96226), st.integers(1, 255)), min_size=1, max_size=8))
def test_xg_fuzz_bit_flips_in_the_file(flips):
    raw = bytearray(CHARLOT.read_bytes())
    for at, mask in flips:
        raw[at] ^= mask
    _read_and_replay(bytes(raw))


_BODY = temp_xg(CHARLOT)


@FUZZ
@given(
    st.lists(
        st.tuples(st.integers(min_value=0, max_value=len(_BODY) - 1), st.integers(1, 255)), min_size=1, max_size=6
    ),
    st.integers(min_value=0, max_value=len(_BODY)),
)
def test_xg_fuzz_damaged_records_in_a_valid_archive(flips, cut):
    body = bytearray(_BODY[:cut] if cut % 3 == 0 else _BODY)
    for at, mask in flips:
        if at < len(body):
            body[at] ^= mask
    _read_and_replay(pack({"temp.xg": bytes(body)}))


@FUZZ
@given(
    st.integers(min_value=0, max_value=len(_BODY) // RECORD_SIZE - 1), st.sampled_from([12, 16, 20, 24, 64, 68, 100])
)
def test_xg_fuzz_out_of_range_fields(index, offset):
    """A record's key field (player on roll, double, take, dice, steps, winner) set to extreme values."""
    for value in (-(2**31), -3, 7, 25, 2**31 - 1):
        body = bytearray(_BODY)
        struct.pack_into("<i", body, index * RECORD_SIZE + offset, value)
        _read_and_replay(pack({"temp.xg": bytes(body)}))


# ----- more files, where a folder of them is given -----------------------------------------------------------
_MORE = Path(os.environ["NARDY_XG_DIR"]) if os.environ.get("NARDY_XG_DIR") else None


@pytest.mark.skipif(_MORE is None, reason="set NARDY_XG_DIR to a folder of .xg files to check them")
def test_xg_files_of_a_folder_read_and_agree_with_their_mat():
    assert _MORE is not None
    files = sorted(_MORE.rglob("*.xg"))
    assert files, f"no .xg files in {_MORE}"
    failures = []
    for f in files:
        try:
            m = replay(read_record(f))
        except RecordError as e:
            failures.append(f"{f.name}: {e}")
            continue
        mat = f.with_suffix(".mat")
        if mat.is_file() and events(m) != events(replay(read_mat(mat))):
            failures.append(f"{f.name}: differs from {mat.name}")
    assert not failures, "\n".join(failures)
