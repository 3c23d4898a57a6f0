"""Golden files: what nardy writes today, frozen so that a redesign (issue 42) can be checked to change nothing.

Each test of this folder builds an output (the web app's OpenAPI schema, ``nardy play --auto`` transcripts,
``nardy analyse --json`` reports, saved games, the web's views and stored games) and compares it with its file
under ``tests/golden/data/``, byte for byte; a difference fails with a unified diff of the two texts.

Regenerate deliberately (after a change of behaviour that is meant, never to make a redesign pass)::

    NARDY_UPDATE_GOLDEN=1 python -m pytest -q tests/golden            # every file
    NARDY_UPDATE_GOLDEN=1 python -m pytest -q tests/golden/test_openapi_golden.py   # one kind

then review ``git diff tests/golden/data`` and commit it with the change that caused it.

What is normalised (the only parts not compared as written), each stated where it is done:

- random identifiers a server draws (the game's id, its owner's) are replaced by stable names;
- wall-clock times (``"t"`` in a table's log, ``created``/``updated`` of a stored game) and the seconds an
  analysis took are replaced by fixed values;
- the state of a seeded dice source (the Mersenne Twister's 625 words, some 6 KB each time it is saved) is
  replaced by its SHA-256, so a saved game stays a readable file; the full state still round-trips in the tests.
- the terminal's warm-up notice (printed only while numba compiles, after an install);
- the OpenAPI schema's ``info.version`` (the installed nardy's version, ``"0"`` from a source tree).
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parent / "data"

#: Set to 1 to (re)write the golden files instead of comparing with them.
UPDATE_ENV = "NARDY_UPDATE_GOLDEN"

#: Lines of diff shown on a failure (the rest is counted).
DIFF_LINES = 160


def updating() -> bool:
    """True when the golden files are being regenerated (``NARDY_UPDATE_GOLDEN=1``)."""
    return os.environ.get(UPDATE_ENV, "") not in ("", "0")


def check_text(name: str, text: str) -> None:
    """Compare ``text`` with ``tests/golden/data/<name>`` byte for byte (UTF-8); fail with a unified diff.

    With ``NARDY_UPDATE_GOLDEN=1`` the file is written instead (only when it differs) and the test passes.
    Raises (through pytest): a failure naming the file when it is missing or differs.
    """
    path = DATA / name
    if updating():
        path.parent.mkdir(parents=True, exist_ok=True)
        old = path.read_bytes() if path.exists() else None
        if old != text.encode("utf-8"):
            path.write_bytes(text.encode("utf-8"))
        return
    if not path.exists():
        pytest.fail(f"golden file {path.relative_to(DATA.parent)} is missing: write it with {UPDATE_ENV}=1")
    want = path.read_bytes().decode("utf-8")
    if want == text:
        return
    diff = list(
        difflib.unified_diff(
            want.splitlines(keepends=True),
            text.splitlines(keepends=True),
            fromfile=f"golden/{name}",
            tofile=f"now/{name}",
            n=3,
        )
    )
    shown = "".join(diff[:DIFF_LINES])
    more = f"\n... {len(diff) - DIFF_LINES} more diff lines" if len(diff) > DIFF_LINES else ""
    if not diff:  # same lines, different line ends or a final newline
        shown = f"(the texts differ only in line ends or whitespace at the end: {want[-20:]!r} vs {text[-20:]!r})"
    pytest.fail(
        f"output differs from golden file tests/golden/data/{name} "
        f"(regenerate deliberately with {UPDATE_ENV}=1):\n{shown}{more}",
        pytrace=False,
    )


#: A JSON value whose compact text is at most this long is written on one line by :func:`dump_json`.
LINE = 120


def dump_json(obj, sort_keys: bool = False) -> str:
    """Canonical text of JSON data, readable in a diff and not much longer than compact JSON: a value whose
    compact text fits in :data:`LINE` characters on one line, a longer list or object one item a line (1-space
    indent); UTF-8 as is; a final newline. Keys in the order the program wrote them (what it stores), or sorted
    (``sort_keys``)."""

    def compact(v) -> str:
        return json.dumps(v, ensure_ascii=False, sort_keys=sort_keys, separators=(", ", ": "))

    def text(v, depth: int) -> str:
        one = compact(v)
        if len(one) <= LINE or not isinstance(v, (dict, list)) or not v:
            return one
        pad = " " * (depth + 1)
        if isinstance(v, dict):
            keys = sorted(v) if sort_keys else list(v)
            items = [f"{pad}{compact(k)}: {text(v[k], depth + 1)}" for k in keys]
            return "{\n" + ",\n".join(items) + "\n" + " " * depth + "}"
        items = [pad + text(x, depth + 1) for x in v]
        return "[\n" + ",\n".join(items) + "\n" + " " * depth + "]"

    return text(obj, 0) + "\n"


def check_json(name: str, obj, sort_keys: bool = False) -> None:
    """:func:`check_text` of :func:`dump_json` of ``obj``."""
    check_text(name, dump_json(obj, sort_keys=sort_keys))


def digest(obj) -> str:
    """``sha256:<16 hex>`` of the compact JSON of ``obj`` (for data too long to keep readable)."""
    text = json.dumps(obj, separators=(",", ":"), sort_keys=True)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def shorten_dice_states(obj):
    """A copy of saved data with every dice source's ``state`` (a ``{"kind", "state"}`` dict: the Mersenne
    Twister's words) replaced by :func:`digest` of it; everything else unchanged, keys in their order."""
    if isinstance(obj, dict):
        if obj.get("kind") == "random" and "state" in obj and isinstance(obj["state"], list):
            return {k: (digest(v) if k == "state" else v) for k, v in obj.items()}
        return {k: shorten_dice_states(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [shorten_dice_states(v) for v in obj]
    return obj


def replace_values(obj, names: dict):
    """A copy of ``obj`` with each string found in ``names`` (exactly, or inside a longer string) replaced by its
    stable name (random ids a server drew: ``{"3f9a...": "<game-1>"}``)."""
    if isinstance(obj, dict):
        return {replace_values(k, names): replace_values(v, names) for k, v in obj.items()}
    if isinstance(obj, list):
        return [replace_values(v, names) for v in obj]
    if isinstance(obj, str):
        for old, new in names.items():
            if old in obj:
                obj = obj.replace(old, new)
        return obj
    return obj


def zero_keys(obj, keys: set[str], value=0):
    """A copy of ``obj`` with the values of ``keys`` (wall-clock times) replaced by ``value`` where present and
    not null, at any depth."""
    if isinstance(obj, dict):
        return {k: (value if k in keys and obj[k] is not None else zero_keys(obj[k], keys, value)) for k in obj}
    if isinstance(obj, list):
        return [zero_keys(v, keys, value) for v in obj]
    return obj
