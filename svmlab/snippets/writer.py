"""The pieces every page's code is written with: values as Python literals,
calls laid out as a person would type them, points inline (the data, the points
clicked in), the view's title words, the two flavours under their headers
(:func:`page_snippet`), and the notebook.

A snippet is a plain Python script in the "percent" format (``# %% Title``
starts a cell: VS Code, Spyder and Jupytext read it as cells), so the same text
is the ``.py`` download and, cell by cell, the ``.ipynb`` one
(:func:`notebook`). Every value is written as a literal that reads back to the
same float (``repr``), so the snippet fits the very model the page fitted.
"""

from __future__ import annotations

import json
import math
import textwrap
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

__all__ = [
    "LINE",
    "Snippet",
    "array_literal",
    "call",
    "cells",
    "clicked_lines",
    "code_value",
    "comment",
    "data_lines",
    "data_name",
    "data_section",
    "generated_lines",
    "generator_section",
    "indented",
    "kernel_keywords",
    "kernel_name",
    "labels_literal",
    "literal",
    "notebook",
    "page_snippet",
    "section",
    "view_title",
]

#: The longest line the writer lays out (PEP 8's 79: the app's popover shows
#: about 80 columns).
LINE = 79
#: What starts a cell (the percent format).
CELL = "# %%"


@dataclass(frozen=True)
class Snippet:
    """The code for one view: ``svmlab`` (svmlab's own estimators and figures)
    and ``sklearn`` (scikit-learn's ``sklearn.svm`` and matplotlib; None where
    the page has no scikit-learn counterpart at all). ``title`` names the view
    in a line; ``stem`` is the downloads' file name without its suffix."""

    title: str
    stem: str
    svmlab: str
    sklearn: str | None = None

    def flavours(self) -> dict[str, str]:
        """Flavour name -> code, svmlab first."""
        out = {"svmlab": self.svmlab}
        if self.sklearn is not None:
            out["scikit-learn"] = self.sklearn
        return out


def literal(value: Any) -> str:
    """``value`` as Python source that evaluates back to it: floats by ``repr``
    (so they read back bit for bit), infinity as ``float("inf")``, NumPy
    scalars as Python ones, tuples, lists and dicts element by element."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, bool) or value is None:
        return repr(value)
    if isinstance(value, float):
        if math.isinf(value):
            return 'float("inf")' if value > 0 else '-float("inf")'
        if math.isnan(value):
            return 'float("nan")'
        short = f"{value:.0e}".replace("e+0", "e").replace("e+", "e")
        if abs(value) >= 1e6 and float(short) == value:
            return short  # 1e10, not 10000000000.0
        return repr(value)
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, int):
        return repr(value)
    if isinstance(value, tuple):
        inner = ", ".join(literal(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, list):
        return "[" + ", ".join(literal(v) for v in value) + "]"
    if isinstance(value, Mapping):
        return (
            "{"
            + ", ".join(f"{literal(k)}: {literal(v)}" for k, v in value.items())
            + "}"
        )
    raise TypeError(f"no literal for {type(value).__name__}")


def code_value(value: Any) -> str:
    """:func:`literal`, except that a ``str`` starting with ``=`` is the code
    after it (``"=gamma"``: a variable the snippet set)."""
    if isinstance(value, str) and value.startswith("="):
        return value[1:]
    return literal(value)


def call(
    name: str,
    kwargs: Mapping[str, Any],
    indent: str = "",
    prefix: str = "",
    args: tuple[Any, ...] = (),
) -> str:
    """``prefix + name(*args, k=v, ...)`` on one line when it fits, else one
    argument per line (values written by :func:`code_value`)."""
    parts = [code_value(a) for a in args]
    parts += [f"{k}={code_value(v)}" for k, v in kwargs.items()]
    one = f"{indent}{prefix}{name}({', '.join(parts)})"
    if len(one) <= LINE:
        return one
    inside = f"{indent}    {', '.join(parts)}"
    if len(inside) <= LINE:
        return f"{indent}{prefix}{name}(\n{inside}\n{indent})"
    inner = "".join(f"{indent}    {p},\n" for p in parts)
    return f"{indent}{prefix}{name}(\n{inner}{indent})"


def _wrapped(items: list[str], indent: str) -> list[str]:
    lines, line = [], indent
    for item in items:
        piece = item + ","
        if len(line) + len(piece) + 1 > LINE and line.strip():
            lines.append(line.rstrip())
            line = indent
        line += piece + " "
    if line.strip():
        lines.append(line.rstrip())
    return lines


def array_literal(values: ArrayLike) -> str:
    """A 1-D or 2-D array as ``np.array([...])``, rows of a 2-D array one to a
    line, a 1-D array wrapped at :data:`LINE` columns."""
    a = np.asarray(values, dtype=np.float64)
    if a.ndim == 1:
        if a.size == 0:
            return "np.array([])"
        body = _wrapped([literal(float(v)) for v in a], "    ")
        one = "np.array([" + ", ".join(literal(float(v)) for v in a) + "])"
        return (
            one if len(one) <= LINE - 12 else "np.array([\n" + "\n".join(body) + "\n])"
        )
    if a.size == 0:
        return f"np.empty((0, {a.shape[1]}))"
    rows = ["[" + ", ".join(literal(float(v)) for v in row) + "]" for row in a]
    return "np.array([\n" + "\n".join(_wrapped(rows, "    ")) + "\n])"


#: The seed offset of a page's fresh test points
#: (``svmlab.ui.frame.data_source.DataRequest.fresh``).
FRESH_SEED = 10_000


def generated_lines(
    make: str,
    source: str,
    items: Mapping[str, Any],
    names: tuple[str, str],
    n_test: int,
    purpose: str,
) -> list[str]:
    """A generator's data with the page's seed (``names``, say ``("X", "y")``)
    and ``n_test`` fresh points of it for ``purpose``, drawn as the pages draw
    them: the same settings, the seed plus :data:`FRESH_SEED`."""
    seed = int(items.get("random_state", 0))
    test_items = {**items, "n_samples": int(n_test), "random_state": seed + FRESH_SEED}
    x, y = names
    return [
        f"# The {source} generator with the page's seed.",
        call(make, items, prefix=f"{x}, {y} = ", args=(source,)),
        f"# {purpose}: {n_test} fresh points of the same generator.",
        call(make, test_items, prefix=f"{x}_test, {y}_test = ", args=(source,)),
    ]


def clicked_lines(added: Iterable[tuple], what: str, target: str) -> list[str]:
    """The lines that append the points clicked in on a page, ``added`` (each
    its inputs then its target), to ``X`` and to the target array ``target``;
    ``what`` says in the comment what a point's numbers are."""
    points = np.asarray(added, dtype=np.float64)
    return [
        f"# Points clicked in on the page: {what}.",
        f"X = np.vstack([X, {array_literal(points[:, :-1])}])",
        f"{target} = np.concatenate([{target}, {array_literal(points[:, -1])}])",
    ]


def labels_literal(y: ArrayLike) -> str:
    """Labels as an array literal: numbers as :func:`array_literal`, text
    (an upload's own labels) as an array of strings."""
    if np.asarray(y).dtype.kind in "fiu":
        return array_literal(y)
    return f"np.array({literal([str(v) for v in y])})"


def data_lines(
    make: str,
    source: str,
    items: Mapping[str, Any],
    upload: tuple[ArrayLike, ArrayLike] | None,
) -> list[str]:
    """``X, y``: the generator ``make(source, **items)`` with the page's
    seed, or the uploaded points written inline."""
    if upload is None:
        return [
            f"# The {source} generator with the page's seed.",
            call(make, items, prefix="X, y = ", args=(source,)),
        ]
    X, y = upload
    return [
        "# The uploaded points.",
        f"X = {array_literal(X)}",
        f"y = {labels_literal(y)}",
    ]


def data_section(title: str, imports: str, lines: Iterable[str]) -> str:
    """A page's first cell, ``title``: NumPy, then the flavour's ``imports``
    (a block of lines), then the ``lines`` that make the data."""
    return section(title, "import numpy as np", "", imports, "", *lines)


def generator_section(
    source: str,
    items: Mapping[str, Any],
    upload: tuple[ArrayLike, ArrayLike] | None,
    imports: str,
) -> str:
    """The first cell of a page whose data are svmlab's generator
    (``datasets.make(source, **items)``, the page's seed) or the uploaded
    points (:func:`data_lines`)."""
    return data_section(
        "The data", imports, data_lines("datasets.make", source, items, upload)
    )


def indented(lines: Iterable[str], indent: str = "    ") -> list[str]:
    """``lines`` one block deeper (a loop's body written flat), empty lines
    left empty."""
    return [indent + line if line else line for line in lines]


def comment(text: str, indent: str = "") -> list[str]:
    """``text`` as comment lines wrapped at :data:`LINE` columns."""
    width = LINE - len(indent) - 2
    return [f"{indent}# {line}" for line in textwrap.wrap(text, width)]


def section(title: str, *lines: str) -> str:
    """A cell: ``# %% title`` and its lines (empty strings dropped)."""
    body = "\n".join(lines).strip("\n")
    return f"{CELL} {title}\n{body}"


def script(header: str, sections: Iterable[str]) -> str:
    """A whole snippet: a comment header (each line prefixed ``# ``), then the
    cells, separated by blank lines."""
    wrapped = [
        part
        for line in header.splitlines()
        for part in (textwrap.wrap(line, LINE - 2) or [""])
    ]
    head = "\n".join(f"# {line}".rstrip() for line in wrapped)
    return head + "\n\n" + "\n\n".join(sections).rstrip() + "\n"


def data_name(source: str, upload: Any) -> str:
    """The data as a view's title names them: the generator, or "uploaded
    points" when ``upload`` holds the page's uploaded points."""
    return "uploaded points" if upload is not None else source


def view_title(page: str, source: str, upload: Any, words: str) -> str:
    """A view's title: the page's name, the data (:func:`data_name`), then
    the view's own ``words``."""
    return f"{page}: {data_name(source, upload)}{words}"


def kernel_name(kernel: str) -> str:
    """A kernel as a view's title names it (Gaussian with its capital)."""
    return "Gaussian" if kernel == "gaussian" else kernel


def kernel_keywords(
    kernel: str,
    sigma: float,
    degree: int,
    sigmoid: tuple[float, float] | None = None,
) -> dict[str, Any]:
    """svmlab's kernel keywords as a page sets them: the kernel's name and
    only the parameter that kernel reads (σ of the Gaussian, the polynomial's
    degree, the sigmoid's ``(scale, coef0)`` where the page sets them)."""
    out: dict[str, Any] = {"kernel": kernel}
    if kernel == "gaussian":
        out["sigma"] = float(sigma)
    elif kernel == "polynomial":
        out["degree"] = int(degree)
    elif kernel == "sigmoid" and sigmoid is not None:
        out["scale"], out["coef0"] = float(sigmoid[0]), float(sigmoid[1])
    return out


#: The svmlab flavour's last header line: how to get svmlab.
NEEDS_SVMLAB = "Needs svmlab (pip install svmlab, or pip install . in its checkout)."


def page_snippet(
    title: str,
    page: str,
    does: str,
    own: Iterable[str],
    sklearn: Iterable[str],
    *,
    stem: str,
    sklearn_tools: str = "scikit-learn and matplotlib",
    data_from: str = "the data come from svmlab's generator",
) -> Snippet:
    """A page's two flavours under their headers: svmlab's ``own`` sections
    (the header says what the script ``does``) and scikit-learn's ``sklearn``
    sections (the header names the ``sklearn_tools`` and where the data come
    from). ``page`` is the page's name as its menu shows it."""
    own_header = (
        f"Code for this view: {title}.\n"
        f"Written by svmlab's {page} page: {does}\n{NEEDS_SVMLAB}"
    )
    sklearn_header = (
        f"Code for this view: {title}.\n"
        f"Written by svmlab's {page} page, with {sklearn_tools};\n"
        f"{data_from} (pip install svmlab)."
    )
    return Snippet(
        title=title,
        stem=stem,
        svmlab=script(own_header, own),
        sklearn=script(sklearn_header, sklearn),
    )


def cells(code: str) -> list[tuple[str, str]]:
    """``(kind, text)`` cells of a percent-format script: the header comment
    as markdown, then a markdown title and a code cell per ``# %%`` section."""
    out: list[tuple[str, str]] = []
    head, *parts = code.split(f"\n{CELL} ")
    title = "\n".join(line.removeprefix("#").strip() for line in head.splitlines())
    out.append(("markdown", title.strip()))
    for part in parts:
        name, _, body = part.partition("\n")
        out.append(("markdown", f"### {name.strip()}"))
        out.append(("code", body.strip("\n")))
    return out


def notebook(code: str) -> str:
    """A Jupyter notebook (nbformat 4) of the snippet, one cell per section,
    as JSON text (the ``.ipynb`` download)."""

    def source(text: str) -> list[str]:
        lines = text.splitlines(keepends=True)
        return lines

    book = {
        "nbformat": 4,
        "nbformat_minor": 5,
        "metadata": {
            "kernelspec": {
                "display_name": "Python 3",
                "language": "python",
                "name": "python3",
            },
            "language_info": {"name": "python"},
        },
        "cells": [],
    }
    for i, (kind, text) in enumerate(cells(code)):
        cell: dict[str, Any] = {
            "cell_type": kind,
            "id": f"cell-{i}",
            "metadata": {},
            "source": source(text),
        }
        if kind == "code":
            cell["execution_count"] = None
            cell["outputs"] = []
        book["cells"].append(cell)
    return json.dumps(book, indent=1, ensure_ascii=False) + "\n"
