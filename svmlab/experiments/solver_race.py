"""The race: every recorded solver's boundary at one moment, from the iterates a
:class:`svmlab.experiments.solver_comparison.Comparison` kept (no solver runs here).

A moment is a fraction of each solver's own run, or of the slowest run's time
(one wall clock for all). The iterate shown is the last one recorded by then
(:class:`svmlab.solvers.History`, at most 200 float32 snapshots of alpha); f on
the grid is the kept kernel columns times ``alpha * y``, plus b.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from svmlab.array_types import Array
from svmlab.errors import ParameterError

if TYPE_CHECKING:
    from svmlab.experiments.solver_comparison import Comparison

__all__ = ["CLOCKS", "Frame", "race_frames"]


#: The race's clocks: a fraction of each solver's own run, or one wall clock.
CLOCKS: dict[str, str] = {
    "fraction": "fraction of each solver's run",
    "wall": "common wall clock",
}


@dataclass(frozen=True)
class Frame:
    """One solver at one moment of the race: the recorded iterate reached by
    then (``iteration``, ``time``), f on the grid (resolution x resolution),
    the share of the grid whose sign agrees with the reference (or with the
    solver's own final answer when there is no reference), and whether the
    solver had already finished."""

    name: str
    iteration: int
    time: float
    f: Array
    agreement: float
    done: bool


def race_frames(
    comparison: Comparison, position: float, clock: str = "fraction"
) -> list[Frame]:
    """Every recorded solver at ``position`` (0 to 1) of the race.

    ``clock="fraction"``: each solver at that fraction of its own run;
    ``"wall"``: every solver at ``position`` times the slowest run's time. The
    iterate shown is the last one recorded at or before that moment (the first
    record is the start); at the end, the solver's answer. Only kernel columns
    kept in ``comparison`` are multiplied: no solver runs.
    """
    if clock not in CLOCKS:
        raise ParameterError(f"clock must be one of {list(CLOCKS)}; got {clock!r}.")
    position = float(np.clip(position, 0.0, 1.0))
    traces = comparison.traces
    slowest = max((t.fit_time for t in traces.values()), default=0.0)
    y, res = comparison.y, comparison.resolution
    frames = []
    for name, trace in traces.items():
        moment = position * (trace.fit_time if clock == "fraction" else slowest)
        done = position >= 1.0 or moment >= trace.fit_time
        if done:
            alpha, b = trace.final_alpha, trace.final_b
            iteration, at = int(trace.iteration[-1]), trace.fit_time
            final = comparison.row(name).n_iter
            iteration = int(final) if final is not None else iteration
        else:
            k = max(int(np.searchsorted(trace.time, moment, side="right")) - 1, 0)
            alpha = trace.alpha[k].astype(np.float64)
            b, iteration, at = trace.intercept[k], int(trace.iteration[k]), moment
        f = comparison.K_grid @ (alpha * y) + b
        target = comparison.f_reference
        if target is None:
            target = comparison.f_final.get(name, f)
        agreement = float(np.mean(np.sign(f) == np.sign(target)))
        frames.append(
            Frame(name, iteration, float(at), f.reshape(res, res), agreement, done)
        )
    return frames
