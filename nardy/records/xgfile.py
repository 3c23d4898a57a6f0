"""eXtreme Gammon's binary files (``.xg`` matches, ``.xgp`` positions): the container and its records.

The layout (eXtreme Gammon's own description, extremegammon.com/xgformat.aspx; all numbers little-endian,
Delphi records with fields on their natural boundary):

* a ``TRichGameHeader`` of 8232 bytes: the magic ``RGMH``, the header's version and size, the offset and
  size of a JPEG thumbnail, a GUID and four 1024-character UTF-16 strings; the thumbnail follows it;
* then a zlib archive, read from its end: a 36-byte trailer (CRC-32 of the blobs and the registry, the
  number of files, a version, the registry's size, the blobs' size, whether the registry is compressed),
  before it the registry (one 532-byte entry per file: name and path as Pascal strings, sizes, the
  file's offset among the blobs, its CRC, whether it is stored or compressed) and before that the blobs;
* the archive's ``temp.xg`` is the match: 2560-byte ``TSaveRec`` records, each with its type at byte 8:
  0 match header, 1 game header, 2 cube decision, 3 checker play, 4 game footer, 5 match footer
  (``temp.xgi`` repeats the first and last; ``temp.xgr`` holds rollouts; ``temp.xgc`` comments).

:func:`read_archive` returns the archive's files, :func:`read_records` the decoded records of ``temp.xg``
(:class:`XGRecord`, one per record, its fields in a dict). Whatever the bytes, both raise no exception
but :class:`~nardy.rules.errors.RecordError`, naming what is wrong (``not an XG file: magic ...``,
``truncated at record 12``, ``archive CRC ...``): every size and offset is checked before it is used and
decompression is bounded (``MAX_XG`` bytes in, ``MAX_TEMP_XG`` out).
"""

from __future__ import annotations

import math
import struct
import zlib
from dataclasses import dataclass, field

from ..rules.errors import RecordError

__all__ = [
    "MAX_XG",
    "MAX_TEMP_XG",
    "RECORD_SIZE",
    "XGRecord",
    "looks_like_xg",
    "read_archive",
    "read_records",
    "play_codes",
]

#: Bytes of an .xg file read at most (a 25-point match with its analysis and thumbnail is ~1 MB).
MAX_XG = 16 * 1024 * 1024
#: Bytes ``temp.xg`` may inflate to (6,000 records: far more than a long match holds).
MAX_TEMP_XG = 6000 * 2560
#: Bytes of one ``TSaveRec`` record.
RECORD_SIZE = 2560
HEADER_SIZE = 8232
TRAILER_SIZE = 36
ENTRY_SIZE = 532
MAX_FILES = 64
MAGIC = b"RGMH"
#: ``DMLI``: the match header's own magic (its field ``Magic``).
HEADER_MAGIC = 0x494C4D44

TYPES = {0: "match", 1: "game", 2: "cube", 3: "move", 4: "game_end", 5: "match_end"}
#: XG's variations (the match header's ``Variation``); only backgammon is read.
VARIATIONS = {0: "backgammon", 1: "nackgammon", 2: "hypergammon", 3: "longgammon"}


@dataclass
class XGRecord:
    """One ``TSaveRec`` of ``temp.xg``: ``index`` (0-based), ``kind`` (a value of :data:`TYPES`) and its
    decoded ``fields`` (names as in the module of each kind's reader below)."""

    index: int
    kind: str
    fields: dict = field(default_factory=dict)


def looks_like_xg(data) -> bool:
    """Whether ``data`` (bytes) starts with XG's magic ``RGMH``."""
    return isinstance(data, (bytes, bytearray, memoryview)) and bytes(data[:4]) == MAGIC


def _inflate(blob: bytes, limit: int, what: str) -> bytes:
    d = zlib.decompressobj()
    try:
        out = d.decompress(blob, limit + 1)
    except zlib.error as e:
        raise RecordError(f"not a valid XG file: {what} does not inflate ({e})", reason="bad zlib") from None
    if len(out) > limit:
        raise RecordError(f"not a valid XG file: {what} inflates to more than {limit} bytes", reason="too large")
    if not d.eof:
        raise RecordError(f"not a valid XG file: {what} is cut short", reason="truncated")
    return out


def read_archive(data, wanted=("temp.xg",)) -> dict[str, bytes]:
    """The files of an XG container (``.xg``/``.xgp`` bytes) named in ``wanted`` (lower case; ``None``: all):
    name (lower case) -> content (inflated, each at most ``MAX_TEMP_XG`` bytes). Only the files asked for
    are inflated, so that a file cannot make the reader inflate much more than one match.

    Raises:
        RecordError: not bytes, too large, no ``RGMH`` magic, a header or archive cut short or inconsistent
            (sizes, offsets, CRC), a file that does not inflate.
    """
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise RecordError(f"an XG file is read from bytes, got {type(data).__name__}", reason="not bytes")
    raw = bytes(data)
    if len(raw) > MAX_XG:
        raise RecordError(f"XG file of {len(raw)} bytes: more than {MAX_XG}", reason="too large")
    if raw[:4] != MAGIC:
        raise RecordError(f"not an XG file: magic {raw[:4]!r}, expected b'RGMH'", reason="bad magic")
    if len(raw) < HEADER_SIZE + TRAILER_SIZE:
        raise RecordError(f"not a valid XG file: {len(raw)} bytes, truncated in its header", reason="truncated")
    _version, hsize, _thumb_off, thumb_size = struct.unpack_from("<iiqi", raw, 4)
    if hsize != HEADER_SIZE:
        raise RecordError(f"not a valid XG file: header size {hsize}, expected {HEADER_SIZE}", reason="bad header")
    crc, count, _aver, reg_size, data_size, reg_packed = struct.unpack_from("<iiiiiB", raw, len(raw) - TRAILER_SIZE)
    end = len(raw) - TRAILER_SIZE
    start = end - reg_size - data_size
    if not 0 < count <= MAX_FILES or reg_size <= 0 or data_size < 0 or start < HEADER_SIZE + max(thumb_size, 0):
        raise RecordError(
            f"not a valid XG file: archive of {count} file(s), registry {reg_size} and data {data_size} bytes "
            f"do not fit in {len(raw)} bytes (truncated?)",
            reason="bad archive",
        )
    if zlib.crc32(raw[start:end]) != crc & 0xFFFFFFFF:
        raise RecordError("not a valid XG file: the archive's CRC does not match (damaged or truncated)", reason="crc")
    registry = raw[end - reg_size : end]
    if reg_packed:
        registry = _inflate(registry, MAX_FILES * ENTRY_SIZE, "the archive's registry")
    if len(registry) < count * ENTRY_SIZE:
        raise RecordError(f"not a valid XG file: the registry holds fewer than {count} entries", reason="bad archive")
    files: dict[str, bytes] = {}
    for i in range(count):
        e = registry[i * ENTRY_SIZE : (i + 1) * ENTRY_SIZE]
        name = e[1 : 1 + min(e[0], 255)].decode("latin-1")
        osize, csize, off, _fcrc = struct.unpack_from("<iiii", e, 512)
        if csize < 0 or off < 0 or off + csize > data_size or osize < 0:
            raise RecordError(f"not a valid XG file: {name!r:.40} lies outside the archive", reason="bad archive")
        if wanted is not None and name.lower() not in wanted:
            continue
        blob = raw[start + off : start + off + csize]
        if name.lower() == "temp.xg" and osize > MAX_TEMP_XG:
            raise RecordError(f"XG match of {osize} bytes: more than {MAX_TEMP_XG}", reason="too large")
        files[name.lower()] = _inflate(blob, MAX_TEMP_XG, repr(name)[:42]) if e[528] == 0 else blob
    return files


def _i(rec: bytes, off: int) -> int:
    return struct.unpack_from("<i", rec, off)[0]


def _d(rec: bytes, off: int) -> float | None:
    """A Double field; ``None`` when not finite or XG's -1000 mark of no analysis."""
    v = struct.unpack_from("<d", rec, off)[0]
    return None if not math.isfinite(v) or v <= -999 else v


def _f(rec: bytes, off: int, n: int) -> list[float]:
    return [v if math.isfinite(v) else 0.0 for v in struct.unpack_from(f"<{n}f", rec, off)]


def _board(rec: bytes, off: int) -> list[int]:
    return list(struct.unpack_from("<26b", rec, off))


def _wide(rec: bytes, off: int, chars: int) -> str:
    b = rec[off : off + 2 * chars]
    s = b.decode("utf-16-le", errors="replace")
    return s.split("\x00", 1)[0]


def _short(rec: bytes, off: int, size: int) -> str:
    n = min(rec[off], size)
    return rec[off + 1 : off + 1 + n].decode("cp1252", errors="replace")


def play_codes(codes) -> list[tuple[int, int]]:
    """XG's play (from, to pairs in the mover's numbering, 0-based: 0..23 points 1..24, 24 the bar, -1
    off, or below it when a die bears off from lower; ``-1`` as a from ends the list; a step may use both
    dice of one checker, ``24/15``) -> steps ``(from, to)`` numbered 1..24, 25 the bar, 0 off.

    Raises:
        RecordError: a code out of range.
    """
    steps = []
    for k in range(0, len(codes) - 1, 2):
        a, b = codes[k], codes[k + 1]
        if a == -1:
            break
        if not (0 <= a <= 24 and -24 <= b < a):
            raise RecordError(f"bad play in the XG file: step {a}->{b}", reason="bad play")
        steps.append((a + 1, max(b, -1) + 1))
    return steps


def _match(rec: bytes) -> dict:
    version = _i(rec, 552)
    if _i(rec, 556) != HEADER_MAGIC:
        raise RecordError("not a valid XG file: the match header lacks its magic 'DMLI'", reason="bad header")
    names = (_wide(rec, 880, 129), _wide(rec, 1138, 129)) if version >= 24 else ("", "")
    if not all(names):
        names = (_short(rec, 9, 40), _short(rec, 50, 40))
    event = _wide(rec, 622, 129) if version >= 24 else ""
    return {
        "players": names,
        "length": _i(rec, 92),
        "variation": _i(rec, 96),
        "crawford": bool(rec[100]),
        "jacoby": bool(rec[101]),
        "beaver": bool(rec[102]),
        "auto_double": bool(rec[103]),
        "date": struct.unpack_from("<d", rec, 128)[0],
        "event": event or _short(rec, 136, 128),
        "cube_limit": _i(rec, 612),
        "version": version,
    }


def _game(rec: bytes) -> dict:
    return {"score": (_i(rec, 12), _i(rec, 16)), "crawford": bool(rec[20]), "number": _i(rec, 48)}


def _cube(rec: bytes) -> dict:
    da = 64
    return {
        "actif": _i(rec, 12),
        "double": _i(rec, 16),
        "take": _i(rec, 20),
        "beaver": _i(rec, 24),
        "raccoon": _i(rec, 28),
        "cube_b": _i(rec, 32),
        "position": _board(rec, 36),
        "level": _i(rec, da + 28),
        "flag_double": struct.unpack_from("<h", rec, da + 56)[0],
        "equities": _f(rec, da + 88, 3),  # no double, double/take, double/pass: the doubler's view
        "err_cube": _d(rec, 200),
        "dice_rolled": _short(rec, 208, 2),
        "err_take": _d(rec, 216),
        "err_beaver": _d(rec, 240),
        "analysed": _i(rec, 232),
    }


def _move(rec: bytes) -> dict:
    dm = 124
    n = max(0, min(_i(rec, dm + 64), 32))
    cands = []
    for k in range(n):
        codes = struct.unpack_from("<8b", rec, dm + 900 + 8 * k)
        ev = _f(rec, dm + 1284 + 28 * k, 7)
        cands.append((list(codes), ev[6]))
    return {
        "position": _board(rec, 9),
        "actif": _i(rec, 64),
        "moves": list(struct.unpack_from("<8i", rec, 68)),
        "dice": tuple(struct.unpack_from("<2i", rec, 100)),
        "cube_a": _i(rec, 108),
        "candidates": cands,
        "err_move": _d(rec, 2312),
        "err_luck": _d(rec, 2320),
        "analysed": _i(rec, 2472),
    }


def _game_end(rec: bytes) -> dict:
    return {
        "score": (_i(rec, 12), _i(rec, 16)),
        "crawford": bool(rec[20]),
        "winner": _i(rec, 24),
        "points": _i(rec, 28),
        "termination": _i(rec, 32),
    }


def _match_end(rec: bytes) -> dict:
    return {"score": (_i(rec, 12), _i(rec, 16)), "winner": _i(rec, 20)}


_READERS = {
    "match": _match,
    "game": _game,
    "cube": _cube,
    "move": _move,
    "game_end": _game_end,
    "match_end": _match_end,
}


def read_records(data) -> list[XGRecord]:
    """The records of an XG file's ``temp.xg`` (``data``: the file's bytes), decoded.

    Raises:
        RecordError: as :func:`read_archive`; no ``temp.xg``; a length that is not whole records
            (``truncated at record N``); a record of unknown type; a first record that is not the match header.
    """
    files = read_archive(data)
    body = files.get("temp.xg")
    if body is None:
        raise RecordError("not a valid XG file: its archive has no temp.xg", reason="no temp.xg")
    if len(body) % RECORD_SIZE:
        raise RecordError(
            f"XG file truncated at record {len(body) // RECORD_SIZE + 1}: {len(body) % RECORD_SIZE} of its "
            f"{RECORD_SIZE} bytes",
            reason="truncated",
        )
    out = []
    for i in range(len(body) // RECORD_SIZE):
        rec = body[i * RECORD_SIZE : (i + 1) * RECORD_SIZE]
        kind = TYPES.get(rec[8])
        if kind is None:
            raise RecordError(f"bad XG file: record {i + 1} has the unknown type {rec[8]}", reason="bad record type")
        if i == 0 and kind != "match":
            raise RecordError(f"bad XG file: it starts with a {kind} record, not the match header", reason="no header")
        out.append(XGRecord(i, kind, _READERS[kind](rec)))
    if not out:
        raise RecordError("bad XG file: temp.xg holds no record", reason="empty")
    return out
