"""The Explore page's panels below and beside the main figure.

The numbers (st.metric), the theory expander (st.latex), the downloads (CSV and
JSON) and the iteration playback. Each function draws one panel from a fitted
:class:`~svmlab.ui.explore.cache.FitRecord` and the settings; none computes a number the
engine does not already hold, except error rates and counts.
"""

from __future__ import annotations

import csv
import html
import io
import json
import math
import re
import sys
from collections.abc import Callable
from typing import Any

import numpy as np
import streamlit as st

from svmlab import figures, losses, solvers
from svmlab.errors import SvmlabError
from svmlab.figures.theme import recolour
from svmlab.snippets import explore_code
from svmlab.ui.explore import upload
from svmlab.ui.explore.cache import Data, Edits, FitRecord
from svmlab.ui.explore.settings import ExploreSettings
from svmlab.ui.frame import keyed, theme_choice, view_code
from svmlab.ui.frame.download import download
from svmlab.ui.frame.panels import CHART_CONFIG, internal_error, plotly_chart  # noqa: F401

__all__ = [
    "data_csv",
    "downloads",
    "edit_tools",
    "legend_key",
    "model_json",
    "number_cells",
    "numbers",
    "plane",
    "playback",
    "reset_button",
    "solver_math",
    "theory",
]


#: The plane's height in pixels (the page fits it to the screen; a slide's
#: frame is drawn at it).
PLANE_HEIGHT = 760


def plane(
    model: Any,
    X: np.ndarray,
    y: np.ndarray,
    data: Data,
    test: tuple | None,
    added: np.ndarray | None,
    **view: Any,
) -> dict[str, Any]:
    """The decision plane as Explore draws it (:func:`svmlab.figures.decision_spec`
    on the data's bounds, the points clicked in marked, the key beside it, not
    in it: :func:`legend_key`): the page's chart, the room's followers' and
    every frame of a slide's GIF alike. ``view`` is the rest of the picture
    (``scale``, ``snapshot``, ``axis_titles``, the chart's ``dragmode`` and
    ``highlight``)."""
    return figures.decision_spec(
        model,
        X,
        y,
        bounds=data.bounds,
        test=test,
        new_points=added,
        legend="none",
        height=PLANE_HEIGHT,
        **view,
    )


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100.0 * value:.1f} %"


def _num(value: float | None) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return f"{value:.4g}" if math.isfinite(value) else "∞"


def edit_tools() -> tuple[float, str]:
    """The row above the chart: class of a click, what a drag does.

    Returns the label a click adds (+1.0 or -1.0; 0.0 when a click inspects the
    nearest point instead) and the drag mode: Plotly's ("select", "lasso",
    "zoom") or "move" (a point dragged to a new place keeps its index;
    :mod:`svmlab.ui.frame.chart`).
    """
    # One short row (labels folded into the options): on a 720-line projector
    # every line above the chart is a line the chart loses.
    tools = st.columns([4.4, 7.6], vertical_alignment="center")
    labels = [1.0, -1.0, 0.0]  # 0: a click picks the point to inspect
    label = tools[0].radio(
        "A click on the chart adds",
        labels,
        index=keyed.index("explore_add_class", labels),
        format_func={1.0: "click adds +1 ●", -1.0: "−1 ■", 0.0: "inspects"}.get,
        horizontal=True,
        key="explore_add_class",
        label_visibility="collapsed",
    )
    modes = ["select", "lasso", "move", "zoom"]
    dragmode = tools[1].radio(
        "Dragging on the chart",
        modes,
        index=keyed.index("explore_drag", modes),
        format_func={
            "select": "drag removes (box)",
            "lasso": "(lasso)",
            "move": "moves a point",
            "zoom": "zooms",
        }.get,
        horizontal=True,
        key="explore_drag",
        label_visibility="collapsed",
    )
    return float(label), str(dragmode)


def reset_button(where: Any, reset: Callable[[], None]) -> None:
    """The button back to the generated data (beside the page's title: the
    row of edit tools is full at 1280 px)."""
    where.button(
        "Reset points",
        on_click=reset,
        key="explore_reset",
        help="Back to the generated data: clicked points removed, removed and "
        "moved points back (Ctrl+Z undoes it).",
    )


def _swatch(entry: dict) -> str:
    """One legend entry's symbol drawn with CSS (``st.html`` drops inline SVG):
    a filled or hollow circle or square, or a solid or dashed line."""
    colour = html.escape(entry["colour"])
    edge = html.escape(entry["line_colour"])
    width = max(round(float(entry["line_width"])), 1)
    box = "display:inline-block;box-sizing:border-box;flex:none;"
    if entry["kind"] == "line":
        style = "solid" if entry["dash"] == "solid" else "dashed"
        return (
            f'<span style="{box}width:26px;height:0;'
            f'border-top:{width + 1}px {style} {colour}"></span>'
        )
    hollow = entry["symbol"].endswith("-open")
    size = 17 if hollow and "SV" in entry["name"] else 11
    fill = "transparent" if hollow else colour
    ring = colour if hollow else edge
    radius = "2px" if entry["symbol"].startswith("square") else "50%"
    return (
        f'<span style="{box}width:{size}px;height:{size}px;margin:0 '
        f"{(26 - size) / 2:g}px;background:{fill};border:{width}px solid {ring};"
        f'border-radius:{radius}"></span>'
    )


def _key_name(name: str) -> str:
    """An entry's name with its parenthesis kept on one line: a narrow key wraps
    "free SV (0 < α < C)" before the parenthesis, never inside it."""
    head, sep, tail = name.partition(" (")
    if not sep:
        return html.escape(name)
    return (
        f'{html.escape(head)} <span style="white-space:nowrap">'
        f"({html.escape(tail)}</span>"
    )


def legend_key(entries: list[dict], columns: int = 2) -> None:
    """The main chart's legend as a compact key beside it (``columns`` wide), in
    the session's theme."""
    theme = theme_choice.current()
    entries = [
        {**e, "colour": recolour(e["colour"], theme)}
        | {"line_colour": recolour(e["line_colour"], theme)}
        for e in entries
    ]
    cells = "".join(
        '<div style="display:flex;align-items:center;gap:0.35rem">'
        f"{_swatch(e)}<span>{_key_name(e['name'])}</span></div>"
        for e in entries
    )
    st.html(
        '<div class="svmlab-key" style="display:grid;'
        f"grid-template-columns:repeat({columns},minmax(0,1fr));gap:0.2rem 0.8rem;"
        f'font-size:0.95rem;margin-top:0.6rem">{cells}</div>'
    )


def number_cells(record: FitRecord) -> list[tuple[str, str]]:
    """The numbers panel as (label, text) pairs."""
    m = record.model
    gap = m.duality_gap_
    nu = record.nu_model
    first: list[tuple[str, str]] = []
    if nu is not None:  # the ν-property first: the bound, live
        first = [
            ("margin errors", _pct(nu.margin_error_fraction_)),
            ("ν", _pct(nu.nu)),
            ("SV fraction", _pct(nu.support_fraction_)),
            ("ρ", _num(nu.rho_)),
            ("equivalent C", _num(nu.C_)),
        ]
    return [
        *first,
        ("support vectors", f"{record.n_free + record.n_bound} / {len(record.y)}"),
        ("free SVs", str(record.n_free)),
        ("bound SVs", str(record.n_bound)),
        ("training error", _pct(record.train_error)),
        ("test error", _pct(record.test_error)),
        ("objective", _num(m.objective_)),
        ("bias b", _num(float(np.ravel(m.intercept_)[0]))),
        ("KKT violation", f"{m.kkt_violation_:.1e}"),
        ("duality gap", "–" if gap is None else f"{gap:.1e}"),
        (f"iterations ({m.solver_})", str(m.n_iter_)),
        ("fit time", f"{1000.0 * m.fit_time_:.0f} ms"),
        *(
            [("smallest eigenvalue of K", f"{record.lam_min:.3g}")]
            if record.lam_min is not None
            else []
        ),
    ]


_GRID = (
    '<div class="svmlab-numbers" style="display:grid;'
    "grid-template-columns:repeat(2,minmax(0,1fr));gap:0.9rem 1.2rem;"
    'font-variant-numeric:tabular-nums">{}</div>'
)
_CELL = (
    '<div style="{frame}"><div style="font-size:0.95rem;opacity:0.75">{label}</div>'
    '<div data-svmlab-number="{label}" style="font-size:{size};line-height:1.2;'
    'overflow-wrap:anywhere">{value}</div></div>'
)


def _size(value: str) -> str:
    """Font size of a number cell: a long value ("1.775e+05") a size smaller, so
    that it stays on one line in a half column at 1280 px instead of breaking
    inside the exponent."""
    return "1.9rem" if len(value) <= 7 else "1.5rem"


_CELL_BIG = (
    '<div style="{frame}"><div style="font-size:1.25rem;opacity:0.8">{label}</div>'
    '<div data-svmlab-number="{label}" style="font-size:2.2rem;line-height:1.15;'
    'font-weight:600;white-space:nowrap">{value}</div></div>'
)
#: The frame around the number a preset points at, in the theme's frame colour
#: (Okabe-Ito's orange on white was 2.3 : 1, too faint to point at anything).
_FRAME = "outline:3px solid {colour};outline-offset:4px;border-radius:4px"


#: ν-SVC's numbers classroom mode adds: the bound, live.
NU_NUMBERS = ("margin errors", "ν", "SV fraction", "equivalent C")
#: The few numbers classroom mode shows, large (the rest stay one click away).
CLASSROOM_NUMBERS = ("support vectors", "training error", "test error", "bias b")


def numbers(
    record: FitRecord,
    highlight: str | None = None,
    classroom: bool = False,
) -> None:
    """SVs free/bound, errors, objective, b, KKT violation / gap, iterations, time.

    One HTML block rather than ten ``st.metric`` elements: the browser redraws
    it on every slider move, and ten metrics in columns cost it ~30 ms more.
    ``highlight`` is the label of the number a teaching preset points at (framed);
    in ``classroom`` mode only :data:`CLASSROOM_NUMBERS` (and the highlighted one)
    are shown, larger. A warning follows when the solver stopped before converging.
    """
    cells = number_cells(record)
    if classroom:
        keep = {*CLASSROOM_NUMBERS, highlight}
        if record.nu_model is not None:
            keep |= {*NU_NUMBERS}
        cells = [(label, value) for label, value in cells if label in keep]
    template = _CELL_BIG if classroom else _CELL
    frame = _FRAME.format(colour=theme_choice.current().frame)
    cells_html = "".join(
        template.format(
            label=html.escape(label),
            value=html.escape(value),
            frame=frame if label == highlight else "",
            size=_size(value),
        )
        for label, value in cells
    )
    st.html(_GRID.format(cells_html))
    if record.psd_note:
        st.info(record.psd_note, icon=":material/warning:")
    model = record.model
    if record.warning:
        st.warning(record.warning, icon="⚠️")
    elif not model.converged_ and not record.notes:
        st.warning("The solver did not converge.", icon="⚠️")
    rule = model.solution_.extras.get("stop_note")
    for note in record.notes:
        # A looser stop rule chosen on purpose (Lee's) is information; numerical
        # trouble is a warning.
        if note == rule:
            st.info(note, icon=":material/info:")
        else:
            st.warning(note, icon="⚠️")


# -- theory -------------------------------------------------------------------------

_PRIMAL = (
    r"\min_{f,\,b}\ \tfrac12\|f\|_{\mathcal H}^2 + C\sum_{i=1}^n \ell(m_i),"
    r"\qquad m_i = y_i f(x_i),\quad f(x) = \sum_j \alpha_j y_j k(x_j, x) + b"
)
_BOX = {
    "unregularized": (r"K", r",\quad \sum_i \alpha_i y_i = 0"),
    "regularized": (r"K + \mathbf 1\mathbf 1^\top", r"\quad (b = \sum_i \alpha_i y_i)"),
    "none": (r"K", r"\quad (b = 0)"),
}
_STATIONARY = (
    r"\text{no QP dual: at a stationary point } \alpha_i = -C\,\ell'(m_i),"
    r"\ \text{(the solver below iterates to it)}"
)


_NU_PRIMAL = (
    r"\begin{gathered}\min_{w,\,b,\,\rho,\,\xi}\ \tfrac12\|w\|^2 - \nu\rho"
    r" + \tfrac1n\sum_i \xi_i\\ \text{s.t.}\quad y_i(w^\top\phi(x_i) + b)"
    r" \ge \rho - \xi_i,\quad \xi_i \ge 0,\quad \rho \ge 0\end{gathered}"
)
_NU_DUAL = (
    r"\begin{gathered}\min_a\ \tfrac12\, a^\top Y K Y a\\ \text{s.t.}\quad"
    r" 0 \le a_i \le 1,\quad y^\top a = 0,\quad \mathbf 1^\top a = \nu n"
    r"\end{gathered}"
)


def dual_latex(loss: str, bias: str) -> tuple[str, str]:
    """The dual (or the optimality condition) for ``loss`` and ``bias``, and its
    source. The constraints go on a line of their own: on one line the ramp's
    dual ran past a 1280 px screen (KaTeX does not wrap)."""
    K, extra = _BOX.get(bias, _BOX["unregularized"])
    objective = r"\max_\alpha\ \sum_i \alpha_i - \tfrac12\,\alpha^\top Y"

    def two_lines(first: str, constraints: str) -> str:
        body = rf"{first}\\ \text{{s.t.}}\quad {constraints}"
        return rf"\begin{{gathered}}{body}\end{{gathered}}"

    if loss == "hinge":
        text = two_lines(rf"{objective} ({K}) Y\alpha", rf"0 \le \alpha_i \le C{extra}")
        return text, "Sugiyama eq. (27.3); Zhu's notes; Rifkin (regularized b)"
    if loss == "squared_hinge":
        text = two_lines(rf"{objective} ({K} + I/C) Y\alpha", rf"\alpha_i \ge 0{extra}")
        return text, "Sugiyama §27.6.2; the bound-free form: Notes on the sources"
    if loss == "ramp":
        text = two_lines(
            rf"{objective} ({K}) Y\alpha",
            rf"-\beta_i \le \alpha_i \le C - \beta_i{extra},"
            rf"\quad \beta_i = C\,[m_i < 0]",
        )
        return text, "CCCP subproblem: Collobert, Sinz, Weston, Bottou (2006)"
    return _STATIONARY, "Lee (2006) eqs. (7)-(9); Sugiyama §27.6.3"


def solver_math(name: str) -> str | None:
    """The ``.. math::`` block of solver ``name``'s module docstring (STYLE 15)."""
    spec = solvers.SOLVERS.get(name)
    module = sys.modules.get(spec.solve.__module__) if spec else None
    doc = (module.__doc__ or "") if module else ""
    match = re.search(r"\.\. math::\n\n((?:[ \t]+.*\n|\n)+)", doc)
    if not match:
        return None
    return "\n".join(line.strip() for line in match.group(1).splitlines()).strip()


def theory(s: ExploreSettings) -> None:
    """The loss, the primal and dual problems, and the solver, with their sources."""
    try:
        loss = losses.make_loss(s.loss, delta=s.delta)
        solver = solvers.resolve_solver(
            s.solver,
            s.loss,
            fit_intercept=s.fit_intercept,
            hard_margin=math.isinf(s.effective_C),
        )
    except SvmlabError:
        solver = None
        loss = losses.make_loss(s.loss)
    # A toggle, not an expander: collapsed expanders still typeset their
    # formulas on every rerun, which costs the browser time on each slider move.
    shown = st.toggle(
        "Show the theory: the loss, the dual and the solver",
        value=bool(keyed.value("explore_theory", False)),
        key="explore_theory",
    )
    if not shown:
        return
    if s.is_nu:
        with st.container(border=True):
            st.markdown(
                "**ν-SVC** (Schölkopf, Smola, Williamson & Bartlett 2000; LIBSVM's "
                "`Solver_NU`, Chang & Lin 2001): the primal trades C for ν"
            )
            st.latex(_NU_PRIMAL)
            st.markdown(
                "**Dual** (LIBSVM's scaling, 0 ≤ aᵢ ≤ 1): two equalities, so "
                "each SMO step takes both variables from one class"
            )
            st.latex(_NU_DUAL)
            st.markdown(
                "The picture is f divided by the margin r, with margins at ±1: "
                "the C-SVC with C = 1/r has the same f (the numbers' "
                '"equivalent C"). At most ν n points are margin errors, at '
                "least ν n are support vectors."
            )
        return
    with st.container(border=True):
        st.markdown(f"**Loss: {loss.title}** ({loss.source})")
        st.latex(loss.latex)
        st.markdown(
            "**Primal** (one form for every loss and solver: "
            "[Notes on the sources](Notes))"
        )
        st.latex(_PRIMAL)
        text, source = dual_latex(s.loss, s.bias)
        st.markdown(f"**Dual** ({source})")
        st.latex(text)
        if solver in solvers.SOLVERS:
            spec = solvers.SOLVERS[solver]
            kind = "iterative" if spec.iterative else "direct"
            st.markdown(f"**Solver: {spec.title}** ({kind}; {spec.source})")
            maths = solver_math(solver)
            if maths:
                st.latex(maths)


# -- export -------------------------------------------------------------------------


def data_csv(data: Data, record: FitRecord, n_added: int) -> str:
    """Training (edited) and test points as CSV: x1, x2, y, split."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["x1", "x2", "y", "split"])
    n = len(record.y)
    for i, ((a, b), label) in enumerate(zip(record.X, record.y, strict=True)):
        split = "added" if i >= n - n_added else "train"
        writer.writerow([repr(float(a)), repr(float(b)), int(label), split])
    for (a, b), label in zip(data.X_test, data.y_test, strict=True):
        writer.writerow([repr(float(a)), repr(float(b)), int(label), "test"])
    return out.getvalue()


def model_json(record: FitRecord, s: ExploreSettings) -> str:
    """The fitted model: parameters, alpha, intercept, support, classes, numbers."""
    m = record.model
    params = {
        k: (None if isinstance(v, float) and math.isinf(v) else v)
        for k, v in m.get_params().items()
        if k != "solver_options"
    }
    payload = {
        "svmlab_model": 1,
        "parameters": params,
        "hard_margin": math.isinf(m.C),
        "solver_used": m.solver_,
        "classes": [float(c) for c in m.classes_],
        "intercept": float(m.intercept_[0]),
        "alpha": [float(a) for a in m.alpha_],
        "support": [int(i) for i in m.support_],
        "sv_state": [int(v) for v in m.sv_state_],
        "objective": float(m.objective_) if math.isfinite(m.objective_) else None,
        "kkt_violation": float(m.kkt_violation_),
        "n_iter": int(m.n_iter_),
        "converged": bool(m.converged_),
        "settings_query": s.to_query(),
    }
    return json.dumps(payload, indent=1)


def downloads(data: Data, record: FitRecord, s: ExploreSettings, edits: Edits) -> None:
    """Download buttons for the data (CSV) and the model (JSON), the code for
    this view (:mod:`svmlab.ui.frame.view_code`); the share hint.

    Uploaded data go back out in the upload's own format and row order
    (:func:`svmlab.ui.explore.upload.data_csv`).
    """
    held = upload.held(s.upload)

    def text() -> str:
        if held is not None:
            return upload.data_csv(held, s.test_fraction, s.seed, edits)
        return data_csv(data, record, len(edits[0]))

    stem = held.name.rsplit(".", 1)[0] if held is not None else None
    name = f"{stem}_svmlab.csv" if stem else f"svmlab_{s.dataset}.csv"
    left, right, code = st.columns(3)
    points = None if held is None else (held.X, held.y)
    view_code.popover(explore_code(s, edits, points), "explore", where=code)
    download(left, "Download data (CSV)", text, name, "explore_download_csv")
    download(
        right,
        "Download model (JSON)",
        lambda: model_json(record, s),
        f"svmlab_{s.source}_model.json",
        "explore_download_json",
    )
    st.caption(
        "Share: the address bar holds every setting, so copying the link gives "
        "the same picture (points added by clicking are not in the link: "
        "download the CSV for those). Slides, above the chart, saves it for a slide."
        if held is None
        else "Share: the link holds every setting but not the uploaded data; "
        "send the CSV with it. Slides, above the chart, saves it for a slide."
    )


# -- playback -----------------------------------------------------------------------


def _step(delta: int, last: int) -> None:
    key = "explore_step"
    st.session_state[key] = int(
        np.clip(st.session_state.get(key, last) + delta, 0, last)
    )


def _toggle_play() -> None:
    key = "explore_playing"
    st.session_state[key] = not st.session_state.get(key, False)


def playback(record: FitRecord, draw: Callable[[int], None]) -> None:
    """Step or play through ``record.model.history_``; ``draw(k)`` shows record k."""
    history = record.model.history_
    last = len(history) - 1
    if last < 1:
        st.info("This fit recorded fewer than two iterations: nothing to replay.")
        return
    if st.session_state.setdefault("explore_step", last) > last:
        st.session_state["explore_step"] = last
    playing = bool(st.session_state.get("explore_playing", False))

    @st.fragment(run_every=0.7 if playing else None)
    def panel() -> None:
        now_playing = bool(st.session_state.get("explore_playing", False))
        if now_playing != playing:
            st.rerun(scope="app")
        if now_playing:
            current = st.session_state.get("explore_step", last)
            st.session_state["explore_step"] = 0 if current >= last else current + 1
        cols = st.columns([1, 1, 2, 8], vertical_alignment="bottom")
        buttons = (
            ("◀", "explore_step_back", _step, (-1, last), "J", "One snapshot back"),
            ("▶", "explore_step_next", _step, (1, last), "L", "One snapshot forward"),
            (
                "play / pause",
                "explore_play_key",
                _toggle_play,
                (),
                "K",
                "Play or pause",
            ),
        )
        for col, (label, key, click, args, shortcut, what) in zip(
            cols, buttons, strict=False
        ):
            col.button(
                label,
                key=key,
                on_click=click,
                args=args,
                shortcut=shortcut,
                help=f"{what} ({shortcut}).",
            )
        cols[2].toggle(
            "play (K)",
            value=bool(keyed.value("explore_playing", False)),
            key="explore_playing",
        )
        k = cols[3].slider(
            "Recorded iteration (snapshot)",
            0,
            last,
            value=min(int(keyed.value("explore_step", last)), last),
            key="explore_step",
            help=f"{len(history)} snapshots; iteration "
            f"{history.iteration[0]} to {history.iteration[-1]}.",
        )
        draw(k)

    panel()
