"""bench/results holds only cited figures, and every citation of it names files that are there; bench/README.md
lists every script of bench/.

A citation is a path starting ``bench/results/`` in README.md, docs/, bench/ or tests/, written out in full or
with shell patterns: ``{a,b}`` and ``{1..5}`` (brace expansion, as bash reads it) and ``*`` (a glob). Each must
name at least one file; each file under bench/results must be named by at least one citation (results nobody
cites are deleted: git keeps them, ``git log --diff-filter=D --name-only -- bench/results``).
"""

from __future__ import annotations

import fnmatch
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "bench" / "results"
THIS = Path(__file__).resolve()
CITATION = re.compile(r"bench/results/(?:[^\s`'\"()<>;,\]{}]|\{[^{}\s]*\})*")


def expand_braces(pattern: str) -> list[str]:
    """The words bash's brace expansion makes of ``pattern``: ``a{1,2}b`` -> ``a1b, a2b``; ``x{1..3}`` ->
    ``x1, x2, x3``; nested and repeated groups expand left to right. A pattern without braces is itself."""
    m = re.search(r"\{([^{}]*)\}", pattern)
    if not m:
        return [pattern]
    body = m.group(1)
    if r := re.fullmatch(r"(-?\d+)\.\.(-?\d+)", body):
        lo, hi = int(r.group(1)), int(r.group(2))
        step = 1 if hi >= lo else -1
        choices = [str(i) for i in range(lo, hi + step, step)]
    elif "," in body:
        choices = body.split(",")
    else:
        return [pattern]  # "{x}" is no expansion in bash
    head, tail = pattern[: m.start()], pattern[m.end() :]
    return [w for c in choices for w in expand_braces(head + c + tail)]


def _cited_texts() -> list[Path]:
    files = [ROOT / "README.md"]
    for top, suffixes in (("docs", (".md",)), ("bench", (".py", ".md")), ("tests", (".py", ".md"))):
        for p in sorted((ROOT / top).rglob("*")):
            if p.is_file() and p.suffix in suffixes and RESULTS not in p.parents:
                files.append(p)
    return [p for p in files if p.exists() and p.resolve() != THIS]


def citations() -> list[tuple[str, int, str]]:
    """(file, line, cited path pattern) for every citation of bench/results, trailing punctuation cut."""
    out = []
    for p in _cited_texts():
        text = p.read_text(encoding="utf-8", errors="replace")
        for m in CITATION.finditer(text):
            cited = m.group(0).rstrip(".:")
            if cited.rstrip("/") == "bench/results":
                continue  # the folder itself
            out.append((p.relative_to(ROOT).as_posix(), text.count("\n", 0, m.start()) + 1, cited))
    return out


def result_files() -> list[str]:
    return sorted(p.relative_to(ROOT).as_posix() for p in RESULTS.rglob("*") if p.is_file())


def matches(pattern: str, files: list[str]) -> list[str]:
    words = expand_braces(pattern)
    return [f for f in files if any(fnmatch.fnmatchcase(f, w) for w in words)]


@pytest.mark.parametrize(
    "pattern, words",
    [
        ("a{1,2}b", ["a1b", "a2b"]),
        ("x-{1..3}.json", ["x-1.json", "x-2.json", "x-3.json"]),
        ("{long,short}-{a,b}", ["long-a", "long-b", "short-a", "short-b"]),
        ("plain.json", ["plain.json"]),
        ("{x}", ["{x}"]),
    ],
)
def test_brace_expansion_reads_patterns_as_bash_does(pattern, words):
    assert expand_braces(pattern) == words


def test_every_cited_result_file_exists():
    files = result_files()
    missing = [(f, line, c) for f, line, c in citations() if not matches(c, files)]
    assert not missing, "cited results that bench/results lacks:\n" + "\n".join(
        f"  {f}:{line}: {c}" for f, line, c in missing
    )


def test_every_result_file_is_cited():
    files = result_files()
    cited = {f for _, _, c in citations() for f in matches(c, files)}
    uncited = [f for f in files if f not in cited]
    assert not uncited, "results nobody cites (delete them, git keeps them):\n" + "\n".join(f"  {f}" for f in uncited)


def test_results_are_sorted_into_topic_folders():
    loose = [p.name for p in RESULTS.iterdir() if p.is_file()]
    assert not loose, f"results outside a topic folder of bench/results: {loose}"


def test_bench_readme_lists_every_script():
    readme = (ROOT / "bench" / "README.md").read_text(encoding="utf-8")
    scripts = sorted(p.name for p in (ROOT / "bench").glob("*.py"))
    assert len(scripts) > 20
    unlisted = [s for s in scripts if f"`{s}`" not in readme and f"bench/{s}" not in readme]
    assert not unlisted, f"bench/README.md does not list: {unlisted}"
