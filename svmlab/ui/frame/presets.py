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

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from svmlab.ui.explore.fields import EXPLORE_PRESETS
from svmlab.ui.explore.settings import ExploreSettings

__all__ = [
    "BACK_HELP",
    "BACK_LABEL",
    "EXPLORE",
    "LEAVE_ALONE_LABEL",
    "LEAVE_HELP",
    "LEAVE_LABEL",
    "PAGE_TOPICS",
    "PRESETS",
    "TOPICS",
    "Preset",
    "by_topic",
    "page_query",
    "query",
]

#: The Explore page's script (a preset's ``page`` unless it says otherwise).
EXPLORE = "pages/1_Explore.py"


@dataclass(frozen=True)
class Preset:
    """One teaching preset: the settings, where it sits, what it shows.

    On Explore (``page`` = :data:`EXPLORE`) the settings are an
    :class:`ExploreSettings`; on the Losses, Solvers and Multiclass pages they
    are the page's link, as ``(name, value)`` query pairs
    (:mod:`svmlab.ui.frame.page_state` reads them into the widgets), and ``measure``
    reads the promised number off the page's engine result, so the paragraph
    shows what is measured now beside what it promises.
    """

    name: str
    topic: str
    title: str
    settings: ExploreSettings | tuple[tuple[str, str], ...]
    look: str
    number: str
    promise: str
    page: str = EXPLORE
    measure: Callable[[Any], str] | None = None
    #: The page's panels the number compares, in its order (Losses: drawn
    #: first, side by side, the preset's box beside them: issue 46).
    panels: tuple[str, ...] = ()

    @property
    def url_settings(self) -> ExploreSettings:
        """The settings with the preset's name in them (what its link encodes);
        Explore's presets only."""
        if not isinstance(self.settings, ExploreSettings):
            raise TypeError(f"{self.name} is a preset of {self.page}, not Explore")
        return replace(self.settings, preset=self.name)


#: The buttons of a preset's box (every page's): back to the preset's settings
#: and out of it. One word each when side by side: two share the box's side
#: column, about 100 px each at 1280 px, where "Back to the preset" showed as
#: "Back to th…". Their tooltips say it in full.
BACK_LABEL = "Restore"
BACK_HELP = "Back to the preset: its settings again."
LEAVE_LABEL = "Leave"
LEAVE_ALONE_LABEL = "Leave the preset"
LEAVE_HELP = "Leave the preset: keep these settings, drop its paragraph."


#: The hub's sections, in the order a course meets them.
TOPICS: tuple[str, ...] = (
    "Margins and C",
    "The kernel width σ",
    "Losses",
    "Kernels",
    "Solvers and the bias",
    "More than two classes",
    "Regression",
    "The SVM family",
)

#: The scripts of the pages with presets of their own (their links are read by
#: :mod:`svmlab.ui.frame.page_state`).
LOSSES = "pages/4_Losses.py"
SOLVERS = "pages/5_Solvers.py"
MULTICLASS = "pages/6_Multiclass.py"
REGRESSION = "pages/7_Regression.py"
FAMILY = "pages/8_Family.py"


# -- what a page preset's number is, read off the page's engine result --------------


def _angles(first: str, second: str) -> Callable[[Any], str]:
    """w's turn under two losses (a Losses comparison), as the panels print it."""

    def measure(result: Any) -> str:
        a, b = (result.results[k].angle for k in (first, second))
        return f"{a:.1f}° / {b:.1f}°"

    return measure


def _loss_errors(first: str, second: str) -> Callable[[Any], str]:
    def measure(result: Any) -> str:
        a, b = (100 * result.results[k].test_error for k in (first, second))
        return f"{a:.1f} % / {b:.1f} %"

    return measure


def _objectives(first: str, second: str) -> Callable[[Any], str]:
    """Two solvers' objectives (a Solvers comparison), to 7 digits."""

    def measure(result: Any) -> str:
        a, b = (result.row(k).objective for k in (first, second))
        return f"{a:.7g} / {b:.7g}"

    return measure


def _iterations_objective(name: str) -> Callable[[Any], str]:
    def measure(result: Any) -> str:
        row = result.row(name)
        return f"{row.n_iter} / {row.objective:.7g}"

    return measure


def _method_errors(result: Any) -> str:
    """The three multiclass methods' test errors, in the page's order."""
    return " / ".join(
        f"{100 * result[m].test_error:.1f} %" for m in ("ovr", "ovo", "crammer_singer")
    )


def _ovr_open(result: Any) -> str:
    return f"{100 * result['ovr'].undecided_share:.1f} %"


def _support_vectors(fitted: Any) -> str:
    """A regression fit's support vectors of all its points, as the page prints."""
    return f"{fitted.model.support_.size} / {len(fitted.t)}"


def _epsilon(fitted: Any) -> str:
    return f"{fitted.epsilon:.4g}"


def _test_rmse(fitted: Any) -> str:
    return f"{fitted.test_rmse:.4g}"


# The SVM family page's result is ``(request, fitted, threshold)``
# (svmlab.ui.family.requests): the threshold moves without a refit.


def _pct(value: float) -> str:
    return f"{100.0 * value:.1f} %"


def _novelty(result: Any) -> str:
    _, fitted, _ = result
    m = fitted.model
    flagged = float(np.mean(m.decision_function(fitted.others) < 0.0))
    return f"{_pct(m.outlier_fraction_)} / {_pct(flagged)}"


def _minority_errors(result: Any) -> str:
    _, fitted, _ = result
    mine = fitted.y > 0
    wrong = int(np.sum(fitted.f[mine] < 0.0))
    return f"{wrong} / {int(np.sum(mine))}"


def _rates(result: Any) -> str:
    _, fitted, threshold = result
    y = fitted.test[1] > 0
    called = fitted.f_test >= threshold
    tpr = np.sum(called & y) / max(1, np.sum(y))
    fpr = np.sum(called & ~y) / max(1, np.sum(~y))
    return f"{_pct(tpr)} / {_pct(fpr)}"


#: The hub's topic of each page's own presets (one page, one topic).
PAGE_TOPICS: dict[str, str] = {
    LOSSES: "Losses",
    SOLVERS: "Solvers and the bias",
    MULTICLASS: "More than two classes",
    REGRESSION: "Regression",
    FAMILY: "The SVM family",
}


def _on(
    page: str,
    name: str,
    title: str,
    query: tuple[tuple[str, str], ...],
    look: str,
    number: str,
    promise: str,
    measure: Callable[[Any], str],
    panels: tuple[str, ...] = (),
) -> Preset:
    """A preset of ``page`` (not Explore): its link's ``query`` pairs, under
    the page's topic (:data:`PAGE_TOPICS`), its number read by ``measure``."""
    return Preset(
        name,
        PAGE_TOPICS[page],
        title,
        query,
        look,
        number,
        promise,
        page=page,
        measure=measure,
        panels=panels,
    )


def _losses(
    *preset: Any,
    compare: Callable[[str, str], Callable[[Any], str]],
    panels: tuple[str, str],
) -> Preset:
    """A Losses preset (``preset``: :func:`_on`'s name to promise) comparing two
    losses: ``panels`` are drawn first, side by side, and the number is
    ``compare`` read off those two, in that order."""
    return _on(LOSSES, *preset, measure=compare(*panels), panels=panels)


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
        # The two circles, 2 units across: at σ = 0.05 each point's ring is
        # wider than its support-vector mark (on the spiral, 30 units across,
        # σ = 0.1 drew rings a few pixels wide, hidden under the marks).
        ExploreSettings(**{**_CIRCLES, "sigma": 0.05}, C=10.0),
        "With σ = 0.05 each training point gets a bump of its own: 154 of the 160 "
        "are support vectors, the training error is 0 and the test error 30 %. "
        "The boundary is a ring around each +1 point (the −1 points sit in the "
        "−1 background) rather than a circle.",
        "support vectors",
        "154 / 160",
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
        "IRWLS stopped by Lee's rule (Lee 2006)",
        ExploreSettings(
            dataset="two_circles",
            loss="modified_hinge",
            solver="irwls",
            delta=0.1,
            playback=True,
        ),
        "Lee's modified hinge by iteratively reweighted least squares: a weighted "
        "ridge problem per step, the objective falling at each. Lee's rule (α "
        "moves less than tol) stops it after 10 steps with the KKT violation "
        "still 0.14, above tol. Replay the steps below the chart.",
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
    _losses(
        "losses_fig_27_17",
        "Outliers pull the hinge, not the ramp (Losses page, Sugiyama Fig. 27.17)",
        (("count", "3"),),
        "Three outliers of class +1 six units beyond class −1, the linear kernel, "
        "C = 1. The hinge pays 1 − m without end, so each outlier pulls with α = C "
        "and w turns by 11.9° from where the clean data put it. The ramp stops "
        "growing at m = 0: the outliers get α = 0, and the ramp's boundary is the "
        'clean one, turned by 0.0°. Read "w turned by" under the two panels.',
        "w turned by, hinge / ramp",
        "11.9° / 0.0°",
        compare=_angles,
        panels=("hinge", "ramp"),
    ),
    _losses(
        "losses_squared_hinge_far",
        "Far outliers drag the squared hinge hardest (Losses page)",
        (("count", "3"), ("distance", "20")),
        "The same three outliers, now 20 units away. The squared hinge's pull "
        "C (1 − m) grows with the distance, the hinge's stays C: the squared hinge's "
        "boundary is dragged towards them, into class −1, and errs on 9.3 % of "
        "the clean test points, the hinge on 0.1 %. Move the distance down to 6 "
        "and the squared hinge recovers.",
        "test error, squared hinge / hinge",
        "9.3 % / 0.1 %",
        compare=_loss_errors,
        panels=("squared_hinge", "hinge"),
    ),
    _losses(
        "losses_modified_hinge_delta",
        "Lee's modified hinge is a smoothed hinge: small δ, the hinge's fit "
        "(Losses page)",
        (("count", "3"), ("delta", "0.0001")),
        "The modified hinge replaces the hinge's corner at m = 1 by an exponential "
        "piece of width δ (so it is differentiable and IRWLS can solve it). With "
        "δ = 0.0001 it is the hinge to within δ: w turns by 11.9° under both. Move "
        "δ up to 0.1 and the smoother loss turns less (4.8°), with every point "
        "near the margin a support vector.",
        "w turned by, modified hinge / hinge",
        "11.9° / 11.9°",
        compare=_angles,
        panels=("modified_hinge", "hinge"),
    ),
    _on(
        SOLVERS,
        "solvers_smo_qp_agree",
        "SMO and the exact QP agree (Solvers page)",
        (("tol", "1e-06"),),
        "The hinge on two circles, tol = 10⁻⁶. SMO changes two multipliers at a "
        "time (two, to keep Σ αᵢ yᵢ = 0); the interior-point QP moves all of them. "
        "Both reach the same optimum: 11 free and 12 bound support vectors, and "
        "the objective 144.9366 to seven digits; LIBSVM (SVC) as well.",
        "objective, SMO / QP",
        "144.9366 / 144.9366",
        _objectives("smo", "qp"),
    ),
    _on(
        SOLVERS,
        "solvers_coordinate_no_bias",
        "Coordinate ascent needs no bias (Solvers page, Rifkin)",
        (("bias", "none"), ("tol", "1e-06")),
        "Without a bias the dual has no equality Σ αᵢ yᵢ = 0, so one multiplier "
        "can move alone, in closed form: coordinate ascent joins the race and "
        "reaches the QP's objective, 151.0807. Set the bias to unregularized and it is "
        "listed as not valid (one αᵢ cannot move without breaking the equality).",
        "objective, coordinate ascent / QP",
        "151.0807 / 151.0807",
        _objectives("coordinate", "qp"),
    ),
    _on(
        SOLVERS,
        "solvers_irwls_steps",
        "IRWLS converges in a few steps (Solvers page, Lee 2006)",
        (("loss", "modified_hinge"), ("tol", "1e-06")),
        "Lee's modified hinge by iteratively reweighted least squares: each step "
        "is one weighted ridge solve. 22 steps reach the optimum's objective to "
        "seven digits, where SMO needs hundreds of pair updates on the hinge. "
        "Lee's stopping rule ends it before the KKT residual meets tol, as the "
        "table's last column says.",
        "IRWLS iterations / objective",
        "22 / 148.6177",
        _iterations_objective("irwls"),
    ),
    _on(
        MULTICLASS,
        "multiclass_three_methods",
        "One-vs-rest, one-vs-one, Crammer-Singer on overlapping blobs",
        (("kernel", "linear"), ("noise", "1.5")),
        "Three overlapping blobs, the linear kernel, C = 1. Three ways to a "
        "multiclass SVM, three different sets of support vectors (186, 130, 138), "
        "yet the class regions nearly coincide and so do the test errors on 1000 "
        "fresh points, 20.4 %, 20.5 % and 20.5 %: the overlap, not the method, "
        "sets the error here.",
        "test error, one-vs-rest / one-vs-one / Crammer-Singer",
        "20.4 % / 20.5 % / 20.5 %",
        _method_errors,
    ),
    _on(
        MULTICLASS,
        "multiclass_ovr_ambiguous",
        "Where one-vs-rest cannot decide (four blobs)",
        (("kernel", "linear"), ("noise", "1.5"), ("n_classes", "4")),
        'Four overlapping blobs. Each one-vs-rest classifier says "mine" or '
        '"not mine"; in the hatched regions none says mine or several do, and '
        "only the argmax of the raw scores decides: 47.2 % of the test points lie "
        "there. One-vs-one's vote and Crammer-Singer's single argmax leave "
        "nothing open.",
        "one-vs-rest undecided",
        "47.2 %",
        _ovr_open,
    ),
    _on(
        REGRESSION,
        "regression_tube",
        "The ε-tube: what is inside costs nothing (sinc)",
        (("C", "1"),),
        "ε-SVR on 100 noisy points of sinc(x), ε = 0.1, C = 1. Points inside the "
        "tube f ± ε (grey) have α = α* = 0 and do not shape f; the 35 support "
        "vectors sit on the tube's edge (0 < |α − α*| < C, the stems below) or "
        "outside it at the box. The stems show which.",
        "support vectors",
        "35 / 100",
        _support_vectors,
    ),
    _on(
        REGRESSION,
        "regression_wide_tube",
        "A wider tube, fewer support vectors (ε = 0.33)",
        (("epsilon", "0.33"),),
        "The same points with ε = 0.33: almost every point now fits inside the "
        "tube, and 7 support vectors are left to hold f up. The flat loss inside "
        "the tube is what makes SVR sparse; run the ε path to watch them thin out.",
        "support vectors",
        "7 / 100",
        _support_vectors,
    ),
    _on(
        REGRESSION,
        "regression_nu_finds_epsilon",
        "ν-SVR chooses ε itself (ν = 0.2)",
        (("machine", "nu"), ("nu", "0.2")),
        "ν-SVR takes ν instead of ε: at most a fraction ν of the points lie outside "
        "the tube and at least ν are support vectors. With ν = 0.2 it finds "
        "ε = 0.1132, close to the noise's own scale; the numbers show the bound "
        "(outside ≤ ν ≤ support vectors).",
        "ε found by ν",
        "0.1132",
        _epsilon,
    ),
    _on(
        REGRESSION,
        "regression_squared_outliers",
        "Outliers pull the squared ε-insensitive loss (sin(x) with outliers)",
        (("data", "sine_outliers"), ("loss", "squared_epsilon_insensitive")),
        "sin(x) with a few far outliers and the squared ε-insensitive loss: each "
        "outlier's cost grows with the square of its distance, f bends towards "
        "them and the test RMSE is 0.3817, against 0.3532 with the ε-insensitive "
        "loss itself (linear outside the tube, bounded |α − α*| ≤ C): switch the "
        "loss to see it.",
        "test RMSE",
        "0.3817",
        _test_rmse,
    ),
    Preset(
        "nu_bound",
        "The SVM family",
        "ν in place of C: ν bounds the margin errors and the support vectors",
        ExploreSettings(dataset="moons", machine="nu", nu=0.33),
        "ν-SVC on two moons (Schölkopf et al. 2000): ν = 0.33 is an upper bound "
        "on the fraction of margin errors, 27.5 % of the 160 training points, and "
        "a lower bound on the fraction of support vectors, 40.6 %. Move ν and the "
        "first three numbers move together; ν-SVC finds its margin ρ, and the "
        "C-SVC with the equivalent C = 0.2183 draws the same boundary.",
        "margin errors",
        "27.5 %",
    ),
    Preset(
        "sigmoid_not_psd",
        "The SVM family",
        "The sigmoid kernel is not positive semidefinite",
        ExploreSettings(dataset="blobs", kernel="sigmoid", sig_a=0.47, sig_r=-1.0),
        "tanh(a x·z + r) with a = 0.47 and r = −1 on two blobs: the smallest "
        "eigenvalue of its Gram matrix is -75.5, so the dual is not convex (Lin & "
        "Lin 2003). SMO still climbs it at every step and stops where the KKT "
        "conditions hold: a sensible boundary here (test error 7.5 %), but it may "
        "depend on the start. The squared hinge and the exact QP refuse it.",
        "smallest eigenvalue of K",
        "-75.5",
    ),
    _on(
        FAMILY,
        "family_novelty",
        "Novelty detection: a one-class SVM that never saw the other class "
        "(SVM family page)",
        (
            ("data", "blobs"),
            ("machine", "one_class"),
            ("kernel", "gaussian"),
            ("nu", "0.1"),
            ("train", "pos"),
        ),
        "The one-class SVM (Schölkopf et al. 2001) fitted on class +1 alone, "
        "ν = 0.1, σ = 1: the shaded region f ≥ 0 is where it puts those points, "
        "and at most ν of them fall outside it: 3.0 %, crossed. The other blob, "
        "which it never saw, is drawn hollow: 79.0 % of it lands outside, "
        "flagged as new.",
        "outside / other class flagged",
        "3.0 % / 79.0 %",
        _novelty,
    ),
    _on(
        FAMILY,
        "family_imbalanced",
        "Imbalanced classes: the boundary pushed into the small class "
        "(SVM family page)",
        (("ratio", "10"),),
        "Ten points of class −1 for every point of class +1, a linear kernel, "
        "C = 1, no weights. Each error costs the same, and the large class has "
        "more of them to lose, so the boundary moves into the small class: 10 of "
        "its 18 training points end on the wrong side, against 1 of 182.",
        "class +1 training errors",
        "10 / 18",
        _minority_errors,
    ),
    _on(
        FAMILY,
        "family_balanced",
        "Balanced class weights bring the boundary back (SVM family page)",
        (("ratio", "10"), ("weights", "balanced")),
        "The same data with scikit-learn's balanced weights, w_c = n / (2 n_c): "
        "C₊ = 5.56 and C₋ = 0.549, so an error on the small class costs ten "
        "times more. The boundary comes back: 1 of its 18 points is wrong, and "
        "the large class pays with 18 of 182.",
        "class +1 training errors",
        "1 / 18",
        _minority_errors,
    ),
    _on(
        FAMILY,
        "family_threshold",
        "A threshold trades one error for the other (ROC) (SVM family page)",
        (("t", "-0.5"), ("shade", "p")),
        "The unweighted fit on imbalanced blobs, shaded by Platt's probability "
        "(LIBSVM's internal 5-fold fit, Lin, Lin & Weng 2007). Moving the "
        "threshold on f to −0.5 calls more points +1 without refitting: on 400 "
        "fresh points the true positive rate rises from 76.1 % to 79.1 % and the "
        "false positive rate from 4.8 % to 6.9 %, a step along the ROC curve "
        "(AUC 0.941).",
        "true / false positive rate",
        "79.1 % / 6.9 %",
        _rates,
    ),
)

#: Name -> preset, in the hub's order within each topic.
PRESETS: dict[str, Preset] = {p.name: p for p in _TABLE}
# A link's preset=<name> on Explore must name one of these (svmlab.ui.explore.settings).
EXPLORE_PRESETS.update(name for name, p in PRESETS.items() if p.page == EXPLORE)


def page_query(name: str) -> dict[str, str]:
    """The link of a preset of the Losses, Solvers or Multiclass page."""
    preset = PRESETS[name]
    return {**dict(preset.settings), "preset": name}


def query(name: str) -> dict[str, str]:
    """The query parameters of the preset ``name``'s link (on its ``page``)."""
    preset = PRESETS[name]
    if preset.page == EXPLORE:
        return preset.url_settings.to_query()
    return page_query(name)


def by_topic() -> dict[str, list[Preset]]:
    """The presets grouped by :data:`TOPICS`, in the table's order."""
    return {t: [p for p in PRESETS.values() if p.topic == t] for t in TOPICS}
