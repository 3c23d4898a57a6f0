"""docs/rules.md, the specification, and every citation of it in the project.

The code cites the rules page as ``RULES.md`` (its old name, outside the repository) or ``docs/rules.md``.
A citation is the page's name followed by what it names, read up to the end of its clause (``)``, ``;``,
``:`` or the end of a sentence):

* rule numbers: ``RULES.md rule 7``, ``rules 1 and 7``, ``rules 1-6``: each must be a numbered rule;
* quoted names: ``RULES.md "Notation"``, ``(RULES.md, 'Short nardy bear-off')``: each must be a section
  heading or a bold rule name, exactly (case aside);
* named rules: ``RULES.md head rule``, ``the bar rule``, and ``six-block rule (RULES.md ...)``: the words
  before "rule" must occur in a heading or a bold rule name;
* the first word after the page's name (``RULES.md scoring``): it must occur in a heading or a bold rule
  name, unless it is one of a few words that cite the whole page (``RULES.md names``, ``RULES.md defines``);
* seeds, there and anywhere else (``seed 004``, ``seed 002 3.4``, ``seed-003 rule 26``): the seed must be
  listed under "Sources" and the section must exist in that seed's numbering.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "rules.md"
THIS = Path(__file__).resolve()

#: The section headings of RULES.md, kept in docs/rules.md so that citations stay valid.
RULES_MD_SECTIONS = (
    "Board, points, views",
    "Rules shared by all three games",
    "Backgammon and short nardy (hitting games)",
    "Doubling cube and matches (seed 004; option for every game)",
    "Long nardy (seed 002)",
    "Notation",
)
#: The bold rule names of RULES.md.
RULES_MD_NAMES = (
    "Backgammon scoring",
    "Short nardy bear-off",
    "Short nardy scoring",
    "No hitting, no bar",
    "Head rule",
    "Six-block rule",
    "Bearing off",
    "Scoring",
)

#: Words right after the page's name that cite the page as a whole, not a part of it.
WHOLE_PAGE_WORDS = {
    "names",
    "name",
    "defines",
    "gives",
    "orders",
    "defaults",
    "default",
    "example",
    "examples",
    "option",
    "options",
    "says",
    "and",
    "or",
    "see",
}
#: Words before "rule(s)" that are not part of a rule's name.
NOT_A_NAME = {
    "the",
    "and",
    "or",
    "a",
    "an",
    "of",
    "its",
    "their",
    "this",
    "that",
    "these",
    "those",
    "other",
    "game's",
    "own",
    "every",
    "each",
    "all",
    "any",
    "same",
    "per",
    "see",
}

#: Citations known to name something docs/rules.md lacks, as (file, what is cited), until they are fixed.
#: nardy/records/mat.py: "RULES.md aliases accepted": the rules define no game-name aliases (the aliases
#: are nardy.rules._ALIASES).
KNOWN_BROKEN: set[tuple[str, str]] = set()

PAGE = re.compile(r"(?:\.\./shared/)?(?:RULES\.md|docs/rules\.md)")
SEED = re.compile(
    r"\bseeds?[- ](0\d\d)\b((?:(?:\s*,\s*|\s+and\s+|\s+)(?:0\d\d\b|(?:rules?\s+)?\d+(?:\.\d+)?"
    r"(?:\s*[-–]\s*\d+(?:\.\d+)?)?\b(?!\.\d)))*)",
    re.IGNORECASE,
)
SECTION = re.compile(r"(\d+(?:\.\d+)?)(?:\s*[-–]\s*(\d+(?:\.\d+)?))?")
RULE_NUMBERS = re.compile(r"\brules?\s+(\d+(?:\s*(?:[-–,]|\band\b|\bor\b|\bto\b)\s*\d+)*)")
QUOTED = re.compile(r"\"([^\"\n]+)\"|(?<![A-Za-z])'([^'\n]+)'(?![A-Za-z])")
CLAUSE_END = re.compile(r"[);:`]|\.(?=\s|$)|\"\"\"")


def _key(s: str) -> str:
    return " ".join(s.lower().replace("’", "'").split())


def _sec(s: str) -> tuple[int, ...]:
    return tuple(int(x) for x in s.split("."))


@dataclass
class RulesDoc:
    headings: list[str] = field(default_factory=list)
    names: set[str] = field(default_factory=set)  # headings and bold rule names, _key'd
    rules: dict[int, str] = field(default_factory=dict)  # numbered rule -> its bold name
    seeds: dict[str, list[tuple[tuple[int, ...], tuple[int, ...]]]] = field(default_factory=dict)

    def has_name(self, name: str) -> bool:
        return _key(name) in self.names

    def has_words(self, words: str) -> bool:
        w = _key(words)
        return any(re.search(rf"(?<![\w-]){re.escape(w)}(?![\w-])", n) for n in self.names)

    def has_section(self, seed: str, sec: tuple[int, ...]) -> bool:
        for lo, hi in self.seeds.get(seed, []):
            if len(lo) == len(sec) and lo <= sec <= hi:
                return True
            if sec == lo[: len(sec)] or sec == hi[: len(sec)]:
                return True
        return False


def parse_doc(text: str) -> RulesDoc:
    doc = RulesDoc()
    section = None
    for line in text.splitlines():
        if m := re.match(r"#{2,6}\s+(.+?)\s*$", line):
            section = m.group(1)
            doc.headings.append(section)
            doc.names.add(_key(section))
            if p := re.match(r"(.+?)\s*\((.+)\)$", section):
                doc.names.add(_key(p.group(1)))
                if not re.match(r"seeds?\b", p.group(2)):
                    doc.names.add(_key(p.group(2)))
            continue
        for b in re.findall(r"\*\*([^*]+?)\*\*", line):
            doc.names.add(_key(b.strip(" .:")))
        if section == "Rules shared by all three games" and (m := re.match(r"(\d+)\.\s+(.*)", line)):
            n = int(m.group(1))
            assert n not in doc.rules, f"rule {n} numbered twice"
            b = re.match(r"\*\*([^*]+?)\*\*", m.group(2))
            doc.rules[n] = b.group(1).strip(" .:") if b else ""
        if section == "Sources" and (m := re.match(r"\|\s*(0\d\d)\s*\|.*\|\s*([^|]*?)\s*\|\s*$", line)):
            ranges = []
            for lo, hi in SECTION.findall(m.group(2)):
                ranges.append((_sec(lo), _sec(hi or lo)))
            doc.seeds[m.group(1)] = ranges
    return doc


@pytest.fixture(scope="module")
def doc() -> RulesDoc:
    return parse_doc(DOC.read_text(encoding="utf-8"))


# ----- the page itself ------------------------------------------------------------------------------------


def test_doc_keeps_the_sections_rules_and_names_of_rules_md(doc):
    for h in RULES_MD_SECTIONS:
        assert h in doc.headings, f"docs/rules.md lost the section {h!r}"
    assert sorted(doc.rules) == list(range(1, 9)), doc.rules
    assert all(doc.rules.values()), f"a numbered rule has no bold name: {doc.rules}"
    for n in RULES_MD_NAMES:
        assert doc.has_name(n), f"docs/rules.md lost the rule name {n!r}"
    assert len(doc.headings) == len(set(doc.headings))


def test_doc_lists_the_four_seeds_with_their_numbering(doc):
    assert sorted(doc.seeds) == ["000", "002", "003", "004"]
    assert doc.seeds["000"] == [] and doc.seeds["004"] == []
    assert doc.has_section("002", (3, 4)) and not doc.has_section("002", (3, 10))
    assert doc.has_section("003", (26,)) and not doc.has_section("003", (31,))


def seed_refs(text: str) -> list[tuple[int, str, tuple[int, ...] | None]]:
    """(offset, seed, section or None) for every seed citation in ``text``."""
    out = []
    for m in SEED.finditer(text):
        seed = m.group(1)
        out.append((m.start(), seed, None))
        for tok in re.finditer(r"0\d\d\b|(\d+(?:\.\d+)?)(?:\s*[-–]\s*(\d+(?:\.\d+)?))?", m.group(2)):
            if re.fullmatch(r"0\d\d", tok.group(0)):
                seed = tok.group(0)
                out.append((m.start(), seed, None))
            else:
                out.append((m.start(), seed, _sec(tok.group(1))))
                if tok.group(2):
                    out.append((m.start(), seed, _sec(tok.group(2))))
    return out


def _check_seed(doc: RulesDoc, seed: str, sec) -> str | None:
    if seed not in doc.seeds:
        return f"seed {seed} (not under 'Sources')"
    if sec is not None and not doc.has_section(seed, sec):
        return f"seed {seed} {'.'.join(map(str, sec))} (not in that seed's numbering)"
    return None


def test_doc_seed_citations_exist(doc):
    text = DOC.read_text(encoding="utf-8")
    bad = [p for _, s, sec in seed_refs(text) if (p := _check_seed(doc, s, sec))]
    assert len(seed_refs(text)) > 20
    assert not bad, bad


# ----- citations ------------------------------------------------------------------------------------------


def _flatten(s: str) -> str:
    """Join continued lines (docstrings, comments, JS comments, implicitly joined string literals)."""
    s = re.sub(r"\s*\n\s*(?:#:?|//|\*(?!\*))?\s*", " ", s)
    return re.sub(r"\"\s+\"", "", s)


def _words_before_rule(window: str) -> list[str]:
    names = []
    toks = re.findall(r"[A-Za-z][\w'’-]*|\S", window)
    for i, t in enumerate(toks):
        if t.lower() not in ("rule", "rules"):
            continue
        words = []
        j = i - 1
        while (
            j >= 0
            and len(words) < 3
            and re.fullmatch(r"[A-Za-z][\w'’-]*", toks[j])
            and _key(toks[j]) not in NOT_A_NAME
            and not PAGE.fullmatch(toks[j])
        ):
            words.insert(0, toks[j])
            j -= 1
        if words:
            names.append(" ".join(words))
    return names


def check_citations(text: str, doc: RulesDoc) -> list[tuple[int, str, str]]:
    """(line, what is cited, why it is missing) for every citation in ``text`` that names nothing."""
    bad = []
    for m in PAGE.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        after = _flatten(text[m.end() : m.end() + 400])
        after = re.sub(r"^['’]s\b", "", after)
        end = CLAUSE_END.search(after)
        window = after[: end.start()] if end else after[:200]
        problems = []
        # seeds
        for _, seed, sec in seed_refs(window):
            if p := _check_seed(doc, seed, sec):
                problems.append((p, "missing seed or section"))
        window = SEED.sub(" ", window)
        # quoted names
        for q in QUOTED.finditer(window):
            name = q.group(1) or q.group(2)
            if not doc.has_name(name):
                problems.append((repr(name), "no such section or rule name"))
        first = window.lstrip(" ,/")
        window = QUOTED.sub(" ", window)
        # rule numbers
        for r in RULE_NUMBERS.finditer(window):
            nums = set()
            for part in re.split(r"\s*(?:,|\band\b|\bor\b)\s*", r.group(1)):
                ab = re.split(r"\s*(?:[-–]|\bto\b)\s*", part)
                nums |= set(range(int(ab[0]), int(ab[-1]) + 1))
            for n in sorted(nums - set(doc.rules)):
                problems.append((f"rule {n}", "no such numbered rule"))
        window = RULE_NUMBERS.sub(" ", window)
        # named rules
        for name in _words_before_rule(window):
            if not doc.has_words(name):
                problems.append((f"{name} rule", "no such rule name"))
        # the first word after the page's name
        if (
            (w := re.match(r"([A-Za-z][\w-]*)", first))
            and w.group(1).lower() not in WHOLE_PAGE_WORDS
            and w.group(1).lower() not in ("rule", "rules", "seed", "seeds")
            and not doc.has_words(w.group(1))
        ):
            problems.append((w.group(1), "no such section or rule name"))
        # "<name> rule (RULES.md ...)"
        b = re.search(r"([A-Za-z][\w-]*)\s+rules?\s*\(\s*$", text[max(0, m.start() - 80) : m.start()])
        if b and b.group(1).lower() not in NOT_A_NAME and not doc.has_words(b.group(1)):
            problems.append((f"{b.group(1)} rule", "no such rule name"))
        bad += [(line, what, why) for what, why in problems]
    return bad


TEXT_SUFFIXES = (".py", ".pyi", ".js", ".html", ".css", ".md", ".txt", ".toml", ".cfg", ".json", ".yml", ".yaml")


GOLDEN = ROOT / "tests" / "golden" / "data"


def _cited_files() -> list[Path]:
    files = [ROOT / "README.md"]
    for top in ("nardy", "tests", "bench", "docs"):
        for p in sorted((ROOT / top).rglob("*")):
            if p.is_file() and p.suffix in TEXT_SUFFIXES and p.resolve() not in (THIS, DOC.resolve()):
                if GOLDEN in p.parents:
                    continue  # golden files copy texts written elsewhere (the docstrings are checked there)
                files.append(p)
    return [p for p in files if p.exists()]


def _all_problems(doc: RulesDoc) -> list[tuple[str, int, str, str]]:
    out = []
    for p in _cited_files():
        try:
            text = p.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        rel = p.relative_to(ROOT).as_posix()
        out += [(rel, line, what, why) for line, what, why in check_citations(text, doc)]
        # seeds cited anywhere, not only next to the page's name
        for off, seed, sec in seed_refs(text):
            if why := _check_seed(doc, seed, sec):
                out.append((rel, text.count("\n", 0, off) + 1, why, "missing seed or section"))
    return sorted(set(out))


def test_every_citation_names_something_in_docs_rules_md(doc):
    problems = [p for p in _all_problems(doc) if (p[0], p[2]) not in KNOWN_BROKEN]
    assert not problems, "citations of the rules that name nothing in docs/rules.md:\n" + "\n".join(
        f"  {f}:{line}: {what}: {why}" for f, line, what, why in problems
    )


def test_known_broken_citations_are_still_there(doc):
    found = {(p[0], p[2]) for p in _all_problems(doc)}
    fixed = KNOWN_BROKEN - found
    assert not fixed, f"fixed, remove from KNOWN_BROKEN: {sorted(fixed)}"


def test_the_project_cites_the_rules(doc):
    n = sum(
        len(PAGE.findall(p.read_text(encoding="utf-8", errors="replace")))
        for p in _cited_files()
        if p.parts[len(ROOT.parts)] == "nardy"
    )
    assert n >= 40


@pytest.mark.parametrize(
    "good",
    [
        'RULES.md "Notation": plays',
        "(RULES.md rules 1 and 7).",
        "(docs/rules.md rule 8)",
        "RULES.md scoring)",
        '(RULES.md, "Short nardy bear-off": a checker',
        "RULES.md head rule: one",
        "(RULES.md, seed 002 3.4)",
        "Long nardy six-block rule (RULES.md, seed 002 3.4)",
        "RULES.md rules 2 and 5 and the bar rule; x",
        "(RULES.md rules 1-6 and the\n        game's own rules)",
        "RULES.md / seed 003 rule 26)",
        "(RULES.md names)",
        "RULES.md's short nardy rule)",
        "(docs/rules.md 'Doubling cube and matches', seed 004)",
        '(RULES.md "Notation" and rule 4)',
        "docs/rules.md rules 6-8, the scoring sections)",
        "(RULES.md hitting games)",
        "`../shared/RULES.md`, the specification",
    ],
)
def test_good_citations_pass(doc, good):
    assert check_citations(good, doc) == []


@pytest.mark.parametrize(
    "bad, what",
    [
        ("(RULES.md rule 9)", "rule 9"),
        ("RULES.md rules 7-10.", "rule 9"),
        ("(docs/rules.md rules 1 and 12)", "rule 12"),
        ('RULES.md "Tempo": x', "'Tempo'"),
        ("(RULES.md, 'Short nardy bearoff')", "'Short nardy bearoff'"),
        ("RULES.md tempo rule: x", "tempo rule"),
        ("(RULES.md seed 001)", "seed 001 (not under 'Sources')"),
        ("(RULES.md, seed 002 3.12)", "seed 002 3.12 (not in that seed's numbering)"),
        ("(RULES.md seed 003 rule 31)", "seed 003 31 (not in that seed's numbering)"),
        ("(RULES.md chouette)", "chouette"),
        ("Pass rule (RULES.md)", "Pass rule"),
        ("RULES.md rule 3 and the\n    # tempo rule)", "tempo rule"),
    ],
)
def test_bad_citations_fail(doc, bad, what):
    assert what in [w for _, w, _ in check_citations(bad, doc)]
