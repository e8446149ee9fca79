"""svmlab's benchmark suite: one entry point that lists and runs them.

    python -m benchmarks                 # every benchmark, a line each
    python -m benchmarks NAME [ARGS...]  # run one (ARGS: its own options)
    python -m benchmarks NAME --help     # its options

A benchmark is a module of this package (not :mod:`benchmarks.harness`, the
shared timing, reporting and server code, nor ``floors/``, the pages the app's
timings are compared with) with a ``main()``; its name is the module's, named by
what it measures. Each run prints its table and the machine's load at its start
and end, and writes its figures to ``benchmarks/results/NAME.json`` under the
run's mode (:func:`benchmarks.harness.report.write_json`): one current file
per benchmark, whose history is git's.
"""

from __future__ import annotations

import ast
import importlib
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
#: Modules of this package that are not benchmarks.
NOT_BENCHMARKS = {"__init__", "__main__"}


def names() -> list[str]:
    """Every benchmark's name, sorted."""
    return sorted(
        p.stem
        for p in HERE.glob("*.py")
        if p.stem not in NOT_BENCHMARKS and not p.stem.startswith("_")
    )


def summary(name: str) -> str:
    """The first line of a benchmark's docstring (read, not imported)."""
    tree = ast.parse((HERE / f"{name}.py").read_text(encoding="utf-8"))
    doc = ast.get_docstring(tree) or ""
    return " ".join(doc.split("\n\n")[0].split())


def run(name: str, argv: list[str]) -> None:
    """Run benchmark ``name`` with its own options ``argv``, the machine's load
    printed before and after."""
    module = importlib.import_module(f"benchmarks.{name}")
    print(f"benchmark {name}: load {os.getloadavg()} at start", flush=True)
    start = time.perf_counter()
    saved = sys.argv
    sys.argv = [f"python -m benchmarks {name}", *argv]
    try:
        module.main()
    finally:
        sys.argv = saved
    took = time.perf_counter() - start
    print(f"benchmark {name}: {took:.1f} s, load {os.getloadavg()} at end")


def main() -> None:
    args = sys.argv[1:]
    if not args or args[0] in ("-h", "--help", "list"):
        width = max(len(n) for n in names())
        print(__doc__.split("\n\n")[1])
        print()
        for name in names():
            print(f"  {name.ljust(width)}  {summary(name)}")
        return
    name, rest = args[0], args[1:]
    if name not in names():
        sys.exit(f"no benchmark named {name!r}: python -m benchmarks lists them")
    run(name, rest)


if __name__ == "__main__":
    main()
