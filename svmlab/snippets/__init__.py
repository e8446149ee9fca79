"""The code for a page's view: what a page shows, written as a Python script.

Each page of the app offers "Code for this view": a runnable script that
reproduces what the page shows now (the data, the model with every setting, the
numbers it prints, the figure), in two flavours where both exist: svmlab's own
estimators and figures, and scikit-learn's ``sklearn.svm`` with matplotlib, the
latter saying in a comment where svmlab's model has no scikit-learn
counterpart and what it fits instead. One generator per page, pure: it reads
the page's state (its settings or request, by attribute; nothing of the app is
imported) and returns a :class:`~svmlab.snippets.writer.Snippet`; the app's
``svmlab/ui/frame/view_code.py`` draws it.

- :mod:`~svmlab.snippets.writer`: literals, calls, inline points, the two
  flavours under their headers, the cells and the notebook (``.ipynb``) of a
  script;
- :mod:`~svmlab.snippets.sklearn_code`: svmlab's kernels in scikit-learn's terms
  and the matplotlib decision figure;
- one module per page: :mod:`~svmlab.snippets.explore`,
  :mod:`~svmlab.snippets.family`,
  :mod:`~svmlab.snippets.losses`, :mod:`~svmlab.snippets.multiclass`,
  :mod:`~svmlab.snippets.regression`, :mod:`~svmlab.snippets.selection`,
  :mod:`~svmlab.snippets.solvers`.
"""

from __future__ import annotations

from svmlab.snippets.explore import explore_code
from svmlab.snippets.family import family_code
from svmlab.snippets.losses import losses_code
from svmlab.snippets.multiclass import multiclass_code
from svmlab.snippets.regression import regression_code
from svmlab.snippets.selection import selection_code
from svmlab.snippets.solvers import solvers_code
from svmlab.snippets.writer import Snippet, notebook

__all__ = [
    "Snippet",
    "explore_code",
    "family_code",
    "losses_code",
    "multiclass_code",
    "notebook",
    "regression_code",
    "selection_code",
    "solvers_code",
]
