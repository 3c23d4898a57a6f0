""".mat reading is safe on any input: text is never taken for a file name, every number a record
states is bounded, every line is read in linear time, and any text gives a RecordError (a
NardyError) that quotes only a short piece of the input, never another exception.

The mutation tests start from real records in ../shared/data (GNU Backgammon's self-play matches and
match records of people) and nardy's own short and long nardy records; without ../shared (a clone on
its own) they start from nardy's records only, and the tests that read a real record skip."""

import random
import re
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nardy.flow.match import Match
from nardy.records import parse_mat, read_mat, replay, write_mat
from nardy.records.mat import MAX_CUBE, MAX_LINE, MatchRecord
from nardy.rules.dice import DiceSource
from nardy.rules.errors import NardyError, RecordError
from tests.helpers import SHARED, shared_path

#: ../shared/data's folders, read at collection (nothing there without ../shared).
GNUBG = SHARED / "data" / "gnubg-matches"
REAL = SHARED / "data" / "real-mat"
HEADER = " 1 point match\n\n Game 1\n a : 0    b : 0\n"


def _self_play_record(game: str, seed: int) -> str:
    """A one-game record of random legal play (for short and long nardy, which shared/data lacks)."""
    rng = random.Random(seed)
    m = Match(game, length=3, dice=DiceSource(seed), players=("Anna", "Boris"))
    g = m.new_game(start=True)
    while not g.is_over:
        if g.phase == "roll":
            g.roll()
        else:
            g.play(rng.choice(g.legal_plays()))
    return write_mat(m)


def _bases() -> list[str]:
    files = sorted(GNUBG.glob("*.mat")) + [
        REAL / "gnubg-scripts" / "test-match01.txt",
        REAL / "gnubgparser-gnubg-made" / "gnubg_roll_then_resign_1p.mat",
        REAL / "td-gammon-botmatches" / "001-gnubg-BGBlitz 3-pt 2 (BGBlitz).mat",
        REAL / "gbf" / "test.mat",  # starts with a byte-order mark, has '???' cells
    ]
    texts = [f.read_text(encoding="utf-8", errors="replace") for f in files if f.is_file()]
    return texts + [_self_play_record("short", 3), _self_play_record("long", 4)]


BASES = _bases()


def test_the_real_records_are_there():
    data = shared_path("data")  # skips without ../shared
    assert len(BASES) >= 16, f"real records missing under {data}"


# ----- checking one text -------------------------------------------------------------------------
def _assert_clean_error(e: BaseException, text: str):
    """A RecordError whose message and reason are plain text echoing at most 80 characters of input."""
    assert type(e) is RecordError and isinstance(e, NardyError) and isinstance(e, ValueError)
    for msg in (str(e), e.reason or ""):
        assert not re.search(r"\b\w*(Error|Exception)\(|Traceback|<[\w.]+ object at", msg), msg
        echoed = [msg[i : i + 81] for i in range(len(msg) - 80) if msg[i : i + 81] in text]
        assert not echoed, f"the message echoes {len(echoed[0])}+ characters of input: {msg[:300]!r}"


def _assert_only_record_errors(text: str):
    """parse_mat and replay of ``text`` succeed or raise a clean RecordError (anything else fails)."""
    for f in (parse_mat, replay):
        try:
            f(text)
        except RecordError as e:
            _assert_clean_error(e, text)


# ----- each crash found, as a regression test ----------------------------------------------------
def test_huge_score_is_a_record_error_not_an_overflow():
    # was OverflowError: cannot convert float infinity to integer
    text = " 1 point match\n\n Game 1\n a : 0    b : " + "9" * 400
    for f in (parse_mat, replay):
        with pytest.raises(RecordError, match=r"line 4: score '9{40}\.\.\.' is out of range \(0-32767\)") as ei:
            f(text)
        _assert_clean_error(ei.value, text)


def test_5000_digit_match_length_is_a_record_error_not_an_int_conversion_error():
    # was ValueError: Exceeds the limit (4300 digits) for integer string conversion
    text = " " + "9" * 5000 + " point match\n"
    for f in (parse_mat, replay):
        with pytest.raises(RecordError, match=r"line 1 is too long \(5013 characters, at most 1000\)") as ei:
            f(text)
        _assert_clean_error(ei.value, text)


def test_match_length_is_bounded_before_conversion():
    text = " " + "9" * 900 + " point match\n"  # within a line's limit: the number's own bound refuses it
    with pytest.raises(RecordError, match=r"match length '9{40}\.\.\.' is out of range \(a whole number 0-9999\)"):
        parse_mat(text)
    assert parse_mat(" 9999 point match\n").length == 9999


@pytest.mark.parametrize(
    "text,message",
    [
        # numbers that reached int()/float() unchecked (OverflowError or the int conversion limit)
        (" 1 point match\n\n Game " + "9" * 900 + "\n", r"line 3: game number '9{40}\.\.\.' is out of range"),
        (HEADER + "  " + "9" * 900 + ") 31: 8/5 6/5\n", r"line 5: move number '9{40}\.\.\.' is out of range"),
        (
            HEADER + "  1) 31: 8/5 6/5     Doubles => " + "9" * 900 + "\n",
            r"line 5: cube value '9{40}\.\.\.' is out of range",
        ),
        (
            HEADER + "  1) 31: 8/5 6/5\n      Wins " + "9" * 400 + " points\n",
            r"line 6: points '9{40}\.\.\.' is out of range",
        ),
        (
            HEADER + "  1) 31: 8/5 6/5\n      Draw " + "9" * 400 + " points each\n",
            r"line 6: points '9{40}\.\.\.' is out of range",
        ),
        (" 1 point match\n\n Game 1\n a : -1    b : 0\n", r"line 4: score '-1' is out of range \(0-32767\)"),
        (" 1 point match\n\n Game 1\n a : 0    b : 32768\n", r"line 4: score '32768' is out of range"),
        (HEADER + "  1)  Doubles => 65536\n", r"line 5: cube value '65536' is out of range \(a whole number 1-32768\)"),
        (HEADER + "  1)  Doubles => 0\n", r"line 5: cube value '0' is out of range"),
        (HEADER + "  1)  Doubles => 2.5\n", r"line 5: cannot read"),
    ],
)
def test_every_number_a_record_states_is_bounded(text, message):
    for f in (parse_mat, replay):
        with pytest.raises(RecordError, match=message) as ei:
            f(text)
        _assert_clean_error(ei.value, text)


@pytest.mark.parametrize(
    "header,message",
    [
        ('; [Scoring "' + "9" * 30 + '"]', r"bad rules header: option scoring=\(9{30},\): expected 3 integers 1-64"),
        (
            '; [Scoring "' + "9" * 900 + '"]',
            r"bad rules header: Scoring '9{40}\.\.\.' is too long \(900 characters, at most 40\)",
        ),
        ('; [Variation "' + "x" * 900 + '"]', r"unknown Variation 'x{40}\.\.\.'"),
        ('; [Variation "Chess"]', r"unknown Variation 'Chess'"),
        ('; [Cube "' + "y" * 300 + '"]', r"bad rules header: Cube 'y{40}\.\.\.' is too long"),
        (
            '; [Player 1 "' + "n" * 300 + '"]\n; [Player 2 "b"]',
            r"header 'Player 1': player name 'n{40}\.\.\.' is too long",
        ),
    ],
)
def test_rule_headers_are_bounded_and_quoted_short(header, message):
    text = header + "\n 1 point match\n"
    with pytest.raises(RecordError, match=message) as ei:
        replay(text)
    _assert_clean_error(ei.value, text)


def test_cube_limit_header_of_any_size_is_ignored_or_used_never_a_crash():
    for value in ("9" * 900, "-4", "3", "٨", "8 8", "65536"):  # none is a usable limit: no limit
        m = replay(f'; [CubeLimit "{value}"]\n' + HEADER)
        assert m.cube_limit is None
    assert replay('; [CubeLimit "8"]\n' + HEADER).cube_limit == 8


def test_overlong_player_name_is_refused_and_quoted_short():
    text = " 1 point match\n\n Game 1\n " + "n" * 200 + " : 0    b : 0\n  1) 31: 8/5 6/5\n"
    message = r"line 4: player name 'n{40}\.\.\.' is too long \(200 characters, at most 64\)"
    with pytest.raises(RecordError, match=message) as ei:
        replay(text)
    _assert_clean_error(ei.value, text)


def test_long_player_names_are_cut_in_messages():
    name = "N" * 64  # the longest name allowed
    text = f" 1 point match\n\n Game 1\n {name} : 0    b : 0\n  1) 31: 8/4 6/5\n"
    with pytest.raises(RecordError, match=r"game 1, move 1, N{30}\.\.\.: illegal play '8/4 6/5'") as ei:
        replay(text)
    assert ei.value.player == name
    _assert_clean_error(ei.value, text)


def test_long_play_and_junk_are_quoted_short():
    for cell, message in (
        (" 31: " + "8/5 " * 30, r"play '8/5 8/5 8/5 8/5 8/5 8/5 8/5 8/5 8/5 8/5 \.\.\.' is too long"),
        (" 31: 8/5 6/5 " + "?" * 300, r"cannot read play '8/5 6/5 \?{32}\.\.\.'"),
        (" " + "~" * 300, r"cannot read '~{40}\.\.\.'"),
    ):
        text = HEADER + "  1)" + cell + "\n"
        with pytest.raises(RecordError, match=message) as ei:
            replay(text)
        _assert_clean_error(ei.value, text)


def test_overlong_line_is_refused():
    text = HEADER + "  1) 31: 8/5 6/5" + " " * MAX_LINE + "x\n"
    with pytest.raises(RecordError, match=rf"line 5 is too long \({MAX_LINE + 17} characters, at most {MAX_LINE}\)"):
        parse_mat(text)


@pytest.mark.parametrize(
    "line",
    [
        " " * 990 + "x",  # the old score-line pattern took minutes on this (cubic backtracking)
        "a : 1 b" * 140,  # ... and seconds on this (quadratic)
        ":" * 999,
        ": 1" * 333,
        "; [" + " " * 990 + "x",
        "; [k " + '"' * 990 + "x]",
        "Draw" + " " * 990 + "x",
        "Doubles" + " " * 990 + "x",
        "31: " * 249,
        "a" + " " * 990 + ": 1",  # a score line with no second name (cubic with a first try)
        ": 1  " * 199,
        "Losses" + " " * 990 + "x",
        "  1) 31: 8/5 6/5 " + " 2)" * 320,  # move numbers run on inside a line
        "31: Cannot" + " " * 980 + "x",
    ],
)
def test_every_line_is_read_in_linear_time(line):
    def read(lines: int) -> float:
        text = " 1 point match\n\n Game 1\n" + (line + "\n") * lines
        start = time.thread_time()
        try:
            replay(text)
        except RecordError as e:
            _assert_clean_error(e, text)
        return time.thread_time() - start

    read(1)  # the first replay in a process compiles and loads what it needs (about a second on a slow machine)
    # this thread's CPU time, so other threads and processes do not count; a pattern that backtracks takes minutes
    assert read(50) < 1.0


def test_cube_never_passes_32768():
    """A money game doubled 16 times (cube 65536) replays up to its 15th double (cube 32768)."""
    m = Match("backgammon", length=0, dice=DiceSource(7), players=("Anna", "Boris"))
    g = m.new_game(start=True)
    doubles = 0
    while doubles < 16:
        if g.phase == "roll" and g.may_double:
            g.double()
            g.take()
            doubles += 1
        elif g.phase == "roll":
            g.roll()
        else:
            g.play(g.legal_plays()[0])
    assert g.cube_value == 65536 and not g.is_over
    text = write_mat(m)
    with pytest.raises(RecordError, match=r"cube value '65536' is out of range \(a whole number 1-32768\)"):
        parse_mat(text)  # the value written is refused when read...
    unvalued = text.replace("Doubles => 65536", "Doubles")
    with pytest.raises(RecordError, match=r"move \d+, (Anna|Boris): a double would take the cube past 32768") as ei:
        replay(unvalued)  # ...and a double without one when replayed
    assert ei.value.partial.current.cube_value == MAX_CUBE == 32768
    # 15 doubles are fine
    cut = text[: text.rindex("Doubles => 65536")].rstrip() + "\n"
    assert replay(cut).current.cube_value == 32768


# ----- text is never a path ----------------------------------------------------------------------
@pytest.mark.skipif(not Path("/etc/passwd").is_file(), reason="no /etc/passwd")
def test_parse_mat_and_replay_never_read_etc_passwd():
    for f in (parse_mat, replay):
        with pytest.raises(RecordError) as ei:
            f("/etc/passwd")
        assert "root:" not in str(ei.value) and "root:" not in (ei.value.reason or "")
        assert str(ei.value) == "line 1: cannot read '/etc/passwd'"


def test_a_str_naming_a_record_file_is_parsed_as_text_not_opened(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("m.mat").write_text(shared_path("data", "gnubg-matches", "gnubg-1005.mat").read_text())
    assert read_mat("m.mat").players == ("gnubg", "root")  # the file is a good record...
    for f in (parse_mat, replay):
        with pytest.raises(RecordError) as ei:  # ...but its name is not one
            f("m.mat")
        assert str(ei.value) == "line 1: cannot read 'm.mat'" and ei.value.partial.games == []


def test_read_mat_reads_a_path_given_as_path_or_str():
    path = shared_path("data", "gnubg-matches", "gnubg-1005.mat")
    text = path.read_text()
    by_path, by_str = read_mat(path), read_mat(str(path))
    assert by_path.to_dict() == by_str.to_dict() == parse_mat(text).to_dict()
    assert by_path.length == 9 and by_path.players == ("gnubg", "root") and len(by_path.games) == 7
    m = replay(path)  # an os.PathLike is a file
    assert m.score == replay(text).score == replay(by_path).score == (11, 4) and m.is_over


def test_read_mat_refuses_what_it_cannot_read(tmp_path):
    missing = tmp_path / "missing.mat"
    with pytest.raises(RecordError, match=re.escape(f"cannot read {missing}: No such file or directory")) as ei:
        read_mat(missing)
    assert ei.value.reason == "No such file or directory"
    with pytest.raises(RecordError, match="Is a directory"):
        read_mat(tmp_path)
    with pytest.raises(RecordError, match="not a valid file name"):
        read_mat("m\x00.mat")
    for bad in (b"/etc/passwd", 42, None, ["a.mat"]):
        with pytest.raises(RecordError, match="read_mat expects a path"):
            read_mat(bad)


def test_parse_mat_and_replay_accept_only_text_records_or_paths():
    for bad in (b" 1 point match\n", 42, None, Path("x.mat")):
        with pytest.raises(RecordError, match="parse_mat expects the text of a record"):
            parse_mat(bad)
    for bad in (b" 1 point match\n", 42, None):
        with pytest.raises(RecordError, match="replay expects a MatchRecord"):
            replay(bad)
    assert replay(MatchRecord(length=3)).length == 3


def test_byte_order_mark_is_ignored(tmp_path):
    text = shared_path("data", "gnubg-matches", "gnubg-1003.mat").read_text()
    assert parse_mat("\ufeff" + text).to_dict() == parse_mat(text).to_dict()
    path = tmp_path / "bom.mat"
    path.write_bytes(b"\xef\xbb\xbf" + text.encode())
    assert replay(path).score == replay(text).score == (8, 2)


def test_real_record_with_a_byte_order_mark_replays():
    path = shared_path("data", "real-mat", "td-gammon-human", "173915-WCfinal.mat")
    if not path.is_file():
        pytest.skip(f"{path} missing")
    assert path.read_bytes().startswith(b"\xef\xbb\xbf")
    m = replay(path)
    assert m.length == 25 and len(m.games) == 17 and m.score == (6, 27)


# ----- any text: only RecordError ----------------------------------------------------------------
BIG = [
    "9" * 400,
    "9" * 5000,
    "-1",
    "0",
    "1.5",
    "0.5",
    "99999999999",
    "32768",
    "65536",
    "1" + "0" * 30,
    "٣",
    "𝟗",
    "1e9",
    "nan",
]
JUNK = BIG + [
    "\x00",
    "\u202e",
    "é",
    "\ufeff",
    "\t",
    "Doubles => 99999999999",
    "Wins 1e999 points",
    "Beavers => 0",
    "Draw 5000 points each",
    "Game 0",
    "Game 2",
    " 0 point match",
    "Takes",
    "Drops",
    "Doubles",
    "Beavers",
    "Wins 1 point",
    "Draw",
    "66: 25/0 25/0 25/0 25/0",
    "31:",
    "bar/off*",
    "8/5(9)",
    "(",
    ")",
    ":",
    "1)",
    "; [",
    '; [Variation "Long Nardy"]',
    '; [Variation "Short Nardy"]',
    '; [CubeLimit "1"]',
    '; [Scoring "1/2/99"]',
    '; [Cube "Off"]',
    '; [Opening "x"]',
    '; [Jacoby "On"]',
    '; [Beavers "On"]',
    '; [Crawford "Off"]',
    '; [Last Roll "half"]',
    "a : 1.5 b : 0",
    "x : -5 y : 99999999999999999999999",
]


def _numbers(line):
    return [m.span() for m in re.finditer(r"[0-9]+", line)]


@st.composite
def mutated_records(draw):
    """A real record with one to four random mutations of its lines."""
    lines = draw(st.sampled_from(BASES)).split("\n")

    def index():
        return draw(st.integers(0, max(len(lines) - 1, 0)))

    for _ in range(draw(st.integers(1, 4))):
        if not lines:
            lines = [""]
        op = draw(
            st.sampled_from(
                [
                    "number",
                    "cut text",
                    "cut line",
                    "insert",
                    "unicode",
                    "delete",
                    "swap",
                    "duplicate",
                    "swap games",
                    "junk line",
                    "game header",
                ]
            )
        )
        i = index()
        line = lines[i]
        if op == "number" and _numbers(line):
            a, b = draw(st.sampled_from(_numbers(line)))
            lines[i] = line[:a] + draw(st.sampled_from(BIG)) + line[b:]
        elif op == "cut text":
            lines = lines[:i] + [line[: draw(st.integers(0, len(line)))]]
        elif op == "cut line":
            lines[i] = line[: draw(st.integers(0, len(line)))]
        elif op == "insert":
            p = draw(st.integers(0, len(line)))
            lines[i] = line[:p] + draw(st.sampled_from(JUNK)) + line[p:]
        elif op == "unicode":
            p = draw(st.integers(0, len(line)))
            lines[i] = line[:p] + draw(st.text(min_size=1, max_size=8)) + line[p:]
        elif op == "delete":
            del lines[i]
        elif op == "swap":
            j = index()
            lines[i], lines[j] = lines[j], lines[i]
        elif op == "duplicate":
            lines.insert(i, line)
        elif op == "swap games":
            starts = [k for k, x in enumerate(lines) if re.match(r"\s*Game\s+[0-9]+\s*$", x)]
            if len(starts) >= 2:
                a, b = sorted(draw(st.lists(st.sampled_from(starts), min_size=2, max_size=2, unique=True)))
                ends = {s: next((t for t in starts if t > s), len(lines)) for s in (a, b)}
                ga, gb = lines[a : ends[a]], lines[b : ends[b]]
                lines = lines[:a] + gb + lines[ends[a] : b] + ga + lines[ends[b] :]
        elif op == "junk line":
            lines.insert(i, draw(st.sampled_from(JUNK)))
        elif op == "game header":
            lines.insert(
                i,
                draw(
                    st.sampled_from(
                        [
                            " Game 1",
                            " 3 point match",
                            '; [Variation "Long Nardy"]',
                            '; [Variation "Short Nardy"]',
                            '; [Variation "Backgammon"]',
                        ]
                    )
                ),
            )
    return "\n".join(lines)


_num = st.one_of(st.integers(0, 40).map(str), st.sampled_from(BIG))
_name = st.sampled_from(["a", "b", "gnubg", "Anna Bell", "x:y", "", "n" * 70])
_cell = st.one_of(
    st.builds(
        lambda d1, d2, play: f"{d1}{d2}: {play}",
        st.integers(0, 9),
        st.integers(0, 9),
        st.lists(
            st.sampled_from(
                ["8/5", "6/5", "24/18", "13/11", "bar/22*", "6/off", "25/0", "8/4(2)", "13/7(99)", "24/23/22", "*", "/"]
            ),
            max_size=4,
        ).map(" ".join),
    ),
    st.builds(lambda n: f"Doubles => {n}", _num),
    st.builds(lambda n: f"Beavers => {n}", _num),
    st.sampled_from(["Doubles", "Takes", "Drops", "Beavers", "Draw", "Accepts", "Passes"]),
    st.builds(lambda n: f"Wins {n} points", _num),
    st.builds(lambda n: f"Draw {n} points each", _num),
    st.text(max_size=6),
)
_line = st.one_of(
    st.builds(
        lambda k, v: f'; [{k} "{v}"]',
        st.sampled_from(
            [
                "Variation",
                "Scoring",
                "CubeLimit",
                "Cube",
                "Opening",
                "Jacoby",
                "Beavers",
                "Crawford",
                "Player 1",
                "Player 2",
                "Last Roll",
                "Head Exception",
                "Strict Bear-off",
            ]
        ),
        st.one_of(
            st.sampled_from(
                ["Backgammon", "Short Nardy", "Long Nardy", "On", "Off", "1/2/4/8", "8", "half", "use-opening-dice"]
            ),
            _num,
            st.text(max_size=12),
        ),
    ),
    st.builds(lambda n: f" {n} point match", _num),
    st.builds(lambda n: f" Game {n}", _num),
    st.builds(lambda a, x, b, y: f" {a} : {x}      {b} : {y}", _name, _num, _name, _num),
    st.builds(lambda n, a, b: f"{n:>3}) {a:<27} {b}", _num, _cell, _cell),
    st.builds(lambda n, a: f"{n:>3}) {a}", _num, _cell),
    st.builds(lambda a: " " * 34 + a, _cell),
    st.text(max_size=20),
)


@st.composite
def random_records(draw):
    """Record-shaped text from a small grammar, most of it starting as a real record does."""
    head = draw(
        st.sampled_from(
            [
                "",
                " 3 point match\n\n Game 1\n a : 0    b : 0\n",
                '; [Variation "Long Nardy"]\n 0 point match\n\n Game 1\n a : 0    b : 0\n',
            ]
        )
    )
    return head + "\n".join(draw(st.lists(_line, max_size=12)))


QUICK = settings(
    max_examples=150,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
SLOW = settings(
    max_examples=3000,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@QUICK
@given(mutated_records())
def test_mutated_real_records_raise_only_record_errors(text):
    _assert_only_record_errors(text)


@settings(QUICK, max_examples=300)
@given(random_records())
def test_random_record_texts_raise_only_record_errors(text):
    _assert_only_record_errors(text)


@settings(QUICK, max_examples=200)
@given(st.text(max_size=200))
def test_any_text_raises_only_record_errors(text):
    _assert_only_record_errors(text)


@pytest.mark.slow
@SLOW
@given(mutated_records())
def test_mutated_real_records_raise_only_record_errors_many(text):
    _assert_only_record_errors(text)


@pytest.mark.slow
@settings(SLOW, max_examples=10000)
@given(random_records())
def test_random_record_texts_raise_only_record_errors_many(text):
    _assert_only_record_errors(text)


def test_every_real_record_gives_a_match_or_a_record_error():
    """../shared/data's records (GNU Backgammon's, and every 50th of the 2,077 real-mat records)."""
    shared_path("data")  # skips without ../shared
    files = sorted(GNUBG.glob("*.mat")) + sorted(p for p in REAL.rglob("*") if p.suffix in (".mat", ".txt"))[::50]
    assert len(files) >= 50
    ok = 0
    for path in files:
        try:
            replay(path)
            ok += 1
        except RecordError as e:
            _assert_clean_error(e, path.read_text(encoding="utf-8", errors="replace"))
    assert ok >= len(files) // 3
