"""The checks of ``bench/attack.py`` that speak the API: items 1-5, 8-11 and the extras x1, x3, x4 of issue 41 (the
flooding ones, 6, 7 and x2, are in ``bench/attack_flood.py``). Each takes the :class:`attack.Target` and returns
``(status, evidence)`` or raises :class:`attack.Verdict`; :data:`CHECKS` lists them in the order they run (the
ones that flood or restart the server last)."""

from __future__ import annotations

import concurrent.futures as cf
import ipaddress
import json
import random
import re
import secrets
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
from attack import (
    BROKEN,
    HELD,
    ROOT,
    SKIPPED,
    Check,
    OwnServer,
    Person,
    Target,
    Trouble,
    Verdict,
    act_once,
    first_action,
    free_port,
    long_record,
    online_pair,
    rated_pair,
    side_of,
    ws_handshake,
)


# ----- 1: forwarded addresses through the shipped deployment --------------------------------------------------------
def compose_forwarded_allow_ips() -> str | None:
    """``FORWARDED_ALLOW_IPS`` as deploy/compose.yaml sets it for the nardy containers (None: not set)."""
    m = re.search(
        r"^\s*FORWARDED_ALLOW_IPS:\s*['\"]?([^'\"\n#]*)", (ROOT / "deploy" / "compose.yaml").read_text(), re.M
    )
    return m.group(1).strip() if m else None


def trusted_here(value: str | None, client: str) -> str:
    """The loopback equivalent of the shipped ``FORWARDED_ALLOW_IPS``: kept when it would believe ``client`` itself
    (``*`` or a network holding it), else ``127.0.0.1`` (the proxy's own address here, as in the deployment)."""
    for item in (value or "").split(","):
        item = item.strip()
        if item == "*":
            return "*"
        try:
            if ipaddress.ip_address(client) in ipaddress.ip_network(item, strict=False):
                return item
        except ValueError:
            continue
    return "127.0.0.1"


def nginx_config(tmp: Path, upstream: int, http_port: int, https_port: int, nginx: str) -> str:
    """deploy/nginx.conf with only what a loopback run must change (as tests/web/test_deploy_nginx.py does)."""
    conf = (ROOT / "deploy" / "nginx.conf").read_text()
    conf = re.sub(r"server nardy\d:8000", f"server 127.0.0.1:{upstream}", conf)
    conf = conf.replace("listen 80;", f"listen 127.0.0.1:{http_port};")
    conf = conf.replace("listen 443 ssl;", f"listen 127.0.0.1:{https_port} ssl;")
    conf = conf.replace("/etc/nginx/certs/", f"{tmp}/")
    head = f"worker_processes 1;\npid {tmp}/nginx.pid;\nerror_log {tmp}/error.log;"
    conf = conf.replace("worker_processes auto;", head)
    conf = re.sub(r"worker_connections \d+;", "worker_connections 512;", conf)
    temps = "".join(f"    {k}_temp_path {tmp}/{k};\n" for k in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    conf = conf.replace("http {\n", f"http {{\n    access_log {tmp}/access.log;\n{temps}", 1)
    out = subprocess.run([nginx, "-V"], capture_output=True, text=True).stderr
    found = re.search(r"nginx/(\d+)\.(\d+)\.(\d+)", out)
    version = tuple(int(x) for x in found.groups()) if found else (0, 0, 0)
    if version < (1, 25, 1) or "http_v2_module" not in out:
        conf = re.sub(r"\n\s*http2 on;", "", conf)
    return conf


def failed_logins_until_refused(p: Person, names: str, tries: int, forge: bool) -> int | None:
    """Wrong log-ins for unknown names (each a new one, so no name's count is reached) until a 429: its attempt
    number, or None. ``forge``: each with an ``X-Forwarded-For`` of its own (a documentation address)."""
    for i in range(1, tries + 1):
        headers = {"X-Forwarded-For": f"203.0.113.{i % 250 + 1}"} if forge else None
        a = p.call("POST", "/api/auth/login", {"name": f"{names}{i}", "password": "wrong-password"}, headers=headers)
        if a.status == 429:
            return i
        if a.status != 401:
            raise Trouble(f"a wrong log-in answered {a.status} {str(a.body)[:120]}")
    return None


def check_forwarded(t: Target):
    nginx = t.args.nginx or shutil.which("nginx") or shutil.which("nginx", path="/usr/sbin:/sbin")
    openssl = shutil.which("openssl")
    if not nginx:
        raise Verdict(SKIPPED, "nginx not found")
    if not openssl:
        raise Verdict(SKIPPED, "openssl not found (for nginx's certificate)")
    tmp = t.work / "nginx"
    tmp.mkdir(exist_ok=True)
    subprocess.run(
        [openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost"]
        + ["-keyout", str(tmp / "privkey.pem"), "-out", str(tmp / "fullchain.pem")],
        check=True,
        capture_output=True,
    )
    shipped = compose_forwarded_allow_ips()
    forged, honest = t.address(1, 2), t.address(1, 1)
    trust = trusted_here(shipped, forged)
    server = OwnServer(f"sqlite:///{tmp / 'proxied.db'}", t.work, env={"FORWARDED_ALLOW_IPS": trust})
    proxy = None
    try:
        server.start()
        https_port = free_port()
        conf = tmp / "nginx.conf"
        conf.write_text(nginx_config(tmp, server.port, free_port(), https_port, nginx))
        ok = subprocess.run([nginx, "-t", "-c", str(conf), "-p", str(tmp)], capture_output=True, text=True)
        if ok.returncode != 0:
            raise Trouble(f"nginx -t refused the adapted deploy/nginx.conf: {ok.stderr.strip()[-200:]}")
        proxy = subprocess.Popen(
            [nginx, "-c", str(conf), "-p", str(tmp), "-g", "daemon off;"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        base = f"https://localhost:{https_port}"
        for _ in range(100):
            try:
                httpx.get(base + "/api/health", verify=False, timeout=2)
                break
            except httpx.HTTPError:
                time.sleep(0.1)
        tries = t.args.login_tries
        a, b = Person(base, honest), Person(base, forged)
        t.people += [a, b]
        k0 = failed_logins_until_refused(a, t.name("nobodyA"), tries, forge=False)
        if k0 is None:
            raise Trouble(f"no per-address limit within {tries} wrong log-ins even without a forged header")
        k1 = failed_logins_until_refused(b, t.name("nobodyB"), tries, forge=True)
    finally:
        if proxy is not None:
            proxy.terminate()
            proxy.wait(10)
        server.stop()
    how = f"through nginx (deploy/nginx.conf), FORWARDED_ALLOW_IPS {shipped!r} -> {trust!r} here"
    if k1 is not None and k1 <= k0:
        return HELD, f"{how}: one client refused (429) at wrong log-in {k1} with forged X-Forwarded-For, {k0} without"
    return BROKEN, (
        f"{how}: {tries} wrong log-ins with a forged X-Forwarded-For each and no 429 "
        f"(the server believed the forged addresses); without the header 429 at try {k0}"
        if k1 is None
        else f"{how}: 429 at try {k1} with forged headers, {k0} without"
    )


# ----- 2: a name locked for everyone --------------------------------------------------------------------------------
def check_lockout(t: Target):
    owner, guesser = t.person(2, 1), t.person(2, 2)
    name = t.name("Owner")
    owner.register(name)
    owner.ok("POST", "/api/auth/logout", {})
    k = None
    for i in range(1, t.args.login_tries + 1):
        a = guesser.login(name, f"not-the-password-{i}")
        if a.status == 429:
            k = i
            break
        if a.status != 401:
            raise Trouble(f"a wrong password answered {a.status}")
    a = owner.login(name, "attack-bench-password")
    ev = (
        f"guesser at another address refused at try {k}" if k else f"guesser never refused in {t.args.login_tries}"
    ) + f"; then the owner's log-in from their own address: {a.status} {a.code() or ''}".rstrip()
    return (HELD if a.status == 200 and k is not None else BROKEN), ev


# ----- 3: abandonment claims against a present player ---------------------------------------------------------------
def turn_to(game: str, want_side: int, players: dict[int, Person], view: dict) -> dict:
    """Act (first legal actions) until ``want_side`` is to act; the last view."""
    for _ in range(12):
        if view.get("to_act") == want_side:
            return view
        mover = players[view["to_act"]]
        view = act_once(mover, game)
    raise Trouble(f"side {want_side} never came to act in game {game}")


def check_claim(t: Target):
    people = [t.person(3, i) for i in range(1, 7)]
    for i, p in enumerate(people):
        p.register(t.name(f"Claim{i}x"))
    games = []  # (claimer, victim, gid, who is to act: "claimer" | "victim", victim polls)
    for k, (wanted, polls) in enumerate((("claimer", False), ("victim", True), ("victim", False))):
        claimer, victim = people[2 * k], people[2 * k + 1]
        gid, v = rated_pair(claimer, victim)
        vs = side_of(v)
        players = {vs: victim, 1 - vs: claimer}
        turn_to(gid, (1 - vs) if wanted == "claimer" else vs, players, v)
        games.append((claimer, victim, gid, wanted, polls))
    # the grace passes: the second victim keeps reading its game over HTTP (present), the others are silent
    end = time.monotonic() + t.grace + 2
    polls = 0
    while time.monotonic() < end:
        games[1][1].ok("GET", f"/api/games/{games[1][2]}")
        polls += 1
        time.sleep(1.0)
    out = [c.call("POST", f"/api/games/{gid}/claim", {}) for c, _, gid, _, _ in games]
    control = out[2]
    if control.status != 200:
        raise Trouble(
            f"the control claim (opponent to act and silent {t.grace:g} s) answered {control.status} "
            f"{control.code()}: is the server's grace longer than --grace {t.grace:g}?"
        )
    ev = (
        f"claim on the claimer's own turn: {out[0].status} {out[0].code() or ''}; against a victim to act who made "
        f"{polls} requests over HTTP meanwhile: {out[1].status} {out[1].code() or ''}; control (absent "
        f"{t.grace:g} s, to act): {control.status}"
    )
    return (HELD if out[0].status != 200 and out[1].status != 200 else BROKEN), ev


# ----- 4: the fair dice' commitment before the seeds ----------------------------------------------------------------
def _holds(value: Any, needle: str) -> bool:
    if isinstance(value, str):
        return needle in value
    if isinstance(value, dict):
        return any(_holds(v, needle) for v in value.values())
    if isinstance(value, list):
        return any(_holds(v, needle) for v in value)
    return False


def seed_order(p: Person, seed: str, commitment: str) -> str | None:
    """None when ``p`` was shown ``commitment`` before it sent ``seed``; else what went wrong."""
    sent = next((t for t, _, body in p.sent if isinstance(body, dict) and body.get("client_seed") == seed), None)
    if sent is None:
        return "never sent their seed"
    seen = next((t for t, body in p.seen if _holds(body, commitment)), None)
    if seen is None or seen > sent:
        return "sent their seed before the commitment was shown to them"
    return None


SEED_ROUTE = "/api/games/{gid}/seed"


def commitment_of(p: Person, gid: str) -> str:
    """The game's commitment as ``p`` is shown it (its fairness record, which its view's answers carry too)."""
    return p.ok("GET", f"/api/games/{gid}/fairness")["commitment"]


def give_seed(p: Person, gid: str, seed: str) -> None:
    """``p`` reads the game's commitment and sends its seed with it (``POST /api/games/{id}/seed``)."""
    p.ok("POST", f"/api/games/{gid}/seed", {"client_seed": seed, "commitment": commitment_of(p, gid)})


def start_games(people: list[Person], seeds: dict, late: bool) -> dict[str, tuple]:
    """An online game started each way (invitation, challenge, quick pairing), its two players giving their seeds
    ``late`` (after the commitment, by the seed route) or, as the first protocol had it, in the requests that make
    and join the game (before any commitment is shown): ``{way: (game id, maker, taker)}``."""

    def seed_of(p):
        return {"own_seed": True} if late else {"client_seed": seeds[id(p)]}

    flows = {}
    a, b = people[0], people[1]
    g = a.ok("POST", "/api/games", {"game": "long", "opponent": "online", "length": 1, **seed_of(a)})
    b.ok("POST", f"/api/games/{g['id']}/join", {"invite": g["invite"], **seed_of(b)})
    flows["invitation"] = (g["id"], a, b)
    o, k = people[2], people[3]
    o.call("GET", "/api/lobby")
    terms = {"game": "backgammon", "length": 1, "clock": {"initial": 900}, "rated": True}
    ch = o.ok("POST", "/api/lobby/challenges", {**terms, **seed_of(o)})["challenge"]
    k.call("GET", "/api/lobby")
    v = k.ok("POST", f"/api/lobby/challenges/{ch['id']}/accept", seed_of(k))
    flows["challenge"] = (v["id"], o, k)
    q1, q2 = people[4], people[5]
    quick = {"game": "short", "length": random.randint(11, 25), "clock": {"initial": 901}, "rated": True}
    q1.call("GET", "/api/lobby")
    first = q1.ok("POST", "/api/lobby/quick", {**quick, **seed_of(q1)})
    q2.call("GET", "/api/lobby")
    second = q2.ok("POST", "/api/lobby/quick", {**quick, **seed_of(q2)})
    if second.get("status") != "paired" or not second.get("game"):
        raise Trouble(f"quick pairing did not pair ({first.get('status')}, {second.get('status')})")
    q1.call("GET", "/api/lobby/quick")
    flows["quick"] = (second["game"], q1, q2)
    if late:
        for gid, *players in flows.values():
            for p in players:
                give_seed(p, gid, seeds[id(p)])
    return flows


def resign_match(loser: Person, winner: Person, gid: str) -> tuple[Any, dict]:
    """``loser`` resigns and ``winner`` accepts when asked: (the resignation's answer, the winner's view after)."""
    v = loser.ok("GET", f"/api/games/{gid}")
    resign = loser.call("POST", f"/api/games/{gid}/actions", {"action": "resign", "seq": v["seq"]})
    view = winner.ok("GET", f"/api/games/{gid}")
    if resign.status == 200 and view.get("phase") == "resign" and "accept" in (view.get("actions") or []):
        view = winner.ok("POST", f"/api/games/{gid}/actions", {"action": "accept", "seq": view["seq"]})
    return resign, view


def verify_order(t: Target, loser: Person, winner: Person, gid: str) -> str | None:
    """End game ``gid`` (a resignation), then ``nardy verify-dice`` on its revealed record and on a copy whose first
    seed is moved before the commitment: None when the first checks and the second is refused, else why not."""
    resign_match(loser, winner, gid)
    record = loser.ok("GET", f"/api/games/{gid}/fairness")
    if not record.get("server_seed"):
        return "the server seed was not revealed after the resignation"

    def verify(data: dict) -> int:
        path = t.work / f"fair-{secrets.token_hex(4)}.json"
        path.write_text(json.dumps(data))
        cmd = [sys.executable, "-m", "nardy.cli", "verify-dice", str(path)]
        return subprocess.run(cmd, cwd=str(ROOT), capture_output=True, timeout=120).returncode

    if verify(record) != 0:
        return "nardy verify-dice refused the game's own record"
    order = record.get("order")
    if not isinstance(order, list) or len(order) < 2:
        return "the record keeps no order, so nardy verify-dice cannot refuse a seed taken before the commitment"
    seed = next((e for e in order if e.get("event") == "seed"), None)
    if seed is None:
        return "the record's order has no seed event"
    early = dict(seed, t=order[0].get("t", 0) - 1)
    wrong = dict(record, order=[early] + [e for e in order if e is not seed])
    if verify(wrong) == 0:
        return "nardy verify-dice accepted a record whose seed came before the commitment"
    return None


def check_dice_order(t: Target):
    people = [t.person(4, i) for i in range(1, 9)]
    for i, p in enumerate(people):
        p.register(t.name(f"Dice{i}x"))
    seeds = {id(p): f"seed{secrets.token_hex(6)}" for p in people}
    late = SEED_ROUTE in people[0].ok("GET", "/openapi.json").get("paths", {})
    wrong = []
    if late:  # a seed offered before any commitment can be shown must be refused (or at least never used)
        early = people[6].call("POST", "/api/lobby/challenges", {"game": "long", "rated": False, "client_seed": "x1"})
        if early.status < 400:
            wrong.append(f"a seed sent with a challenge was taken ({early.status})")
            people[6].call("DELETE", f"/api/lobby/challenges/{early.body['challenge']['id']}")
        early = people[7].call("POST", "/api/games", {"game": "long", "opponent": "online", "client_seed": "x2"})
        if early.status < 400:
            wrong.append(f"a seed sent with a new game was taken ({early.status})")
    flows = start_games(people, seeds, late)
    for flow, (gid, *players) in flows.items():
        for p in players:
            p.call("GET", f"/api/games/{gid}")
        fair = players[0].ok("GET", f"/api/games/{gid}/fairness")
        whys: dict[str, list[str]] = {}
        for who, p in zip(("maker", "taker"), players):
            why = seed_order(p, seeds[id(p)], fair["commitment"])
            if why is None and seeds[id(p)] not in fair.get("client_seeds", []):
                why = "have a seed in the record that is not theirs"
            if why:
                whys.setdefault(why, []).append(who)
        wrong += [f"{flow}: {' and '.join(who)} {why}" for why, who in whys.items()]
    if not late:
        wrong.insert(0, "no way to give a seed after the commitment (no " + SEED_ROUTE + ")")
    gid, maker, taker = flows["challenge"]
    problem = verify_order(t, taker, maker, gid)
    if problem:
        wrong.append(problem)
    if wrong:
        return BROKEN, "; ".join(wrong)
    return HELD, (
        "in an invitation, a challenge and a quick pairing each player sent their seed after seeing the commitment "
        "(early seeds refused); nardy verify-dice checks the record and refuses it with a seed moved first"
    )


# ----- 5: rating farming --------------------------------------------------------------------------------------------
def check_farming(t: Target):
    from nardy.web.ratings import START

    a, b = t.person(5, 1), t.person(5, 2)
    a.register(t.name("Farm"))
    b.register(t.name("Mule"))
    gid, v = rated_pair(a, b, clock={"initial": 180, "increment": 2})
    resign, view = resign_match(b, a, gid)
    rows = [r for r in a.ok("GET", f"/api/players/{a.id}").get("ratings", []) if r.get("game") == "backgammon"]
    change = max((r["rating"] - START.rating for r in rows), key=abs, default=0.0)
    klass = rows[0]["clock_class"] if rows else "blitz"
    board = a.ok("GET", f"/api/ratings?game=backgammon&clock={klass}&limit=200")["players"]
    listed = any(r.get("id") == a.id for r in board)
    how = "resigned at once" if resign.status == 200 else f"resignation refused {resign.status} {resign.code()}"
    ev = (
        f"rated challenge, accept, {how} (match {view.get('status')}): the winner's rating {change:+.0f}, "
        f"{'on' if listed else 'not on'} the {klass} leaderboard"
    )
    return (HELD if abs(change) < 0.5 and not listed else BROKEN), ev


# ----- 8: DNS rebinding over WebSocket ------------------------------------------------------------------------------
def check_ws_rebinding(t: Target):
    host, port = t.host_port
    owner = t.person(8, 1)
    owner.guest("Rebind")
    g = owner.ok("POST", "/api/games", {"game": "long", "opponent": "online", "length": 1, "watchers": True})
    right = {"Host": f"{host}:{port}", "Origin": f"http://{host}:{port}"}
    evil = {"Host": "evil.example", "Origin": "http://evil.example"}
    out = []
    for path in ("/api/lobby/live", f"/api/games/{g['id']}/live"):
        status, after = ws_handshake(host, port, path, right, source=t.address(8, 2))
        if status != 101:
            raise Trouble(f"the control handshake on {path} with the server's own Host answered {status}")
        status, after = ws_handshake(host, port, path, evil, source=t.address(8, 2))
        refused = status != 101 or after.startswith("close")
        out.append((path, refused, f"{status} {after[:40]!r}"))
    ev = "; ".join(f"{path} with Host evil.example: {what}" for path, _, what in out)
    return (HELD if all(r for _, r, _ in out) else BROKEN), ev


# ----- 10: terminal escapes from records ----------------------------------------------------------------------------
def escape_record() -> str:
    """A short match's .mat with ``ESC ] 0 ; ... BEL`` (a window title) and a CSI in the players' names."""
    text = long_record(seed=41, length=1)
    return text.replace("Anna", "Anna\x1b]0;pwned\x07").replace("Boris", "Boris\x1b[2J")


#: What :func:`escape_record` puts in the names, as bytes a terminal would act on.
INJECTED = (b"\x1b]", b"\x1b[2J", b"\x07")


def check_escapes(t: Target):
    path = t.work / "escapes.mat"
    path.write_text(escape_record())
    leaks = []
    for cmd in (["replay", str(path)], ["analyse", "--level", "advanced", "--quiet", str(path)]):
        try:
            r = subprocess.run(
                [sys.executable, "-m", "nardy.cli", *cmd], cwd=str(ROOT), capture_output=True, timeout=180
            )
        except subprocess.TimeoutExpired:
            raise Trouble(f"nardy {cmd[0]} did not end in 180 s") from None
        out = r.stdout + r.stderr
        bad = sum(out.count(x) for x in INJECTED)
        if bad:
            leaks.append(f"nardy {cmd[0]}: the names' escape sequences printed {bad} times (exit {r.returncode})")
    if leaks:
        return BROKEN, "; ".join(leaks)
    return HELD, "nardy replay and nardy analyse printed no ESC or BEL of the record's names"


# ----- 11: a private game's existence, anti-framing headers, look-alike names ---------------------------------------
PRIVATE_ROUTES = [
    ("GET", "", None),
    ("GET", "/hints", None),
    ("GET", "/record", None),
    ("GET", "/mat", None),
    ("GET", "/fairness", None),
    ("GET", "/analysis", None),
    ("GET", "/tutor", None),
    ("POST", "/actions", {"action": "roll", "seq": 0}),
    ("POST", "/join", {"invite": "x" * 22}),
    ("POST", "/decline", {"invite": "x" * 22}),
    ("POST", "/cancel", {}),
    ("POST", "/rematch", {}),
    ("POST", "/claim", {}),
    ("POST", "/analysis", {}),
    ("DELETE", "", None),
]


def check_private_exists(t: Target):
    owner, stranger = t.person(11, 1), t.person(11, 2)
    owner.guest("Private")
    stranger.guest("Stranger")
    online = owner.ok("POST", "/api/games", {"game": "long", "opponent": "online", "length": 1, "watchers": False})
    computer = owner.ok("POST", "/api/games", {"game": "backgammon", "opponent": "bot"})
    missing = secrets.token_hex(8)
    host, port = t.host_port
    differ = []
    for kind, gid in (("online", online["id"]), ("computer", computer["id"])):
        for method, tail, body in PRIVATE_ROUTES:
            a = stranger.call(method, f"/api/games/{gid}{tail}", body)
            m = stranger.call(method, f"/api/games/{missing}{tail}", body)
            if (a.status, a.code()) != (m.status, m.code()):
                differ.append(f"{kind} {method} {tail or '/'}: {a.status} {a.code()} vs {m.status} {m.code()}")
        cookie = "; ".join(f"{k}={v}" for k, v in stranger.http.cookies.items())
        heads = {"Host": f"{host}:{port}", "Origin": f"http://{host}:{port}", "Cookie": cookie}
        src = t.address(11, 2)
        ws_a = ws_handshake(host, port, f"/api/games/{gid}/live", heads, source=src)
        ws_m = ws_handshake(host, port, f"/api/games/{missing}/live", heads, source=src)
        if ws_a != ws_m:
            differ.append(f"{kind} live channel: {ws_a[0]} {ws_a[1][:20]!r} vs {ws_m[0]} {ws_m[1][:20]!r}")
    n = 2 * (len(PRIVATE_ROUTES) + 1)
    if differ:
        return BROKEN, f"{len(differ)} of {n} answers to a stranger differ from a missing game's: " + "; ".join(
            differ[:6]
        ) + ("; ..." if len(differ) > 6 else "")
    return HELD, f"all {n} answers to a stranger are a missing game's"


def check_frame_headers(t: Target):
    p = t.person(12, 1)
    missing = []
    for path in ("/", "/api/health", "/api/games/" + secrets.token_hex(8)):
        a = p.call("GET", path)
        h = a.headers
        framing = "x-frame-options" in h or "frame-ancestors" in h.get("content-security-policy", "")
        nosniff = h.get("x-content-type-options", "").lower() == "nosniff"
        if not framing:
            missing.append(f"{path}: no X-Frame-Options or CSP frame-ancestors")
        if not nosniff:
            missing.append(f"{path}: no X-Content-Type-Options: nosniff")
    if missing:
        return BROKEN, "; ".join(missing)
    return HELD, "/, /api/health and a 404 carry anti-framing headers and nosniff"


#: Latin letters with a Cyrillic twin.
LOOKALIKE = str.maketrans({"a": "а", "c": "с", "e": "е", "o": "о", "p": "р", "x": "х", "M": "М"})


def check_lookalike(t: Target):
    acc, guest = t.person(13, 1), t.person(13, 2)
    name = f"Marco{t.tag}"
    acc.register(name)
    twin = name.translate(LOOKALIKE)
    control = guest.call("POST", "/api/auth/guest", {"name": f"Zz{t.tag}"})
    if control.status != 200:
        raise Trouble(f"a guest with an unrelated name answered {control.status}")
    exact = guest.call("POST", "/api/auth/guest", {"name": name})
    look = guest.call("POST", "/api/auth/guest", {"name": twin})
    ev = f"guest as the account's name: {exact.status} {exact.code() or ''}; as its look-alike: {look.status} " + (
        look.code() or ""
    )
    held = 400 <= exact.status < 500 and 400 <= look.status < 500
    return (HELD if held else BROKEN), ev


# ----- x1: races of two processes on one game -----------------------------------------------------------------------
def clone(p: Person, url: str, source: str) -> Person:
    """``p``'s browser (its cookies) talking to the server process at ``url`` from ``source``."""
    q = Person(url, source)
    for c in p.http.cookies.jar:
        q.http.cookies.jar.set_cookie(c)
    q.id, q.name = p.id, p.name
    return q


def check_races(t: Target):
    urls = t.urls if len(t.urls) > 1 else [t.url, t.url]
    a, b = t.person(21, 1), t.person(21, 2)
    a.guest("RaceA")
    b.guest("RaceB")
    gid, v = online_pair(a, b, clock={"initial": 3600})
    sides = {side_of(v): b, 1 - side_of(v): a}
    # four browsers of each player: two on each process
    copies = {s: [clone(p, urls[i % 2], t.address(21, 10 + 10 * s + i)) for i in range(4)] for s, p in sides.items()}
    t.people += [q for qs in copies.values() for q in qs]
    statuses: dict[int, int] = {}
    double, rounds, applied = [], 0, 0
    last_seq = v["seq"]
    with cf.ThreadPoolExecutor(max_workers=10) as pool:
        for _ in range(t.args.races):
            view = sides[0].ok("GET", f"/api/games/{gid}")
            if view["status"] != "playing":
                break
            mover = view["to_act"]
            mv = copies[mover][0].ok("GET", f"/api/games/{gid}")
            body = first_action(mv)
            other = {"action": "roll", "seq": mv["seq"]}
            jobs = [pool.submit(q.call, "POST", f"/api/games/{gid}/actions", body) for q in copies[mover]]
            jobs += [pool.submit(q.call, "POST", f"/api/games/{gid}/actions", other) for q in copies[1 - mover][:2]]
            answers = [j.result() for j in jobs]
            rounds += 1
            for ans in answers:
                statuses[ans.status] = statuses.get(ans.status, 0) + 1
            ok = [ans for ans in answers if ans.status == 200]
            applied += len(ok)
            if len(ok) > 1:
                double.append(mv["seq"])
            for ans in ok:
                if ans.body["seq"] <= last_seq:
                    double.append(f"seq {ans.body['seq']} after {last_seq}")
                last_seq = ans.body["seq"]
    views = [copies[0][i].ok("GET", f"/api/games/{gid}") for i in (0, 1)]
    keys = ("seq", "board", "history", "dice", "to_act", "status")
    same = all(views[0][k] == views[1][k] for k in keys)
    mat = a.call("GET", f"/api/games/{gid}/mat")
    replays = "not read"
    if mat.status == 200:
        from nardy.records.mat import parse_mat, replay

        try:
            text = mat.body if isinstance(mat.body, str) else mat.body.get("text", "")
            replay(parse_mat(text))
            replays = "replays"
        except Exception as e:  # the stored game's record does not replay: said
            replays = f"does not replay ({type(e).__name__}: {str(e)[:80]})"
    five = {s: n for s, n in statuses.items() if s >= 500}
    procs = "two processes" if len(set(urls)) > 1 else "one process (SQLite: --database postgresql://... for two)"
    ev = (
        f"{rounds} rounds of 4 duplicate actions + 2 out of turn through {procs}: {applied} applied, statuses "
        f"{dict(sorted(statuses.items()))}; both processes' views {'agree' if same else 'DIFFER'}; the .mat {replays}"
    )
    if double:
        ev += f"; applied twice or out of order: {double[:5]}"
    held = not double and not five and same and replays == "replays" and applied >= rounds
    return (HELD if held else BROKEN), ev


# ----- x3: a restart in the middle of a clock -----------------------------------------------------------------------
def check_restart(t: Target):
    if not t.owned:
        raise Verdict(SKIPPED, "needs a server the bench started (it is SIGKILLed and started again)")
    a, b = t.person(23, 1), t.person(23, 2)
    a.guest("ClockA")
    b.guest("ClockB")
    players = {}
    long_id, v1 = online_pair(a, b, clock={"initial": 600})
    players[side_of(v1)] = b
    players[1 - side_of(v1)] = a
    short = 14.0
    short_id, v2 = online_pair(a, b, clock={"initial": short})
    mover_long, mover_short = v1["to_act"], v2["to_act"]
    before = {gid: a.ok("GET", f"/api/games/{gid}")["clock"] for gid in (long_id, short_id)}
    killed = time.time()
    for s in t.servers:
        s.kill()
    time.sleep(8)
    up: list[float] = []
    with cf.ThreadPoolExecutor(len(t.servers)) as pool:  # every process at once: the first up serves the clocks
        for s in t.servers:
            pool.submit(lambda s=s: (s.start(), up.append(time.time())))
    if len(up) != len(t.servers):
        raise Trouble("a server process did not start again")
    back = time.time()
    after = {gid: a.ok("GET", f"/api/games/{gid}") for gid in (long_id, short_id)}
    down = min(up) - killed
    used_long = before[long_id]["remaining"][mover_long] - after[long_id]["clock"]["remaining"][mover_long]
    short_view = after[short_id]
    problems = []
    # a heartbeat period (5 s) of slack, as tests/web/test_online_restart.py allows, and the time since the first
    # process was up again (the server is up then: the clocks run)
    if used_long > 5.5 + 1.0 + (back - min(up)):
        problems.append(f"{used_long:.1f} s of the {down:.1f} s down charged")
    if short_view["status"] != "playing":
        problems.append(f"a {short:g} s clock flagged by the downtime ({short_view['status']})")
        left = 0.0
    else:
        left = short_view["clock"]["remaining"][mover_short]
        due = time.monotonic() + left
        seen_at, slowest = None, 0.0
        while time.monotonic() < due + 15:  # past the due time by far: late is told apart from never
            asked = time.monotonic()
            short_view = a.ok("GET", f"/api/games/{short_id}")
            slowest = max(slowest, time.monotonic() - asked)
            if short_view["status"] != "playing":
                seen_at = asked
                break
            time.sleep(0.5)
        ended = (short_view.get("online") or {}).get("ended") or {}
        if ended.get("reason") != "time" or ended.get("loser") != mover_short:
            problems.append(
                f"the {short:g} s clock did not run out in {left + 15:.0f} s after the restart (status "
                f"{short_view['status']}, {short_view['clock']['remaining']} left, ended {ended})"
            )
        elif seen_at is not None and seen_at - due > 3.0:
            problems.append(f"the {short:g} s clock ran out {seen_at - due:.1f} s late (slowest view {slowest:.1f} s)")
    ev = (
        f"down {down:.1f} s: the 600 s clock was charged {used_long:.1f} s across it; the {short:g} s clock had "
        f"{left:.1f} s left after the restart"
    )
    return (BROKEN, ev + "; " + "; ".join(problems)) if problems else (HELD, ev + " and then ran out on time")


# ----- x4: a block bypassed through quick pairing -------------------------------------------------------------------
def check_block_quick(t: Target):
    a, b = t.person(24, 1), t.person(24, 2)
    a.guest("Blocker")
    b.guest("Blocked")
    a.ok("POST", "/api/blocks", {"user": b.id})
    terms = {"game": "short", "length": random.randint(11, 25), "clock": "none", "rated": False}
    out = []
    try:
        for first, second in ((a, b), (b, a)):
            one = first.ok("POST", "/api/lobby/quick", terms)
            two = second.ok("POST", "/api/lobby/quick", terms)
            game = two.get("game") or one.get("game")
            if two.get("status") == "paired" and game:
                seats = [s.get("name") for s in second.ok("GET", f"/api/games/{game}").get("seats", [])]
                out.append(f"{second.name} paired with {first.name if first.name in seats else seats}")
                raise Verdict(BROKEN, f"quick pairing paired a player with one who blocks them: {out[-1]}")
            out.append(f"{first.name} then {second.name}: {one.get('status')}/{two.get('status')}")
            for p in (a, b):
                p.ok("DELETE", "/api/lobby/quick")
    finally:
        for p in (a, b):
            p.call("DELETE", "/api/lobby/quick")
    return HELD, "never paired: " + "; ".join(out)


def _late_import():
    from attack_flood import check_analysis, check_huge_header, check_slowloris, check_ws_limits

    return check_analysis, check_huge_header, check_slowloris, check_ws_limits


check_analysis, check_huge_header, check_slowloris, check_ws_limits = _late_import()

#: Every check, in the order they run: the quick ones, then those that flood the server, then the restart.
CHECKS = [
    Check("11b", "frame-headers", check_frame_headers),
    Check("8", "ws-rebinding", check_ws_rebinding),
    Check("11a", "private-game-exists", check_private_exists),
    Check("11c", "guest-lookalike", check_lookalike),
    Check("2", "name-lockout", check_lockout),
    Check("5", "rating-farm", check_farming),
    Check("4", "dice-order", check_dice_order),
    Check("x4", "block-quick-pairing", check_block_quick),
    Check("10", "terminal-escapes", check_escapes),
    Check("3", "claim-present", check_claim),
    Check("x1", "races", check_races),
    Check("x2", "ws-limits", check_ws_limits),
    Check("9", "analysis-fairness", check_analysis),
    Check("6", "huge-header", check_huge_header),
    Check("7", "slowloris", check_slowloris),
    Check("1", "forwarded-address", check_forwarded),
    Check("x3", "restart-clock", check_restart),
]
