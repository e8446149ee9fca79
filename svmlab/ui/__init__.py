"""The only streamlit-aware part of svmlab: settings, controls, cached wrappers.

``import svmlab`` never imports this subpackage (STYLE rule 1). Importing it limits
BLAS to one thread: on a two-core machine OpenBLAS worker threads spin for ~100 ms
after each matrix product and steal the core the browser needs to draw the chart
(shared tools README, measured). ``threadpoolctl`` (a scikit-learn dependency) does
this at run time, so it works even when numpy was imported before this module, as
it is inside a running Streamlit server. ``SVMLAB_BLAS_THREADS`` overrides the
limit (``benchmarks/ui_latency.py --blas-threads`` uses it to measure the effect).
"""

from __future__ import annotations

import os
import sys

from threadpoolctl import threadpool_limits

BLAS_THREADS = os.environ.get("SVMLAB_BLAS_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", BLAS_THREADS)
os.environ.setdefault("OMP_NUM_THREADS", BLAS_THREADS)

threadpool_limits(limits=int(BLAS_THREADS), user_api="blas")

# Issue 28: compile the solvers in the background from the first import in a
# running server (app.py's start-up hook imports this at the server's start,
# svmlab/ui/frame/server_start.py; any other start, at its first script run); not
# under AppTest or in a test that imports a ui module. The runtime is looked up,
# not imported: the table modules (presets, settings, room caps) import without
# streamlit (tests/test_room_mode.py).
_runtime = sys.modules.get("streamlit.runtime")
if _runtime is not None and _runtime.exists():
    from svmlab.compiled import precompile

    precompile.start_in_background()
