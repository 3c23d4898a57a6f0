"""deploy/nginx.conf is a working proxy for several nardy processes (docs/deploy.md): ``nginx -t`` accepts it,
and through a real nginx on loopback (TLS, the WebSocket upgrade, X-Forwarded-Proto) two players play live
across two server processes on one PostgreSQL, and go on when one process is SIGKILLed.

The shipped set-up takes the client's address from what nginx sees, and nardy believes forwarded headers from
the proxy's address only (deploy/compose.yaml): a client naming its own address in ``X-Forwarded-For``, through
nginx or directly, is still counted under its real one (issue 41), shown with the limit of new guests per address.

The file is tested as shipped, with only what a loopback run must change: the upstream addresses, the ports,
the certificate paths (a self-signed one made here), the pid/log/temp paths, and ``http2 on`` where this
nginx is older than 1.25.1 or has no HTTP/2 module. Skipped without nginx or openssl on the PATH, or without PostgreSQL
(``NARDY_TEST_POSTGRES_URL``)."""

from __future__ import annotations

import re
import shutil
import signal
import ssl
import subprocess
import time
from pathlib import Path

import pytest

from .helpers import ROOT, Server, free_port
from .test_multiprocess import _move, pg_db  # noqa: F401  (pg_db: the fixture)

NGINX = shutil.which("nginx") or (shutil.which("nginx", path="/usr/sbin:/sbin"))
OPENSSL = shutil.which("openssl")

pytestmark = pytest.mark.skipif(not (NGINX and OPENSSL), reason="nginx and openssl are needed (apt install nginx)")


def loopback_config(tmp, ports: list[int], http_port: int, https_port: int) -> str:
    conf = (ROOT / "deploy" / "nginx.conf").read_text()
    conf = conf.replace("server nardy1:8000", f"server 127.0.0.1:{ports[0]}")
    conf = conf.replace("server nardy2:8000", f"server 127.0.0.1:{ports[1]}")
    conf = conf.replace("listen 80;", f"listen 127.0.0.1:{http_port};")
    conf = conf.replace("listen 443 ssl;", f"listen 127.0.0.1:{https_port} ssl;")
    conf = conf.replace("/etc/nginx/certs/", f"{tmp}/")
    head = f"worker_processes 1;\npid {tmp}/nginx.pid;\nerror_log {tmp}/error.log;"
    conf = conf.replace("worker_processes auto;", head)
    conf = conf.replace("worker_connections 8192;", "worker_connections 512;")
    temps = "".join(f"    {k}_temp_path {tmp}/{k};\n" for k in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    conf = conf.replace("http {\n", f"http {{\n    access_log {tmp}/access.log;\n{temps}", 1)
    out = subprocess.run([NGINX, "-V"], capture_output=True, text=True).stderr
    found = re.search(r"nginx/(\d+)\.(\d+)\.(\d+)", out)
    version = tuple(int(x) for x in found.groups()) if found else (0, 0, 0)
    if version < (1, 25, 1) or "http_v2_module" not in out:  # the `http2` directive is nginx 1.25.1's
        conf = re.sub(r"\n\s*http2 on;", "", conf)
    return conf


def start_nginx(folder: Path, conf: str) -> subprocess.Popen:
    """nginx with the config text ``conf`` (written to ``folder/nginx.conf``, checked with ``nginx -t``), once it
    answers ``/api/health`` through its https listener (the config's ``listen ... ssl`` port)."""
    import httpx

    (folder / "nginx.conf").write_text(conf)
    check = subprocess.run([NGINX, "-t", "-c", str(folder / "nginx.conf"), "-p", str(folder)], capture_output=True)
    assert check.returncode == 0, check.stderr
    nginx = subprocess.Popen([NGINX, "-c", str(folder / "nginx.conf"), "-p", str(folder), "-g", "daemon off;"])
    port = re.search(r"listen 127\.0\.0\.1:(\d+) ssl", conf).group(1)
    for _ in range(100):
        try:
            httpx.get(f"https://localhost:{port}/api/health", verify=False, timeout=2)
            break
        except httpx.HTTPError:
            time.sleep(0.1)
    return nginx


@pytest.fixture
def proxied(pg_db, tmp_path):  # noqa: F811
    subprocess.run(
        [OPENSSL, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost"]
        + ["-keyout", str(tmp_path / "privkey.pem"), "-out", str(tmp_path / "fullchain.pem")],
        check=True,
        capture_output=True,
    )
    servers = [Server(pg_db, extra=("--no-warm-up",)) for _ in range(2)]
    nginx = None
    try:
        for s in servers:
            s.start()
        https_port = free_port()
        nginx = start_nginx(tmp_path, loopback_config(tmp_path, [s.port for s in servers], free_port(), https_port))
        yield f"https://localhost:{https_port}", servers
    finally:
        if nginx is not None:
            nginx.terminate()
            nginx.wait(10)
        for s in servers:
            s.stop()


class Browser:
    """A player through the proxy: httpx with its cookies (Secure ones too: https), the CSRF token."""

    def __init__(self, base: str):
        import httpx

        self.base = base
        self.http = httpx.Client(base_url=base, verify=False, timeout=60)

    def post(self, path: str, body=None, status: int = 200) -> dict:
        headers = {"X-CSRF-Token": self.http.cookies.get("nardy_csrf") or ""}
        r = self.http.post(path, json=body or {}, headers=headers)
        assert r.status_code == status, (r.status_code, r.text)
        return r.json()

    def get(self, path: str) -> dict:
        r = self.http.get(path)
        assert r.status_code == 200, (r.status_code, r.text)
        return r.json()


class SecureLive:
    """The live channel through the proxy (wss://)."""

    def __init__(self, base: str, player: Browser, gid: str):
        from websockets.sync.client import connect

        ctx = ssl.create_default_context()
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
        cookies = "; ".join(f"{k}={v}" for k, v in player.http.cookies.items())
        self.ws = connect(
            base.replace("https://", "wss://") + f"/api/games/{gid}/live",
            additional_headers={"Cookie": cookies, "Origin": base},
            ssl=ctx,
            open_timeout=30,
        )

    def wait_for(self, seq: int, timeout: float = 5.0) -> dict:
        import json

        end = time.monotonic() + timeout
        while time.monotonic() < end:
            try:
                msg = self.ws.recv(timeout=max(0.01, end - time.monotonic()))
            except TimeoutError:
                break
            if msg.startswith("{"):
                v = json.loads(msg).get("view")  # presence and chat messages carry none (issue 43)
                if v is not None and v["seq"] >= seq:
                    return v
        raise AssertionError(f"no view at seq {seq} within {timeout} s")


# ----- the client's address: from the proxy's view, believed from the proxy only ---------------------------------
#: The loopback address nginx speaks to nardy from in these tests (``proxy_bind``): the stand-in for the proxy's
#: fixed address of deploy/compose.yaml.
PROXY_LOOPBACK = "127.0.0.2"


def compose_default(value: str) -> str:
    """``${VAR:-default}`` as compose reads it with ``VAR`` unset: ``default`` (other text unchanged)."""
    return re.sub(r"\$\{[A-Z_]+:-([^}]*)\}", r"\1", str(value))


def shipped_compose() -> dict:
    import yaml

    return yaml.safe_load((ROOT / "deploy" / "compose.yaml").read_text())


def shipped_trust() -> str:
    """The FORWARDED_ALLOW_IPS of deploy/compose.yaml for this loopback run: the proxy's compose address becomes
    :data:`PROXY_LOOPBACK` (any other value, ``*`` above all, is kept as shipped)."""
    compose = shipped_compose()
    trusted = compose_default(compose["x-nardy"]["environment"]["FORWARDED_ALLOW_IPS"])
    proxy = compose["services"]["proxy"].get("networks", {})
    proxy = proxy.get("edge", {}) if isinstance(proxy, dict) else {}
    address = compose_default(proxy.get("ipv4_address", ""))
    return PROXY_LOOPBACK if address and trusted == address else trusted


def test_compose_believes_forwarded_headers_from_the_proxys_fixed_address_only():
    import ipaddress

    compose = shipped_compose()
    trusted = compose_default(compose["x-nardy"]["environment"]["FORWARDED_ALLOW_IPS"])
    proxy = compose["services"]["proxy"]
    address = compose_default(proxy["networks"]["edge"]["ipv4_address"])
    assert trusted == address == "172.30.253.2"
    net = compose["networks"]["edge"]["ipam"]["config"][0]
    subnet, others = (ipaddress.ip_network(compose_default(net[k])) for k in ("subnet", "ip_range"))
    # the proxy's address is on the network, and outside the range the other containers' addresses come from
    assert ipaddress.ip_address(address) in subnet and ipaddress.ip_address(address) not in others
    assert others.subnet_of(subnet)  # type: ignore[arg-type]
    for name in ("nardy1", "nardy2"):
        service = compose["services"][name]
        assert "edge" in service["networks"] and "ports" not in service  # reached through the proxy only
    conf = (ROOT / "deploy" / "nginx.conf").read_text()
    assert "proxy_set_header X-Forwarded-For $remote_addr;" in conf


@pytest.fixture(scope="module")
def one_proxied(tmp_path_factory):
    """One nardy process (SQLite) trusting what deploy/compose.yaml trusts, behind the shipped nginx (speaking to
    nardy from :data:`PROXY_LOOPBACK`, as the proxy speaks from its fixed address): ``(base, server)``."""
    tmp = tmp_path_factory.mktemp("edge-nginx")
    subprocess.run(
        [OPENSSL, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost"]
        + ["-keyout", str(tmp / "privkey.pem"), "-out", str(tmp / "fullchain.pem")],
        check=True,
        capture_output=True,
    )
    server = Server(f"sqlite:///{tmp / 'edge.db'}", extra=("--no-warm-up", f"--forwarded-allow-ips={shipped_trust()}"))
    server.start()
    nginx = None
    try:
        https_port = free_port()
        conf = loopback_config(tmp, [server.port, server.port], free_port(), https_port)
        conf = conf.replace(
            "proxy_pass http://nardy;", f"proxy_pass http://nardy;\n            proxy_bind {PROXY_LOOPBACK};"
        )
        nginx = start_nginx(tmp, conf)
        yield f"https://localhost:{https_port}", server
    finally:
        if nginx is not None:
            nginx.terminate()
            nginx.wait(10)
        server.stop()


def new_guests(client, n: int, spoof: str) -> list:
    """``n`` new guests asked by ``client`` (a fresh page each: no cookie), each naming another address of the
    ``spoof`` network in X-Forwarded-For and https in X-Forwarded-Proto: the answers."""
    answers = []
    for i in range(n):
        client.cookies.clear()
        headers = {"X-Forwarded-For": f"{spoof}.{i % 250 + 1}", "X-Forwarded-Proto": "https"}
        answers.append(client.post("/api/auth/guest", json={"name": f"Guest {i}"}, headers=headers))
    return answers


def test_a_client_naming_its_own_address_through_nginx_is_counted_under_its_real_one(one_proxied):
    import httpx

    from nardy.web.routers.auth import AuthLimits

    base, _ = one_proxied
    limit = AuthLimits().guests.limit
    assert limit == 30
    with httpx.Client(base_url=base, verify=False, timeout=30) as c:
        answers = new_guests(c, limit + 1, "203.0.113")
    assert [r.status_code for r in answers[:limit]] == [200] * limit
    # the proxy's own X-Forwarded-Proto is believed (it speaks from the trusted address): Secure cookies
    assert all("secure" in v.lower() for v in answers[0].headers.get_list("set-cookie"))
    # every request named another address; all were counted under the one nginx saw
    last = answers[limit]
    assert last.status_code == 429 and last.json()["code"] == "too_many_new_players", last.text
    assert int(last.headers["Retry-After"]) > 0


def test_a_direct_request_naming_an_address_is_not_believed(one_proxied):
    import httpx

    from nardy.web.routers.auth import AuthLimits

    _, server = one_proxied
    limit = AuthLimits().guests.limit
    # a peer that is not the proxy (it reaches nardy past nginx) sends forwarded headers of its own
    direct = httpx.HTTPTransport(local_address="127.0.0.3")
    with httpx.Client(base_url=server.url, transport=direct, timeout=30) as c:
        answers = new_guests(c, limit + 1, "198.51.100")
    assert [r.status_code for r in answers[:limit]] == [200] * limit
    assert not any("secure" in v.lower() for v in answers[0].headers.get_list("set-cookie"))  # not https either
    assert answers[limit].status_code == 429 and answers[limit].json()["code"] == "too_many_new_players"


def test_nginx_config_proxies_live_play_over_tls_across_two_processes_and_survives_a_killed_one(proxied):
    base, servers = proxied
    a, b = Browser(base), Browser(base)
    r = a.http.post("/api/auth/guest", json={"name": "Ann"})
    assert r.status_code == 200
    # X-Forwarded-Proto https reached the server: the log-in cookies are Secure
    assert all("secure" in c.lower() for c in r.headers.get_list("set-cookie")), r.headers.get_list("set-cookie")
    b.post("/api/auth/guest", {"name": "Bob"})
    g = a.post("/api/games", {"game": "long", "opponent": "online", "length": 1}, status=201)
    assert g["invite_url"].startswith(base + "/join/")  # the proxy's scheme and host
    gid = g["id"]
    v = b.post(f"/api/games/{gid}/join", {"invite": g["invite"]})
    players = {0: a, 1: b}
    live = {0: SecureLive(base, a, gid), 1: SecureLive(base, b, gid)}
    for k in range(16):
        if k == 8:
            servers[0].proc.send_signal(signal.SIGKILL)  # one process dies: nginx goes on with the other
            servers[0].proc.wait(10)
            live = {side: SecureLive(base, players[side], gid) for side in (0, 1)}  # the pages reconnect
        mover = v["to_act"]
        v = _move(players[mover], gid, players[mover].get(f"/api/games/{gid}"))
        seen = live[1 - mover].wait_for(v["seq"])
        assert seen["seq"] == v["seq"] and seen["history"] == v["history"]
