"""Teaching presets: one table of Explore settings, each with what to look at.

A preset is an :class:`ExploreSettings` (so it is a shareable Explore URL,
``query(name)``, that round-trips through ``from_query`` / ``to_query``), a topic
for the lecture hub (``app.py``), a paragraph that says what to look at, and the
number in the numbers panel that shows it (``number``, its label there) with the
value it takes (``promise``, as the panel prints it). ``tests/test_presets.py``
loads every preset through AppTest and checks that number, against scikit-learn
or a closed form where there is one.

The numbers are those of the seeded data (seed 0): a preset is a picture the
lecturer has seen, not a random draw.

This module does not import streamlit.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from svmlab.ui.settings import ExploreSettings

__all__ = ["PRESETS", "TOPICS", "Preset", "by_topic", "query"]


@dataclass(frozen=True)
class Preset:
    """One teaching preset: the settings, where it sits, what it shows."""

    name: str
    topic: str
    title: str
    settings: ExploreSettings
    look: str
    number: str
    promise: str

    @property
    def url_settings(self) -> ExploreSettings:
        """The settings with the preset's name in them (what its link encodes)."""
        return replace(self.settings, preset=self.name)


#: The hub's sections, in the order a course meets them.
TOPICS: tuple[str, ...] = (
    "Margins and C",
    "The kernel width σ",
    "Losses",
    "Kernels",
    "Solvers and the bias",
)

_CIRCLES = {"dataset": "two_circles", "n": 200, "noise": 0.1, "sigma": 0.39}
_OUTLIERS = {
    "dataset": "outlier_blobs",
    "data_params": (("n_outliers", 5), ("outlier_distance", 10.0)),
    "kernel": "linear",
    "C": 1.0,
}
_POLY2 = {
    "dataset": "two_circles",
    "kernel": "polynomial",
    "degree": 2,
    "coef0": 0.0,
    "C": 1.0,
}

_TABLE: tuple[Preset, ...] = (
    Preset(
        "hard_margin",
        "Margins and C",
        "Hard margin: three support vectors (Sugiyama Fig. 27.6)",
        ExploreSettings(
            dataset="linear", n=40, kernel="linear", hard_margin=True, test_fraction=0.0
        ),
        "Separable data and C = ∞: the widest strip that separates the classes. "
        "Only the points on the dashed margins f = ±1 hold it up: 3 of the 40, "
        "ringed. Delete any other point and nothing moves; delete a ringed one and "
        "the strip turns.",
        "support vectors",
        "3 / 40",
    ),
    Preset(
        "c_too_small",
        "Margins and C",
        "C too small: every point pays, the boundary underfits",
        ExploreSettings(**_CIRCLES, C=0.01),
        "With C = 0.01 the margin is so wide that most points sit inside it with "
        "α = C: 107 of the 160 training points are bound support vectors (pink "
        "rings), and the boundary misses the inner circle on 35 % of the training "
        "points. Move C up and watch the pink rings go.",
        "bound SVs",
        "107",
    ),
    Preset(
        "c_too_large",
        "Margins and C",
        "C too large: the boundary chases label noise",
        ExploreSettings(**_CIRCLES, C=1e4),
        "Ten per cent of the labels outside the band are flipped. With C = 10⁴ the "
        "boundary bends around them: the training error falls to 3.1 % while the "
        "test error (hollow points) is 22.5 %, against 17.5 % at C = 0.1.",
        "test error",
        "22.5 %",
    ),
    Preset(
        "sigma_too_small",
        "The kernel width σ",
        "σ too small: every point its own island (overfit)",
        ExploreSettings(dataset="spiral", C=10.0, sigma=0.1),
        "With σ = 0.1 each training point gets a bump of its own: all 160 are "
        "support vectors, the training error is 0 and the test error 37.5 %. The "
        "boundary is a ring around every point rather than a spiral.",
        "support vectors",
        "160 / 160",
    ),
    Preset(
        "sigma_too_large",
        "The kernel width σ",
        "σ too large: a near-linear boundary (underfit)",
        ExploreSettings(dataset="spiral", C=10.0, sigma=30.0),
        "With σ = 30 the kernel is almost flat over the data, so f is nearly a "
        "low-order polynomial: it cannot follow the arms and errs on 46.2 % of the "
        "training points, close to guessing.",
        "training error",
        "46.2 %",
    ),
    Preset(
        "spiral_hinge",
        "Losses",
        "The spiral by the hinge loss (Sugiyama Fig. 27.11)",
        ExploreSettings(dataset="spiral"),
        "The hinge is zero for m ≥ 1, so only points on or inside the margin are "
        "support vectors: 68 of 160 (52 free on f = ±1, 16 bound inside). Training "
        "error 0, test error 2.5 %.",
        "support vectors",
        "68 / 160",
    ),
    Preset(
        "spiral_squared_hinge",
        "Losses",
        "The spiral by the squared hinge (Sugiyama Fig. 27.16)",
        ExploreSettings(dataset="spiral", loss="squared_hinge"),
        "The same data and C with the squared hinge: α = C(1 − m) has no upper "
        "bound, so no support vector is bound, and more points lean on the "
        "boundary: 127 of 160 are support vectors (68 with the hinge).",
        "support vectors",
        "127 / 160",
    ),
    Preset(
        "outliers_hinge",
        "Losses",
        "Outliers against the hinge (Sugiyama Fig. 27.17, left)",
        ExploreSettings(**_OUTLIERS),
        "Five outliers, ten units away on the wrong side. The hinge grows without "
        "end, so each outlier pulls with the full weight α = C: 46 bound support "
        "vectors, and the boundary tilts towards them.",
        "bound SVs",
        "46",
    ),
    Preset(
        "outliers_ramp",
        "Losses",
        "Outliers against the ramp (Sugiyama Fig. 27.17, right)",
        ExploreSettings(**_OUTLIERS, loss="ramp"),
        "The ramp min(1, max(0, 1 − m)) stops growing at m = 0: past it an outlier "
        "costs a constant and pulls with α = 0. No bound support vector is left, "
        "three free ones hold the boundary, and it stands where the clean data "
        "put it.",
        "bound SVs",
        "0",
    ),
    Preset(
        "poly_degree_too_high",
        "Kernels",
        "Polynomial degree too high: training error 0, test error 30 %",
        ExploreSettings(
            dataset="blobs",
            n=100,
            noise=1.2,
            test_fraction=0.5,
            kernel="polynomial",
            degree=10,
            C=10.0,
        ),
        "Two overlapping blobs, the best boundary nearly a straight line. A "
        "degree-10 polynomial kernel separates the 50 training points perfectly "
        "and pays on the 50 test points: 30 % wrong (degree 3: 4 % and 14 %).",
        "test error",
        "30.0 %",
    ),
    Preset(
        "linear_cannot_separate",
        "Kernels",
        "A kernel that cannot separate: a line through two circles",
        ExploreSettings(dataset="two_circles", kernel="linear"),
        "No straight line splits an inner disc from a ring, so the linear kernel "
        "settles for calling every point −1: the training error is exactly the "
        "share of +1 points, 22 of 80 = 27.5 %. Switch the kernel to Gaussian.",
        "training error",
        "27.5 %",
    ),
    Preset(
        "irwls_lee",
        "Solvers and the bias",
        "IRWLS converging (Lee 2006)",
        ExploreSettings(
            dataset="two_circles",
            loss="modified_hinge",
            solver="irwls",
            delta=0.1,
            playback=True,
        ),
        "Lee's modified hinge solved by iteratively reweighted least squares: each "
        "step solves a weighted ridge problem and the objective falls at every "
        "step. Lee's stopping rule ends it after 10 steps; replay them below the "
        "chart.",
        "iterations (irwls)",
        "10",
    ),
    Preset(
        "bias_none",
        "Solvers and the bias",
        "No bias: a circle needs b (Rifkin)",
        ExploreSettings(**_POLY2, bias="none"),
        "The kernel (x·z)² has no constant feature, so without a bias f(x) = 0 can "
        "only be a pair of lines through the origin, never a circle: the fit calls "
        "every point −1 and errs on 27.5 % (the share of +1). Set the bias to "
        "regularized or unregularized.",
        "training error",
        "27.5 %",
    ),
    Preset(
        "bias_regularized",
        "Solvers and the bias",
        "Regularised against unregularised bias (Rifkin)",
        ExploreSettings(**_POLY2, bias="regularized"),
        "A regularised bias is a kernel K + 1: b = Σ αᵢ yᵢ is paid for in ‖w‖², "
        "so it is shrunk, b = 1.169 against 1.399 unregularised (where Σ αᵢ yᵢ = 0 "
        "and b is free). Both draw the circle; the training error is 6.2 % here "
        "and 7.5 % unregularised.",
        "bias b",
        "1.169",
    ),
)

#: Name -> preset, in the hub's order within each topic.
PRESETS: dict[str, Preset] = {p.name: p for p in _TABLE}


def query(name: str) -> dict[str, str]:
    """The Explore URL's query parameters of the preset ``name``."""
    return PRESETS[name].url_settings.to_query()


def by_topic() -> dict[str, list[Preset]]:
    """The presets grouped by :data:`TOPICS`, in the table's order."""
    return {t: [p for p in PRESETS.values() if p.topic == t] for t in TOPICS}
