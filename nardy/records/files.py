"""Record files by format: ``.mat`` (Jellyfish, :mod:`nardy.records.mat`), ``.sgf`` (GNU Backgammon's
SGF, :mod:`nardy.records.sgf`) or ``.xg`` (eXtreme Gammon's binary match file, :mod:`nardy.records.xg`;
read only). Writing chooses by the file name's extension (``.sgf``: SGF; ``.mat``, ``.txt`` and any
other: ``.mat``); reading by the content itself (an XG file starts with the bytes ``RGMH``, SGF with
``(``, a ``.mat`` record never does), whatever the name."""

from __future__ import annotations

import os
from pathlib import PurePath

from ..rules.errors import RecordError
from .mat import MatchRecord, parse_mat, write_mat
from .sgf import looks_like_sgf, parse_sgf, write_sgf
from .xg import looks_like_xg, parse_xg

__all__ = ["FORMATS", "WRITABLE", "format_of", "parse_record", "read_record", "record_text"]

#: The record formats by file extension.
FORMATS = {".mat": "mat", ".txt": "mat", ".sgf": "sgf", ".xg": "xg"}
#: The formats nardy writes (``.xg`` is read only).
WRITABLE = ("mat", "sgf")


def format_of(path, default: str | None = "mat") -> str | None:
    """The format a file name asks for: ``"mat"``, ``"sgf"`` or ``"xg"`` by its extension (any case), else
    ``default``."""
    return FORMATS.get(PurePath(os.fspath(path)).suffix.lower(), default)


def parse_record(text, fmt: str | None = None, *, strict: bool = False) -> MatchRecord:
    """A record's text (``str``, or ``bytes`` for SGF and XG) parsed as ``fmt`` (``"mat"``/``"sgf"``/``"xg"``;
    ``None``: XG when the bytes start with ``RGMH``, SGF when the text starts with ``(``, else ``.mat``).
    ``strict``: a ``.mat`` text must be the standard format (:func:`~nardy.records.mat.parse_mat`). Raises
    RecordError as the format's reader does (an XG file given as ``str``: it is binary)."""
    if fmt == "xg" or (fmt is None and looks_like_xg(text)):
        return parse_xg(text)
    if fmt is None:
        if isinstance(text, (bytes, bytearray)):
            fmt = "sgf" if bytes(text).lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"(") else "mat"
        else:
            fmt = "sgf" if looks_like_sgf(text) else "mat"
    if fmt == "sgf":
        return parse_sgf(text)
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode("utf-8", errors="replace")
    return parse_mat(text, strict=strict)


def read_record(path, *, strict: bool = False) -> MatchRecord:
    """Read a record file, ``.mat``, SGF or XG (the content decides, whatever the file's name); ``strict`` as
    :func:`parse_record`.

    Raises:
        RecordError: the file cannot be read (named, with the system's reason) or its reader refuses it.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise RecordError(f"read_record expects a path, got {type(path).__name__}", reason="not a path")
    name = os.fspath(path)
    try:
        raw = open(name, "rb").read()  # noqa: SIM115 - read at once
    except OSError as e:
        raise RecordError(f"cannot read {name}: {e.strerror or 'cannot be read'}", reason=e.strerror) from None
    except (TypeError, ValueError):
        raise RecordError("cannot read the record: not a valid file name", reason="bad path") from None
    # a file named .xg is read as XG whatever its first bytes (so a damaged one is told as such)
    return parse_record(raw, "xg" if format_of(name, None) == "xg" else None, strict=strict)


def record_text(match, fmt: str) -> str:
    """A :class:`~nardy.flow.match.Match` (or a :class:`~nardy.flow.game.Game`) as ``fmt`` text
    (``"mat"``/``"sgf"``)."""
    if fmt == "sgf":
        return write_sgf(match)
    if fmt == "mat":
        return write_mat(match)
    if fmt == "xg":
        raise RecordError("nardy reads .xg files but does not write them: write .mat or .sgf", reason="read only")
    raise RecordError(f"unknown record format {fmt!r}: expected mat or sgf", reason="unknown format")
