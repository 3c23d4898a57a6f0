"""``nardy serve``: the web app under uvicorn; ``--workers N`` runs N server processes on one port (each its own
``SO_REUSEPORT`` socket; a supervisor starts a new one when one dies), which needs PostgreSQL (docs/deploy.md)."""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import socket
import subprocess
import sys
import time

import click

from .edge import FD_RESERVE, EdgeLimits, connection_cap, raise_file_limit

__all__ = ["serve"]


def _warm_up():
    """Fill numba's on-disk cache in a child process (see :mod:`nardy.web.warmup`), so that the server
    loads compiled kernels instead of compiling them in its own, long-lived memory."""
    click.echo("nardy: preparing the engine (the first start after an install compiles it)...", err=True)
    try:
        r = subprocess.run([sys.executable, "-m", "nardy.web.warmup"], timeout=600)
        if r.returncode != 0:
            click.echo("nardy: warm-up failed; the engine compiles on first use", err=True)
    except (OSError, subprocess.TimeoutExpired) as e:  # pragma: no cover - only a speed-up
        click.echo(f"nardy: warm-up skipped ({e})", err=True)


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535), help="Port to listen on.")
@click.option(
    "--database",
    "database",
    default=None,
    envvar="NARDY_DATABASE_URL",
    show_envvar=True,
    help="Where saved games live: sqlite:///PATH, a file path, or postgresql://USER:PASS@HOST/DB "
    "(needs the extra nardy[postgres]). Default: an SQLite file in the user data directory.",
)
@click.option(
    "--log-level",
    default="warning",
    show_default=True,
    type=click.Choice(["critical", "error", "warning", "info", "debug"]),
    help="uvicorn's log level.",
)
@click.option(
    "--warm-up/--no-warm-up",
    default=True,
    show_default=True,
    help="Before serving, compile the engine in a child process (numba's disk cache): less memory.",
)
@click.option(
    "--allowed-host",
    "allowed_hosts",
    multiple=True,
    metavar="NAME",
    help="A host name the server answers to (Host header; repeat for several). Default: the loopback "
    "names when listening on a loopback address, the address itself otherwise, any name when "
    "listening on all addresses (0.0.0.0 or ::).",
)
@click.option(
    "--allow-seeded-dice",
    is_flag=True,
    default=False,
    help="Accept a seed for new games (reproducible dice, for analysis and tests only: never for games "
    "played for real, whose dice nobody must be able to predict).",
)
@click.option(
    "--bot-workers",
    default=2,
    show_default=True,
    type=click.IntRange(1, 64),
    help="Threads for the computer's work (searches run at once); the rest queue fairly per client.",
)
@click.option(
    "--bot-queue",
    default=512,
    show_default=True,
    type=click.IntRange(1, 100000),
    help="Computer requests that may wait at once; more are answered 503 with Retry-After.",
)
@click.option(
    "--secure-cookies",
    is_flag=True,
    default=False,
    help="Mark the log-in cookies Secure (sent over https only) on every answer: for a server behind a "
    "TLS proxy that does not pass X-Forwarded-Proto. Without it they are Secure on https requests.",
)
@click.option(
    "--insecure-password-hashing",
    is_flag=True,
    default=False,
    help="Hash new passwords with argon2id at its cheapest (1 pass, 1 MiB) instead of 3 passes over 64 MiB: for "
    "load benchmarks that make many accounts (bench/online_load.py), never for a server with real accounts.",
)
@click.option(
    "--workers",
    default=1,
    show_default=True,
    type=click.IntRange(1, 64),
    help="Server processes on this port (several need PostgreSQL: they share the games, the live channel "
    "and the clocks through it; see docs/deploy.md).",
)
@click.option(
    "--forwarded-allow-ips",
    default=None,
    envvar="FORWARDED_ALLOW_IPS",
    show_envvar=True,
    metavar="ADDRESSES",
    help="Comma-separated addresses (or networks) of the reverse proxies whose X-Forwarded-For and "
    "X-Forwarded-Proto are believed, and whose connections --max-connections-per-address does not bound "
    "('*': any peer, which lets every client choose its own address: only where nothing but the proxy "
    "can reach the server). Default: 127.0.0.1.",
)
@click.option(
    "--max-header-size",
    default=32768,
    show_default=True,
    type=click.IntRange(1024, 1 << 20),
    metavar="BYTES",
    help="Bytes of a request's head (request line and headers, WebSocket handshakes too); more: 431.",
)
@click.option(
    "--header-timeout",
    default=10.0,
    show_default=True,
    type=click.FloatRange(0.1, 600),
    metavar="SECONDS",
    help="Seconds a request's head may take to arrive whole; else 408 and the connection is closed.",
)
@click.option(
    "--body-timeout",
    default=30.0,
    show_default=True,
    type=click.FloatRange(0.1, 3600),
    metavar="SECONDS",
    help="Seconds a request's body may take to arrive whole after its head; else 408 and the connection is closed.",
)
@click.option(
    "--max-connections",
    default=4096,
    show_default=True,
    type=click.IntRange(16, 1 << 20),
    help="Connections (HTTP and WebSocket) one server process holds at once; more are answered 503 and closed. "
    "Lowered to the open-file limit less 256 handles kept for the database and the clocks.",
)
@click.option(
    "--max-connections-per-address",
    default=64,
    show_default=True,
    type=click.IntRange(1, 1 << 20),
    help="Connections one client address holds at once in one process (the trusted proxies excepted: "
    "--forwarded-allow-ips); more are answered 429 and closed.",
)
def serve(
    host,
    port,
    database,
    log_level,
    warm_up,
    allowed_hosts,
    allow_seeded_dice,
    bot_workers,
    bot_queue,
    secure_cookies,
    insecure_password_hashing,
    workers,
    forwarded_allow_ips,
    max_header_size,
    header_timeout,
    body_timeout,
    max_connections,
    max_connections_per_address,
):
    """Play in the browser and use the engine over HTTP (API documented at /docs)."""
    try:
        import uvicorn
    except ImportError:  # pragma: no cover
        raise click.ClickException("nardy serve needs uvicorn and fastapi: pip install nardy") from None
    _limit_malloc_arenas()
    from .guard import host_names_for
    from .store.storage import Storage, StorageError

    try:
        storage = Storage(database)  # made (or migrated) once here, before any worker starts
    except StorageError as e:
        raise click.ClickException(str(e)) from None
    if workers > 1 and storage.backend != "postgresql":
        storage.close()
        raise click.ClickException(
            f"--workers {workers} needs PostgreSQL (--database postgresql://...): the processes share games, "
            f"live notifications and game locks through it, and SQLite ({storage.safe_url}) is the database "
            f"of one process; use --workers 1 with SQLite"
        )
    settings = {
        "database": storage.url,
        "allowed_hosts": list(allowed_hosts) if allowed_hosts else host_names_for(host),
        "allow_seeds": allow_seeded_dice,
        "bot_workers": bot_workers,
        "bot_queue": bot_queue,
        "secure_cookies": secure_cookies,
        "insecure_password_hashing": insecure_password_hashing,
    }
    if insecure_password_hashing:
        click.echo("nardy: WARNING: --insecure-password-hashing: passwords hashed cheaply (benchmarks only)", err=True)
    if warm_up:
        _warm_up()
    trusted = forwarded_allow_ips or "127.0.0.1"  # uvicorn's default
    proxies = {"forwarded_allow_ips": trusted}
    files = raise_file_limit()  # the workers inherit it
    cap = connection_cap(max_connections, files)
    if cap < max_connections:
        click.echo(
            f"nardy: at most {cap} connections per process (the open-file limit is {files}; "
            f"{FD_RESERVE} are kept for the database and the clocks)",
            err=True,
        )
    proxies["edge"] = EdgeLimits(
        max_header_bytes=max_header_size,
        header_timeout=header_timeout,
        body_timeout=body_timeout,
        max_connections=cap,
        per_address=max_connections_per_address,
        trusted=trusted,
    )
    shown = "localhost" if host in ("127.0.0.1", "::1") else (f"[{host}]" if ":" in host else host)
    where = storage.safe_url
    if workers > 1:
        storage.close()
        _supervise(workers, settings, host, port, log_level, proxies, shown, where)
        return
    sock = _listen(host, port)
    bound = sock.getsockname()[1]
    config = uvicorn.Config(
        _make_app(settings, storage), host=host, port=bound, log_level=log_level, **_uvicorn(proxies)
    )
    click.echo(f"nardy: http://{shown}:{bound}/  (API docs: /docs; games in {where})", err=True)
    sys.stderr.flush()
    try:
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        sock.close()


#: uvicorn's settings for every server process. The live channels' messages are sent uncompressed: a game's view
#: is a few kilobytes, sent to two or three connections about once a second, and permessage-deflate cost
#: the server a zlib stream per connection and a compression per message (its memory too). uvicorn picks
#: httptools and uvloop (dependencies) for HTTP and the event loop where they are installed. A WebSocket message
#: a client sends is at most 64 KiB (uvicorn's default is 16 MiB; the longest a client has to send, an action,
#: is 2,048 bytes: nardy.web.routers.online.MAX_MESSAGE); a longer one closes the connection (1009).
_UVICORN = {"ws_per_message_deflate": False, "ws_max_size": 65536}


def _uvicorn(proxies: dict) -> dict:
    """uvicorn's settings for one server process: :data:`_UVICORN`, the trusted proxies
    (``forwarded_allow_ips``), and the HTTP and WebSocket protocols bounded by ``proxies["edge"]``
    (:mod:`nardy.web.edge`: request heads, slow requests, connections)."""
    from .edge import uvicorn_protocols

    rest = {k: v for k, v in proxies.items() if k != "edge"}
    return {**_UVICORN, **rest, **uvicorn_protocols(proxies["edge"])}


def _make_app(settings: dict, storage=None):
    from .app import create_app
    from .botwork import BotWork
    from .store.storage import Storage

    app = create_app(
        storage=storage if storage is not None else Storage(settings["database"]),
        allowed_hosts=settings["allowed_hosts"],
        allow_seeds=settings["allow_seeds"],
        bot_work=BotWork(workers=settings["bot_workers"], max_queued=settings["bot_queue"]),
        secure_cookies=settings["secure_cookies"],
    )
    if settings.get("insecure_password_hashing"):
        from .routers.auth import INSECURE_HASHER

        app.state.password_hasher = INSECURE_HASHER
    app.state.freeze_gc = True  # a long-running server: its start-up objects leave the collector's walks (app.py)
    return app


#: A worker that exits within this many seconds of its start failed to start; three in a row stop the server.
_QUICK_EXIT = 10.0


def _supervise(n: int, settings: dict, host: str, port: int, log_level: str, proxies: dict, shown: str, where: str):
    """Run ``n`` worker processes on ``host:port`` until SIGINT/SIGTERM, starting a new one when one dies.

    Each worker listens on a socket of its own bound with ``SO_REUSEPORT``, so the kernel spreads new
    connections evenly over them (one listening socket shared by all would hand most connections to
    whichever process happens to wait in ``accept``: measured by ``bench/online_load.py``, 10 to 1). The
    parent first binds the port plainly to report a port in use, and then keeps a bound, not listening,
    ``SO_REUSEPORT`` socket, which holds the port for its workers (another user cannot join the group)."""
    import multiprocessing
    import signal
    import threading

    probe = _listen(host, port)  # a port in use is reported here, before any worker starts
    bound = probe.getsockname()[1]
    probe.close()
    holder = _reuse_port_socket(host, bound, listen=False)
    ctx = multiprocessing.get_context("spawn")
    args = (settings, host, bound, log_level, proxies)

    def start():
        p = ctx.Process(target=_worker_main, args=args, daemon=False)
        p.start()
        return p, time.monotonic()

    stop = threading.Event()
    old = {sig: signal.signal(sig, lambda *_: stop.set()) for sig in (signal.SIGINT, signal.SIGTERM)}
    procs = [start() for _ in range(n)]
    click.echo(f"nardy: http://{shown}:{bound}/  (API docs: /docs; games in {where}, {n} processes)", err=True)
    sys.stderr.flush()
    quick = 0
    try:
        while not stop.wait(0.5):
            for i, (p, since) in enumerate(procs):
                if p.is_alive():
                    continue
                quick = quick + 1 if time.monotonic() - since < _QUICK_EXIT else 0
                if quick >= 3:
                    click.echo(f"nardy: workers keep failing at start (exit {p.exitcode}); stopping", err=True)
                    stop.set()
                    break
                click.echo(f"nardy: worker {p.pid} ended (exit {p.exitcode}); starting another", err=True)
                procs[i] = start()
    finally:
        for p, _ in procs:
            if p.is_alive():
                p.terminate()  # SIGTERM: uvicorn closes its connections and ends the app's lifespan
        for p, _ in procs:
            p.join(30)
            if p.is_alive():
                p.kill()
                p.join(5)
        holder.close()
        for sig, handler in old.items():
            signal.signal(sig, handler)
    if quick >= 3:
        raise click.ClickException("the worker processes could not start (see their messages above)")


def _worker_main(settings: dict, host: str, port: int, log_level: str, proxies: dict) -> None:
    """One worker process of ``nardy serve --workers N``: its own app, storage and ``SO_REUSEPORT`` socket."""
    import uvicorn

    _limit_malloc_arenas()
    sock = _reuse_port_socket(host, port, listen=True)
    raise_file_limit()
    config = uvicorn.Config(_make_app(settings), host=host, port=port, log_level=log_level, **_uvicorn(proxies))
    try:
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        sock.close()


def _reuse_port_socket(host: str, port: int, listen: bool) -> socket.socket:
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    family, kind, proto, _, addr = infos[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind(addr)
    if listen:
        sock.listen(2048)
    sock.set_inheritable(True)
    return sock


#: glibc's mallopt parameter M_ARENA_MAX.
_M_ARENA_MAX = -8


def _limit_malloc_arenas(n: int = 2) -> None:
    """Cap glibc's malloc arenas at ``n`` (as ``MALLOC_ARENA_MAX=n`` would): by default glibc gives each
    thread that allocates an arena of its own, and with the request threads of a busy server the memory
    they keep grows to several times what is in use (20 concurrent games: 1.2 GB instead of 352 MB).
    Does nothing where the C library is not glibc."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.mallopt(_M_ARENA_MAX, n)
    except (OSError, AttributeError):  # pragma: no cover - not glibc
        pass


def _listen(host: str, port: int) -> socket.socket:
    """A socket bound to ``host:port`` and listening (port 0: a free port the system picks), so that the
    URL shown is the real one and a port in use is reported before anything else."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as e:
        raise click.ClickException(f"cannot listen on {host}:{port}: {e.strerror or e}") from None
    family, kind, proto, _, addr = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(addr)
        sock.listen(2048)
    except OSError as e:
        sock.close()
        why = (
            "the port is already in use (choose another with --port)"
            if e.errno == errno.EADDRINUSE
            else (e.strerror or str(e))
        )
        raise click.ClickException(f"cannot listen on {host}:{port}: {why}") from None
    sock.set_inheritable(True)
    return sock
