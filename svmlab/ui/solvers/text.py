"""The Solvers page's sentences: how each algorithm works, what its iterations
are, and what the numbers measured now say (never what we hoped they say)."""

from __future__ import annotations

import math

from svmlab.experiments.solver_comparison import LIBRARY, Comparison
from svmlab.experiments.solver_scaling import LeeRow, ScalingResult
from svmlab.solvers import SOLVERS

__all__ = ["HOW", "TABLE_HELP", "lee_sentence", "reference_sentence", "titles"]

#: name -> (update rule, what one iteration is). The source is the solver's own
#: ``SolverSpec.source`` (the library references name theirs here).
HOW: dict[str, tuple[str, str]] = {
    "smo": (
        "Picks the pair (i, j) that violates the KKT conditions most (LIBSVM's "
        "second-order working-set choice), and solves the two-variable QP in closed "
        "form: αᵢ ← αᵢ + yᵢt, αⱼ ← αⱼ − yⱼt with t clipped to the box [0, C], which "
        "keeps Σ αᵢyᵢ = 0. Without an unregularized bias it moves one coordinate at "
        "a time.",
        "one iteration = one pair (or one coordinate) updated; the gradient is "
        "refreshed from two kernel rows.",
    ),
    "qp": (
        "Solves the dual max Σαᵢ − ½ αᵀYKYα subject to 0 ≤ αᵢ ≤ C and Σ αᵢyᵢ = 0 "
        "(Sugiyama §27.2, eq. 27.3) by an interior-point method (CVXOPT; Clarabel "
        "for C = ∞), then polishes the active set so every αᵢ sits exactly at 0, "
        "in between, or at C.",
        "one iteration = one Newton step along the barrier path; the steps are not "
        "recorded, so it has no trace and no race panel: it is the reference.",
    ),
    "coordinate": (
        "With no equality constraint one coordinate can move alone: "
        "αᵢ ← clip(αᵢ − Gᵢ / Qᵢᵢ, 0, C), Gᵢ = yᵢ f(xᵢ) − 1 the dual gradient, then "
        "G is updated from one kernel row (Rifkin's simple SVM algorithm). So it "
        "needs no bias or the regularized one.",
        "one iteration = one sweep over the coordinates still active (shrinking "
        "drops those stuck at a bound).",
    ),
    "irwls": (
        "Replaces the modified hinge around the current margins rᵢ by a weighted "
        "square, wᵢ = −h′(rᵢ)/(1 − rᵢ) (guarded near rᵢ = 1), and solves "
        "(W H + I/C) a = W 1 (the paper prints −I/C; see Notes on the sources), "
        "with a backtracking step.",
        "one iteration = one weighted least-squares solve, O(n³): few "
        "iterations, each costly.",
    ),
    "entropy_dual": (
        "Solves the modified hinge's dual: the hinge dual plus δ Σ αᵢ log(αᵢ/C), "
        "an entropy term (see Notes on the sources). Each step moves one αᵢ (no "
        "bias) or a pair along (yᵢ, −yⱼ) (the bias) to the exact maximum on that "
        "line, a one-dimensional Newton solve; where many αᵢ are free it takes "
        "Newton steps on all of them at once.",
        "one iteration = one coordinate or pair step, O(n) like SMO's; it stops "
        "when the stationarity residual meets tol.",
    ),
    "retargeted_ls": (
        "Writes the squared hinge as a least-squares loss with moving targets: "
        "points beyond the margin (mᵢ ≥ 1) get their own current output as target "
        "(no loss), the others yᵢ; then solves the kernel ridge system "
        "(K + I/C) θ = y·v. The objective never increases.",
        "one iteration = one n × n linear solve; it stops when the targets stop "
        "changing.",
    ),
    "cccp": (
        "Splits the ramp into the hinge minus a convex part, replaces that part by "
        "its tangent at the current fit (βᵢ = C where mᵢ < 0) and solves the "
        "resulting convex hinge QP, warm-started (SMO or the QP inside).",
        "one iteration = one convex subproblem; it starts from the hinge solution, "
        "so 1-3 iterations are usual.",
    ),
    "libsvm": (
        "scikit-learn's SVC is LIBSVM: the same SMO with the second-order working "
        "set (Fan, Chen, Lin 2005), shrinking and a kernel cache, in C++. Its time "
        "includes its own kernel work.",
        "one iteration = one pair, as SMO's; it fits the hinge loss with an "
        "unregularized b only.",
    ),
    "liblinear": (
        "scikit-learn's LinearSVC is LIBLINEAR: dual coordinate descent on w "
        "directly (Hsieh et al. 2008), with x extended by a constant 1 (the "
        "regularized bias) or no bias. Linear kernel only; it reports no α, so no "
        "KKT check, gap or SV count here.",
        "one iteration = one pass over the data.",
    ),
}

#: Sources of the library references (svmlab solvers carry their own).
LIBRARY_SOURCES = {
    "libsvm": "Chang & Lin, LIBSVM; Fan, Chen, Lin (2005)",
    "liblinear": "Fan et al., LIBLINEAR; Hsieh et al. (2008)",
}

TABLE_HELP = (
    "Time: kernel + solve (median of 3 runs under 50 ms). Objective: the primal "
    "½‖f‖² + C Σ loss(mᵢ), one formula for every solver. KKT violation: in margin "
    "units for the box duals, the stationarity residual for smooth losses. Duality "
    "gap: primal − dual; it bounds how far the objective is above the optimum. "
    "max |f − f_ref|: the largest difference of f from the reference's over the "
    'plane drawn below. Met tol: the KKT violation is at most tol; "its own '
    'test": LIBSVM stopped by its own criterion (computed with a float32 kernel '
    "cache), though this table's float64 measure of its answer is above tol."
)


def titles() -> dict[str, str]:
    """Short names for legends and panels."""
    short = {
        "smo": "SMO",
        "qp": "QP",
        "coordinate": "coordinate ascent",
        "irwls": "IRWLS",
        "entropy_dual": "entropy dual",
        "retargeted_ls": "retargeted LS",
        "cccp": "CCCP",
        "libsvm": "LIBSVM (SVC)",
        "liblinear": "LIBLINEAR",
    }
    return {name: short.get(name, name) for name in [*SOLVERS, *LIBRARY]}


def source(name: str) -> str:
    if name in SOLVERS:
        return SOLVERS[name].source
    return LIBRARY_SOURCES.get(name, "")


def reference_sentence(result: Comparison) -> str:
    """What the table's f_ref and the traces' gap are measured from."""
    if result.reference == "qp":
        return (
            "Reference: the exact QP at tol 1e-8 (KKT violation about 1e-12); "
            "max |f − f_ref| and the objective gap are measured from it."
        )
    if result.reference == "irwls":
        return (
            "Reference: IRWLS run to tol 1e-8 on the stationarity residual (no QP "
            "solves the modified hinge); f_ref and the gap are measured from it."
        )
    return (
        "This loss is non-convex: no solver's answer is the optimum, so there is no "
        "reference f; the objective gap is measured from the lowest objective any "
        "solver reached, and the race compares each solver with its own answer."
    )


def _fastest(result: ScalingResult, n: int) -> str | None:
    i = result.sizes.index(n)
    timed = {k: v[i] for k, v in result.times.items() if v[i]}
    return min(timed, key=timed.get) if timed else None


def lee_sentence(rows: list[LeeRow]) -> str:
    """Lee's order against ours, and why, from the measured ratios."""
    if not rows:
        return ""
    last = rows[-1]
    ours = last.ratio
    order = (
        f"IRWLS {ours:.2g}× faster than the QP"
        if ours >= 1
        else f"the QP {1 / ours:.2g}× faster than IRWLS"
    )
    lead = (
        f"Lee found IRWLS {last.paper_ratio:.1f}× faster than the QP at n = "
        f"{last.n}; here, on the same setting, {order} "
        f"({last.irwls_iter} IRWLS iterations). "
    )
    if ours >= 1:
        why = (
            "The order is Lee's: each IRWLS iteration is one n × n solve and few "
            "are needed, while the QP's interior point also pays an n × n "
            "factorization per Newton step and the active-set polish."
        )
    else:
        why = (
            "Why the order turned: Lee's QP was MATLAB's general-purpose quadprog "
            "(303 s at n = 400); ours is a compiled interior-point method (CVXOPT) "
            "that reaches the optimum in 10 to 20 Newton steps, each one n × n "
            "factorization. IRWLS pays the same n × n solve per iteration, but near "
            "the kink of the modified hinge (δ = 1e-4, C = 500) it needs more of "
            "them, plus backtracking."
        )
    return (
        lead + why + " Both columns of ours ran on this machine: compare the "
        "order and the ratio with the paper, not the seconds."
    )


def scaling_sentence(result: ScalingResult) -> str:
    """Which solver was fastest at the largest size each reached."""
    parts = []
    for n in result.sizes:
        best = _fastest(result, n)
        if best is not None:
            parts.append((n, best))
    if not parts:
        return "No fit finished within the budget."
    n, best = parts[-1]
    t = titles()
    text = f"At n = {n} the fastest was {t[best]}. "
    slopes = []
    for name, row in result.times.items():
        pts = [(m, s) for m, s in zip(result.sizes, row, strict=False) if s]
        if len(pts) >= 3:
            (n0, t0), (n1, t1) = pts[-2], pts[-1]
            slopes.append(f"{t[name]} {math.log(t1 / t0) / math.log(n1 / n0):.1f}")
    if slopes:
        text += (
            "Slopes over the last two sizes (time ∝ nᵖ): " + ", ".join(slopes) + ". "
            "A slope near 2 is kernel-bound (every pair of points once); near 3 is "
            "a dense n × n solve per step (QP, IRWLS, retargeted LS)."
        )
    return text
