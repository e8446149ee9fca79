"""svmlab as a package (issue 47): ``pip install .`` gives ``import svmlab`` and
an ``svmlab`` command that serves the lab with the project's configuration.

The fast tests check the pieces against the checkout's own files: the declared
dependency ranges hold requirements.txt's pins, the command hands Streamlit every
option of ``.streamlit/config.toml``, the app's files are found both where a
checkout and where a wheel keeps them. The slow one installs the checkout into a
fresh virtual environment and uses it from a directory with nothing of the
checkout on the path.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import tomllib
import urllib.request
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from svmlab.ui.frame import app_files, command
from tests.conftest import command_output

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def _pins(name: str) -> dict[str, str]:
    """``package -> version`` of a requirements file's ``==`` pins."""
    out = {}
    for line in (ROOT / name).read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if "==" in line:
            package, version = line.split("==")
            out[package.strip().lower()] = version.strip()
    return out


def _declared(requirements: list[str]) -> dict[str, Requirement]:
    return {Requirement(r).name.lower(): Requirement(r) for r in requirements}


def test_the_runtime_ranges_hold_the_pins() -> None:
    pins = _pins("requirements.txt")
    declared = _declared(PYPROJECT["project"]["dependencies"])
    assert set(pins) <= set(declared), set(pins) - set(declared)
    for name, version in pins.items():
        assert declared[name].specifier.contains(version), (name, version)


def test_the_extras_hold_the_dev_pins() -> None:
    pins = _pins("requirements-dev.txt")
    extras = PYPROJECT["project"]["optional-dependencies"]
    declared = {**_declared(extras["test"]), **_declared(extras["cluster"])}
    assert "distributed" in _declared(extras["cluster"])
    for name, requirement in declared.items():
        assert name in pins, f"{name} is an extra but requirements-dev.txt lacks it"
        assert requirement.specifier.contains(pins[name]), (name, pins[name])


def test_the_command_hands_streamlit_the_projects_configuration() -> None:
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text("utf-8"))
    argv = command.streamlit_argv([])
    assert argv[:3] == ["streamlit", "run", str(ROOT / "app.py")]
    for section, options in config.items():
        for name, value in options.items():
            text = str(value).lower() if isinstance(value, bool) else str(value)
            assert f"--{section}.{name}={text}" in argv
    # A flag on the command line wins over the file's.
    mine = command.streamlit_argv(["--server.address", "0.0.0.0"])
    assert "--server.address=127.0.0.1" not in mine
    assert mine[-2:] == ["--server.address", "0.0.0.0"]


def test_the_apps_files_are_found_in_a_checkout_and_in_a_wheel(tmp_path) -> None:
    assert app_files.ROOT == ROOT and app_files.CONFIG.is_file()
    assert (app_files.DOCS / "corrections.md").is_file()
    package = tmp_path / "site" / "svmlab"
    (package / "app").mkdir(parents=True)
    assert app_files.app_root(package) == tmp_path / "site"  # no app.py: checkout
    (package / "app" / "app.py").write_text("")
    assert app_files.app_root(package) == package / "app"
    # Every file the wheel carries into svmlab/app/ exists in the checkout.
    wheel = PYPROJECT["tool"]["hatch"]["build"]["targets"]["wheel"]
    for source, target in wheel["force-include"].items():
        assert (ROOT / source).exists(), source
        assert target.startswith("svmlab/app/")


def test_help_says_what_the_command_does(capsys) -> None:
    assert command.main(["--help"]) == 0
    out = capsys.readouterr().out
    assert "precompile" in out and str(app_files.APP) in out


def test_precompile_runs_the_warm_up(monkeypatch) -> None:
    """``svmlab precompile`` is the README's warm-up step (the warm-up itself is
    tested in tests/test_precompile.py)."""
    from svmlab.compiled import precompile

    calls = []
    monkeypatch.setattr(precompile, "main", lambda: calls.append("warm-up"))
    assert command.main(["precompile"]) == 0
    assert calls == ["warm-up"]


def test_run_serves_the_app_through_streamlit(monkeypatch) -> None:
    from streamlit.web import cli

    seen = []
    monkeypatch.setattr(cli, "main", lambda: seen.append(list(sys.argv)) or 0)
    monkeypatch.setattr(sys, "argv", ["svmlab"])
    assert command.main(["run", "--server.port", "8600"]) == 0
    assert seen[0][:3] == ["streamlit", "run", str(app_files.APP)]
    assert seen[0][-2:] == ["--server.port", "8600"]


# -- a fresh virtual environment ----------------------------------------------------

FIT_AND_FIGURE = """
import pathlib, sys
import svmlab
from svmlab import datasets, figures
print("svmlab from", pathlib.Path(svmlab.__file__).resolve())
X, y = datasets.make("two_circles", n_samples=60, noise=0.1, random_state=0)
# The exact QP with the linear kernel: numba's cache is kept per source file, so
# the installed copy compiles afresh, and this fit compiles the least.
model = svmlab.SVC(C=1.0, kernel="linear", solver="qp").fit(X, y)
fig = figures.decision_figure(model, X, y)
print("support vectors", model.support_.size, "traces", len(fig.data))
print("checkout on path", any("{root}" in p for p in sys.path))
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow
@pytest.mark.timeout(1800)  # the first fit compiles: numba's cache is per file path
def test_pip_install_in_a_fresh_venv_gives_the_library_and_the_command(
    tmp_path,
) -> None:
    """``pip install .`` into a new virtual environment (the system's packages
    visible, so nothing is downloaded; the build backend too, hence
    ``--no-build-isolation``), then, from an empty directory with no
    PYTHONPATH: ``svmlab --help``, a fit and a figure from ``import svmlab``
    (the installed copy), and the ``svmlab`` command serving the app on
    127.0.0.1 (the project's configuration) until its health check answers."""
    venv = tmp_path / "venv"
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", "--system-site-packages", venv],
        check=True,
    )
    python = venv / "bin" / "python"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "--quiet",
            "--no-build-isolation",
            "--no-index",
            "--disable-pip-version-check",
            str(ROOT),
        ],
        check=True,
        timeout=600,
    )
    site = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    installed = Path(site) / "svmlab"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}

    def run(*args: str | Path, timeout: float = 900) -> str:
        return command_output(args, cwd=elsewhere, env=env, timeout=timeout)

    out = run(venv / "bin" / "svmlab", "--help")
    assert str(installed / "app" / "app.py") in out
    assert str(installed / "app" / ".streamlit" / "config.toml") in out
    assert str(installed / "app" / "app.py") in run(python, "-m", "svmlab", "--help")
    out = run(python, "-c", FIT_AND_FIGURE.replace("{root}", str(ROOT)))
    assert f"svmlab from {installed / '__init__.py'}" in out
    assert "checkout on path False" in out
    assert "support vectors" in out and "traces" in out
    for name in ("pages/1_Explore.py", "docs/corrections.md"):
        assert (installed / "app" / name).is_file(), name
    assert (installed / "ui" / "frame" / "static" / "plotly-cartesian.min.js").is_file()

    port = _free_port()
    server = subprocess.Popen(
        [venv / "bin" / "svmlab", "--server.port", str(port)],
        cwd=elsewhere,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline = time.monotonic() + 240
        health = None
        while time.monotonic() < deadline and server.poll() is None:
            try:
                url = f"http://127.0.0.1:{port}/_stcore/health"
                with urllib.request.urlopen(url, timeout=5) as response:
                    health = response.read().decode()
                break
            except OSError:
                time.sleep(0.5)  # polling until the server answers, not a fixed wait
        assert health == "ok", server.poll()
    finally:
        server.terminate()
        log = server.communicate(timeout=30)[0]
    assert f"URL: http://127.0.0.1:{port}" in log, log
