"""Solvers: the page is ``svmlab/ui/solvers/page.py``; this script runs it."""

from svmlab.ui.solvers import page

page.render()
