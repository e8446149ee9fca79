"""How long the playback GIF of Explore's "Slides" popover takes, and how big it is.

The playback GIF has one frame per recorded step of the fit's history (up to
200), each a matplotlib drawing of the plane at that step
(``svmlab.ui.explore.slides_panel.playback_frames``, the same figure calls
here without Streamlit). Measured for Explore's default problem (spiral,
n = 200, 80 % for training, Gaussian σ = 3.3, C = 10, hinge, SMO) and a small
one, at the path GIF's frame size (960 x 540) and the playback's (800 x 450):
the frames' specs, the GIF written, its size. Medians of ``--repeats`` runs;
the machine's load is printed and kept in the JSON.

    python -m benchmarks slides_gif [--repeats 3]
"""

from __future__ import annotations

import argparse

import numpy as np

from benchmarks.harness.report import machine_load, median_time, print_table, write_json
from svmlab import SVC, datasets, figures
from svmlab.figures import slides
from svmlab.ui.explore.slides_panel import PLAYBACK_FRAME


def _problem(n: int) -> tuple[SVC, np.ndarray, np.ndarray]:
    X, y = datasets.make_spiral(n, random_state=0)
    train = int(0.8 * n)
    model = SVC(kernel="gaussian", sigma=3.3, C=10.0, record_history=True)
    return model.fit(X[:train], y[:train]), X[:train], y[:train]


def _specs(model: SVC, X: np.ndarray, y: np.ndarray) -> list[tuple[dict, str]]:
    bounds = figures.data_bounds(X)
    return [
        (
            figures.decision_spec(
                model, X, y, bounds=bounds, snapshot=k, legend="none", height=760
            ),
            f"iteration {model.history_.iteration[k]}",
        )
        for k in range(len(model.history_))
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    rows = []
    for n in (200, 40):
        model, X, y = _problem(n)
        spec_s, frames = median_time(lambda: _specs(model, X, y), args.repeats)
        for size in ((960, 540), PLAYBACK_FRAME):
            gif_s, gif = median_time(
                lambda size=size: slides.animation(
                    frames, "caption", seconds_per_frame=0.3, size=size
                ),
                args.repeats,
            )
            rows.append(
                {
                    "n": n,
                    "frames": len(frames),
                    "size": f"{size[0]}x{size[1]}",
                    "specs_s": spec_s,
                    "gif_s": gif_s,
                    "ms_per_frame": 1000 * gif_s / len(frames),
                    "MB": len(gif) / 1e6,
                }
            )
    load = machine_load()
    print(f"load average: {load['load_average']}")
    print_table(rows, ["n", "frames", "size", "specs_s", "gif_s", "ms_per_frame", "MB"])
    path = write_json(
        "slides_gif", {"repeats": args.repeats, "load": load, "rows": rows}
    )
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
