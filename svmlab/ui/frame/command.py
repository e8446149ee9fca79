"""The ``svmlab`` command (and ``python -m svmlab``): start the lab, or warm it up.

``svmlab`` (or ``svmlab run``) serves the app as the README's
``streamlit run app.py`` does from a checkout, with the project's Streamlit
configuration: Streamlit reads ``.streamlit/config.toml`` only from the working
directory (or the user's home), so the command reads the app's own file
(:data:`svmlab.ui.frame.app_files.CONFIG`) and hands each of its options to
``streamlit run`` as a flag; a flag given on the command line wins
(``svmlab --server.port 8600``). ``svmlab precompile`` compiles the solvers
into numba's disk cache (:mod:`svmlab.compiled.precompile`), the README's
install step.
"""

from __future__ import annotations

import sys
import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from svmlab.ui.frame import app_files

__all__ = ["USAGE", "config_flags", "main", "streamlit_argv"]

USAGE = """\
usage: svmlab [run] [STREAMLIT OPTIONS]
       svmlab precompile
       svmlab --help

  run         serve the lab (the default): Streamlit runs svmlab's app with
              the project's configuration ({config});
              options such as --server.port 8600 or --server.address 0.0.0.0
              are Streamlit's and override the configuration's
  precompile  compile the solvers into numba's disk cache once (about a
              minute), so the first visitor's fit has nothing left to compile

The app: {app}
"""


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def config_flags(config: Path = app_files.CONFIG) -> list[str]:
    """The configuration file's options as ``streamlit run`` flags
    (``--server.address=127.0.0.1``), in the file's order."""
    if not config.is_file():
        return []
    table = tomllib.loads(config.read_text(encoding="utf-8"))
    return [
        f"--{section}.{name}={_text(value)}"
        for section, options in table.items()
        for name, value in options.items()
    ]


def _option(flag: str) -> str:
    return flag[2:].split("=", 1)[0]


def streamlit_argv(args: Sequence[str], config: Path = app_files.CONFIG) -> list[str]:
    """``streamlit run`` with the app, the configuration's flags that ``args``
    does not set itself, then ``args``."""
    given = {_option(a) for a in args if a.startswith("--")}
    flags = [f for f in config_flags(config) if _option(f) not in given]
    return ["streamlit", "run", str(app_files.APP), *flags, *args]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; returns its exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in ("-h", "--help", "help"):
        print(USAGE.format(config=app_files.CONFIG, app=app_files.APP))
        return 0
    if args and args[0] == "precompile":
        from svmlab.compiled import precompile

        precompile.main()
        return 0
    if args and args[0] == "run":
        args = args[1:]
    from streamlit.web import cli

    sys.argv = streamlit_argv(args)
    return int(cli.main() or 0)
