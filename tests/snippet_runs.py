"""Running the code a page writes for its view, and reading what it prints.

:func:`run` executes scripts in one fresh Python process (imports are paid once
per batch, about two seconds), each in its own namespace, as a student's
``python script.py`` would: ``__name__ == "__main__"``, Plotly's ``fig.show()``
rendered to text and matplotlib drawing off screen. :func:`printed` reads the
``label: value`` lines a script prints; :class:`Tolerance` compares
scikit-learn's numbers with the page's "at the fit's tol".
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from svmlab.snippets import Snippet
from svmlab.snippets.writer import LINE
from svmlab.ui.frame.presets import PRESETS, query
from tests.pages import open_page

ROOT = Path(__file__).resolve().parents[1]

_DRIVER = """
import contextlib, io, json, sys, traceback
results = []
for path in sys.argv[1:]:
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            code = open(path, encoding="utf-8").read()
            exec(compile(code, path, "exec"), {"__name__": "__main__"})
        error = None
    except BaseException:
        error = traceback.format_exc()
    results.append({"stdout": out.getvalue(), "error": error})
sys.stdout.write("@@RESULTS@@" + json.dumps(results))
"""


@dataclass(frozen=True)
class Run:
    stdout: str
    error: str | None

    def output(self) -> str:
        """What the script printed (the test fails with the script's traceback
        if it raised)."""
        assert self.error is None, self.error
        return self.stdout


def run(scripts: list[str], workdir: Path, timeout: float = 900) -> list[Run]:
    """Each script run in one fresh interpreter (this checkout's svmlab on the
    path, the working directory ``workdir``)."""
    paths = []
    for i, code in enumerate(scripts):
        path = workdir / f"view_{i:03d}.py"
        path.write_text(code, encoding="utf-8")
        paths.append(str(path))
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "PLOTLY_RENDERER": "json",
        "MPLBACKEND": "Agg",
    }
    done = subprocess.run(
        [sys.executable, "-c", _DRIVER, *paths],
        cwd=workdir,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    _, sep, tail = done.stdout.rpartition("@@RESULTS@@")
    assert sep, done.stderr[-3000:]
    return [Run(r["stdout"], r["error"]) for r in json.loads(tail)]


def preset_names(page: str) -> list[str]:
    """The presets of ``page``, in the presets' order."""
    return [n for n, p in PRESETS.items() if p.page == page]


def rows_printed(
    stdout: str, name: str = r"\w+", label: str = r"[^:\n]+"
) -> dict[str, dict[str, str]]:
    """``name -> label -> value`` of the ``name | label: value`` lines a script
    prints (one row of a page's table or one panel's numbers a line), ``name``
    and ``label`` the patterns of the page's row names and labels."""
    out: dict[str, dict[str, str]] = {}
    for row, key, value in re.findall(
        rf"^({name}) \| ({label}): (.*)$", stdout, re.MULTILINE
    ):
        out.setdefault(row, {})[key] = value
    return out


def printed(stdout: str) -> dict[str, str]:
    """``label -> value`` of the ``label: value`` lines (a figure's text, a
    dict on one line, is left out)."""
    return dict(re.findall(r"^([^:{\[\n]+): (.*)$", stdout, re.MULTILINE))


def floats(text: str) -> np.ndarray:
    return np.array(
        [float(v) for v in re.findall(r"-?\d+(?:\.\d*)?(?:e[-+]?\d+)?", text)]
    )


def percent_count(text: str, n: int) -> int:
    """A printed share ("12.5 %") of ``n`` points as a count."""
    return round(float(text.split()[0]) * n / 100)


@dataclass(frozen=True)
class Tolerance:
    """What "equal at the fit's tol" allows between two solvers that both
    stopped at ``tol`` (KKT measured in margin units): decision values and b
    within ``10 tol`` (relative above 1), an objective within ``10 tol``
    relative, and a count off by at most the points whose status the tol leaves
    open (margins within that of 1 for the support vectors, of 0 for an error).
    """

    tol: float

    def close(self, a: float, b: float) -> bool:
        return abs(a - b) <= 10 * self.tol * max(1.0, abs(a), abs(b))

    def open_points(self, values: np.ndarray, at: float) -> int:
        values = np.asarray(values, dtype=np.float64)
        slack = 10 * self.tol * np.maximum(1.0, np.abs(values))
        return int(np.sum(np.abs(values - at) <= slack))


def page_fit_numbers(
    hands: Any, request: Any, added: tuple, upload: tuple | None
) -> tuple[dict[str, str], Any]:
    """What a page whose chart takes clicked points shows beside it, from its
    requests module ``hands``: its cached fit ``hands.fit(request, added)`` (on
    ``upload``'s points where there is one) and its rows ``hands.numbers``, but
    the fit time (the run's own)."""
    with pytest.MonkeyPatch.context() as patch:
        if upload is not None:
            patch.setattr(type(request), "data", lambda self: upload)
        fitted = hands.fit(request, added)
        rows = dict(hands.numbers(request, fitted))
    rows.pop("fit time")
    return rows, fitted


def states_ran(
    states: list[tuple],
    write: Callable[..., Snippet],
    page_numbers: Callable[..., tuple[Any, Any]],
    workdir: Path,
) -> dict[str, tuple]:
    """Each state ``(name, request, *more)``: the code ``write(request, *more)``
    writes for it, both flavours run in one batch (:func:`run`), beside what the
    page shows for it, ``page_numbers(request, *more) -> (numbers, result)``:
    ``name -> (request, snippet, numbers, result, svmlab's run, scikit-learn's
    run)``."""
    ran = run_states(
        [(name, tuple(args)) for name, *args in states], write, page_numbers, workdir
    )
    return {
        name: (r.args[0], r.snippet, *r.page, r.own, r.theirs)
        for name, r in ran.items()
    }


def presets_ran(
    write: Callable[..., Snippet],
    page_numbers: Callable[..., tuple[Any, Any]],
    hand_made: Callable[[Any], list[tuple]],
    preset_args: tuple = (None,),
) -> Any:
    """The module fixture ``ran``: :func:`states_ran` of each preset the
    module's ``opened`` fixture opened (its request, then ``preset_args``: by
    default no upload) and of ``hand_made(first preset's request)``'s
    ``(name, request, *more)`` states."""

    @pytest.fixture(scope="module")
    def ran(opened: dict[str, tuple], tmp_path_factory: Any) -> dict[str, tuple]:
        states = [
            (name, request, *preset_args) for name, (request, _) in opened.items()
        ]
        states += hand_made(next(iter(opened.values()))[0])
        workdir = tmp_path_factory.mktemp(write.__name__)
        return states_ran(states, write, page_numbers, workdir)

    return ran


def page_code_suite(
    page: str,
    page_module: Any,
    write: Callable[..., Snippet],
    page_numbers: Callable[..., tuple[Any, Any]],
    hand_made: Callable[[Any], list[tuple]],
    preset_args: tuple = (None,),
) -> tuple[Any, Any, Callable[..., None]]:
    """What every page's code test module starts from: the module fixtures
    ``opened`` (:func:`presets_opened` of ``page``, its generator ``write``
    looked up by name in ``page_module``) and ``ran`` (:func:`presets_ran`),
    and the test that each preset's page shows the code ``write(request)``
    writes (:func:`page_shows_code_test`)."""

    @pytest.fixture(scope="module")
    def opened() -> dict[str, tuple]:
        """Each preset's page: the request it built and the code it shows."""
        return presets_opened(page, page_module, write.__name__)

    ran = presets_ran(write, page_numbers, hand_made, preset_args)
    return opened, ran, page_shows_code_test(preset_names(page), write)


def panels_printed_test(
    names: list[str], parse: Callable[[str], dict], panels: Sequence[str]
) -> Callable[..., None]:
    """The test that, for each state in ``names``, the svmlab flavour prints
    every one of the page's ``panels`` (``ran``'s numbers, by the page's own
    engine call) exactly as the page shows them, read by ``parse``."""

    @pytest.mark.parametrize("name", names)
    def test(ran: dict[str, tuple], name: str) -> None:
        _, _, numbers, _, own, _ = ran[name]
        shown = parse(own.output())
        assert set(shown) == set(numbers) == set(panels)
        for panel, rows in numbers.items():
            assert shown[panel] == rows, panel

    return test


def lines_fit_test(
    write: Callable[..., Snippet], states: Callable[[Any], list[tuple]]
) -> Callable[..., None]:
    """The test that every line of both flavours fits in :data:`LINE`
    columns and compiles, for each ``(name, *write's arguments)`` of
    ``states(first preset's request)`` (the module's ``opened`` fixture)."""

    def test(opened: dict[str, tuple]) -> None:
        request = next(iter(opened.values()))[0]
        for name, *args in states(request):
            for code in write(*args).flavours().values():
                long = [line for line in code.splitlines() if len(line) > LINE]
                assert not long, (name, long)
                compile(code, name, "exec")

    return test


def presets_opened(page: str, module: Any, generator: str) -> dict[str, tuple]:
    """Each preset of ``page`` opened from its link (AppTest): the request the
    page handed its code generator (``module.<generator>``, recorded) and the
    code blocks the page shows."""
    out = {}
    seen: list = []
    real = getattr(module, generator)

    def recorded(request, *args):
        seen.append(request)
        return real(request, *args)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(module, generator, recorded)
        for name in preset_names(page):
            at = open_page(ROOT / page, query(name), default_timeout=300)
            assert not at.exception, at.exception
            out[name] = (seen[-1], [c.value for c in at.code])
    return out


def assert_shown(codes: list[str], snippet: Snippet) -> None:
    """Both flavours of ``snippet`` are among a page's code blocks."""
    shown = [c.rstrip("\n") for c in codes]
    for code in snippet.flavours().values():
        assert code.rstrip("\n") in shown


def page_shows_code_test(
    names: list[str], write: Callable[[Any], Snippet]
) -> Callable[..., None]:
    """The test that each preset in ``names``, opened on its page (the module's
    ``opened`` fixture: ``name -> (request, code blocks)``), shows the code
    ``write(request)`` writes for the request the page built: one test for
    every page whose generator needs only the request."""

    @pytest.mark.parametrize("name", names)
    def test(opened: dict[str, tuple], name: str) -> None:
        request, codes = opened[name]
        assert_shown(codes, write(request))

    return test


@dataclass(frozen=True)
class StateRun:
    """One state of a page run as a student runs its code: the generator's
    arguments, the snippet, what the page's own engine call gives for the
    same state, and the two flavours' runs."""

    args: tuple
    snippet: Snippet
    page: Any
    own: Run
    theirs: Run


def run_states(
    states: Sequence[tuple[str, tuple]],
    write: Callable[..., Snippet],
    page: Callable[..., Any],
    workdir: Path,
) -> dict[str, StateRun]:
    """Each ``(name, args)``: the snippet ``write(*args)``, both flavours run
    in one fresh process (:func:`run`), beside ``page(*args)``."""
    snippets = [write(*args) for _, args in states]
    scripts = [code for s in snippets for code in s.flavours().values()]
    runs = iter(run(scripts, workdir))
    return {
        name: StateRun(args, snippet, page(*args), next(runs), next(runs))
        for (name, args), snippet in zip(states, snippets, strict=True)
    }
