"""Data: the generated data sets and a student's CSV files.

- :mod:`~svmlab.datasets.two_class`: two-class data in the plane, one generator
  per picture in the sources (:func:`make`, :data:`GENERATORS`, :data:`PARAMS`);
  its public names are re-exported here (``svmlab.datasets.make("spiral")``);
- :mod:`~svmlab.datasets.multiclass`: three or more classes (labels 0 ... k-1);
- :mod:`~svmlab.datasets.regression`: one input and a real target (SVR);
- :mod:`~svmlab.datasets.csv_table`: a CSV file read as a table of text;
- :mod:`~svmlab.datasets.csv_data`: that table as points and labels, and back;
- :mod:`~svmlab.datasets.regression_csv`: that table as regression data;
- :mod:`~svmlab.datasets.split`: Explore's stratified train/test split
  (:func:`stratified_split`, re-exported here).
"""

from __future__ import annotations

from svmlab.datasets import split, two_class
from svmlab.datasets.split import *  # noqa: F403 (re-exported: the package's face)
from svmlab.datasets.two_class import *  # noqa: F403 (re-exported: the package's face)

__all__ = [*two_class.__all__, *split.__all__]
