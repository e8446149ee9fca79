"""svmlab's benchmark suite (``python -m benchmarks`` lists and runs it).

Every benchmark runs with one BLAS thread unless the caller set
``OPENBLAS_NUM_THREADS`` itself: the package is imported before any benchmark
module and so before numpy loads OpenBLAS, which reads the variable only then.
One thread, because the machine is shared and a ratio to a peer is fair only
when both sides use the same threads (each results file records them,
:func:`benchmarks.harness.report.machine_load`).
"""

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
