"""The page's scripts share one global scope (classic ``<script defer>`` tags of index.html): a top-level function,
``const``, ``let`` or ``var`` defined by two of them is one name, and the script loaded last replaces the other's
(profile.js's ``drawGraph`` once replaced the review's, and the review drew no graph). Each name once."""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

STATIC = Path(__file__).resolve().parents[2] / "nardy" / "web" / "static"
TOP = re.compile(r"^(?:async\s+)?function\s+([A-Za-z_$][\w$]*)|^(?:const|let|var)\s+([A-Za-z_$][\w$]*)", re.M)


def scripts_of(page: str) -> list[str]:
    html = (STATIC / page).read_text(encoding="utf-8")
    return re.findall(r'<script src="/static/([\w.-]+\.js)"', html)


def test_the_scripts_of_each_page_define_each_top_level_name_once():
    for page in ("index.html", "editor.html", "dice.html"):
        seen: dict[str, list[str]] = defaultdict(list)
        scripts = scripts_of(page)
        assert scripts, page
        for js in scripts:
            for m in TOP.finditer((STATIC / js).read_text(encoding="utf-8")):
                seen[m.group(1) or m.group(2)].append(js)
        twice = {name: files for name, files in seen.items() if len(files) > 1}
        assert not twice, (page, twice)
