"""How long a student waits on the Losses page, at the page's defaults.

    python -m benchmarks losses_page [--repeats 3]

Times, as medians of ``--repeats`` (the engine called as the page calls it, for
the page's default request: outlier blobs, 100 clean points, 5 outliers at
distance 6 of class +1 beyond class -1, C = 1, sigma = 1, delta = 0.1):

- ``panels``: :func:`svmlab.experiments.robustness.compare_losses` (five losses, each
fitted
  with and without the outliers): the wait after any data or model control;
- ``starts``: :func:`svmlab.experiments.robustness.multistart` of the ramp and of the
squared
  ramp (the non-convexity section);
- ``sweep``: :func:`svmlab.experiments.robustness.sweep_outliers` over the page's swept
values
  and 5 seeds, each axis, linear and Gaussian kernel: the wait after "Run sweep";
- ``cached``: the page's cached panels call repeated with the same request (what
  a display control costs: no engine call).

Writes benchmarks/results/losses_page.json with the machine's load.
"""

from __future__ import annotations

import argparse
import logging
from dataclasses import replace

from benchmarks.harness.report import machine_load, median_time, print_table, write_json
from svmlab.experiments import robustness
from svmlab.ui.losses import requests as lp

DEFAULT = lp.LossesRequest(
    source="outlier_blobs",
    data_items=(
        ("n_samples", 100),
        ("noise", 0.5),
        ("n_outliers", 0),
        ("outlier_distance", 0.0),
        ("random_state", 0),
    ),
    count=5,
    distance=6.0,
    label=1,
    side="other",
    kernel="linear",
    C=1.0,
    sigma=1.0,
    delta=0.1,
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    # Outside a Streamlit server the caches say so once per call; not news here.
    logging.getLogger("streamlit").setLevel(logging.ERROR)
    rows = []
    for kernel in ("linear", "gaussian"):
        request = replace(DEFAULT, kernel=kernel)
        X, y, X_test, y_test = request.clean_data()

        def panels(request=request, X=X, y=y, X_test=X_test, y_test=y_test):
            return robustness.compare_losses(
                X, y, request.outliers, request.settings, X_test, y_test
            )

        seconds, _ = median_time(panels, args.repeats)
        rows.append({"what": "panels", "kernel": kernel, "seconds": seconds})
        for loss in ("ramp", "squared_ramp"):

            def starts(request=request, loss=loss, X=X, y=y, Xt=X_test, yt=y_test):
                return robustness.multistart(
                    X,
                    y,
                    request.outliers,
                    request.settings,
                    Xt,
                    yt,
                    loss=loss,
                    n_random=lp.N_RANDOM_STARTS,
                )

            seconds, _ = median_time(starts, args.repeats)
            rows.append(
                {"what": f"starts {loss}", "kernel": kernel, "seconds": seconds}
            )
        for axis in ("distance", "count"):
            sweep = lp.SweepRequest(request, axis)

            def run(sweep=sweep):
                return robustness.sweep_outliers(
                    sweep.base.clean_data,
                    sweep.base.outliers,
                    sweep.base.settings,
                    axis=sweep.axis,
                    values=sweep.values,
                    seeds=sweep.seeds,
                )

            seconds, result = median_time(run, args.repeats)
            # Each value and seed fits every loss; the clean fits once per seed.
            fits = (len(sweep.values) + 1) * len(sweep.seeds) * len(result.losses)
            rows.append(
                {
                    "what": f"sweep {axis} ({len(sweep.values)} values x "
                    f"{len(sweep.seeds)} seeds, {fits} fits)",
                    "kernel": kernel,
                    "seconds": seconds,
                }
            )
        lp.comparison(request)  # fill the page's cache

        def cached(request=request):
            return lp.comparison(request)

        seconds, _ = median_time(cached, args.repeats)
        rows.append({"what": "cached panels", "kernel": kernel, "seconds": seconds})
    print_table(rows, ["what", "kernel", "seconds"])
    load = machine_load()
    print(f"load average {load['load_average']}")
    path = write_json("losses_page", {"rows": rows, "load": load})
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
