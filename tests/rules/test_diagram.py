"""Board diagrams (``nardy.rules.diagram``, issue 47): one drawing for the three games, as SVG and PNG.

Each test reads the drawing back (the SVG as XML, the PNG with Pillow) and checks what it shows against the
position: checkers per side, stack counts, bar and borne-off checkers, the cube by owner, point labels in
the chosen numbering, pip counts, dice, the score line and the themes.
"""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET

import pytest

from nardy import InvalidOptionError, Position
from nardy.rules import numbering as N
from nardy.rules.diagram import MAX_NAME, THEMES, WIDTH, Diagram, diagram_png, diagram_svg, height

SVG = "{http://www.w3.org/2000/svg}"


def parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)
    assert root.tag == SVG + "svg"
    return root


def with_class(root: ET.Element, tag: str, cls: str) -> list[ET.Element]:
    return [e for e in root.iter(SVG + tag) if cls in (e.get("class") or "").split()]


def texts(root: ET.Element, cls: str) -> list[str]:
    return [e.text or "" for e in with_class(root, "text", cls)]


def position(game: str, mover: dict, opponent: dict) -> Position:
    m, o = [0] * 26, [0] * 26
    for p, n in mover.items():
        m[p] = n
    for p, n in opponent.items():
        o[p] = n
    return Position.from_boards(m, o, game)


@pytest.mark.parametrize("game", ["backgammon", "short", "long"])
def test_starting_position_draws_15_checkers_of_each_side(game):
    root = parse(diagram_svg(Diagram(Position.start(game))))
    assert len(with_class(root, "circle", "mover")) == 15
    assert len(with_class(root, "circle", "opponent")) == 15
    assert len(with_class(root, "circle", "checker")) == 30


def test_long_nardy_heads_are_the_movers_24_top_right_and_the_opponents_at_the_movers_12():
    root = parse(diagram_svg(Diagram(Position.start("long"))))
    mover_x = {float(c.get("cx")) for c in with_class(root, "circle", "mover")}
    opp_x = {float(c.get("cx")) for c in with_class(root, "circle", "opponent")}
    # the mover's point 24 is the top right column (x 670..720), its 12 the bottom left (70..120)
    assert mover_x == {695.0}
    assert opp_x == {95.0}
    assert texts(root, "count") == ["15", "15"]


def test_a_stack_of_7_shows_7_and_a_stack_of_5_no_count():
    pos = position("backgammon", {6: 7, 8: 5, 13: 3}, {24: 15})
    root = parse(diagram_svg(Diagram(pos)))
    assert sorted(texts(root, "count")) == ["15", "7"]
    assert len(with_class(root, "circle", "mover")) == 15


def test_bar_and_borne_off_checkers_are_drawn_with_their_counts():
    pos = position("backgammon", {0: 4, 25: 2, 6: 9}, {0: 3, 25: 1, 18: 11})
    root = parse(diagram_svg(Diagram(pos)))
    bar_x = (370 + 420) / 2
    on_bar = [c for c in with_class(root, "circle", "checker") if float(c.get("cx")) == bar_x]
    assert len(on_bar) == 3
    assert len(with_class(root, "rect", "off")) == 7
    assert sorted(texts(root, "off-count")) == ["3", "4"]


def test_long_nardy_opponent_bears_off_into_the_left_tray():
    pos = position("long", {0: 10, 3: 5}, {0: 6, 2: 9})
    root = parse(diagram_svg(Diagram(pos, cube=0)))
    xs = sorted({float(r.get("x")) for r in with_class(root, "rect", "off")})
    assert xs == [15.0, 735.0]  # the opponent's in the left tray (x 10), the mover's in the right (x 730)


def cube_y(svg: str) -> float | None:
    rects = with_class(parse(svg), "rect", "cube")
    return float(rects[0].get("y")) if rects else None


def test_cube_owner_moves_the_cube_and_cube_0_draws_none():
    pos = Position.start("backgammon")
    centre = cube_y(diagram_svg(Diagram(pos, cube=2)))
    mover = cube_y(diagram_svg(Diagram(pos, cube=2, cube_owner=0)))
    opponent = cube_y(diagram_svg(Diagram(pos, cube=2, cube_owner=1)))
    assert opponent is not None and centre is not None and mover is not None
    assert opponent < centre < mover  # the mover at the bottom
    assert cube_y(diagram_svg(Diagram(pos, cube=0))) is None


def test_centred_cube_of_1_shows_64_and_an_owned_cube_its_value():
    root = parse(diagram_svg(Diagram(Position.start("backgammon"))))
    assert texts(root, "cube") == ["64"]
    root = parse(diagram_svg(Diagram(Position.start("backgammon"), cube=8, cube_owner=1)))
    assert texts(root, "cube") == ["8"]


def point_labels(svg: str) -> list[str]:
    """Labels in drawing order: the mover's points 1..24."""
    return texts(parse(svg), "label")


def test_labels_follow_the_numbering():
    bg = Position.start("backgammon")
    assert point_labels(diagram_svg(Diagram(bg))) == [str(p) for p in range(1, 25)]
    trad = point_labels(diagram_svg(Diagram(bg, numbering="traditional")))
    assert trad[:12] == [str(p) for p in range(1, 13)]
    assert trad[12:] == [f"0{p}" for p in range(12, 0, -1)]  # the mover's 13 is Black's 012
    long = Position.start("long")
    assert point_labels(diagram_svg(Diagram(long, numbering="absolute"))) == [str(p) for p in range(1, 25)]
    black = point_labels(diagram_svg(Diagram(long, numbering="absolute", side=N.BLACK)))
    assert black[23] == "12" and black[0] == "13"  # Black's head (own 24) is absolute 12
    assert black == N.labels("absolute", N.BLACK)


def test_a_numbering_the_game_lacks_is_refused():
    with pytest.raises(InvalidOptionError, match="absolute"):
        diagram_svg(Diagram(Position.start("backgammon"), numbering="absolute"))
    with pytest.raises(InvalidOptionError, match="traditional"):
        diagram_svg(Diagram(Position.start("long"), numbering="traditional"))


@pytest.mark.parametrize(
    "game,mover,opponent",
    [
        ("backgammon", {6: 5, 8: 3, 13: 5, 24: 2}, {6: 5, 8: 3, 13: 5, 24: 2}),
        ("backgammon", {0: 5, 1: 3, 25: 2, 20: 5}, {3: 4, 10: 11}),
        ("short", {24: 15}, {24: 10, 0: 5}),
        ("long", {24: 14, 18: 1}, {2: 12, 0: 3}),
    ],
)
def test_pip_counts_printed_equal_the_positions(game, mover, opponent):
    pos = position(game, mover, opponent)
    root = parse(diagram_svg(Diagram(pos)))
    mine, theirs = pos.pip_count()
    assert texts(root, "mover") == ["", f"pips {mine}"]
    assert texts(root, "opponent") == ["", f"pips {theirs}"]


def test_dice_are_drawn_with_their_pips():
    root = parse(diagram_svg(Diagram(Position.start("backgammon"), dice=(6, 4))))
    assert len(with_class(root, "rect", "die")) == 2
    assert len(with_class(root, "circle", "die-pip")) == 10
    root = parse(diagram_svg(Diagram(Position.start("backgammon"))))
    assert with_class(root, "rect", "die") == []


def test_score_length_crawford_names_and_caption_are_drawn():
    d = Diagram(
        Position.start("backgammon"),
        cube=0,
        score=(4, 6),
        length=7,
        crawford=True,
        names=("Alice", "Борис <b>"),
        title="Game 3, move 12",
    )
    svg = diagram_svg(d)
    root = parse(svg)
    assert texts(root, "score") == ["4-6, match to 7, Crawford"]
    assert texts(root, "name") == ["Борис <b>", "Alice"]  # escaped, read back as text
    assert texts(root, "title") == ["Game 3, move 12"]
    assert int(root.get("height")) == height(d) == 570 + 60 + 30
    assert with_class(root, "polygon", "to-move")  # the side to move is marked
    money = parse(diagram_svg(Diagram(Position.start("backgammon"))))
    assert texts(money, "score") == [] and texts(money, "title") == []


def test_every_theme_draws_and_print_fills_no_board_area():
    pos = Position.start("short")
    svgs = {t: diagram_svg(Diagram(pos, dice=(3, 1)), theme=t) for t in THEMES}
    assert len(set(svgs.values())) == 3
    for svg in svgs.values():
        assert len(with_class(parse(svg), "circle", "checker")) == 30
    root = parse(svgs["print"])
    for cls in ("frame", "field", "bar", "tray"):
        assert {r.get("fill") for r in with_class(root, "rect", cls)} == {"none"}
    assert {c.get("fill") for c in with_class(root, "circle", "mover")} == {"#ffffff"}
    with pytest.raises(InvalidOptionError, match="theme"):
        diagram_svg(Diagram(pos), theme="neon")


@pytest.mark.parametrize(
    "change,word",
    [
        ({"cube": 3}, "cube"),
        ({"cube_owner": 2}, "owner"),
        ({"dice": (7, 1)}, "dice"),
        ({"score": (-1, 0)}, "score"),
        ({"length": 1000}, "length"),
        ({"names": ("x" * (MAX_NAME + 1), "")}, "names"),
        ({"side": 2}, "side"),
        ({"title": "a\x07b"}, "title"),
        ({"names": ("a\nb", "")}, "names"),
        ({"title": "\ud800"}, "title"),
    ],
)
def test_fields_out_of_range_are_refused(change, word):
    with pytest.raises(ValueError, match=word):
        diagram_svg(Diagram(Position.start("backgammon"), **change))


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("scale", [1.0, 0.5, 2.0])
def test_png_decodes_with_the_size_of_the_scale(theme, scale):
    from PIL import Image

    d = Diagram(Position.start("long"), dice=(5, 2), cube=0, names=("Ая", "Bo"), title="Long")
    data = diagram_png(d, theme=theme, scale=scale)
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    img = Image.open(io.BytesIO(data))
    assert img.format == "PNG"
    assert img.size == (round(WIDTH * scale), round(height(d) * scale))


def test_png_paints_the_themes_background_and_checkers():
    from PIL import Image

    d = Diagram(Position.start("backgammon"))
    light = Image.open(io.BytesIO(diagram_png(d))).convert("RGB")
    assert light.getpixel((2, 2)) == (0xF4, 0xEF, 0xE6)  # the light theme's background
    # the centre of the mover's checker at the base of its 6-point (x 445, y board top 30 + 535 - 24)
    assert light.getpixel((445, 30 + 535 - 24)) == (0xF7, 0xF3, 0xEA)
    printed = Image.open(io.BytesIO(diagram_png(d, theme="print"))).convert("RGB")
    assert printed.getpixel((2, 2)) == (255, 255, 255)
    assert printed.getpixel((395, 300)) == (255, 255, 255)  # the bar: not filled


def test_png_scale_out_of_range_is_refused():
    with pytest.raises(InvalidOptionError, match="scale"):
        diagram_png(Diagram(Position.start("backgammon")), scale=10)


def test_xgid_fields_are_from_the_view_of_the_side_on_turn():
    from nardy.rules.diagram import xgid_fields
    from nardy.rules.ids import parse_xgid

    # the top player on turn (-1) to play 5-2; cube 2 owned by the bottom player (1); bottom 3, top 1, of 7
    text = "XGID=-b----E-C---eE---c-e----B-:1:1:-1:52:3:1:0:7:10"
    pos = Position.from_xgid(text)
    assert xgid_fields(parse_xgid(text), pos) == {
        "dice": (5, 2),
        "cube": 2,
        "cube_owner": 1,
        "score": (1, 3),
        "length": 7,
        "crawford": False,
    }
    # the Crawford game: no cube; money play at 0-0: no score
    crawford = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:6:4:1:7:10"
    assert xgid_fields(parse_xgid(crawford), pos)["cube"] == 0
    assert xgid_fields(parse_xgid(crawford), pos)["crawford"] is True
    money = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"
    assert xgid_fields(parse_xgid(money), pos)["score"] is None
    # short nardy has no cube
    short = Position.from_xgid(money, "short")
    assert xgid_fields(parse_xgid(money), short)["cube"] == 0


def test_owner_score_and_names_are_read_as_written():
    from nardy.rules.diagram import read_names, read_owner, read_score

    assert [read_owner(w) for w in ("centre", "mover", "Opponent")] == [None, 0, 1]
    assert read_score("2-11") == (2, 11) and read_score(" 0-0 ") == (0, 0)
    assert read_names("Ann, Борис") == ("Ann", "Борис") and read_names("Ann") == ("Ann", "")
    for bad, fn in (("left", read_owner), ("1-2-3", read_score), ("1000-0", read_score), ("-1-2", read_score)):
        with pytest.raises(InvalidOptionError):
            fn(bad)
    with pytest.raises(InvalidOptionError, match="control"):
        read_names("a\tb,c")


def test_the_rules_library_imports_the_renderer_without_pillow():
    import subprocess
    import sys

    code = "import sys, nardy, nardy.rules.diagram; from nardy import Position; print('PIL' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_the_words_drawn_are_the_front_ends_language_and_refused_when_unprintable():
    from nardy.texts.catalogue import diagram_words

    d = Diagram(Position.start("backgammon"), score=(4, 6), length=7, crawford=True, words=diagram_words("ru"))
    root = parse(diagram_svg(d))
    assert texts(root, "score") == ["4-6, матч до 7, Кроуфорд"]
    assert texts(root, "pips") == ["пипсы 167", "пипсы 167"]
    assert texts(parse(diagram_svg(Diagram(Position.start("long")))), "pips") == ["pips 360", "pips 360"]
    with pytest.raises(InvalidOptionError, match="words"):
        diagram_svg(Diagram(Position.start("long"), words=("pips\x07{n}", "to {n}", "C")))
