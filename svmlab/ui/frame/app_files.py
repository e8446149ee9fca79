"""Where the app's files are: the checkout's root, or the installed package's copy.

The app is more than the package: ``app.py`` (the router Streamlit serves),
``pages/`` (one script per page), ``.streamlit/config.toml`` (the server's
settings), the notes the Notes page renders (``docs/``) and the benchmark
results the Model selection page quotes (``benchmarks/results/``). In a
checkout they sit beside ``svmlab/``; a wheel (``pip install .``) carries them
inside the package, under ``svmlab/app/`` (``pyproject.toml``'s force-include),
so the installed ``svmlab`` command serves the same app with nothing of the
checkout around. :data:`ROOT` is whichever of the two holds ``app.py``: the
installed copy when there is one, else the checkout.

This module does not import streamlit.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["APP", "CONFIG", "DOCS", "ROOT", "app_root"]

#: The svmlab package's directory.
PACKAGE = Path(__file__).resolve().parents[2]


def app_root(package: Path = PACKAGE) -> Path:
    """The directory holding ``app.py``, ``pages/`` and the app's other files:
    ``<package>/app`` in an installed wheel, else the checkout's root (the
    package's parent)."""
    installed = package / "app"
    return installed if (installed / "app.py").is_file() else package.parent


#: The app's root, its router, its Streamlit configuration and its notes.
ROOT = app_root()
APP = ROOT / "app.py"
CONFIG = ROOT / ".streamlit" / "config.toml"
DOCS = ROOT / "docs"
