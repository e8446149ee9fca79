"""scikit-learn's side of a snippet: svmlab's kernels in ``sklearn.svm``'s
terms, the objective and SV counts from a fitted ``SVC``, and the decision
figure drawn by matplotlib.

svmlab's Gaussian is ``exp(-|x - z|^2 / (2 sigma^2))``, scikit-learn's ``rbf``
with ``gamma = 1 / (2 sigma^2)``; svmlab's polynomial ``(x'z + a)^p`` is
``poly`` with ``gamma = 1``; its sigmoid ``tanh(a x'z + r)`` is ``sigmoid`` with
``gamma = a`` (:mod:`svmlab.kernels.functions`).
"""

from __future__ import annotations

from typing import Any

from svmlab.snippets.writer import call, literal, section

__all__ = [
    "NO_EQUIVALENT",
    "figure_lines",
    "figure_section",
    "kernel_function_lines",
    "kernel_kwargs",
    "kernel_lines",
]

#: The words every scikit-learn snippet without a counterpart says (tests look
#: for them).
NO_EQUIVALENT = "No scikit-learn equivalent"


def kernel_lines(
    kernel: str, sigma: float, degree: int, coef0: float, scale: float
) -> list[str]:
    """The lines that set the kernel's parameters, with what they mean."""
    if kernel == "gaussian":
        return [
            "# svmlab's Gaussian kernel exp(-|x - z|^2 / (2 sigma^2)) is",
            "# scikit-learn's rbf kernel with gamma = 1 / (2 sigma^2).",
            f"sigma = {literal(float(sigma))}",
            "gamma = 1.0 / (2.0 * sigma**2)",
        ]
    if kernel == "polynomial":
        return [
            "# svmlab's polynomial kernel (x'z + coef0)^degree is scikit-learn's poly",
            "# kernel with gamma = 1.",
        ]
    if kernel == "sigmoid":
        return [
            "# svmlab's sigmoid kernel tanh(a x'z + r) is scikit-learn's sigmoid",
            "# kernel with gamma = a and coef0 = r.",
        ]
    return []


def kernel_kwargs(
    kernel: str, degree: int, coef0: float, scale: float
) -> dict[str, Any]:
    """``SVC``'s kernel keywords (``"=gamma"``: the variable that
    :func:`kernel_lines` sets)."""
    if kernel == "gaussian":
        return {"kernel": "rbf", "gamma": "=gamma"}
    if kernel == "polynomial":
        return {
            "kernel": "poly",
            "degree": int(degree),
            "gamma": 1.0,
            "coef0": float(coef0),
        }
    if kernel == "sigmoid":
        return {"kernel": "sigmoid", "gamma": float(scale), "coef0": float(coef0)}
    return {"kernel": "linear"}


def kernel_function_lines(
    kernel: str, degree: int, coef0: float, scale: float
) -> list[str]:
    """``def kernel(A, B)``: the Gram matrix by scikit-learn's pairwise kernels
    (after :func:`kernel_lines`), for a precomputed-kernel ``SVC``."""
    kw = kernel_kwargs(kernel, degree, coef0, scale)
    name = kw.pop("kernel")
    args = ", ".join(
        f"{k}={v[1:] if isinstance(v, str) else literal(v)}" for k, v in kw.items()
    )
    function = {
        "rbf": "rbf_kernel",
        "poly": "polynomial_kernel",
        "sigmoid": "sigmoid_kernel",
        "linear": "linear_kernel",
    }[name]
    return [
        f"from sklearn.metrics.pairwise import {function}",
        "",
        "",
        "def kernel(A, B):",
        f"    return {function}(A, B{', ' + args if args else ''})",
    ]


def figure_lines(
    X_all: str, X: str, y: str, decision: str, support: str, title: str
) -> list[str]:
    """The decision figure by matplotlib: f shaded, f = 0 solid, f = ±1
    dashed, the points by class, the support vectors ringed, on the axes of
    every point of ``X_all`` with a margin. ``decision`` is an expression of
    ``grid`` (the plane's points) giving f there."""
    return [
        "import matplotlib.pyplot as plt",
        "",
        "# The page's axes: every point with a margin of 8 % of the span.",
        f"low, high = {X_all}.min(axis=0), {X_all}.max(axis=0)",
        "low, high = low - 0.08 * (high - low), high + 0.08 * (high - low)",
        "xx, yy = np.meshgrid(",
        "    np.linspace(low[0], high[0], 200), np.linspace(low[1], high[1], 200)",
        ")",
        "grid = np.column_stack([xx.ravel(), yy.ravel()])",
        f"F = {decision}.reshape(xx.shape)",
        "fig, ax = plt.subplots(figsize=(6, 6))",
        'ax.contourf(xx, yy, F, levels=20, cmap="RdBu", alpha=0.4)',
        'dashes = ["--", "-", "--"]  # f = -1, 0, +1',
        'ax.contour(xx, yy, F, levels=[-1, 0, 1], colors="k", linestyles=dashes)',
        f'ax.scatter(*{X}.T, c={y}, cmap="RdBu", edgecolors="k", s=25)',
        f'ax.scatter(*{X}[{support}].T, s=90, facecolors="none", edgecolors="k")',
        'ax.set_aspect("equal")',
        f"ax.set_title({literal(title)})",
        "plt.show()",
    ]


def figure_section(
    heading: str, lines: list[str], title: str, setter: str = "ax.set_title"
) -> str:
    """A matplotlib figure's cell, ``heading``: pyplot imported, the figure
    drawn by ``lines``, titled ``title`` by ``setter`` (``ax.set_title`` for
    one axes, ``fig.suptitle`` for a row of panels) and shown."""
    return section(
        heading,
        "import matplotlib.pyplot as plt",
        "",
        *lines,
        call(setter, {}, args=(title,)),
        "plt.show()",
    )
