"""Plotly figure builders: model + data in, ``go.Figure`` out (STYLE rule 1).

The only package of svmlab that imports plotly. Builders are pure: they never fit,
they only evaluate a fitted model (``decision_function``,
``history_decision_function``) and read its fitted attributes, or take numbers the
engine computed (:class:`svmlab.experiments.criterion_grid.SweepResult`, the
:mod:`svmlab.experiments.lee2006` result dict). Speed and size decisions are
measured facts in the project's tools notes; each module says which are its own.

One module per thing drawn; each imports only the ones listed before it.

- :mod:`~svmlab.figures.style`: the palette, fonts and layout helpers of every figure;
- :mod:`~svmlab.figures.plane`: the 2-D plane: grid, padded bounds, the decision
  surface as a PNG, the level lines f = 0, +-1, the too-small-sigma note;
- :mod:`~svmlab.figures.points`: the points layer (painted PNG, hover traces,
  legend swatches);
- :mod:`~svmlab.figures.model_state`: a fitted model's labels, alpha, margins and
  support-vector states, now or at a history snapshot;
- :mod:`~svmlab.figures.decision`: Explore's main picture (:func:`decision_figure`,
  :func:`decision_spec`, :func:`legend_entries`; the data alone: :func:`data_spec`);
- :mod:`~svmlab.figures.multipliers`: the histogram of the alpha_i
  (:func:`alpha_histogram`);
- :mod:`~svmlab.figures.loss`: the loss against the margin with the training
  margins as a rug (:func:`loss_figure`, :func:`loss_spec`);
- :mod:`~svmlab.figures.convergence`: objective and KKT violation per iteration
  (:func:`convergence_figure`);
- :mod:`~svmlab.figures.selection_style`: the Model selection figures' criterion
  colours, value titles, number format and title wrapping;
- :mod:`~svmlab.figures.slices`: the criteria against C and against sigma
  (:func:`slices_figure`);
- :mod:`~svmlab.figures.heatmap`: one criterion over the (C, sigma) grid
  (:func:`heatmap_figure`);
- :mod:`~svmlab.figures.margin_gap`: the data coloured by |approximate - exact|
  leave-one-out margin (:func:`margin_gap_figure`);
- :mod:`~svmlab.figures.lee2006`: Lee (2006), Figure 2 (:func:`lee_boxplot`);
- :mod:`~svmlab.figures.robustness`: the Losses page: a decision panel per loss
  with the outliers and the clean-data boundary, the outlier sweep, the losses
  and their influence, the objectives of several starts;
- :mod:`~svmlab.figures.path`: the regularisation path's curves with a cursor
  (:func:`path_figure`);
- :mod:`~svmlab.figures.kernel_views`: the Gram matrix as a heatmap, one support
  vector's bump over the plane, the degree-2 feature map in 3-D;
- :mod:`~svmlab.figures.multiclass`: the Multiclass page: a panel per method
  (:func:`multiclass_panel`) and the key they share (:func:`key_figure`);
- :mod:`~svmlab.figures.answers`: a room's answers to a question (a bar per
  choice, a histogram, the clicks' density over the plane; :func:`answers_spec`).

The public names are re-exported here (``figures.decision_figure``,
``figures.PALETTE``); names with a leading underscore are shared between these
modules only.
"""

from __future__ import annotations

from svmlab.figures.answers import answers_spec
from svmlab.figures.convergence import convergence_figure
from svmlab.figures.decision import (
    data_spec,
    decision_figure,
    decision_spec,
    legend_entries,
)
from svmlab.figures.heatmap import heatmap_figure, log_ticks
from svmlab.figures.kernel_views import bump_figure, gram_figure, lift_figure
from svmlab.figures.lee2006 import lee_boxplot
from svmlab.figures.loss import PAYS, RUG_OPACITY, loss_figure, loss_spec
from svmlab.figures.margin_gap import margin_gap_figure
from svmlab.figures.multipliers import alpha_histogram
from svmlab.figures.path import path_figure
from svmlab.figures.plane import (
    data_bounds,
    grid_points,
    surface_png,
    unresolved_width_note,
)
from svmlab.figures.points import points_png
from svmlab.figures.selection_style import CRITERION_STYLE, VALUE_TITLES
from svmlab.figures.slices import slices_figure
from svmlab.figures.style import FONT_SIZE, PALETTE, tint

__all__ = [
    "CRITERION_STYLE",
    "FONT_SIZE",
    "PALETTE",
    "PAYS",
    "RUG_OPACITY",
    "VALUE_TITLES",
    "alpha_histogram",
    "answers_spec",
    "bump_figure",
    "convergence_figure",
    "data_bounds",
    "data_spec",
    "decision_figure",
    "decision_spec",
    "gram_figure",
    "grid_points",
    "heatmap_figure",
    "lee_boxplot",
    "legend_entries",
    "lift_figure",
    "log_ticks",
    "loss_figure",
    "loss_spec",
    "margin_gap_figure",
    "path_figure",
    "points_png",
    "slices_figure",
    "surface_png",
    "tint",
    "unresolved_width_note",
]
