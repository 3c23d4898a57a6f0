"""Fuzz every operation of the server's OpenAPI schema with schemathesis (the app in-process, over ASGI).

For every operation that ``/openapi.json`` lists, schemathesis sends the requests its phases make
(examples, the systematic *coverage* phase with boundary and invalid values, and random *fuzzing*)
and two checks judge every response:

* :func:`no_server_error`: no 5xx, except 503 with a ``Retry-After`` header (the computer busy, the
  database unavailable);
* :func:`error_body_is_json`: every 4xx/5xx body is JSON ``{"detail": ..., "error": ...}``.

The saved-game routes (``/api/games/{gid}...``) meet real games too: a fixture creates games of the
three games, against the computer and between two people, in a few states, and a generation hook
draws ``gid`` from them as well as from the schema; actions on them are sent with the game's current
``seq`` most of the time (else nearly every action would stop at the 409 of a stale ``seq``).
``DELETE`` draws from games of its own, so the others stay for the remaining operations.

The coverage phase runs in full whatever ``max_examples`` says (it enumerates the schema); the
``max_examples`` below are those of the fuzzing phase: a small sample in CI, many more in the
``slow`` variant (``pytest -m slow tests/web/test_fuzz_api.py``).

A failing case is printed with its exact request (a curl command) and the response.
"""

from __future__ import annotations

import atexit
import json
import shutil
import tempfile
import zlib

import pytest

schemathesis = pytest.importorskip("schemathesis")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

from nardy.web.app import create_app  # noqa: E402
from nardy.web.store.storage import Storage  # noqa: E402
from tests.web.players import PlayerClient  # noqa: E402

#: Fuzzing-phase examples per operation: the CI sample and the slow variant.
CI_EXAMPLES = 15
SLOW_EXAMPLES = 400

_DIR = tempfile.mkdtemp(prefix="nardy-fuzz-")
atexit.register(shutil.rmtree, _DIR, True)  # also when no test of the module ran (deselected)
STORE = Storage(f"sqlite:///{_DIR}/f.db")
APP = create_app(storage=STORE)


class _WithoutLifespan:
    """The app, its lifespan answered here instead of by the app.

    schemathesis's pytest plugin ends an ASGI app's lifespan after every test item and starts it again
    for the next; the app's lifespan shutdown closes its computer-work scheduler for good, so from the
    second item on every request that needs the computer would be answered 503 "the server is shutting
    down" (under uvicorn the lifespan runs once, so a server never sees this). The scheduler is closed
    at the end of the module instead."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "lifespan":
            return await self.app(scope, receive, send)
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return


ASGI_APP = _WithoutLifespan(APP)
schema = schemathesis.openapi.from_asgi("/openapi.json", ASGI_APP)

#: Real saved games: ``"keep"`` for every operation but DELETE, ``"delete"`` for DELETE.
POOL: dict[str, list[str]] = {"keep": [], "delete": []}

#: The headers of the player who made the real games (their session cookie and CSRF token), sent with the
#: fuzzer's requests so that they reach the games (a game is its owner's); the /api/auth routes go without.
AUTH: dict[str, str] = {}

#: .mat records written by the server for real games (for the mutation test of POST /api/mat).
RECORDS: list[str] = []

#: (operation, status) -> count, for the summary printed at the end of the module.
SEEN: dict[tuple[str, int], int] = {}

_NEW_GAMES = [
    {"game": "backgammon", "opponent": "bot", "level": "grandmaster", "colour": "white"},
    {"game": "short", "opponent": "bot", "level": "grandmaster", "colour": "black"},
    {"game": "long", "opponent": "bot", "level": "grandmaster", "colour": "white"},
    {"game": "backgammon", "opponent": "human", "length": 3, "options": {}},
    {"game": "short", "opponent": "human", "length": 0},
    {"game": "long", "opponent": "human", "length": 5},
    {"game": "backgammon", "opponent": "bot", "level": "beginner", "colour": "black", "jacoby": True, "beavers": True},
    {"game": "backgammon", "opponent": "human", "auto_roll": False, "beavers": True},
]


def _play_a_little(client: TestClient, gid: str, actions: int, salt: int) -> None:
    """A few of the page's actions on game ``gid`` (deterministic per ``salt``), so the games are in
    different states (dice rolled, steps taken, a double offered, a later game...)."""
    for i in range(actions):
        view = client.get(f"/api/games/{gid}").json()
        allowed = view.get("actions", [])
        moves = view.get("moves") or {}
        k = zlib.crc32(f"{salt}:{i}".encode())
        if "double" in allowed and k % 5 == 0:
            body = {"action": "double"}
        elif "take" in allowed:
            body = {"action": "take"}
        elif "roll" in allowed:
            body = {"action": "roll"}
        elif moves:
            frm = sorted(moves, key=int)[k % len(moves)]
            body = {"action": "step", "from": int(frm), "to": moves[frm][k % len(moves[frm])]}
        elif "confirm" in allowed:
            body = {"action": "confirm"}
        elif "next" in allowed:
            body = {"action": "next"}
        else:
            return
        body["seq"] = view["seq"]
        if client.post(f"/api/games/{gid}/actions", json=body).status_code != 200:
            return


@pytest.fixture(scope="module", autouse=True)
def real_games():
    """Fill :data:`POOL` with saved games in a few states; afterwards print what the fuzzer got back,
    close the computer's workers and remove the database."""
    client = PlayerClient(APP)  # no lifespan (no ``with``)
    for i, body in enumerate(_NEW_GAMES):
        r = client.post("/api/games", json=body)
        assert r.status_code == 201, r.text
        if not AUTH:
            cookies = "; ".join(f"{k}={v}" for k, v in client.cookies.items())
            AUTH.update({"Cookie": cookies, "X-CSRF-Token": client.cookies["nardy_csrf"]})
        gid = r.json()["id"]
        _play_a_little(client, gid, actions=3 * i, salt=i)
        POOL["keep"].append(gid)
    for gid in POOL["keep"][3:6]:  # the games between two people: play on, then keep their records
        _play_a_little(client, gid, actions=60, salt=len(RECORDS) + 100)
        RECORDS.append(client.get(f"/api/games/{gid}/mat").text)
    # one imported from a .mat record (two people at this device); if the import fails, the fuzzing of
    # POST /api/mat reports it, and the other games are enough for the rest
    mat = client.get(f"/api/games/{POOL['keep'][3]}/mat").text
    r = client.post("/api/mat?save=true", content=mat, headers={"content-type": "text/plain"})
    if r.status_code == 200:
        POOL["keep"].append(r.json()["id"])
    for body in _NEW_GAMES[3:6]:
        r = client.post("/api/games", json=body)
        assert r.status_code == 201, r.text
        POOL["delete"].append(r.json()["id"])
    yield POOL
    print("\nresponses per operation and status:")
    for (label, status), n in sorted(SEEN.items()):
        print(f"  {label:32s} {status}: {n}")
    APP.state.bot_work.close()
    shutil.rmtree(_DIR, ignore_errors=True)


@schema.hook("before_generate_path_parameters")
def real_ids(context, strategy):
    """Draw ``gid`` from the real games as often as from the schema's strategy."""
    if context.operation is None or "gid" not in context.operation.path:
        return strategy
    which = "delete" if context.operation.method.upper() == "DELETE" else "keep"
    real = st.deferred(lambda: st.sampled_from(POOL[which])).map(lambda gid: {"gid": gid})
    return st.one_of(strategy, real)


#: Names a resignation level may be given by (and a few it may not).
_LEVEL_NAMES = ["single", "gammon", "backgammon", "oyun", "mars", "normal", "", "x"]


@schema.hook("before_generate_body")
def plausible_actions(context, strategy):
    """Actions as the page sends them (a known action, points 0-25, a die...) as often as the schema's
    strategy, so that actions on the real games get past validation to the rules."""
    if context.operation is None or not context.operation.path.endswith("/actions"):
        return strategy
    from nardy.web.sessions import ACTIONS

    plausible = st.fixed_dictionaries(
        {"action": st.sampled_from(ACTIONS), "seq": st.just(0)},
        optional={
            "from": st.integers(0, 25),
            "to": st.integers(0, 25),
            "die": st.integers(1, 6),
            "play": st.sampled_from(["", "8/5 6/5", "13/7", "24/18 13/11", "bar/20", "6/off 5/off", "x"]),
            "level": st.one_of(st.integers(0, 3), st.sampled_from(_LEVEL_NAMES)),
            "player": st.integers(0, 1),
        },
    )
    return st.one_of(strategy, plausible)


# ----- checks ---------------------------------------------------------------------------------------------
def _request(case) -> str:
    return (
        f"{case.method.upper()} {case.formatted_path} query={case.query!r} body={case.body!r} headers={case.headers!r}"
    )


@schemathesis.check
def no_server_error(ctx, response, case):
    """No 5xx, except 503 with Retry-After (busy, or the database unavailable)."""
    status = response.status_code
    if status >= 500 and not (status == 503 and response.headers.get("retry-after")):
        raise AssertionError(f"{status} for {_request(case)}: {response.text[:1000]}")


@schemathesis.check
def error_body_is_json(ctx, response, case):
    """An error's body is JSON {"detail": ..., "error": ...}."""
    if response.status_code < 400:
        return
    try:
        body = json.loads(response.content or b"")
    except ValueError:
        raise AssertionError(
            f"{response.status_code} body is not JSON for {_request(case)}: {response.text[:300]!r}"
        ) from None
    if not (isinstance(body, dict) and "detail" in body and "error" in body):
        raise AssertionError(
            f"{response.status_code} body lacks detail/error for {_request(case)}: {response.text[:300]!r}"
        )


CHECKS = [no_server_error, error_body_is_json]


def _current_seq(case) -> None:
    """An action on a real game carries the game's current ``seq`` four times out of five (which ones:
    decided by the body), so that the action itself is tried, not only the staleness check."""
    gid = (case.path_parameters or {}).get("gid")
    body = case.body
    if not (case.path.endswith("/actions") and gid in POOL["keep"] and isinstance(body, dict)):
        return
    if zlib.crc32(repr(sorted(body.items(), key=str)).encode()) % 5 == 4:
        return
    saved = STORE.get(gid)
    if saved is not None:
        body["seq"] = saved.revision


def _run(case) -> None:
    if case.path.startswith("/api/stream/"):  # the streams never end (issue 44: tests/web/test_event_stream.py)
        pytest.skip("a stream never ends")
    _current_seq(case)
    response = case.call(headers=None if case.path.startswith("/api/auth") else {**(case.headers or {}), **AUTH})
    SEEN[(case.operation.label, response.status_code)] = SEEN.get((case.operation.label, response.status_code), 0) + 1
    case.validate_response(response, checks=CHECKS)


_SETTINGS = dict(
    deadline=None, suppress_health_check=list(HealthCheck), derandomize=True, database=None, print_blob=True
)


@schema.parametrize()
@settings(max_examples=CI_EXAMPLES, **_SETTINGS)
def test_api_fuzz_sample(case):
    """Every operation: a sample (coverage phase in full, a few random examples)."""
    _run(case)


@pytest.mark.slow
@schema.parametrize()
@settings(max_examples=SLOW_EXAMPLES, **_SETTINGS)
def test_api_fuzz_many(case):
    """Every operation with many random examples (not in CI: ``pytest -m slow``)."""
    _run(case)


# ----- actions on the real games, many more of them ------------------------------------------------------
_ACTIONS_OP = "/api/games/{gid}/actions"


def _actions_strategy():
    return schema[_ACTIONS_OP]["POST"].as_strategy()


def _guided_body(gid: str, pick: int) -> dict | None:
    """One of the actions the view of game ``gid`` allows now (a step from its ``moves``, a resignation
    at some level...), chosen by ``pick``, with the view's ``seq``: these drive the games through
    their states (doubles, ends of games, next games, finished matches)."""
    saved = STORE.get(gid)
    if saved is None:
        return None
    view = TestClient(ASGI_APP).get(f"/api/games/{gid}", headers=AUTH).json()
    options: list[dict] = []
    for action in view.get("actions", []):
        if action == "hint":
            continue
        if action == "resign":
            options.append({"action": "resign", "level": [0, 1, 2, "gammon"][pick // 7 % 4]})
        else:
            options.append({"action": action})
    for frm, tos in (view.get("moves") or {}).items():
        options += [{"action": "step", "from": int(frm), "to": to} for to in tos] * 6
    if not options:
        return None
    body = dict(options[pick % len(options)])
    body["seq"] = view["seq"]
    return body


@settings(max_examples=60, **_SETTINGS)
@given(
    case=st.deferred(_actions_strategy),
    real=st.deferred(lambda: st.sampled_from(POOL["keep"])),
    pick=st.integers(0, 10**6),
)
def test_actions_fuzz(case, real, pick):
    """POST /api/games/{gid}/actions alone, on the real games: three actions in four are ones the view
    allows (they move the games on), the others the fuzzer's own bodies."""
    case.path_parameters["gid"] = real
    if pick % 4:
        body = _guided_body(real, pick)
        if body is not None:
            case.body = body
    _run(case)


@pytest.mark.slow
@settings(max_examples=2000, **_SETTINGS)
@given(
    case=st.deferred(_actions_strategy),
    real=st.deferred(lambda: st.sampled_from(POOL["keep"])),
    pick=st.integers(0, 10**6),
)
def test_actions_fuzz_many(case, real, pick):
    test_actions_fuzz.hypothesis.inner_test(case, real, pick)


# ----- .mat records: real ones, mutated ----------------------------------------------------------------
@st.composite
def _mutated_record(draw):
    text = draw(st.sampled_from(RECORDS)) if RECORDS else ""
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["delete", "insert", "replace-line", "duplicate-line", "swap-lines"]))
        lines = text.split("\n")
        i = draw(st.integers(0, max(0, len(text))))
        if kind == "delete":
            text = text[:i] + text[i + draw(st.integers(1, 40)) :]
        elif kind == "insert":
            text = (
                text[:i]
                + draw(
                    st.one_of(
                        st.text(max_size=20),
                        st.sampled_from(
                            [
                                "\n",
                                " ",
                                ":",
                                "/",
                                "*",
                                "bar",
                                "off",
                                "Doubles => 2",
                                "Takes",
                                "Drops",
                                "Wins 1 point",
                                " 1) ",
                                "66:",
                                "0",
                                "99999999999",
                                "\x00",
                                "Game 2",
                                "5 point match",
                                "/off",
                                "-1",
                            ]
                        ),
                    )
                )
                + text[i:]
            )
        elif lines:
            j = draw(st.integers(0, len(lines) - 1))
            if kind == "replace-line":
                lines[j] = draw(st.text(max_size=60))
            elif kind == "duplicate-line":
                lines.insert(j, lines[j])
            else:
                k = draw(st.integers(0, len(lines) - 1))
                lines[j], lines[k] = lines[k], lines[j]
            text = "\n".join(lines)
    return text


def _post_record(text: str, as_json: bool, save: bool):
    client = TestClient(ASGI_APP, headers=AUTH)
    url = f"/api/mat?save={'true' if save else 'false'}"
    if as_json:
        r = client.post(url, json={"text": text})
    else:
        r = client.post(url, content=text.encode("utf-8", "surrogatepass"), headers={"content-type": "text/plain"})
    status = r.status_code
    label = "POST /api/mat (mutated records)"
    SEEN[(label, status)] = SEEN.get((label, status), 0) + 1
    where = f"POST {url} ({'JSON' if as_json else 'text/plain'}) body={text[:3000]!r}"
    assert status < 500 or (status == 503 and r.headers.get("retry-after")), f"{status} for {where}: {r.text[:500]}"
    if status >= 400:
        body = r.json()
        assert isinstance(body, dict) and "detail" in body and "error" in body, f"{status} {where}: {r.text[:300]}"
    return r


_RECORD_SETTINGS = dict(deadline=None, suppress_health_check=list(HealthCheck), derandomize=True, database=None)


@settings(max_examples=40, **_RECORD_SETTINGS)
@given(text=_mutated_record(), as_json=st.booleans(), save=st.booleans())
def test_mat_mutated_records(text, as_json, save):
    """Real .mat records with a few bytes or lines changed: a 2xx or a 4xx, never a 5xx."""
    _post_record(text, as_json, save)


@pytest.mark.slow
@settings(max_examples=1500, **_RECORD_SETTINGS)
@given(text=_mutated_record(), as_json=st.booleans(), save=st.booleans())
def test_mat_mutated_records_many(text, as_json, save):
    _post_record(text, as_json, save)


def test_fuzzer_met_real_games():
    """The saved-game routes were reached with real games (some answers other than 404/422)."""
    for op in ("GET /api/games/{gid}", "POST /api/games/{gid}/actions", "GET /api/games/{gid}/record"):
        statuses = {s for (label, s), n in SEEN.items() if label == op}
        if not statuses:
            pytest.skip("run with the fuzz tests")
        assert statuses - {404, 422, 405}, f"{op}: only {sorted(statuses)}"
