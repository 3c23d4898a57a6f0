"""A guest may not take a registered player's name or a look-alike of it, and no account may take a look-alike
of another's (nardy.web.names.name_look, nardy.web.routers.auth; issue 41, item 11).

"Аnn" below starts with a Cyrillic А (U+0410), "Αnn" with a Greek Α (U+0391), "Ａｎｎ" is full-width.
"""

from __future__ import annotations

import datetime as dt

import pytest

pytest.importorskip("httpx")

import sqlalchemy as sa  # noqa: E402
from argon2 import PasswordHasher  # noqa: E402

from nardy.web.app import create_app  # noqa: E402
from nardy.web.names import name_look  # noqa: E402
from nardy.web.store.db import normalise_url, users  # noqa: E402
from nardy.web.store.storage import NameTaken, Storage  # noqa: E402

from .players import PlayerClient  # noqa: E402

CHEAP = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)
CYRILLIC_ANN = "\u0410nn"
GREEK_ANN = "\u0391nn"


@pytest.fixture
def app(tmp_path):
    app = create_app(f"sqlite:///{tmp_path / 'names.db'}")
    app.state.password_hasher = CHEAP
    with PlayerClient(app) as owner:  # the app's lifespan, and the account "Ann"
        r = owner.post("/api/auth/register", json={"name": "Ann", "password": "ann's password"})
        assert r.status_code == 201, r.text
        yield app


def client(app, address="203.0.113.5") -> PlayerClient:
    return PlayerClient(app, client=(address, 40000))


def name_taken(r, name: str) -> None:
    assert r.status_code == 409, r.text
    body = r.json()
    assert body["code"] == "name_taken" and body["error"] == "NameTaken" and body["params"] == {"name": name}
    assert body["message"] == f"the name {name} is taken"


# ----- the look of a name ------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "a, b",
    [
        ("Ann", CYRILLIC_ANN),
        ("Ann", GREEK_ANN),
        ("Ann", "ＡＮＮ"),
        ("Ann", "aNN"),
        ("Hopa", "Нора"),  # Cyrillic Н, о, р, а
        ("Bekmax", "ВЕКМАХ"),  # Cyrillic capitals В Е К М А Х
        ("Ypok", "урок"),
        ("Cepe", "сере"),
        ("Tom", "Тоm"),
        ("Zeno", "Ζeno"),  # Greek capital zeta
        ("Pëtp", "Рётр"),  # ё: е with a diaeresis, as ë is e with one
    ],
)
def test_look_alike_names_have_one_look(a, b):
    assert a != b and name_look(a) == name_look(b)


@pytest.mark.parametrize("a, b", [("Ann", "Anna"), ("Ivan", "Иван"), ("Petr", "Пётр"), ("Ann", "Änn"), ("Bob", "B0b")])
def test_names_that_read_differently_keep_their_looks_apart(a, b):
    assert name_look(a) != name_look(b)


# ----- guests --------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["Ann", "ann", "  ANN ", CYRILLIC_ANN, GREEK_ANN, "Ａｎｎ"])
def test_a_guest_may_not_take_an_accounts_name_or_a_look_alike(app, name):
    r = client(app).post("/api/auth/guest", json={"name": name})
    name_taken(r, name.strip())
    ru = client(app).post("/api/auth/guest?lang=ru", json={"name": name}).json()
    assert ru["message"] == f"имя {name.strip()} уже занято"


def test_a_guest_may_not_be_renamed_to_an_accounts_look_alike(app):
    c = client(app)
    me = c.guest("Visitor")
    name_taken(c.post("/api/auth/guest", json={"name": CYRILLIC_ANN}), CYRILLIC_ANN)
    assert c.get("/api/me").json()["user"] == me


def test_a_guest_may_take_names_that_only_resemble_one(app):
    for name in ("Anna", "Иван", "Änn", "Guest"):
        assert client(app).post("/api/auth/guest", json={"name": name}).json()["user"]["name"] == name


def test_a_game_started_without_a_session_under_an_accounts_look_alike_is_refused(app):
    r = client(app).post("/api/games", json={"opponent": "human", "players": [CYRILLIC_ANN, "Bob"]})
    name_taken(r, CYRILLIC_ANN)
    ok = client(app).post("/api/games", json={"opponent": "human"})  # the server's own guest name: always allowed
    assert ok.status_code == 201, ok.text


# ----- accounts ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", [CYRILLIC_ANN, GREEK_ANN, "Ａｎｎ", "ANN"])
def test_a_registration_may_not_take_a_look_alike_of_an_accounts_name(app, name):
    r = client(app).post("/api/auth/register", json={"name": name, "password": "another password"})
    name_taken(r, name)


def test_a_look_alike_registered_first_keeps_the_latin_name_out_too(app):
    c = client(app)
    assert c.post("/api/auth/register", json={"name": "Вех", "password": "password 1"}).status_code == 201
    c.cookies.clear()
    name_taken(c.post("/api/auth/register", json={"name": "Bex", "password": "password 2"}), "Bex")


def test_a_guest_registering_may_not_take_a_look_alike(app):
    c = client(app)
    c.guest("Visitor")
    name_taken(c.post("/api/auth/register", json={"name": CYRILLIC_ANN, "password": "password 1"}), CYRILLIC_ANN)
    assert c.get("/api/me").json()["user"]["guest"] is True


@pytest.mark.parametrize("name", ["Guest", "GUEST", "Гость", "Гocть"])  # the last: Latin o and c
def test_the_servers_name_for_guests_is_not_to_be_registered(app, name):
    name_taken(client(app).post("/api/auth/register", json={"name": name, "password": "password 1"}), name)


def test_the_database_keeps_two_look_alike_accounts_out_even_past_the_check(tmp_path):
    st = Storage(f"sqlite:///{tmp_path / 'race.db'}")
    st.create_user("Ann", "hash")
    with pytest.raises(NameTaken):  # as a second registration racing the first would find it
        st.create_user(CYRILLIC_ANN, "hash")
    guest = st.create_user("Visitor")
    with pytest.raises(NameTaken):
        st.register_guest(guest.id, GREEK_ANN, "hash")
    assert st.account_like("ａｎｎ").name == "Ann" and st.account_like("Anna") is None
    st.close()


def test_accounts_made_before_get_their_look_the_oldest_first(empty_db):
    """A database at revision 0004 with two accounts that look alike: upgraded, the older one has the look."""
    from alembic import command

    from nardy.web.store.db import _alembic_config

    st = Storage(empty_db)
    older = st.create_user("Ann", "hash")
    st.close()
    eng = sa.create_engine(normalise_url(empty_db), poolclass=sa.pool.NullPool)
    with eng.begin() as c:
        cfg = _alembic_config()
        cfg.attributes["connection"] = c
        command.downgrade(cfg, "0004")
        made = c.execute(sa.select(users.c.created).where(users.c.id == older.id)).scalar_one()
        c.execute(
            sa.text(
                "INSERT INTO nardy_users (id, name, name_key, password_hash, kind, created) "
                "VALUES ('b', :n, :k, 'hash', 'account', :t)"
            ),
            {"n": CYRILLIC_ANN, "k": CYRILLIC_ANN.casefold(), "t": made + dt.timedelta(seconds=1)},
        )
    eng.dispose()
    st = Storage(empty_db)  # upgraded to the newest revision
    with st.engine.connect() as c:
        looks = dict(c.execute(sa.select(users.c.id, users.c.name_look)).all())
    assert looks == {older.id: "ann", "b": None}
    assert st.account_like(CYRILLIC_ANN).id == older.id and st.user_by_name(CYRILLIC_ANN).id == "b"
    st.close()
