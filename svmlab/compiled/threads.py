"""Both cores for large work: numba's threading layer, chosen safe for a server.

A few compiled loops (a kernel row of a large problem, the decision values of
many points) split their work over the machine's cores with numba's parallel
loops (``prange``). A server runs every visitor's session in a thread of one
process, so two sessions may start such a loop at the same moment. numba's
three threading layers differ there (numba's documentation, "The Threading
Layers"): ``tbb`` and ``omp`` (OpenMP) accept concurrent callers, while
``workqueue``, the fallback numba always has, aborts the process when two
threads launch a parallel loop at once ("Terminating: Nested parallel kernel
launch detected"). So this module, imported before any compiled module,
asks numba for a thread-safe layer (``NUMBA_THREADING_LAYER=threadsafe``: tbb,
else omp) when one can be loaded here, and otherwise turns the parallel paths
off: :data:`PARALLEL` is False and every loop runs on one core, as before.
OpenMP is GNU's ``libgomp.so.1`` (Debian's ``libgomp1``, on every machine with
GCC's runtime); TBB needs ``libtbb.so.12`` on the loader's path.

The parallel loops check :func:`parallel_threshold` at run time (a number
handed to the compiled code, never a compiled-in constant: numba's cache would
keep a stale one), asked once per fit: infinity (one core) while the machine
has no idle core (:func:`idle_core`), or in a process forked after it used
OpenMP (GNU's runtime is not fork-safe).
"""

from __future__ import annotations

import importlib
import math
import os

__all__ = [
    "IDLE_MARGIN",
    "LAYER",
    "PARALLEL",
    "idle_core",
    "parallel_threshold",
    "threads",
]

#: Thread-safe layers in numba's order of preference, with the module that
#: loads each one's library.
_SAFE = (("tbb", "numba.np.ufunc.tbbpool"), ("omp", "numba.np.ufunc.omppool"))


def _safe_layer() -> str | None:
    """The first thread-safe layer whose library loads here, or None; a layer
    named in ``NUMBA_THREADING_LAYER`` by the user is taken as given."""
    asked = os.environ.get("NUMBA_THREADING_LAYER", "").strip().lower()
    if asked == "workqueue":
        return None
    for name, module in _SAFE:
        if asked in ("tbb", "omp") and name != asked:
            continue
        try:
            importlib.import_module(module)
        except ImportError:
            continue
        return name
    return None


#: The thread-safe layer numba will use (``"tbb"`` or ``"omp"``), or None.
LAYER = _safe_layer()
if LAYER is not None:
    os.environ["NUMBA_THREADING_LAYER"] = LAYER
    from numba.core import config as _config

    _config.THREADING_LAYER = LAYER

#: Whether the parallel paths run at all: a thread-safe layer and 2+ threads.
PARALLEL = LAYER is not None


def threads() -> int:
    """How many threads a parallel loop uses (numba's, this thread's setting)."""
    if not PARALLEL:
        return 1
    import numba

    return int(numba.get_num_threads())


def parallel_threshold(work: float) -> float:
    """``work`` when the parallel paths may run, else infinity (the compiled
    code compares its work with this number: never reached, one core)."""
    return float(work) if _parallel_here() else math.inf


_PID = os.getpid()

#: A parallel loop runs only while the machine's 1-minute load average is at
#: most ``cores - 1 + IDLE_MARGIN``: the fit itself is one of the load, so a
#: core is free. Measured here (two cores, omp): at load 12-14, a fit of
#: 20,000 points whose kernel rows ran in parallel took 2.1-6.4 s against
#: 0.94-1.02 s on one core (every parallel row waits for a helper thread that
#: the busy machine does not schedule), and LIBSVM 3.37's OpenMP build slowed
#: the same way (4.1 s against scikit-learn's single-threaded 1.0 s). A server
#: whose sessions keep both cores busy therefore fits on one core per session.
IDLE_MARGIN = 0.5


#: The machine's cores, read once: ``os.cpu_count`` reads the system each call
#: (2-18 us, issue 48: a one-vs-one fit on iris asks twice), and the count
#: does not change while the process runs.
_CORES = os.cpu_count() or 1


def idle_core() -> bool:
    """Whether another core is free now (the load average, see
    :data:`IDLE_MARGIN`); True where the system does not say."""
    try:
        load = os.getloadavg()[0]
    except OSError:
        return True
    return load <= _CORES - 1 + IDLE_MARGIN


def _parallel_here() -> bool:
    # A forked child inherits the parent's OpenMP state, which GNU's runtime
    # does not support: one core there.
    return PARALLEL and os.getpid() == _PID and threads() > 1 and idle_core()
