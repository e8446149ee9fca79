"""``streamlit run app.py`` on a free loopback port, and the headless Chromium
that drives it: shared by the benchmarks that time the app (``ui_latency``,
``lecture_room``) and by the browser tests (``tests/browser/conftest.py``
imports this module; nothing here imports from ``tests``)."""

from __future__ import annotations

import ctypes
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import IO

ROOT = Path(__file__).resolve().parents[2]
HOST = "127.0.0.1"
STARTUP_TIMEOUT_S = 60.0

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def _die_with_parent() -> None:
    """In the child: get SIGTERM if the parent dies, even by SIGKILL (Linux)."""
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)
    except OSError:
        pass


def launch(
    *,
    port: int | None = None,
    app_dir: Path = ROOT,
    env: dict[str, str] | None = None,
    output: IO[bytes] | int = subprocess.DEVNULL,
) -> tuple[subprocess.Popen[bytes], str]:
    """Start ``streamlit run app.py`` on ``port`` (a free one by default; no
    file watcher: others may edit the repository meanwhile) in a session of its
    own, so that :func:`stop` ends its whole process group; return the process
    and its base URL without waiting (:func:`wait_healthy`). ``env``: variables
    set on top of this process's; ``output``: where its stdout and stderr go."""
    port = port or free_port()
    cmd = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        "app.py",
        "--server.port",
        str(port),
        "--server.address",
        HOST,
        "--server.headless",
        "true",
        "--server.fileWatcherType",
        "none",
    ]
    proc = subprocess.Popen(
        cmd,
        cwd=app_dir,
        env={**os.environ, **(env or {})},
        stdin=subprocess.DEVNULL,
        stdout=output,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        preexec_fn=_die_with_parent,
    )
    return proc, f"http://{HOST}:{port}"


def wait_healthy(
    proc: subprocess.Popen[bytes], url: str, timeout_s: float = STARTUP_TIMEOUT_S
) -> str | None:
    """Wait until the server answers ``ok`` on ``/_stcore/health``: ``None``
    then, else the sentence saying why it never did."""
    deadline = time.monotonic() + timeout_s
    while True:
        if proc.poll() is not None:
            return f"streamlit exited with code {proc.returncode} before it was healthy"
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                if r.status == 200 and r.read().strip() == b"ok":
                    return None
        except OSError:
            pass
        if time.monotonic() > deadline:
            return f"streamlit not healthy at {url} after {timeout_s:.0f} s"
        time.sleep(0.1)


def stop(proc: subprocess.Popen[bytes]) -> None:
    """Stop the server's whole process group (its own session: pgid == pid)."""
    if proc.poll() is not None:
        return
    for sig, wait_s in ((signal.SIGTERM, 10), (signal.SIGKILL, 5)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=wait_s)
            return
        except subprocess.TimeoutExpired:
            continue


def start_server(
    app_dir: Path = ROOT, env: dict[str, str] | None = None
) -> tuple[subprocess.Popen[bytes], str]:
    """A healthy server (its output discarded): the process and its base URL."""
    proc, url = launch(app_dir=app_dir, env=env)
    why = wait_healthy(proc, url)
    if why is not None:
        stop(proc)
        raise RuntimeError(why)
    return proc, url
