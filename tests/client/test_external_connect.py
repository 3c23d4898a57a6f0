"""The external player's connection (nardy.client.external) against a plain socket of this test: a program
that is between two connections (not listening yet) is tried again for a short grace; one that never listens
is an error after it."""

from __future__ import annotations

import socket
import threading
import time

import pytest

from nardy.client.external import ExternalError, ExternalPlayer
from tests.web.helpers import free_port


def _listen_later(port: int, delay: float, answer: bytes) -> threading.Thread:
    """Listen on ``port`` after ``delay`` seconds, answer one line with ``answer`` and close."""

    def serve():
        time.sleep(delay)
        with socket.create_server(("127.0.0.1", port)) as srv:
            srv.settimeout(10)
            conn, _ = srv.accept()
            with conn, conn.makefile("rwb") as f:
                f.readline()
                f.write(answer + b"\n")
                f.flush()

    t = threading.Thread(target=serve, daemon=True)
    t.start()
    return t


def test_a_refused_connection_is_tried_again_while_the_program_starts_listening():
    port = free_port()
    t = _listen_later(port, 0.6, b"24/18 13/10")
    p = ExternalPlayer("127.0.0.1", port, timeout=10, grace=5)
    try:
        assert p.ask("board:x") == "24/18 13/10"
    finally:
        p.close()
    t.join(5)


def test_a_program_that_does_not_listen_within_the_grace_is_an_error():
    port = free_port()
    p = ExternalPlayer("127.0.0.1", port, timeout=10, grace=0.3)
    began = time.monotonic()
    with pytest.raises(ExternalError, match=f"external player 127.0.0.1:{port}: .*refused"):
        p.ask("board:x")
    assert 0.3 <= time.monotonic() - began < 3
    assert ExternalPlayer("127.0.0.1", port, timeout=2, grace=30).grace == 2  # never longer than the timeout
