"""Failed log-ins slow the guesser, not the owner (nardy.web.routers.auth.AuthLimits; issue 41, item 2).

Through the HTTP API, each client at an address of its own (the test client's peer address, what
:func:`nardy.web.deps.client_key` reads): the owner logs in from a clean address while another address guesses
their password; the guesser's address is limited on that name and across names; a name guessed at from many
addresses is tried by addresses that failed only one at a time, a try a minute. Then the limits alone, with a
clock of the test's, over an hour: what a guesser gets, as docs/security.md states it.
"""

from __future__ import annotations

import warnings

import pytest

pytest.importorskip("httpx")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from argon2 import PasswordHasher  # noqa: E402

from nardy.web.app import create_app  # noqa: E402
from nardy.web.routers.auth import AuthLimits  # noqa: E402

#: Real argon2id, with the least work it allows (the tests make dozens of attempts).
CHEAP = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)
OWNER_ADDRESS = "198.51.100.1"
GUESSER = "203.0.113.66"
PASSWORD = "the owner's password"


@pytest.fixture
def now():
    return [10_000.0]


@pytest.fixture
def app(tmp_path, now):
    app = create_app(f"sqlite:///{tmp_path / 'limits.db'}")
    app.state.password_hasher = CHEAP
    app.state.auth_limits = AuthLimits(clock=lambda: now[0])
    with TestClient(app, client=(OWNER_ADDRESS, 5000)) as owner:  # the app's lifespan, and the owner's account
        assert owner.post("/api/auth/register", json={"name": "Victim", "password": PASSWORD}).status_code == 201
        yield app


def at(app, address: str) -> TestClient:
    """A client of ``app`` at ``address`` (no lifespan of its own: the fixture's runs)."""
    return TestClient(app, client=(address, 40000))


def login(c: TestClient, password: str, name: str = "Victim"):
    return c.post("/api/auth/login", json={"name": name, "password": password})


def refused_429(r) -> int:
    assert r.status_code == 429, r.text
    assert r.json()["code"] == "too_many_logins"
    return int(r.headers["Retry-After"])


def test_the_owner_logs_in_from_their_address_after_another_address_failed_five_times(app, now):
    guesser = at(app, GUESSER)
    for i in range(5):
        assert login(guesser, f"guess {i}").status_code == 401
        now[0] += 1
    refused_429(login(guesser, "guess 5"))
    refused_429(login(guesser, PASSWORD))  # the right password does not help the guesser's address now
    r = login(at(app, OWNER_ADDRESS), PASSWORD)
    assert r.status_code == 200, r.text
    assert r.json()["user"]["name"] == "Victim"


def test_the_guessers_address_is_limited_on_that_name_for_fifteen_minutes(app, now):
    guesser = at(app, GUESSER)
    for i in range(5):
        assert login(guesser, f"guess {i}", name="VICTIM").status_code == 401
        now[0] += 10
    assert refused_429(login(guesser, "guess 5", name="victim")) == 900 - 50
    now[0] += 850
    assert login(guesser, "guess 6").status_code == 401  # the first failure has left the window


def test_the_per_address_limit_holds_across_names(app, now):
    guesser = at(app, GUESSER)
    for i in range(20):  # 4 names, 5 guesses each: no name is refused on its own
        assert login(guesser, f"guess {i}", name=f"user{i % 4}").status_code == 401
        now[0] += 1
    wait = refused_429(login(guesser, "guess", name="a fresh name"))
    assert wait == 900 - 20
    # another address is not limited by this one
    assert login(at(app, "203.0.113.67"), "guess", name="a fresh name").status_code == 401
    assert login(at(app, OWNER_ADDRESS), PASSWORD).status_code == 200


def test_a_name_under_attack_is_tried_by_addresses_that_failed_once_a_minute_and_by_clean_ones_freely(app, now):
    # five addresses fail once each: the name is under attack (5 failures in 15 minutes)
    bots = [at(app, f"203.0.113.{i}") for i in range(1, 6)]
    for b in bots:
        assert login(b, "guess").status_code == 401
    # an address that failed tries again: it takes the name's turn; the next has to wait a minute
    assert login(bots[0], "guess 2").status_code == 401
    assert refused_429(login(bots[1], "guess 2")) == 60
    now[0] += 30
    assert refused_429(login(bots[2], "guess 2")) == 30
    # an address that failed elsewhere (another name) is slowed on this name as well
    other = at(app, "203.0.113.77")
    assert login(other, "guess", name="someone else").status_code == 401
    assert refused_429(login(other, "guess")) == 30
    # a clean address is not slowed: a new guesser gets a try, and the owner gets in
    assert login(at(app, "203.0.113.99"), "guess").status_code == 401
    assert login(at(app, OWNER_ADDRESS), PASSWORD).status_code == 200
    now[0] += 30
    assert login(bots[1], "guess 2").status_code == 401
    # the name stays under attack for the addresses that failed while its failures are recent
    assert refused_429(login(bots[2], "guess 2")) == 60


def test_the_owners_success_forgets_their_own_failures_only(app, now):
    owner = at(app, OWNER_ADDRESS)
    for _ in range(4):
        assert login(owner, "a typo").status_code == 401
    assert login(owner, PASSWORD).status_code == 200
    limits: AuthLimits = app.state.auth_limits
    assert limits.login_name.count("victim") == 0 and limits.login_failed.count(OWNER_ADDRESS) == 0
    guesser = at(app, GUESSER)
    for _ in range(3):
        assert login(guesser, "guess").status_code == 401
    owner.cookies.clear()  # logged in: a new log-in without its session
    assert login(owner, PASSWORD).status_code == 200
    assert limits.login_name.count("victim") == 3 and limits.login_failed.count(GUESSER) == 3


# ----- the figures (docs/security.md), the limits alone over an hour ----------------------------------------------
def tries_in_an_hour(limits: AuthLimits, now: list[float], addresses: list[str], key: str, step: float) -> int:
    """Every ``step`` seconds for an hour each address tries ``key`` when it may (and fails); the tries made."""
    made = 0
    end = now[0] + 3600
    while now[0] < end:
        for a in addresses:
            if limits.login_wait(key, a) == 0:
                limits.login_start(key, a)
                made += 1
        now[0] += step
    return made


def test_one_address_gets_twenty_tries_an_hour_at_one_name_and_eighty_in_all():
    now = [0.0]
    limits = AuthLimits(clock=lambda: now[0])
    assert tries_in_an_hour(limits, now, [GUESSER], "victim", 1.0) == 20
    now[0] += 3600
    made = 0
    for k in range(360):  # a new name every 10 s
        if limits.login_wait(f"name{k}", GUESSER) == 0:
            limits.login_start(f"name{k}", GUESSER)
            made += 1
        now[0] += 10
    assert made == 80


def test_many_addresses_against_one_name_get_one_try_each_and_sixty_more_an_hour():
    now = [0.0]
    limits = AuthLimits(clock=lambda: now[0])
    bots = [f"10.0.0.{i}" for i in range(200)]
    # each address once while it had no failure, then the name's turns: one a minute (at 5, 65, ... 3545 s)
    assert tries_in_an_hour(limits, now, bots, "victim", 5.0) == 200 + 60
    # the owner, at a clean address, may log in at once all the while
    assert limits.login_wait("victim", OWNER_ADDRESS) == 0
