"""A real Redis server for a test or a benchmark: Debian's ``redis-server`` on
a free loopback port, no disk, stopped with its process group."""

from __future__ import annotations

import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from benchmarks.harness.app_server import HOST, _die_with_parent, free_port, stop

__all__ = ["REDIS_SERVER", "redis_server"]

REDIS_SERVER = "/usr/bin/redis-server"


@contextmanager
def redis_server(workdir: Path) -> Iterator[str]:
    """``redis-server`` on a free port, in ``workdir``; yields its URL."""
    if not Path(REDIS_SERVER).is_file():
        raise RuntimeError(
            f"{REDIS_SERVER} not found: the README's test command installs "
            "Debian's redis-server"
        )
    port = free_port()
    proc = subprocess.Popen(
        [
            REDIS_SERVER,
            "--port",
            str(port),
            "--bind",
            HOST,
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(workdir),
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        preexec_fn=_die_with_parent,
    )
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                with socket.create_connection((HOST, port), timeout=1) as s:
                    s.sendall(b"PING\r\n")
                    if s.recv(16).startswith(b"+PONG"):
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"redis-server did not start on port {port}")
            time.sleep(0.05)
        yield f"redis://{HOST}:{port}/0"
    finally:
        stop(proc)
