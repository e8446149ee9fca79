"""Regression: the page is ``svmlab/ui/regression/page.py``; this script runs it."""

from svmlab.ui.regression import page

page.render()
