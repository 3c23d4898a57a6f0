"""``bench/attack.py`` (issue 41's findings replayed against a served process) keeps working: its command line, a
couple of its checks against a running server (quick), and, marked slow, the whole run against a server of its
own. The verdicts themselves (HELD or BROKEN) are the bench's to report, not asserted here: a check that cannot
reach one (ERROR) or a run whose exit code disagrees with its lines fails."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from .helpers import ROOT

sys.path.insert(0, str(ROOT / "bench"))

import attack  # noqa: E402  (bench/attack.py)

VERDICTS = {"HELD", "BROKEN", "SKIPPED"}


def _lines(out: str) -> dict[str, str]:
    """``{check id: verdict}`` of the bench's result lines."""
    got = {}
    for line in out.splitlines():
        m = re.match(r"(\S+)\s+\S+\s+(HELD|BROKEN|SKIPPED|ERROR)\s", line)
        if m and not line.startswith("#"):
            got[m.group(1)] = m.group(2)
    return got


def test_the_command_line_lists_every_finding_and_refuses_what_it_must(capsys):
    from attack_checks import CHECKS

    ids = [c.id for c in CHECKS]
    assert set(ids) == {str(i) for i in range(1, 11)} | {"11a", "11b", "11c", "x1", "x2", "x3", "x4"}
    assert attack.main(["--list"]) == 0
    assert [line.split()[0] for line in capsys.readouterr().out.splitlines()] == ids
    args = attack.parse_args([])
    assert args.url is None and args.grace == attack.OWN_GRACE and args.slow_sockets == 300
    assert attack.parse_args(["--url", "http://127.0.0.1:8000/"]).grace == 120.0
    assert [c.id for c in attack.selected(CHECKS, attack.parse_args(["--only", "8,11b", "--skip", "8"]))] == ["11b"]
    with pytest.raises(SystemExit):
        attack.selected(CHECKS, attack.parse_args(["--only", "12"]))
    for bad in (["--url", "http://example.org:8000"], ["--slow-sockets", "0"], ["--slow-seconds", "3600"]):
        with pytest.raises(SystemExit):
            attack.parse_args(bad)


def test_two_cheap_checks_reach_a_verdict_against_a_running_server(make_server, tmp_path, capsys):
    s = make_server()
    out = tmp_path / "results.json"
    code = attack.main(["--url", s.url, "--only", "8,11b,x4", "--json", str(out)])
    lines = _lines(capsys.readouterr().out)
    results = json.loads(out.read_text())
    assert set(lines) == {"8", "11b", "x4"} and set(lines.values()) <= VERDICTS, lines
    assert {r["id"]: r["status"] for r in results} == lines
    assert all(r["evidence"] for r in results)
    assert code == (1 if "BROKEN" in lines.values() else 0)


@pytest.mark.slow
def test_the_whole_bench_runs_against_a_server_of_its_own_and_reaches_a_verdict_per_finding(tmp_path):
    out = tmp_path / "results.json"
    r = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "attack.py"), "--json", str(out)],
        cwd=str(ROOT),
        capture_output=True,
        text=True,
        timeout=1500,
    )
    lines = _lines(r.stdout)
    from attack_checks import CHECKS

    assert set(lines) == {c.id for c in CHECKS}, r.stdout + r.stderr[-2000:]
    assert set(lines.values()) <= VERDICTS, r.stdout
    assert r.returncode == (1 if "BROKEN" in lines.values() else 0), r.stdout
    assert len(json.loads(out.read_text())) == len(CHECKS)
